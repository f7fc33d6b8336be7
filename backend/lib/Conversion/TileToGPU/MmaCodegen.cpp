//===- MmaCodegen.cpp - @tensorcore: mma.sync m16n8k16, tiles in registers ===//
//
// Like the SIMT lowering, a code generator that walks the kernel's tile ops
// once in program order, but each tile gets one of four layouts:
//
//   Frag   an [M, N] tile in the m16n8k16 accumulator layout: the @launch
//          warps split the rows (warp w owns rows [w*16*mr, (w+1)*16*mr)),
//          and lane (g = lane/4, t = lane%4) holds, per 16-row block mi and
//          8-column block nj, rows g and g+8 at columns 2t and 2t+1: four
//          registers. dot results and everything elementwise from them.
//   Row    an [M, 1] row vector in the same rows: two registers per 16-row
//          block (rows g and g+8), the same in the four lanes of a quad; a
//          broadcast of it to [M, N] is the same registers read per column.
//   Splat  a scalar.
//   Smem   a loaded tile in shared memory (cp.async 16 bytes at a time), rows
//          padded by 16 bytes so ldmatrix's eight row addresses hit distinct
//          banks; read by dots through ldmatrix (.trans for a B operand that is
//          [K, N] row-major, V in dot(p, v)).
//
// The accumulator layout of m16n8k16 is its A-operand layout, so P (a Frag
// rounded to f16) feeds the second dot from registers. Row reductions reduce a
// lane's registers, then the quad with two butterfly shuffles. Shared memory
// is synchronised lazily: a barrier only before a read that follows writes or
// a write that follows reads, cp.async groups waited for only when their
// buffer is read. Anything else (a tile op or shape outside these layouts)
// makes the whole kernel go to the SIMT lowering, with the reason.
//
//===----------------------------------------------------------------------===//
#include "MmaCodegen.h"
#include "CodegenShared.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <utility>

using namespace mlir;

namespace ph::simt {
namespace {

struct TV {
  enum Kind { Smem, Frag, Row, Splat } kind = Splat;
  SmallVector<int64_t> shape;
  Type elem;
  int id = -1;          // Smem: buffer number
  int64_t offset = 0;   // Smem: bytes from the start of dynamic shared memory
  int64_t pitch = 0;    // Smem: elements between rows
  Value dyn;            // Smem: bytes added at run time (the stage of a double buffer), or null
  SmallVector<Value> regs;
  Value scalar;
  // Smem read as a dot's A operand inside a loop: its fragments, ldmatrix'd
  // once after the load, (mi * kSteps + kk) * 4 + r.
  SmallVector<Value> aFrags;
};

bool isMmaElem(Type t) { return t.isF16() || t.isBF16(); }

/// The first file range in `loc` (through names and fusions).
LocSpan locSpan(mlir::Location loc) {
  using namespace mlir;
  if (auto fl = dyn_cast<FileLineColRange>(loc))
    return {fl.getFilename().str(), int(fl.getStartLine()), int(fl.getStartColumn()), int(fl.getEndLine()),
            int(fl.getEndColumn())};
  if (auto fl = dyn_cast<FileLineColLoc>(loc))
    return {fl.getFilename().str(), int(fl.getLine()), int(fl.getColumn()), int(fl.getLine()), int(fl.getColumn())};
  if (auto nl = dyn_cast<NameLoc>(loc)) return locSpan(nl.getChildLoc());
  if (auto fu = dyn_cast<FusedLoc>(loc))
    for (Location l : fu.getLocations())
      if (LocSpan s = locSpan(l); !s.file.empty()) return s;
  return {};
}

class MmaCodegen {
public:
  MmaCodegen(func::FuncOp func, const SimtOptions &opts, SimtResult &result, MmaReport &report)
      : loc_(func.getLoc()), func_(func), opts_(opts), result_(result), report_(report), b_(func.getContext()) {}

  bool run(::mlir::gpu::GPUModuleOp gm);

private:
  bool fail(Operation *op, const Twine &msg) {
    std::string where = op ? locText(op->getLoc()) : "";
    report_.why = msg.str() + (where.empty() ? "" : " at " + where);
    return false;
  }
  void place(Value v, bool registers) {
    (registers ? report_.registerTiles : report_.sharedTiles)++;
    std::string where = locText(v.getLoc());
    report_.placements.push_back("`" + typeText(v.getType()) + "`" + (where.empty() ? "" : " at " + where) + ": " +
                                 (registers ? "registers" : "shared memory"));
    report_.tiles.push_back({typeText(v.getType()), locSpan(v.getLoc()), registers});
  }

  // ---- small emission helpers ----
  Location loc_;
  Value i32c(int64_t v) { return arith::ConstantOp::create(b_, loc_, b_.getI32IntegerAttr(int32_t(v))); }
  Value idxc(int64_t v) { return arith::ConstantIndexOp::create(b_, loc_, v); }
  Value add(Value a, Value b) { return arith::AddIOp::create(b_, loc_, a, b); }
  Value mul(Value a, Value b) { return arith::MulIOp::create(b_, loc_, a, b); }
  Value toI32(Value v) {
    return v.getType().isInteger(32) ? v : arith::IndexCastOp::create(b_, loc_, b_.getI32Type(), v).getResult();
  }
  Value toIndex(Value v) {
    return isa<IndexType>(v.getType()) ? v : arith::IndexCastOp::create(b_, loc_, b_.getIndexType(), v).getResult();
  }
  Value asmCall(Type res, ValueRange ops, StringRef text, StringRef constraints, bool sideEffects) {
    auto op = LLVM::InlineAsmOp::create(b_, loc_, res, ops, text, constraints, sideEffects, /*is_align_stack=*/false,
                                        LLVM::tailcallkind::TailCallKind::None,
                                        LLVM::AsmDialectAttr::get(b_.getContext(), LLVM::AsmDialect::AD_ATT),
                                        ArrayAttr());
    return op.getNumResults() ? op.getResult(0) : Value();
  }
  SmallVector<Value> unpack(Value s, int n) {
    SmallVector<Value> out;
    for (int i = 0; i < n; ++i) out.push_back(LLVM::ExtractValueOp::create(b_, loc_, s, ArrayRef<int64_t>{i}));
    return out;
  }
  Value smemPtr(Value byteOff) {
    auto p3 = LLVM::LLVMPointerType::get(b_.getContext(), 3);
    return LLVM::GEPOp::create(b_, loc_, p3, b_.getI8Type(), smem_, ValueRange{byteOff});
  }
  Value convert(Value v, Type to);

  // ---- shared memory and its synchronisation ----
  TV allocSmem(ArrayRef<int64_t> shape, Type elem);
  void barrier() {
    ::mlir::gpu::BarrierOp::create(b_, loc_);
    readsPending_ = writesPending_ = false;
    // The first barrier of a pipelined loop's iteration: every thread is past
    // the previous iteration's reads, so the next block's copies may start.
    if (prefetch_ && b_.getInsertionBlock() == prefetchBlock_) std::exchange(prefetch_, nullptr)();
  }
  void beforeSmemWrite() {
    if (readsPending_) barrier();
  }
  void beforeSmemRead(int id);
  void waitAll() {
    if (groups_.empty()) return;
    asmCall(Type(), {}, "cp.async.wait_group 0;", "~{memory}", true);
    groups_.clear();
    writesPending_ = true;
  }

  // ---- layouts ----
  bool fragShape(ArrayRef<int64_t> s, int64_t &mr, int64_t &nt) const {
    if (s.size() != 2 || s[0] % (16 * warps_) != 0) return false;
    mr = s[0] / (16 * warps_);
    nt = s[1] == 1 ? 0 : s[1] / 8;
    return s[1] == 1 || s[1] % 8 == 0;
  }
  Value rowIndex(int64_t mr, int64_t mi, int64_t h) { // i32, within the tile
    return add(mul(warp_, i32c(16 * mr)), add(g_, i32c(mi * 16 + 8 * h)));
  }
  Value colIndex(int64_t nj, int64_t e) { return add(mul(t_, i32c(2)), i32c(nj * 8 + (e & 1))); }
  Value bufBase(const TV &v) { return v.dyn ? add(i32c(v.offset), v.dyn) : i32c(v.offset); }
  Value smemElem(const TV &v, Value row, Value col) {
    Value off = add(bufBase(v), mul(add(mul(row, i32c(v.pitch)), col), i32c(elemBytes(v.elem))));
    return LLVM::LoadOp::create(b_, loc_, v.elem, smemPtr(off));
  }
  /// Element (mi, nj, e) of a tile in the accumulator layout, whatever its layout.
  Value at(const TV &v, int64_t mr, int64_t mi, int64_t nj, int64_t e);
  /// Element (mi, h) of an [M, 1] tile in the row layout.
  Value rowAt(const TV &v, int64_t mr, int64_t mi, int64_t h);
  TV materializeRows(const TV &v);

  // ---- ops ----
  bool emitOp(Operation *op);
  bool emitFor(scf::ForOp op);
  bool emitLoad(tile::LoadOp ld);
  bool emitScalarLoad(tile::LoadOp ld);
  bool emitStore(tile::StoreOp st);
  bool emitDot(tile::DotOp dot);
  bool emitElementwise(Operation *op);
  bool emitReduce(Operation *op, bool isMax);
  void preloadA(TV &a, int64_t k);
  SmallVector<Value> ldmatrix4(Value byteOff, bool trans);
  SmallVector<Value> mma(ArrayRef<Value> a, ArrayRef<Value> b, ArrayRef<Value> c, bool bf16);
  template <typename AccessOp>
  void globalAddress(AccessOp op, ArrayRef<Value> tileIdx, Value &inBounds, Value &ptr, IRMapping *alt = nullptr);
  Value lookup(Value v, IRMapping *alt) {
    if (alt)
      if (Value m = alt->lookupOrNull(v)) return m;
    return scalars_.lookup(v);
  }
  bool issueLoad(tile::LoadOp ld, const TV &out, IRMapping *alt, Value pred);
  bool sliceAt(Value v, scf::ForOp loop, IRMapping &map, bool emit);
  void forChunks(int64_t n, function_ref<void(Value)> body);

  func::FuncOp func_;
  const SimtOptions &opts_;
  SimtResult &result_;
  MmaReport &report_;
  OpBuilder b_;
  IRMapping scalars_;
  DenseMap<Value, TV> tiles_;
  DenseMap<Operation *, Value> fusedAdds_; // addf -> the dot whose accumulator it became
  DenseMap<Operation *, TV> prefetched_;   // double-buffered loads: this iteration's buffer
  std::function<void()> prefetch_;         // issues the next iteration's copies
  Block *prefetchBlock_ = nullptr;
  int64_t warps_ = 4;
  Value tid_, lane_, warp_, g_, t_, smem_, smemBase32_;
  int64_t nextOffset_ = 0;
  int nextId_ = 0;
  bool readsPending_ = false, writesPending_ = false;
  SmallVector<int> groups_; // cp.async groups in commit order, by buffer
};

Value MmaCodegen::convert(Value v, Type to) { return convertElement(b_, loc_, v, to); }

TV MmaCodegen::allocSmem(ArrayRef<int64_t> shape, Type elem) {
  TV v;
  v.kind = TV::Smem;
  v.shape.assign(shape.begin(), shape.end());
  v.elem = elem;
  int64_t eb = elemBytes(elem), c = shape.empty() ? 1 : shape.back();
  int64_t rows = 1;
  for (size_t d = 0; d + 1 < shape.size(); ++d) rows *= shape[d];
  // 16 bytes of padding: rows stay 16-byte aligned (ldmatrix, cp.async) and
  // the eight rows one ldmatrix reads start in eight different bank quads.
  v.pitch = (c * eb) % 16 == 0 ? c + 16 / eb : c;
  v.offset = nextOffset_;
  v.id = nextId_++;
  nextOffset_ += (rows * v.pitch * eb + 15) / 16 * 16;
  result_.sharedBytes = nextOffset_;
  return v;
}

void MmaCodegen::beforeSmemRead(int id) {
  auto it = llvm::find(groups_, id);
  if (it != groups_.end()) {
    int64_t later = groups_.end() - it - 1;
    asmCall(Type(), {}, ("cp.async.wait_group " + Twine(later) + ";").str(), "~{memory}", true);
    groups_.erase(groups_.begin(), it + 1);
    writesPending_ = true; // other threads' copies: visible after a barrier
  }
  if (writesPending_) barrier();
}

Value MmaCodegen::at(const TV &v, int64_t mr, int64_t mi, int64_t nj, int64_t e) {
  switch (v.kind) {
  case TV::Splat:
    return v.scalar;
  case TV::Row:
    return v.regs[mi * 2 + e / 2];
  case TV::Frag:
    return v.regs[(mi * (v.shape[1] / 8) + nj) * 4 + e];
  case TV::Smem:
    return smemElem(v, rowIndex(mr, mi, e / 2), colIndex(nj, e));
  }
  return {};
}

Value MmaCodegen::rowAt(const TV &v, int64_t mr, int64_t mi, int64_t h) {
  switch (v.kind) {
  case TV::Splat:
    return v.scalar;
  case TV::Row:
    return v.regs[mi * 2 + h];
  case TV::Smem:
    return smemElem(v, rowIndex(mr, mi, h), i32c(0));
  case TV::Frag:
    break;
  }
  return {};
}

/// An [M, 1] tile in shared memory copied into the row layout.
TV MmaCodegen::materializeRows(const TV &v) {
  TV out;
  out.kind = TV::Row;
  out.shape = v.shape;
  out.elem = v.elem;
  int64_t mr = v.shape[0] / (16 * warps_);
  beforeSmemRead(v.id);
  for (int64_t mi = 0; mi < mr; ++mi)
    for (int64_t h = 0; h < 2; ++h) out.regs.push_back(rowAt(v, mr, mi, h));
  readsPending_ = true;
  return out;
}

template <typename AccessOp>
void MmaCodegen::globalAddress(AccessOp op, ArrayRef<Value> tileIdx, Value &inBounds, Value &ptr, IRMapping *alt) {
  emitGlobalAddress(b_, loc_, op, tileIdx, [&](Value v) { return lookup(v, alt); }, inBounds, ptr);
}


/// body(i) for i in [0, n) spread over the CTA's threads; unrolled when short
/// so that a thread's loads are all in flight at once.
void MmaCodegen::forChunks(int64_t n, function_ref<void(Value)> body) {
  int64_t threads = opts_.threads, iters = (n + threads - 1) / threads;
  if (iters > 16) {
    auto loop = scf::ForOp::create(b_, loc_, tid_, idxc(n), idxc(threads));
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPoint(loop.getBody()->getTerminator());
    body(loop.getInductionVar());
    return;
  }
  for (int64_t i = 0; i < iters; ++i) {
    Value idx = add(tid_, idxc(i * threads));
    if ((i + 1) * threads <= n) {
      body(idx);
      continue;
    }
    Value in = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::ult, idx, idxc(n));
    auto ifOp = scf::IfOp::create(b_, loc_, TypeRange{}, in, /*withElseRegion=*/false);
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    body(idx);
  }
}

SmallVector<Value> MmaCodegen::ldmatrix4(Value byteOff, bool trans) {
  auto i32 = b_.getI32Type();
  Type st = LLVM::LLVMStructType::getLiteral(b_.getContext(), {i32, i32, i32, i32});
  Value addr = add(smemBase32_, byteOff);
  std::string text = std::string("ldmatrix.sync.aligned.m8n8.x4") + (trans ? ".trans" : "") +
                     ".shared.b16 {$0, $1, $2, $3}, [$4];";
  return unpack(asmCall(st, {addr}, text, "=r,=r,=r,=r,r,~{memory}", true), 4);
}

SmallVector<Value> MmaCodegen::mma(ArrayRef<Value> a, ArrayRef<Value> bv, ArrayRef<Value> c, bool bf16) {
  auto f32 = b_.getF32Type();
  Type st = LLVM::LLVMStructType::getLiteral(b_.getContext(), {f32, f32, f32, f32});
  SmallVector<Value> ops(a.begin(), a.end());
  ops.append(bv.begin(), bv.end());
  ops.append(c.begin(), c.end());
  std::string text = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") + (bf16 ? "bf16.bf16" : "f16.f16") +
                     ".f32 {$0, $1, $2, $3}, {$4, $5, $6, $7}, {$8, $9}, {$10, $11, $12, $13};";
  return unpack(asmCall(st, ops, text, "=f,=f,=f,=f,r,r,r,r,r,r,f,f,f,f", false), 4);
}

bool MmaCodegen::emitLoad(tile::LoadOp ld) {
  auto rt = cast<RankedTensorType>(ld.getType());
  Type elem = rt.getElementType();
  ArrayRef<int64_t> shape = rt.getShape();
  if (shape.empty()) return emitScalarLoad(ld);
  if (shape.size() > 2) return fail(ld, "a loaded tile of rank " + Twine(shape.size()));
  if (elem.getIntOrFloatBitWidth() < 8) return fail(ld, "a loaded tile of " + typeText(elem));
  TV out = allocSmem(shape, elem);
  bool async = issueLoad(ld, out, nullptr, Value());
  if (async) {
    asmCall(Type(), {}, "cp.async.commit_group;", "~{memory}", true);
    groups_.push_back(out.id);
  } else {
    writesPending_ = true;
  }
  place(ld.getResult(), false);
  // A tile read as a dot's A operand inside a loop (q in attention) is read
  // into registers once, here, rather than in every iteration.
  for (Operation *user : ld.getResult().getUsers()) {
    auto dot = dyn_cast<tile::DotOp>(user);
    if (!dot || dot.getA() != ld.getResult() || !isMmaElem(elem) || shape.size() != 2) continue;
    Operation *anc = ld->getBlock()->findAncestorOpInBlock(*user);
    if (!anc || !isa<scf::ForOp>(anc)) continue;
    if (shape[0] % (16 * warps_) || shape[1] % 16) continue;
    // Fragments cost rows/16/warps * K/16 * 4 registers a lane: beyond 32 the
    // accumulators need them more (BR=128 on 4 warps at D=128 spilled).
    if (shape[0] / (16 * warps_) * (shape[1] / 16) * 4 > 32) continue;
    preloadA(out, shape[1]);
    break;
  }
  tiles_[ld.getResult()] = out;
  return true;
}

/// A scalar read from a tensor (`let len = Lens[b]`): every thread loads the same
/// word from global memory (one transaction a warp), so no shared memory and no
/// barrier are involved; 0 where the index is out of bounds, as the SIMT path.
bool MmaCodegen::emitScalarLoad(tile::LoadOp ld) {
  Type elem = cast<RankedTensorType>(ld.getType()).getElementType();
  Value inBounds, ptr;
  globalAddress(ld, {}, inBounds, ptr);
  Value v = emitLoadOrZero(b_, loc_, elem, ptr, /*align=*/0, inBounds);
  TV out;
  out.kind = TV::Splat;
  out.elem = elem;
  out.scalar = v;
  tiles_[ld.getResult()] = out;
  return true;
}

/// The copies of `ld` into `out`, spread over the threads: cp.async where 16
/// bytes move at once (true is returned; the caller commits the group), else
/// loads and shared-memory stores. Scalars come from `alt` where it maps them
/// (the next iteration's offsets), else from the kernel's mapping; where
/// `pred` is false nothing is read and zeros are written.
bool MmaCodegen::issueLoad(tile::LoadOp ld, const TV &out, IRMapping *alt, Value pred) {
  auto rt = cast<RankedTensorType>(ld.getType());
  Type elem = rt.getElementType();
  ArrayRef<int64_t> shape = rt.getShape();
  int64_t eb = elemBytes(elem), rows = shape.size() == 2 ? shape[0] : 1, cols = shape.back();
  int64_t width = vectorWidth(ld, elem, 16);
  bool async = width * eb == 16;
  int64_t perRow = cols / width;
  beforeSmemWrite();
  forChunks(rows * perRow, [&](Value idx) {
    Value r = arith::DivUIOp::create(b_, loc_, idx, idxc(perRow));
    Value c = mul(arith::RemUIOp::create(b_, loc_, idx, idxc(perRow)), idxc(width));
    SmallVector<Value> tileIdx;
    if (shape.size() == 2) tileIdx.push_back(r);
    tileIdx.push_back(c);
    Value inBounds, ptr;
    globalAddress(ld, tileIdx, inBounds, ptr, alt);
    if (pred) inBounds = inBounds ? arith::AndIOp::create(b_, loc_, inBounds, pred).getResult() : pred;
    Value dst = add(bufBase(out), toI32(mul(add(mul(r, idxc(out.pitch)), c), idxc(eb))));
    if (async) {
      // Masked-off chunks copy 0 bytes of 16: the rest is zero-filled, and the
      // source is the tensor's start so that no address is out of bounds.
      Value size = i32c(16), src = ptr;
      if (inBounds) {
        size = arith::SelectOp::create(b_, loc_, inBounds, i32c(16), i32c(0));
        src = LLVM::SelectOp::create(b_, loc_, inBounds, ptr, lookup(ld.getPtr(), alt));
      }
      asmCall(Type(), {add(smemBase32_, dst), src, size}, "cp.async.cg.shared.global [$0], [$1], 16, $2;",
              "r,l,r,~{memory}", true);
      return;
    }
    Type type = width > 1 ? Type(VectorType::get({width}, elem)) : elem;
    unsigned align = unsigned(width * eb);
    Value v = emitLoadOrZero(b_, loc_, type, ptr, align, inBounds);
    LLVM::StoreOp::create(b_, loc_, v, smemPtr(dst), align);
  });
  return async;
}

void MmaCodegen::preloadA(TV &a, int64_t k) {
  int64_t mr = a.shape[0] / (16 * warps_), eb = elemBytes(a.elem);
  beforeSmemRead(a.id);
  Value laneRow = arith::AndIOp::create(b_, loc_, lane_, i32c(15));
  Value laneCol = mul(arith::ShRUIOp::create(b_, loc_, lane_, i32c(4)), i32c(8));
  for (int64_t mi = 0; mi < mr; ++mi)
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      Value row = add(add(mul(warp_, i32c(16 * mr)), i32c(mi * 16)), laneRow);
      Value col = add(laneCol, i32c(kk * 16));
      Value off = add(bufBase(a), mul(add(mul(row, i32c(a.pitch)), col), i32c(eb)));
      for (Value r : ldmatrix4(off, false)) a.aFrags.push_back(r);
    }
  readsPending_ = true;
}

bool MmaCodegen::emitDot(tile::DotOp dot) {
  auto rt = cast<RankedTensorType>(dot.getType());
  auto at_ = cast<RankedTensorType>(dot.getA().getType()), bt = cast<RankedTensorType>(dot.getB().getType());
  Type ea = at_.getElementType(), eb = bt.getElementType();
  if (!isMmaElem(ea) || ea != eb || !rt.getElementType().isF32())
    return fail(dot, "a dot of " + typeText(ea) + " and " + typeText(eb) + " into " + typeText(rt.getElementType()) +
                         " (mma.sync takes f16 or bf16 into f32)");
  int64_t m = rt.getShape()[0], n = rt.getShape()[1], k = at_.getShape()[1];
  int64_t mr, nt;
  if (!fragShape(rt.getShape(), mr, nt) || n % 16 || k % 16)
    return fail(dot, "a dot of shape " + Twine(m) + "x" + Twine(n) + "x" + Twine(k) + " (needs M a multiple of " +
                         Twine(16 * warps_) + ", N and K of 16)");
  const TV &a = tiles_[dot.getA()];
  const TV &bv = tiles_[dot.getB()];
  if (bv.kind != TV::Smem) return fail(dot, "a dot whose B operand is not a loaded tile");
  bool transB = dot.getTransB(), bf16 = ea.isBF16();
  int64_t esz = 2, kSteps = k / 16;
  // `acc += dot(...)`: the addend becomes the accumulator.
  SmallVector<Value> acc;
  Value zero = arith::ConstantOp::create(b_, loc_, b_.getF32FloatAttr(0.0f));
  Operation *fused = nullptr;
  if (dot.getResult().hasOneUse()) {
    Operation *user = *dot.getResult().getUsers().begin();
    if (isa<arith::AddFOp>(user) && user->getBlock() == dot->getBlock()) {
      Value other = user->getOperand(0) == dot.getResult() ? user->getOperand(1) : user->getOperand(0);
      if (other != dot.getResult() && tiles_.count(other) && tiles_[other].kind != TV::Smem) fused = user;
    }
  }
  if (fused) {
    Value other = fused->getOperand(0) == dot.getResult() ? fused->getOperand(1) : fused->getOperand(0);
    const TV &o = tiles_[other];
    for (int64_t mi = 0; mi < mr; ++mi)
      for (int64_t nj = 0; nj < nt; ++nj)
        for (int64_t e = 0; e < 4; ++e) acc.push_back(at(o, mr, mi, nj, e));
  } else {
    acc.assign(mr * nt * 4, zero);
  }
  if (a.kind == TV::Smem && a.aFrags.empty()) beforeSmemRead(a.id);
  beforeSmemRead(bv.id);
  Value laneRow = arith::AndIOp::create(b_, loc_, lane_, i32c(15));
  Value laneHi = arith::ShRUIOp::create(b_, loc_, lane_, i32c(4));          // lane / 16
  Value lane8 = arith::AndIOp::create(b_, loc_, lane_, i32c(7));            // lane % 8
  Value laneMid = arith::AndIOp::create(b_, loc_, arith::ShRUIOp::create(b_, loc_, lane_, i32c(3)), i32c(1));
  auto pack = [&](Value lo, Value hi) {
    auto vt = VectorType::get({2}, ea);
    Value v = LLVM::PoisonOp::create(b_, loc_, vt);
    v = LLVM::InsertElementOp::create(b_, loc_, v, lo, i32c(0));
    v = LLVM::InsertElementOp::create(b_, loc_, v, hi, i32c(1));
    return LLVM::BitcastOp::create(b_, loc_, b_.getI32Type(), v).getResult();
  };
  for (int64_t kk = 0; kk < kSteps; ++kk) {
    SmallVector<SmallVector<Value>> aFr(mr);
    for (int64_t mi = 0; mi < mr; ++mi) {
      if (a.kind == TV::Smem && !a.aFrags.empty()) {
        aFr[mi].assign(a.aFrags.begin() + (mi * kSteps + kk) * 4, a.aFrags.begin() + (mi * kSteps + kk + 1) * 4);
      } else if (a.kind == TV::Smem) {
        Value row = add(add(mul(warp_, i32c(16 * mr)), i32c(mi * 16)), laneRow);
        Value col = add(mul(laneHi, i32c(8)), i32c(kk * 16));
        Value off = add(bufBase(a), mul(add(mul(row, i32c(a.pitch)), col), i32c(esz)));
        aFr[mi] = ldmatrix4(off, false);
      } else {
        // The accumulator layout is the A layout: a0 = (g, 2t..), a1 = (g+8, 2t..),
        // a2 = (g, 8+2t..), a3 = (g+8, 8+2t..) of the 16 columns kk*16...
        aFr[mi] = {pack(at(a, mr, mi, 2 * kk, 0), at(a, mr, mi, 2 * kk, 1)),
                   pack(at(a, mr, mi, 2 * kk, 2), at(a, mr, mi, 2 * kk, 3)),
                   pack(at(a, mr, mi, 2 * kk + 1, 0), at(a, mr, mi, 2 * kk + 1, 1)),
                   pack(at(a, mr, mi, 2 * kk + 1, 2), at(a, mr, mi, 2 * kk + 1, 3))};
      }
    }
    for (int64_t nb = 0; nb < n / 16; ++nb) {
      Value row, col;
      if (transB) {
        // B[k][n] = b[n][k]: matrices (n0, k0), (n0, k0+8), (n0+8, k0), (n0+8, k0+8).
        row = add(add(lane8, mul(laneHi, i32c(8))), i32c(nb * 16));
        col = add(mul(laneMid, i32c(8)), i32c(kk * 16));
      } else {
        // B = b[k][n] row-major, transposed by ldmatrix: (k0, n0), (k0+8, n0), (k0, n0+8), (k0+8, n0+8).
        row = add(add(lane8, mul(laneMid, i32c(8))), i32c(kk * 16));
        col = add(mul(laneHi, i32c(8)), i32c(nb * 16));
      }
      Value off = add(bufBase(bv), mul(add(mul(row, i32c(bv.pitch)), col), i32c(esz)));
      SmallVector<Value> bFr = ldmatrix4(off, !transB);
      for (int64_t mi = 0; mi < mr; ++mi)
        for (int64_t h = 0; h < 2; ++h) {
          int64_t base = (mi * nt + nb * 2 + h) * 4;
          SmallVector<Value> c(acc.begin() + base, acc.begin() + base + 4);
          SmallVector<Value> d = mma(aFr[mi], {bFr[2 * h], bFr[2 * h + 1]}, c, bf16);
          for (int64_t e = 0; e < 4; ++e) acc[base + e] = d[e];
        }
    }
  }
  readsPending_ = true;
  TV out;
  out.kind = TV::Frag;
  out.shape.assign(rt.getShape().begin(), rt.getShape().end());
  out.elem = rt.getElementType();
  out.regs = std::move(acc);
  tiles_[dot.getResult()] = out;
  place(dot.getResult(), true);
  if (fused) fusedAdds_[fused] = dot.getResult();
  return true;
}

bool MmaCodegen::emitElementwise(Operation *op) {
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  Type elem = rt.getElementType();
  SmallVector<const TV *> ins;
  bool allSplat = true;
  for (Value v : op->getOperands()) {
    if (!isa<RankedTensorType>(v.getType())) return fail(op, "an elementwise op mixing tiles and scalars");
    ins.push_back(&tiles_[v]);
    allSplat &= ins.back()->kind == TV::Splat;
  }
  auto apply = [&](ArrayRef<Value> args) -> Value {
    if (isa<math::ExpOp>(op) && elem.isF32()) {
      // exp(x) = 2^(x log2 e): a multiply and one MUFU.EX2 (relative error about
      // 2^-22) instead of libdevice's expf, which costs the softmax ~5 more
      // instructions per score.
      Value y = arith::MulFOp::create(b_, loc_, args[0],
                                      arith::ConstantOp::create(b_, loc_, b_.getF32FloatAttr(1.4426950408889634f)));
      return asmCall(elem, {y}, "ex2.approx.ftz.f32 $0, $1;", "=f,f", false);
    }
    OperationState st(loc_, op->getName().getStringRef(), args, TypeRange{elem}, op->getAttrs());
    return b_.create(st)->getResult(0);
  };
  TV out;
  out.shape.assign(rt.getShape().begin(), rt.getShape().end());
  out.elem = elem;
  if (allSplat) {
    SmallVector<Value> args;
    for (const TV *v : ins) args.push_back(v->scalar);
    out.kind = TV::Splat;
    out.scalar = apply(args);
    tiles_[op->getResult(0)] = out;
    return true;
  }
  int64_t mr, nt;
  if (!fragShape(rt.getShape(), mr, nt))
    return fail(op, "`" + op->getName().getStringRef() + "` on a " + typeText(rt) + " (rows must be a multiple of " +
                        Twine(16 * warps_) + ", columns 1 or a multiple of 8)");
  for (const TV *v : ins)
    if (v->kind == TV::Smem) {
      beforeSmemRead(v->id);
      readsPending_ = true;
    }
  if (nt == 0) {
    out.kind = TV::Row;
    for (int64_t mi = 0; mi < mr; ++mi)
      for (int64_t h = 0; h < 2; ++h) {
        SmallVector<Value> args;
        for (const TV *v : ins) args.push_back(rowAt(*v, mr, mi, h));
        out.regs.push_back(apply(args));
      }
  } else {
    out.kind = TV::Frag;
    for (int64_t mi = 0; mi < mr; ++mi)
      for (int64_t nj = 0; nj < nt; ++nj)
        for (int64_t e = 0; e < 4; ++e) {
          SmallVector<Value> args;
          for (const TV *v : ins) args.push_back(at(*v, mr, mi, nj, e));
          out.regs.push_back(apply(args));
        }
  }
  tiles_[op->getResult(0)] = out;
  place(op->getResult(0), true);
  return true;
}

bool MmaCodegen::emitReduce(Operation *op, bool isMax) {
  Value srcV = op->getOperand(0);
  auto st = cast<RankedTensorType>(srcV.getType());
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  int64_t mr, nt;
  if (!fragShape(st.getShape(), mr, nt) || nt == 0 || !rt.getElementType().isF32())
    return fail(op, "a row reduction of " + typeText(st));
  const TV &src = tiles_[srcV];
  if (src.kind == TV::Smem) {
    beforeSmemRead(src.id);
    readsPending_ = true;
  }
  auto combine = [&](Value x, Value y) -> Value {
    return isMax ? arith::MaximumFOp::create(b_, loc_, x, y).getResult() : arith::AddFOp::create(b_, loc_, x, y).getResult();
  };
  TV out;
  out.kind = TV::Row;
  out.shape.assign(rt.getShape().begin(), rt.getShape().end());
  out.elem = rt.getElementType();
  Value all = i32c(-1), clamp = i32c(0x1f);
  for (int64_t mi = 0; mi < mr; ++mi)
    for (int64_t h = 0; h < 2; ++h) {
      Value v;
      for (int64_t nj = 0; nj < nt; ++nj)
        for (int64_t e = 2 * h; e < 2 * h + 2; ++e) {
          Value x = at(src, mr, mi, nj, e);
          v = v ? combine(v, x) : x;
        }
      // The quad's four lanes hold the row's other columns.
      for (int64_t off : {1, 2}) {
        Value o = NVVM::ShflOp::create(b_, loc_, b_.getF32Type(), all, v, i32c(off), clamp,
                                       NVVM::ShflKindAttr::get(b_.getContext(), NVVM::ShflKind::bfly), UnitAttr());
        v = combine(v, o);
      }
      out.regs.push_back(v);
    }
  tiles_[op->getResult(0)] = out;
  place(op->getResult(0), true);
  return true;
}

bool MmaCodegen::emitStore(tile::StoreOp st) {
  const TV &src = tiles_[st.getValue()];
  auto rt = cast<RankedTensorType>(st.getValue().getType());
  Type elem = rt.getElementType();
  ArrayRef<int64_t> shape = rt.getShape();
  int64_t eb = elemBytes(elem);
  if (src.kind == TV::Frag || (src.kind == TV::Row && shape.size() == 2 && shape[1] > 1)) {
    int64_t mr = shape[0] / (16 * warps_), nt = shape[1] / 8;
    // Each lane stores its two adjacent columns at once where they stay in one row.
    bool pair = vectorWidth(st, elem, 2 * eb) == 2;
    for (int64_t mi = 0; mi < mr; ++mi)
      for (int64_t nj = 0; nj < nt; ++nj)
        for (int64_t h = 0; h < 2; ++h)
          for (int64_t e = 0; e < 2; e += pair ? 2 : 1) {
            Value r = toIndex(rowIndex(mr, mi, h)), c = toIndex(colIndex(nj, e));
            Value inBounds, ptr;
            globalAddress(st, {r, c}, inBounds, ptr);
            Value v = at(src, mr, mi, nj, 2 * h + e);
            if (pair) {
              Value vec = LLVM::PoisonOp::create(b_, loc_, VectorType::get({2}, elem));
              vec = LLVM::InsertElementOp::create(b_, loc_, vec, v, i32c(0));
              vec = LLVM::InsertElementOp::create(b_, loc_, vec, at(src, mr, mi, nj, 2 * h + 1), i32c(1));
              v = vec;
            }
            unsigned align = unsigned((pair ? 2 : 1) * eb);
            emitStoreIf(b_, loc_, v, ptr, align, inBounds);
          }
    return true;
  }
  if (src.kind == TV::Row) {
    // [M, 1]: the quad's first lane stores.
    int64_t mr = shape[0] / (16 * warps_);
    Value first = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::eq, t_, i32c(0));
    auto ifOp = scf::IfOp::create(b_, loc_, TypeRange{}, first, false);
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    for (int64_t mi = 0; mi < mr; ++mi)
      for (int64_t h = 0; h < 2; ++h) {
        Value inBounds, ptr;
        globalAddress(st, {toIndex(rowIndex(mr, mi, h)), idxc(0)}, inBounds, ptr);
        Value v = src.regs[mi * 2 + h];
        emitStoreIf(b_, loc_, v, ptr, 0, inBounds);
      }
    return true;
  }
  // Splat or shared memory: one element per thread and step.
  if (shape.empty() || shape.size() > 2) return fail(st, "a stored tile of rank " + Twine(shape.size()));
  if (src.kind == TV::Smem) {
    beforeSmemRead(src.id);
    readsPending_ = true;
  }
  int64_t cols = shape.back(), rows = shape.size() == 2 ? shape[0] : 1;
  forChunks(rows * cols, [&](Value idx) {
    Value r = arith::DivUIOp::create(b_, loc_, idx, idxc(cols));
    Value c = arith::RemUIOp::create(b_, loc_, idx, idxc(cols));
    SmallVector<Value> tileIdx;
    if (shape.size() == 2) tileIdx.push_back(r);
    tileIdx.push_back(c);
    Value inBounds, ptr;
    globalAddress(st, tileIdx, inBounds, ptr);
    Value v = src.kind == TV::Splat ? src.scalar : smemElem(src, toI32(r), toI32(c));
    emitStoreIf(b_, loc_, v, ptr, 0, inBounds);
  });
  return true;
}

/// Whether `v` is computed, inside `loop`'s body, from the induction variable
/// (mapped in `map` by the caller) and values from outside by pure scalar ops;
/// with `emit`, clones those ops with `map`.
bool MmaCodegen::sliceAt(Value v, scf::ForOp loop, IRMapping &map, bool emit) {
  if (map.contains(v)) return true;
  if (!loop.getRegion().isAncestor(v.getParentRegion())) {
    if (emit) map.map(v, scalars_.lookup(v));
    return true;
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumRegions() || def->getBlock() != loop.getBody() || !isMemoryEffectFree(def)) return false;
  for (Value r : def->getResults())
    if (isa<RankedTensorType>(r.getType())) return false;
  for (Value o : def->getOperands())
    if (isa<RankedTensorType>(o.getType()) || !sliceAt(o, loop, map, emit)) return false;
  if (emit) b_.clone(*def, map);
  return true;
}

bool MmaCodegen::emitFor(scf::ForOp op) {
  // Each loop-carried tile is carried as its registers: [M, 1] in the row
  // layout, [M, N] in the accumulator layout.
  struct Slot {
    int first = 0, count = 1;
    TV::Kind kind = TV::Splat;
    SmallVector<int64_t> shape;
    Type elem;
    int64_t mr = 0, nt = 0;
  };
  SmallVector<Slot> slots;
  SmallVector<Value> inits;
  for (Value init : op.getInitArgs()) {
    Slot s;
    s.first = int(inits.size());
    if (auto rt = dyn_cast<RankedTensorType>(init.getType())) {
      if (!fragShape(rt.getShape(), s.mr, s.nt))
        return fail(op, "a loop-carried " + typeText(rt) + " (not in the register layout)");
      s.shape.assign(rt.getShape().begin(), rt.getShape().end());
      s.elem = rt.getElementType();
      const TV &v = tiles_[init];
      if (v.kind == TV::Smem) {
        beforeSmemRead(v.id);
        readsPending_ = true;
      }
      if (s.nt == 0) {
        s.kind = TV::Row;
        for (int64_t mi = 0; mi < s.mr; ++mi)
          for (int64_t h = 0; h < 2; ++h) inits.push_back(rowAt(v, s.mr, mi, h));
      } else {
        s.kind = TV::Frag;
        for (int64_t mi = 0; mi < s.mr; ++mi)
          for (int64_t nj = 0; nj < s.nt; ++nj)
            for (int64_t e = 0; e < 4; ++e) inits.push_back(at(v, s.mr, mi, nj, e));
      }
      s.count = int(inits.size()) - s.first;
    } else {
      inits.push_back(scalars_.lookup(init));
    }
    slots.push_back(s);
  }
  // Copies in flight complete before the loop; inside it, the first access
  // of each iteration synchronises with the previous iteration's.
  waitAll();
  // Loads in the body whose addresses follow the induction variable are
  // double-buffered: the copy of iteration i+1's tile (cp.async) is issued at
  // the top of iteration i, into the buffer iteration i-1 read, so that it
  // arrives while iteration i computes. The buffer in use is a loop-carried
  // stage, 0 or 1.
  struct Pipe {
    tile::LoadOp ld;
    TV buf;
    int64_t size;
    int nextId;
  };
  std::vector<Pipe> pipes;
  // (Not inside a loop whose own copies wait for a barrier of its body.)
  for (Operation &inner : op.getBody()->without_terminator()) {
    auto ld = dyn_cast<tile::LoadOp>(&inner);
    if (!ld || prefetch_) continue;
    auto rt = cast<RankedTensorType>(ld.getType());
    Type elem = rt.getElementType();
    if (rt.getRank() < 1 || rt.getRank() > 2 || elem.getIntOrFloatBitWidth() < 8 ||
        vectorWidth(ld, elem, 16) * elemBytes(elem) != 16)
      continue;
    if (llvm::any_of(ld->getUsers(), [](Operation *u) { return isa<scf::YieldOp>(u); })) continue;
    IRMapping probe;
    probe.map(op.getInductionVar(), op.getInductionVar());
    if (!llvm::all_of(ld->getOperands(), [&](Value v) { return sliceAt(v, op, probe, false); })) continue;
    TV first = allocSmem(rt.getShape(), elem), second = allocSmem(rt.getShape(), elem);
    pipes.push_back({ld, first, second.offset - first.offset, second.id});
  }
  Value lb = scalars_.lookup(op.getLowerBound()), ub = scalars_.lookup(op.getUpperBound()),
        step = scalars_.lookup(op.getStep());
  if (!pipes.empty()) {
    Value runs = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, lb, ub);
    for (Pipe &p : pipes) {
      IRMapping at0;
      at0.map(op.getInductionVar(), lb);
      for (Value v : p.ld->getOperands()) sliceAt(v, op, at0, true);
      if (issueLoad(p.ld, p.buf, &at0, runs)) asmCall(Type(), {}, "cp.async.commit_group;", "~{memory}", true);
      groups_.push_back(p.buf.id);
    }
    inits.push_back(i32c(0));
  }
  auto loop = scf::ForOp::create(b_, loc_, lb, ub, step, inits);
  Block *body = loop.getBody();
  scalars_.map(op.getInductionVar(), loop.getInductionVar());
  auto bind = [&](const Slot &s, ValueRange regs, Value to, bool isResult) {
    if (s.kind == TV::Splat) {
      scalars_.map(to, regs[s.first]);
      return;
    }
    TV v;
    v.kind = s.kind;
    v.shape = s.shape;
    v.elem = s.elem;
    v.regs.assign(regs.begin() + s.first, regs.begin() + s.first + s.count);
    tiles_[to] = v;
    if (isResult) place(to, true);
  };
  for (size_t i = 0; i < slots.size(); ++i) bind(slots[i], body->getArguments().drop_front(1), op.getRegionIterArgs()[i], false);
  {
    OpBuilder::InsertionGuard guard(b_);
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
    b_.setInsertionPointToEnd(body);
    readsPending_ = writesPending_ = true;
    Value stage;
    if (!pipes.empty()) {
      stage = body->getArguments().back();
      // Issued after the iteration's first barrier (waiting for this block's
      // first tile), when no thread still reads the other buffers; at the end
      // of the body if no barrier came.
      prefetchBlock_ = body;
      prefetch_ = [&, stage]() {
        Value other = arith::XOrIOp::create(b_, loc_, stage, i32c(1));
        Value ivNext = arith::AddIOp::create(b_, loc_, loop.getInductionVar(), step);
        Value hasNext = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, ivNext, ub);
        for (Pipe &p : pipes) {
          IRMapping next;
          next.map(op.getInductionVar(), ivNext);
          for (Value v : p.ld->getOperands()) sliceAt(v, op, next, true);
          TV buf = p.buf;
          buf.dyn = mul(other, i32c(p.size));
          if (issueLoad(p.ld, buf, &next, hasNext)) asmCall(Type(), {}, "cp.async.commit_group;", "~{memory}", true);
          groups_.push_back(p.nextId);
        }
      };
      for (Pipe &p : pipes) {
        TV cur = p.buf;
        cur.dyn = mul(stage, i32c(p.size));
        prefetched_[p.ld] = cur;
      }
    }
    Block &src = op.getRegion().front();
    for (Operation &inner : src.without_terminator())
      if (!emitOp(&inner)) return false;
    auto yield = cast<scf::YieldOp>(src.getTerminator());
    loc_ = yield.getLoc();
    SmallVector<Value> yields;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      const Slot &s = slots[i];
      if (s.kind == TV::Splat) {
        yields.push_back(scalars_.lookup(v));
        continue;
      }
      const TV &tv = tiles_[v];
      if (tv.kind == TV::Smem) {
        beforeSmemRead(tv.id);
        readsPending_ = true;
      }
      if (s.kind == TV::Row) {
        for (int64_t mi = 0; mi < s.mr; ++mi)
          for (int64_t h = 0; h < 2; ++h) yields.push_back(rowAt(tv, s.mr, mi, h));
      } else {
        for (int64_t mi = 0; mi < s.mr; ++mi)
          for (int64_t nj = 0; nj < s.nt; ++nj)
            for (int64_t e = 0; e < 4; ++e) yields.push_back(at(tv, s.mr, mi, nj, e));
      }
    }
    if (prefetch_) {
      beforeSmemWrite();
      if (prefetch_) std::exchange(prefetch_, nullptr)();
    }
    prefetchBlock_ = nullptr;
    // What is still in flight should be exactly the next iteration's copies.
    SmallVector<int> expected;
    for (Pipe &p : pipes) expected.push_back(p.nextId);
    if (groups_ != expected) waitAll();
    groups_.clear();
    if (stage) yields.push_back(arith::XOrIOp::create(b_, loc_, stage, i32c(1)));
    scf::YieldOp::create(b_, loc_, yields);
  }
  loc_ = op.getLoc();
  for (Pipe &p : pipes) {
    groups_.push_back(p.nextId); // the last iteration's (empty) copies
    prefetched_.erase(p.ld);
  }
  waitAll();
  for (size_t i = 0; i < slots.size(); ++i) bind(slots[i], loop.getResults(), op.getResult(i), true);
  readsPending_ = writesPending_ = true;
  return true;
}

bool MmaCodegen::emitOp(Operation *op) {
  loc_ = op->getLoc();
  auto isTile = [](Value v) { return isa<RankedTensorType>(v.getType()); };
  bool tileResult = op->getNumResults() == 1 && isTile(op->getResult(0));

  if (auto f = dyn_cast<scf::ForOp>(op)) return emitFor(f);
  if (isa<func::ReturnOp>(op)) {
    waitAll();
    ::mlir::gpu::ReturnOp::create(b_, loc_);
    return true;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op); c && tileResult) {
    auto splat = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!splat) return fail(op, "a tile constant that is not a splat");
    TV v;
    auto rt = cast<RankedTensorType>(c.getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.scalar = arith::ConstantOp::create(b_, loc_, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    tiles_[c.getResult()] = v;
    return true;
  }
  if (auto s = dyn_cast<tile::SplatOp>(op)) {
    TV v;
    auto rt = cast<RankedTensorType>(s.getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.scalar = scalars_.lookup(s.getValue());
    tiles_[s.getResult()] = v;
    return true;
  }
  if (auto bc = dyn_cast<tile::BroadcastOp>(op)) {
    auto rt = cast<RankedTensorType>(bc.getType());
    TV src = tiles_[bc.getSource()];
    int64_t mr, nt;
    if (src.kind == TV::Smem && fragShape(src.shape, mr, nt) && nt == 0) src = materializeRows(src);
    if (src.kind != TV::Splat && src.kind != TV::Row)
      return fail(op, "a broadcast of " + typeText(bc.getSource().getType()) + " (only [M, 1] row vectors)");
    if (src.kind == TV::Row && !fragShape(rt.getShape(), mr, nt)) return fail(op, "a broadcast to " + typeText(rt));
    src.shape.assign(rt.getShape().begin(), rt.getShape().end());
    tiles_[bc.getResult()] = src;
    return true;
  }
  if (auto bid = dyn_cast<tile::BlockIdOp>(op)) {
    scalars_.map(bid.getResult(), emitBlockId(b_, loc_, bid.getAxis()));
    return true;
  }
  if (auto cv = dyn_cast<tile::ConvertOp>(op)) {
    auto rt = dyn_cast<RankedTensorType>(cv.getType());
    if (!rt) {
      scalars_.map(cv.getResult(), convert(scalars_.lookup(cv.getSource()), cv.getType()));
      return true;
    }
    TV src = tiles_[cv.getSource()];
    int64_t mr, nt;
    if (src.kind == TV::Smem) return fail(op, "a conversion of a loaded tile");
    if (src.kind != TV::Splat && !fragShape(rt.getShape(), mr, nt)) return fail(op, "a conversion of " + typeText(rt));
    TV out = src;
    out.elem = rt.getElementType();
    if (out.kind == TV::Splat) out.scalar = convert(src.scalar, out.elem);
    for (Value &r : out.regs) r = convert(r, out.elem);
    tiles_[cv.getResult()] = out;
    if (out.kind != TV::Splat) place(cv.getResult(), true);
    return true;
  }
  if (auto it = prefetched_.find(op); it != prefetched_.end()) {
    tiles_[op->getResult(0)] = it->second;
    place(op->getResult(0), false);
    return true;
  }
  if (auto ld = dyn_cast<tile::LoadOp>(op)) return emitLoad(ld);
  if (auto st = dyn_cast<tile::StoreOp>(op)) return emitStore(st);
  if (auto dot = dyn_cast<tile::DotOp>(op)) return emitDot(dot);
  if (isa<tile::RowMaxOp>(op)) return emitReduce(op, true);
  if (isa<tile::RowSumOp>(op)) return emitReduce(op, false);
  // A mask costs a compare and a select per score; most key blocks have
  // nothing to mask (all but the last for mask_cols, those below the diagonal
  // for causal_mask), so the selects run only when `fires` (the block's test,
  // given the warp's 16-row blocks mr) holds; `select` masks one score.
  auto emitMask = [&](StringRef what, Value source, function_ref<Value(int64_t mr)> fires,
                      function_ref<Value(int64_t mr, int64_t mi, int64_t nj, int64_t e, Value x)> select) {
    auto rt = cast<RankedTensorType>(op->getResult(0).getType());
    int64_t mr, nt;
    if (!fragShape(rt.getShape(), mr, nt) || nt == 0) return fail(op, Twine(what) + " on " + typeText(rt));
    const TV &src = tiles_[source];
    if (src.kind == TV::Smem) return fail(op, Twine(what) + " on a loaded tile");
    TV out;
    out.kind = TV::Frag;
    out.shape.assign(rt.getShape().begin(), rt.getShape().end());
    out.elem = rt.getElementType();
    SmallVector<Type> types(mr * nt * 4, out.elem);
    auto ifOp = scf::IfOp::create(b_, loc_, types, fires(mr), /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard g(b_);
      b_.setInsertionPointToStart(ifOp.thenBlock());
      SmallVector<Value> vals;
      for (int64_t mi = 0; mi < mr; ++mi)
        for (int64_t nj = 0; nj < nt; ++nj)
          for (int64_t e = 0; e < 4; ++e) vals.push_back(select(mr, mi, nj, e, at(src, mr, mi, nj, e)));
      scf::YieldOp::create(b_, loc_, vals);
      b_.setInsertionPointToStart(ifOp.elseBlock());
      vals.clear();
      for (int64_t mi = 0; mi < mr; ++mi)
        for (int64_t nj = 0; nj < nt; ++nj)
          for (int64_t e = 0; e < 4; ++e) vals.push_back(at(src, mr, mi, nj, e));
      scf::YieldOp::create(b_, loc_, vals);
    }
    out.regs.assign(ifOp.getResults().begin(), ifOp.getResults().end());
    tiles_[op->getResult(0)] = out;
    place(op->getResult(0), true);
    return true;
  };
  if (auto mc = dyn_cast<tile::MaskColsOp>(op)) {
    Value n = scalars_.lookup(mc.getN()), value = scalars_.lookup(mc.getValue());
    return emitMask(
        "mask_cols", mc.getSource(),
        [&](int64_t) -> Value {
          int64_t cols = cast<RankedTensorType>(mc.getType()).getShape()[1];
          return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::slt, n, i32c(cols));
        },
        [&](int64_t, int64_t, int64_t nj, int64_t e, Value x) -> Value {
          Value masked = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sge, colIndex(nj, e), n);
          return arith::SelectOp::create(b_, loc_, masked, value, x);
        });
  }
  if (auto cm = dyn_cast<tile::CausalMaskOp>(op)) {
    auto ft = cast<FloatType>(cast<RankedTensorType>(cm.getType()).getElementType());
    Value row = scalars_.lookup(cm.getRow()), col = scalars_.lookup(cm.getCol());
    Value big = arith::ConstantOp::create(b_, loc_, ft, b_.getFloatAttr(ft, -1.0e30));
    return emitMask(
        "causal_mask", cm.getSource(),
        [&](int64_t mr) -> Value {
          // This warp's rows start at warp * 16 * mr: the block needs the mask
          // when its last column passes the first of them.
          int64_t cols = cast<RankedTensorType>(cm.getType()).getShape()[1];
          return arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt, add(col, i32c(cols - 1)),
                                       add(row, mul(warp_, i32c(16 * mr))));
        },
        [&](int64_t mr, int64_t mi, int64_t nj, int64_t e, Value x) -> Value {
          Value lhs = add(col, colIndex(nj, e)), rhs = add(row, rowIndex(mr, mi, e / 2));
          Value masked = arith::CmpIOp::create(b_, loc_, arith::CmpIPredicate::sgt, lhs, rhs);
          return arith::SelectOp::create(b_, loc_, masked, big, x);
        });
  }
  if (auto ex = dyn_cast<tensor::ExtractOp>(op)) {
    auto it = tiles_.find(ex.getTensor());
    if (it == tiles_.end() || it->second.kind != TV::Splat || !it->second.scalar)
      return fail(op, "an element read from a tile that is not a scalar");
    scalars_.map(ex.getResult(), it->second.scalar);
    return true;
  }
  if (fusedAdds_.count(op)) {
    tiles_[op->getResult(0)] = tiles_[fusedAdds_[op]];
    return true;
  }
  if (op->getNumRegions() != 0) return fail(op, "`" + op->getName().getStringRef() + "` (an op with regions)");
  if (tileResult && llvm::all_of(op->getOperands(), isTile) &&
      (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())))
    return emitElementwise(op);
  if (llvm::none_of(op->getOperands(), isTile) && llvm::none_of(op->getResults(), isTile)) {
    b_.clone(*op, scalars_);
    return true;
  }
  return fail(op, "`" + op->getName().getStringRef() + "` on tiles");
}

bool MmaCodegen::run(::mlir::gpu::GPUModuleOp gm) {
  MLIRContext *ctx = func_.getContext();
  if (opts_.threads % 32) return fail(nullptr, "@launch(" + Twine(opts_.threads) + ") is not whole warps");
  warps_ = opts_.threads / 32;
  SmallVector<Type> argTypes;
  auto global = LLVM::LLVMPointerType::get(ctx, 1);
  for (Type t : func_.getArgumentTypes()) argTypes.push_back(isa<tile::PtrType>(t) ? Type(global) : t);
  b_.setInsertionPointToEnd(gm.getBody());
  Location loc = func_.getLoc();
  loc_ = loc;
  // The dynamic shared memory, declared as CUDA C++'s `extern __shared__`.
  auto p3 = LLVM::LLVMPointerType::get(ctx, 3);
  auto shmem = LLVM::GlobalOp::create(b_, loc, LLVM::LLVMArrayType::get(b_.getI8Type(), 0), /*isConstant=*/false,
                                      LLVM::Linkage::External, "__dynamic_shmem__0", Attribute(), /*alignment=*/16,
                                      /*addrSpace=*/3);
  auto gf = ::mlir::gpu::GPUFuncOp::create(b_, loc, func_.getName(), FunctionType::get(ctx, argTypes, {}));
  gf->setAttr(::mlir::gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  gf.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {opts_.threads, 1, 1}));
  result_.kernelName = func_.getName().str();
  Block &entry = gf.getBody().front();
  for (auto [from, to] : llvm::zip(func_.getArguments(), entry.getArguments())) scalars_.map(from, to);
  b_.setInsertionPointToStart(&entry);
  tid_ = ::mlir::gpu::ThreadIdOp::create(b_, loc, ::mlir::gpu::Dimension::x);
  Value tid32 = toI32(tid_);
  lane_ = arith::AndIOp::create(b_, loc, tid32, i32c(31));
  warp_ = arith::ShRUIOp::create(b_, loc, tid32, i32c(5));
  g_ = arith::ShRUIOp::create(b_, loc, lane_, i32c(2));
  t_ = arith::AndIOp::create(b_, loc, lane_, i32c(3));
  smem_ = LLVM::AddressOfOp::create(b_, loc, p3, FlatSymbolRefAttr::get(shmem.getSymNameAttr()));
  smemBase32_ = LLVM::PtrToIntOp::create(b_, loc, b_.getI32Type(), smem_);
  for (Operation &op : func_.getBody().front())
    if (!emitOp(&op)) return false;
  if (entry.empty() || !entry.back().hasTrait<OpTrait::IsTerminator>()) ::mlir::gpu::ReturnOp::create(b_, loc);
  if (result_.sharedBytes > opts_.sharedLimit)
    return fail(nullptr, "the loaded tiles need " + Twine(result_.sharedBytes) + " bytes of shared memory");
  return true;
}

} // namespace

bool convertTileToMma(ModuleOp module, const SimtOptions &opts, SimtResult &result, MmaReport &report) {
  report = MmaReport();
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration()) funcs.push_back(f);
  if (funcs.size() != 1 || !funcs[0]->hasAttr(ph::tile::kTensorcoreAttr)) return false;
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<::mlir::gpu::GPUDialect>();
  ctx->getOrLoadDialect<LLVM::LLVMDialect>();
  ctx->getOrLoadDialect<NVVM::NVVMDialect>();
  ctx->getOrLoadDialect<scf::SCFDialect>();
  ctx->getOrLoadDialect<math::MathDialect>();
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto gm = ::mlir::gpu::GPUModuleOp::create(b, module.getLoc(), "ph_kernels");
  SimtResult res;
  MmaCodegen cg(funcs[0], opts, res, report);
  if (!cg.run(gm)) {
    gm.erase();
    report.placements.clear();
    report.tiles.clear();
    report.registerTiles = report.sharedTiles = 0;
    return false;
  }
  module->setAttr(::mlir::gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
  for (Type t : funcs[0].getArgumentTypes())
    if (isa<IndexType>(t)) res.sizeArgs64 = true;
  result = res;
  funcs[0].erase();
  return true;
}

} // namespace ph::simt
