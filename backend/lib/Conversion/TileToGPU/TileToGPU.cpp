//===- TileToGPU.cpp - Tiles in shared memory, ops spread over threads ----===//
//
// A direct code generator rather than a pattern rewrite: the kernel's ops are
// walked once in program order and SIMT code is emitted for each, with an
// IRMapping for scalars (which every thread computes alike) and a view per
// tile value. A view is a shared-memory buffer, a splat of a scalar, or a
// broadcast of another view; splats and broadcasts cost no memory and no
// pass. Each op that reads or writes shared memory ends with a barrier, so an
// op always sees its operands complete and a freed buffer is never written
// while another thread still reads it.
//
// Buffers are carved from one dynamic shared-memory block. A buffer lives from
// its defining op to its last use, where a use inside a loop counts as a use at
// the loop's end (the next iteration reads it again); loop-carried tiles get a
// buffer for the whole loop. First-fit over these intervals gives the offsets.
//
//===----------------------------------------------------------------------===//
#include "TileToGPU.h"
#include "CodegenShared.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <memory>

using namespace mlir;

namespace ph::simt {
namespace {

struct View {
  enum Kind { Buffer, Splat, Broadcast, Convert, Lazy } kind = Buffer;
  SmallVector<int64_t> shape;
  Type elem;
  Value mem;                     // Buffer: memref<rows * pitch x elem, workgroup>
  int64_t pitch = 0;             // Buffer: elements between rows (>= the last extent)
  int64_t offset = 0;            // Buffer: bytes from the start of the dynamic shared block
  Value scalar;                  // Splat
  std::shared_ptr<View> source;  // Broadcast, Convert (converted element by element when read)
  Operation *op = nullptr;       // Lazy: an elementwise op computed when its element is read
  SmallVector<std::shared_ptr<View>> args; // Lazy: its operands
};

int64_t numElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

/// Bytes per element of the memory a view reads (a conversion or a broadcast reads its source's).
int64_t storageBytes(const View &v) {
  if ((v.kind == View::Convert || v.kind == View::Broadcast) && v.source) return storageBytes(*v.source);
  return elemBytes(v.elem);
}

/// Elements between rows of a buffer. Rows of a multiple of 16 bytes (64 f32,
/// 128 f16) get 16 bytes of padding: rows stay 16-byte aligned, so copies
/// from global memory and the reads along a row (dot's k loop, row
/// reductions) move 16 bytes per access, and the 8 threads of a 16-byte
/// access phase reading 8 different rows hit 8 different groups of 4 banks.
/// Other rows of an even number of 4-byte words get one word: then a warp
/// reading a column hits 32 different banks instead of one.
int64_t pitchOf(ArrayRef<int64_t> shape, Type elem) {
  if (shape.size() < 2) return shape.empty() ? 1 : shape.back();
  int64_t c = shape.back(), bytes = elemBytes(elem);
  if (bytes > 4 || (c * bytes) % 4 != 0) return c;
  int64_t words = c * bytes / 4;
  if (words < 8 || words % 2 == 1) return c;
  if ((c * bytes) % 16 == 0) return c + 16 / bytes;
  return c + 4 / bytes;
}

class SimtCodegen {
public:
  SimtCodegen(func::FuncOp func, const SimtOptions &opts, SimtResult &result)
      : func_(func), opts_(opts), result_(result), b_(func.getContext()) {}

  bool run(::mlir::gpu::GPUModuleOp gm, std::string &err);

private:
  // ---- liveness ----
  void number(Block &block);
  /// The values whose buffers hold what `v`'s elements are read from (none for splats).
  void rootsOf(Value v, SmallVectorImpl<Value> &out);
  Value applyLazy(const View &v, ArrayRef<Value> args, Location loc);
  void computeLiveness();

  // ---- allocation ----
  View allocate(Value key, ArrayRef<int64_t> shape, Type elem, Location loc);

  // ---- emission helpers ----
  Value cIndex(int64_t v, Location loc) { return arith::ConstantIndexOp::create(b_, loc, v); }
  void barrier(Location loc) { ::mlir::gpu::BarrierOp::create(b_, loc); }
  /// The row-major indices of element `lin` of a tile of `shape`.
  SmallVector<Value> delinearize(Value lin, ArrayRef<int64_t> shape, Location loc);
  void forEachElement(ArrayRef<int64_t> shape, Location loc,
                      function_ref<void(ArrayRef<Value>)> body);
  Value read(const View &v, ArrayRef<Value> idx, Location loc);
  void write(const View &v, ArrayRef<Value> idx, Value value, Location loc);
  /// A pointer to element `idx` of a buffer, for vector accesses.
  Value sharedPtr(const View &v, ArrayRef<Value> idx, Location loc);
  /// Whether `w` elements from a column that is a multiple of `w` can move as one aligned vector.
  static bool vectorRows(const View &v, int64_t w) {
    int64_t bytes = w * elemBytes(v.elem);
    return v.kind == View::Buffer && w > 1 && bytes <= 16 && (bytes & (bytes - 1)) == 0 && !v.shape.empty() &&
           v.shape.back() % w == 0 && (v.pitch * elemBytes(v.elem)) % bytes == 0 && v.offset % bytes == 0;
  }
  /// Elements idx .. idx + w - 1 along the last dimension (idx.back() a multiple of w), as scalars:
  /// one vector load where the buffer allows, through conversions and broadcasts.
  SmallVector<Value> readRow(const View &v, ArrayRef<Value> idx, int64_t w, Location loc);
  /// Global loads of a tile.load's elements for this thread, all issued before any is used
  /// (`scalar` gives the op's scalar operands; `pred` false loads nothing and gives zeros).
  SmallVector<Value> issueLoads(tile::LoadOp ld, function_ref<Value(Value)> scalar, Value pred, Location loc);
  /// One load per element (vector) of the thread: bounds-checked when `masks`.
  SmallVector<Value> issueLoadsEach(tile::LoadOp ld, function_ref<Value(Value)> scalar, Value pred, bool masks,
                                    Location loc);
  /// Stores what issueLoads returned into the tile's buffer.
  void storeLoaded(tile::LoadOp ld, const View &out, ValueRange vals, Location loc);
  int64_t loadsPerThread(tile::LoadOp ld);
  Value convert(Value v, Type to, Location loc);
  Value linearIndex(ArrayRef<Value> idx, ArrayRef<int64_t> shape, int64_t pitch, Location loc);
  /// A sequential loop over [0, n) carrying several scalars.
  SmallVector<Value> reduceLoopN(int64_t n, ValueRange inits, Location loc,
                                 function_ref<SmallVector<Value>(Value, ValueRange)> step) {
    auto l = scf::ForOp::create(b_, loc, cIndex(0, loc), cIndex(n, loc), cIndex(1, loc), inits);
    OpBuilder::InsertionGuard g(b_);
    Block *body = l.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
    b_.setInsertionPointToEnd(body);
    SmallVector<Value> next = step(l.getInductionVar(), l.getRegionIterArgs());
    scf::YieldOp::create(b_, loc, next);
    return SmallVector<Value>(l.getResults());
  }
  /// A sequential loop over [0, n) carrying one scalar: `step(i, carried)` gives the next.
  Value reduceLoop(int64_t n, Value init, Location loc, function_ref<Value(Value, Value)> step) {
    auto l = scf::ForOp::create(b_, loc, cIndex(0, loc), cIndex(n, loc), cIndex(1, loc), ValueRange{init});
    OpBuilder::InsertionGuard g(b_);
    Block *body = l.getBody();
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
    b_.setInsertionPointToEnd(body);
    Value next = step(l.getInductionVar(), l.getRegionIterArgs()[0]);
    scf::YieldOp::create(b_, loc, ValueRange{next});
    return l.getResult(0);
  }
  View &viewOf(Value v);

  // ---- ops ----
  bool emitBlock(Block &block, std::string &err);
  bool emitOp(Operation *op, std::string &err);
  bool emitFor(scf::ForOp op, std::string &err);
  bool emitElementwise(Operation *op, std::string &err);
  template <typename AccessOp>
  void globalAddress(AccessOp op, ArrayRef<Value> tileIdx, Location loc, Value &inBounds, Value &ptr,
                     function_ref<Value(Value)> scalar = nullptr);
  /// Every vector of `width` elements along the last dimension of the tile (of
  /// `tileShape`) a slice access moves, each thread taking its share: the tile
  /// index of the vector's first element, whether it lies inside the tensor,
  /// its address.
  template <typename AccessOp>
  void forEachGlobalVector(AccessOp op, ArrayRef<int64_t> tileShape, int64_t width, Location loc,
                           function_ref<void(ArrayRef<Value> idx, Value inBounds, Value ptr)> body) {
    SmallVector<int64_t> shape(tileShape);
    if (!shape.empty()) shape.back() /= width;
    forEachElement(shape, loc, [&](ArrayRef<Value> vidx) {
      SmallVector<Value> idx(vidx);
      if (width > 1) idx.back() = arith::MulIOp::create(b_, loc, idx.back(), cIndex(width, loc));
      Value inBounds, ptr;
      globalAddress(op, idx, loc, inBounds, ptr);
      body(idx, inBounds, ptr);
    });
  }

  func::FuncOp func_;
  const SimtOptions &opts_;
  SimtResult &result_;
  OpBuilder b_;
  IRMapping scalars_;
  DenseMap<Value, View> tiles_;
  Value tid_, smem_, smemBase_;
  /// tile.convert ops read through (a Convert view) rather than copied: every use is in the
  /// convert's own block, so each element is converted about as often as a copy would.
  DenseSet<Operation *> lazyConverts_;
  DenseSet<Operation *> lazyOps_;
  /// Elementwise ops that write a loop's carried buffer in place (see emitFor).
  DenseMap<Operation *, View> inPlace_;
  /// Loads of a loop body issued one iteration ahead (software pipelining): the op, the index
  /// of its first carried register among the new loop's iter_args, and the next iteration's
  /// registers once emitted.
  struct Prefetch {
    unsigned first = 0, count = 0;
    SmallVector<Value> next;
  };
  DenseMap<Operation *, Prefetch> prefetch_;
  struct LoopCtx {
    scf::ForOp src;   // the tile-level loop
    Value iv, step, ub;
    Block *newBody = nullptr;
  };
  SmallVector<LoopCtx> loops_;
  Value materialize(Value v, scf::ForOp loop, IRMapping &m);
  bool prefetchable(tile::LoadOp ld, scf::ForOp loop);

  DenseMap<Operation *, int64_t> pos_, end_;
  int64_t counter_ = 0;
  DenseMap<Value, int64_t> lastUse_;
  int64_t currentPos_ = 0;

  struct Active {
    int64_t offset, size, end;
  };
  std::vector<Active> active_;
};

void SimtCodegen::number(Block &block) {
  for (Operation &op : block) {
    pos_[&op] = counter_++;
    for (Region &r : op.getRegions())
      for (Block &inner : r) number(inner);
    end_[&op] = counter_ - 1;
  }
}

void SimtCodegen::rootsOf(Value v, SmallVectorImpl<Value> &out) {
  if (auto arg = dyn_cast<BlockArgument>(v)) {
    if (auto forOp = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()))
      if (arg.getArgNumber() > 0) {
        out.push_back(forOp.getResult(arg.getArgNumber() - 1));
        return;
      }
    out.push_back(v);
    return;
  }
  Operation *def = v.getDefiningOp();
  if (auto bc = dyn_cast<tile::BroadcastOp>(def)) return rootsOf(bc.getSource(), out);
  if (lazyConverts_.count(def)) return rootsOf(def->getOperand(0), out);
  if (lazyOps_.count(def)) {
    for (Value o : def->getOperands()) rootsOf(o, out);
    return;
  }
  if (isa<tile::SplatOp>(def)) return;
  if (auto c = dyn_cast<arith::ConstantOp>(def))
    if (isa<SplatElementsAttr>(c.getValue())) return;
  out.push_back(v);
}

/// An elementwise op on tiles whose one use, in the same block, reads each element once (an
/// elementwise op, a mask, a row reduction, a store) is computed where that use reads it:
/// no pass over shared memory, no buffer, no barrier of its own. (Not a yield: the copy
/// back into a loop-carried buffer could read a buffer another copy has already written.)
static bool lazyElementwise(Operation *op) {
  auto isTile = [](Value v) { return isa<RankedTensorType>(v.getType()); };
  if (op->getNumResults() != 1 || !isTile(op->getResult(0)) || op->getNumRegions() ||
      !llvm::all_of(op->getOperands(), isTile) || !isa<arith::ArithDialect, math::MathDialect>(op->getDialect()) ||
      isa<arith::ConstantOp>(op) || !op->getResult(0).hasOneUse())
    return false;
  if (cast<RankedTensorType>(op->getResult(0).getType()).getElementType().getIntOrFloatBitWidth() < 8) return false;
  Operation *user = *op->getResult(0).getUsers().begin();
  if (user->getBlock() != op->getBlock()) return false;
  if (isa<tile::MaskColsOp, tile::CausalMaskOp, tile::RowMaxOp, tile::RowSumOp, tile::StoreOp>(user)) return true;
  return user->getNumResults() == 1 && isTile(user->getResult(0)) && !user->getNumRegions() &&
         llvm::all_of(user->getOperands(), isTile) && isa<arith::ArithDialect, math::MathDialect>(user->getDialect());
}

void SimtCodegen::computeLiveness() {
  func_.walk([&](tile::ConvertOp cv) {
    if (!isa<RankedTensorType>(cv.getType())) return;
    for (Operation *user : cv->getUsers())
      if (user->getBlock() != cv->getBlock()) return;
    lazyConverts_.insert(cv);
  });
  if (opts_.lazyElementwise)
    func_.walk([&](Operation *op) {
      if (lazyElementwise(op)) lazyOps_.insert(op);
    });
  number(func_.getBody().front());
  func_.walk([&](Operation *user) {
    for (Value v : user->getOperands()) {
      if (!isa<RankedTensorType>(v.getType())) continue;
      SmallVector<Value> roots;
      rootsOf(v, roots);
      for (Value root : roots) {
      Block *home = root.getParentBlock();
      if (auto res = dyn_cast<OpResult>(root)) home = res.getOwner()->getBlock();
      Operation *anc = home->findAncestorOpInBlock(*user);
      if (!anc) continue;
      int64_t p = anc == user ? pos_[user] : end_[anc];
      int64_t &lu = lastUse_[root];
      lu = std::max(lu, p);
      }
    }
  });
  // A loop-carried buffer lives through the whole loop.
  func_.walk([&](scf::ForOp f) {
    for (Value r : f.getResults())
      if (isa<RankedTensorType>(r.getType())) {
        int64_t &lu = lastUse_[r];
        lu = std::max(lu, end_[f]);
      }
  });
}

View SimtCodegen::allocate(Value key, ArrayRef<int64_t> shape, Type elem, Location loc) {
  // Free what died before this op.
  active_.erase(std::remove_if(active_.begin(), active_.end(),
                               [&](const Active &a) { return a.end < currentPos_; }),
                active_.end());
  int64_t pitch = pitchOf(shape, elem);
  int64_t rows = shape.empty() ? 1 : numElements(shape) / std::max<int64_t>(1, shape.back());
  int64_t slots = shape.empty() ? 1 : rows * pitch;
  int64_t bytes = slots * elemBytes(elem);
  int64_t size = (bytes + 15) / 16 * 16;
  std::sort(active_.begin(), active_.end(), [](const Active &a, const Active &b) { return a.offset < b.offset; });
  int64_t offset = 0;
  for (const Active &a : active_) {
    if (offset + size <= a.offset) break;
    offset = std::max(offset, a.offset + a.size);
  }
  int64_t end = currentPos_;
  if (auto it = lastUse_.find(key); it != lastUse_.end()) end = std::max(end, it->second);
  active_.push_back({offset, size, end});
  result_.sharedBytes = std::max(result_.sharedBytes, offset + size);
  if (bytes > result_.largestBytes) {
    result_.largestBytes = bytes;
    std::string where = locText(loc);
    if (auto fl = dyn_cast<FileLineColRange>(loc)) {
      result_.largestFile = fl.getFilename().str();
      result_.largestLine = fl.getStartLine();
      result_.largestCol = fl.getStartColumn();
    } else if (auto fl = dyn_cast<FileLineColLoc>(loc)) {
      result_.largestFile = fl.getFilename().str();
      result_.largestLine = fl.getLine();
      result_.largestCol = fl.getColumn();
    }
    result_.largestTile = "`" + typeText(RankedTensorType::get(shape, elem)) + "` (" + std::to_string(bytes) +
                          " bytes)" + (where.empty() ? "" : " at " + where);
  }
  auto wg = ::mlir::gpu::AddressSpaceAttr::get(b_.getContext(), ::mlir::gpu::AddressSpace::Workgroup);
  auto type = MemRefType::get({slots}, elem, MemRefLayoutAttrInterface(), wg);
  View v;
  v.kind = View::Buffer;
  v.shape.assign(shape.begin(), shape.end());
  v.elem = elem;
  v.pitch = pitch;
  v.offset = offset;
  v.mem = memref::ViewOp::create(b_, loc, type, smem_, cIndex(offset, loc), ValueRange{});
  return v;
}

void SimtCodegen::forEachElement(ArrayRef<int64_t> shape, Location loc, function_ref<void(ArrayRef<Value>)> body) {
  int64_t n = numElements(shape);
  auto loop = scf::ForOp::create(b_, loc, tid_, cIndex(n, loc), cIndex(opts_.threads, loc));
  OpBuilder::InsertionGuard guard(b_);
  b_.setInsertionPoint(loop.getBody()->getTerminator());
  body(delinearize(loop.getInductionVar(), shape, loc));
}

SmallVector<Value> SimtCodegen::delinearize(Value lin, ArrayRef<int64_t> shape, Location loc) {
  SmallVector<Value> idx(shape.size());
  for (int d = int(shape.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      idx[d] = lin;
      break;
    }
    Value ext = cIndex(shape[d], loc);
    idx[d] = arith::RemUIOp::create(b_, loc, lin, ext);
    lin = arith::DivUIOp::create(b_, loc, lin, ext);
  }
  return idx;
}

Value SimtCodegen::linearIndex(ArrayRef<Value> idx, ArrayRef<int64_t> shape, int64_t pitch, Location loc) {
  // Row-major over the leading dimensions, then `pitch` elements per row.
  Value lin;
  for (size_t d = 0; d + 1 < shape.size(); ++d) {
    if (!lin) lin = idx[d];
    else lin = arith::AddIOp::create(b_, loc, arith::MulIOp::create(b_, loc, lin, cIndex(shape[d], loc)), idx[d]);
  }
  if (shape.empty()) return cIndex(0, loc);
  if (!lin) return idx.back();
  return arith::AddIOp::create(b_, loc, arith::MulIOp::create(b_, loc, lin, cIndex(pitch, loc)), idx.back());
}

Value SimtCodegen::read(const View &v, ArrayRef<Value> idx, Location loc) {
  switch (v.kind) {
  case View::Splat:
    return v.scalar;
  case View::Broadcast: {
    SmallVector<Value> src;
    const View &s = *v.source;
    // Ranks match (tile.broadcast's verifier); extent-1 dimensions stretch.
    for (size_t d = 0; d < s.shape.size(); ++d)
      src.push_back(s.shape[d] == 1 && v.shape[d] != 1 ? cIndex(0, loc) : idx[d]);
    return read(s, src, loc);
  }
  case View::Convert:
    return convert(read(*v.source, idx, loc), v.elem, loc);
  case View::Lazy: {
    SmallVector<Value> args;
    for (const auto &a : v.args) args.push_back(read(*a, idx, loc));
    return applyLazy(v, args, loc);
  }
  case View::Buffer:
    return memref::LoadOp::create(b_, loc, v.mem, ValueRange{linearIndex(idx, v.shape, v.pitch, loc)});
  }
  return {};
}

Value SimtCodegen::applyLazy(const View &v, ArrayRef<Value> args, Location loc) {
  OperationState st(loc, v.op->getName().getStringRef(), args, TypeRange{v.elem}, v.op->getAttrs());
  return b_.create(st)->getResult(0);
}

Value SimtCodegen::sharedPtr(const View &v, ArrayRef<Value> idx, Location loc) {
  Value lin = linearIndex(idx, v.shape, v.pitch, loc);
  Value elems = arith::AddIOp::create(b_, loc, lin, cIndex(v.offset / elemBytes(v.elem), loc));
  Value off = arith::IndexCastOp::create(b_, loc, b_.getI64Type(), elems);
  return LLVM::GEPOp::create(b_, loc, smemBase_.getType(), v.elem, smemBase_, ValueRange{off});
}

SmallVector<Value> SimtCodegen::readRow(const View &v, ArrayRef<Value> idx, int64_t w, Location loc) {
  SmallVector<Value> out;
  auto scalarAt = [&](int64_t e) {
    SmallVector<Value> at(idx);
    if (e) at.back() = arith::AddIOp::create(b_, loc, idx.back(), cIndex(e, loc));
    return read(v, at, loc);
  };
  if (w == 1) return {read(v, idx, loc)};
  switch (v.kind) {
  case View::Splat:
    return SmallVector<Value>(w, v.scalar);
  case View::Convert:
    for (Value x : readRow(*v.source, idx, w, loc)) out.push_back(convert(x, v.elem, loc));
    return out;
  case View::Lazy: {
    SmallVector<SmallVector<Value>> rows;
    for (const auto &a : v.args) rows.push_back(readRow(*a, idx, w, loc));
    for (int64_t e = 0; e < w; ++e) {
      SmallVector<Value> args;
      for (auto &r : rows) args.push_back(r[e]);
      out.push_back(applyLazy(v, args, loc));
    }
    return out;
  }
  case View::Broadcast: {
    const View &s = *v.source;
    SmallVector<Value> src;
    for (size_t d = 0; d < s.shape.size(); ++d)
      src.push_back(s.shape[d] == 1 && v.shape[d] != 1 ? cIndex(0, loc) : idx[d]);
    if (s.shape.back() == 1 && v.shape.back() != 1) return SmallVector<Value>(w, read(s, src, loc));
    return readRow(s, src, w, loc);
  }
  case View::Buffer: {
    // In pieces of at most 16 bytes, the widest shared-memory access.
    int64_t piece = std::min<int64_t>(w, 16 / elemBytes(v.elem));
    if (w % piece == 0 && vectorRows(v, piece)) {
      auto vt = VectorType::get({piece}, v.elem);
      for (int64_t p = 0; p < w; p += piece) {
        SmallVector<Value> at(idx);
        if (p) at.back() = arith::AddIOp::create(b_, loc, idx.back(), cIndex(p, loc));
        Value vec = LLVM::LoadOp::create(b_, loc, vt, sharedPtr(v, at, loc), unsigned(piece * elemBytes(v.elem)));
        for (int64_t e = 0; e < piece; ++e)
          out.push_back(LLVM::ExtractElementOp::create(
              b_, loc, vec, arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(int32_t(e)))));
      }
      return out;
    }
    break;
  }
  }
  for (int64_t e = 0; e < w; ++e) out.push_back(scalarAt(e));
  return out;
}

void SimtCodegen::write(const View &v, ArrayRef<Value> idx, Value value, Location loc) {
  memref::StoreOp::create(b_, loc, value, v.mem, ValueRange{linearIndex(idx, v.shape, v.pitch, loc)});
}

Value SimtCodegen::convert(Value v, Type to, Location loc) { return convertElement(b_, loc, v, to); }

View &SimtCodegen::viewOf(Value v) {
  auto it = tiles_.find(v);
  assert(it != tiles_.end() && "tile used before its definition");
  return it->second;
}

template <typename AccessOp>
void SimtCodegen::globalAddress(AccessOp op, ArrayRef<Value> tileIdx, Location loc, Value &inBounds, Value &ptr,
                                function_ref<Value(Value)> scalar) {
  emitGlobalAddress(b_, loc, op, tileIdx, [&](Value v) { return scalar ? scalar(v) : scalars_.lookup(v); }, inBounds,
                    ptr);
}


int64_t SimtCodegen::loadsPerThread(tile::LoadOp ld) {
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t n = numElements(rt.getShape()) / vectorWidth(ld, rt.getElementType());
  return (n + opts_.threads - 1) / opts_.threads;
}

/// Thread t takes vectors t, t + threads, ...: consecutive threads read
/// consecutive 16-byte pieces (coalesced). Every load is issued before any
/// result is used, so a thread has all of its loads in flight at once.
SmallVector<Value> SimtCodegen::issueLoads(tile::LoadOp ld, function_ref<Value(Value)> scalar, Value pred,
                                           Location loc) {
  // A masked tile that lies wholly inside the tensor (every key block of a cache but the
  // last) takes a path without the per-element bounds checks and zero fills.
  ArrayRef<bool> masked = ld.getMasked(), squeezed = ld.getSqueezed();
  ArrayRef<int64_t> lens = ld.getLens();
  // A prefetch's `scalar` clones the body's scalar ops on first use and hands the clone to
  // every later use: materialize every operand here, before the fast/slow scf.if below, so that
  // no clone is made inside one branch and reused in the other (an unmasked dimension's offset,
  // read first by the fast branch: "operand #0 does not dominate this use").
  if (scalar)
    for (Value v : ld->getOperands()) (void)scalar(v);
  Value allIn;
  for (size_t d = 0; d < masked.size(); ++d) {
    if (!masked[d]) continue;
    Value off = scalar ? scalar(ld.getOffsets()[d]) : scalars_.lookup(ld.getOffsets()[d]);
    Value ext = scalar ? scalar(ld.getExtents()[d]) : scalars_.lookup(ld.getExtents()[d]);
    Value c = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::ult, off, ext);
    if (!squeezed[d] && lens[d] > 1) {
      Value last = arith::AddIOp::create(b_, loc, off, cIndex(lens[d] - 1, loc));
      c = arith::AndIOp::create(b_, loc, c, arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::ult, last, ext));
    }
    allIn = allIn ? arith::AndIOp::create(b_, loc, allIn, c).getResult() : c;
  }
  if (!allIn || loadsPerThread(ld) == 0) return issueLoadsEach(ld, scalar, pred, true, loc);
  Value fast = pred ? arith::AndIOp::create(b_, loc, pred, allIn).getResult() : allIn;
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t width = vectorWidth(ld, rt.getElementType());
  Type type = width > 1 ? Type(VectorType::get({width}, rt.getElementType())) : rt.getElementType();
  SmallVector<Type> types(size_t(loadsPerThread(ld)), type);
  auto ifOp = scf::IfOp::create(b_, loc, types, fast, /*withElseRegion=*/true);
  OpBuilder::InsertionGuard g(b_);
  b_.setInsertionPointToStart(ifOp.thenBlock());
  scf::YieldOp::create(b_, loc, issueLoadsEach(ld, scalar, Value(), false, loc));
  b_.setInsertionPointToStart(ifOp.elseBlock());
  scf::YieldOp::create(b_, loc, issueLoadsEach(ld, scalar, pred, true, loc));
  return SmallVector<Value>(ifOp.getResults());
}

SmallVector<Value> SimtCodegen::issueLoadsEach(tile::LoadOp ld, function_ref<Value(Value)> scalar, Value pred,
                                               bool masks, Location loc) {
  auto rt = cast<RankedTensorType>(ld.getType());
  Type elem = rt.getElementType();
  int64_t width = vectorWidth(ld, elem);
  SmallVector<int64_t> shape(rt.getShape());
  if (!shape.empty()) shape.back() /= width;
  int64_t n = numElements(shape), per = loadsPerThread(ld);
  Type type = width > 1 ? Type(VectorType::get({width}, elem)) : elem;
  unsigned align = width > 1 ? 16 : 0;
  SmallVector<Value> vals;
  for (int64_t r = 0; r < per; ++r) {
    Value e = arith::AddIOp::create(b_, loc, tid_, cIndex(r * opts_.threads, loc));
    SmallVector<Value> idx = delinearize(e, shape, loc);
    if (width > 1 && !idx.empty()) idx.back() = arith::MulIOp::create(b_, loc, idx.back(), cIndex(width, loc));
    Value inBounds, ptr;
    globalAddress(ld, idx, loc, inBounds, ptr, scalar);
    Value cond = pred;
    auto both = [&](Value c) { cond = cond ? arith::AndIOp::create(b_, loc, cond, c).getResult() : c; };
    if (inBounds && masks) both(inBounds);
    if ((r + 1) * opts_.threads > n) both(arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::ult, e, cIndex(n, loc)));
    vals.push_back(emitLoadOrZero(b_, loc, type, ptr, align, cond));
  }
  return vals;
}

void SimtCodegen::storeLoaded(tile::LoadOp ld, const View &out, ValueRange vals, Location loc) {
  auto rt = cast<RankedTensorType>(ld.getType());
  Type elem = rt.getElementType();
  int64_t width = vectorWidth(ld, elem);
  SmallVector<int64_t> shape(rt.getShape());
  if (!shape.empty()) shape.back() /= width;
  int64_t n = numElements(shape);
  for (auto [r, v] : llvm::enumerate(vals)) {
    Value e = arith::AddIOp::create(b_, loc, tid_, cIndex(int64_t(r) * opts_.threads, loc));
    OpBuilder::InsertionGuard g(b_);
    if ((int64_t(r) + 1) * opts_.threads > n) {
      auto ifOp = scf::IfOp::create(b_, loc, TypeRange{},
                                    arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::ult, e, cIndex(n, loc)),
                                    /*withElseRegion=*/false);
      b_.setInsertionPoint(ifOp.thenBlock()->getTerminator());
    }
    SmallVector<Value> idx = delinearize(e, shape, loc);
    if (width == 1) {
      write(out, idx, v, loc);
      continue;
    }
    if (!idx.empty()) idx.back() = arith::MulIOp::create(b_, loc, idx.back(), cIndex(width, loc));
    if (vectorRows(out, width)) {
      LLVM::StoreOp::create(b_, loc, v, sharedPtr(out, idx, loc), unsigned(width * elemBytes(elem)));
      continue;
    }
    for (int64_t x = 0; x < width; ++x) {
      SmallVector<Value> at(idx);
      at.back() = arith::AddIOp::create(b_, loc, idx.back(), cIndex(x, loc));
      Value pos = arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(int32_t(x)));
      write(out, at, LLVM::ExtractElementOp::create(b_, loc, v, pos), loc);
    }
  }
}

bool SimtCodegen::emitElementwise(Operation *op, std::string &err) {
  Location loc = op->getLoc();
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  Type elem = rt.getElementType();
  if (elem.getIntOrFloatBitWidth() < 8) {
    err = "the GPU target cannot keep a tile of `" + typeText(elem) + "` in shared memory (`" +
          op->getName().getStringRef().str() + "`)";
    return false;
  }
  SmallVector<const View *> ins;
  for (Value v : op->getOperands()) {
    if (!isa<RankedTensorType>(v.getType())) {
      err = "elementwise `" + op->getName().getStringRef().str() + "` mixes tiles and scalars";
      return false;
    }
    ins.push_back(&viewOf(v));
  }
  auto inPlace = inPlace_.find(op);
  View out = inPlace != inPlace_.end() ? inPlace->second : allocate(op->getResult(0), rt.getShape(), elem, loc);
  forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
    SmallVector<Value> args;
    for (const View *v : ins) args.push_back(read(*v, idx, loc));
    OperationState st(loc, op->getName().getStringRef(), args, TypeRange{elem}, op->getAttrs());
    Operation *scalar = b_.create(st);
    write(out, idx, scalar->getResult(0), loc);
  });
  barrier(loc);
  tiles_[op->getResult(0)] = out;
  return true;
}

bool SimtCodegen::emitFor(scf::ForOp op, std::string &err) {
  Location loc = op.getLoc();
  SmallVector<Value> inits;
  SmallVector<int> scalarSlot(op.getNumResults(), -1);
  SmallVector<View> carried(op.getNumResults());
  bool copied = false;
  for (auto [i, init] : llvm::enumerate(op.getInitArgs())) {
    if (auto rt = dyn_cast<RankedTensorType>(init.getType())) {
      carried[i] = allocate(op.getResult(i), rt.getShape(), rt.getElementType(), loc);
      const View &src = viewOf(init);
      View dst = carried[i];
      forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) { write(dst, idx, read(src, idx, loc), loc); });
      copied = true;
    } else {
      scalarSlot[i] = int(inits.size());
      inits.push_back(scalars_.lookup(init));
    }
  }
  if (copied) barrier(loc);
  // A yielded value made by an elementwise op after the last read of the iteration's
  // carried value (acc = acc * corr + dot(...)) is written straight into the carried buffer:
  // each thread reads an element and then writes the same one, and no later op reads the old
  // value, so the copy back at the end of the iteration goes.
  {
    auto yield = cast<scf::YieldOp>(op.getBody()->getTerminator());
    std::function<bool(Value, Value)> reads = [&](Value v, Value arg) -> bool {
      if (v == arg) return true;
      Operation *def = v.getDefiningOp();
      if (!def) return false;
      if (isa<tile::BroadcastOp>(def) || lazyConverts_.count(def) || lazyOps_.count(def))
        return llvm::any_of(def->getOperands(), [&](Value o) { return reads(o, arg); });
      return false;
    };
    for (auto [i, y] : llvm::enumerate(yield.getOperands())) {
      if (scalarSlot[i] >= 0) continue;
      Operation *e = y.getDefiningOp();
      if (!e || e->getBlock() != op.getBody() || lazyOps_.count(e) || !y.hasOneUse() || e->getNumRegions() ||
          e->getNumResults() != 1 || !isa<arith::ArithDialect, math::MathDialect>(e->getDialect()) ||
          isa<arith::ConstantOp>(e) || !llvm::all_of(e->getOperands(), [](Value v) { return isa<RankedTensorType>(v.getType()); }))
        continue;
      Value arg = op.getRegionIterArgs()[i];
      int64_t last = -1;
      op.getBody()->walk([&](Operation *u) {
        for (Value v : u->getOperands())
          if (isa<RankedTensorType>(v.getType()) && reads(v, arg)) {
            Operation *anc = op.getBody()->findAncestorOpInBlock(*u);
            last = std::max(last, anc == u ? pos_[u] : end_[anc]);
          }
      });
      if (last <= pos_[e]) inPlace_[e] = carried[i];
    }
  }
  // Software pipelining: the body's loads whose addresses depend only on the induction
  // variable and values from outside are issued one iteration ahead, into registers carried
  // by the loop, so that they are in flight while the previous block is computed. Before the
  // loop, the first iteration's (none when the loop runs no iteration).
  Value lb = scalars_.lookup(op.getLowerBound()), ub = scalars_.lookup(op.getUpperBound()),
        step = scalars_.lookup(op.getStep());
  SmallVector<tile::LoadOp> ahead;
  int64_t aheadRegs = 0;
  for (Operation &inner : op.getBody()->without_terminator())
    if (auto ld = dyn_cast<tile::LoadOp>(inner); ld && prefetchable(ld, op)) {
      auto rt = cast<RankedTensorType>(ld.getType());
      int64_t regs = loadsPerThread(ld) * std::max<int64_t>(1, vectorWidth(ld, rt.getElementType()) *
                                                                   elemBytes(rt.getElementType()) / 4);
      if (aheadRegs + regs > opts_.prefetchRegisters) continue;
      aheadRegs += regs;
      ahead.push_back(ld);
    }
  if (!ahead.empty()) {
    Value any = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::slt, lb, ub);
    for (tile::LoadOp ld : ahead) {
      IRMapping m;
      m.map(op.getInductionVar(), lb);
      SmallVector<Value> vals = issueLoads(ld, [&](Value v) { return materialize(v, op, m); }, any, loc);
      Prefetch &pf = prefetch_[ld];
      pf.first = unsigned(inits.size());
      pf.count = unsigned(vals.size());
      inits.append(vals.begin(), vals.end());
    }
  }
  auto loop = scf::ForOp::create(b_, loc, lb, ub, step, inits);
  Block *body = loop.getBody();
  loops_.push_back({op, loop.getInductionVar(), step, ub, body});
  scalars_.map(op.getInductionVar(), loop.getInductionVar());
  for (size_t i = 0; i < op.getNumResults(); ++i) {
    Value arg = op.getRegionIterArgs()[i];
    if (scalarSlot[i] >= 0) scalars_.map(arg, body->getArgument(1 + scalarSlot[i]));
    else tiles_[arg] = carried[i];
  }
  {
    OpBuilder::InsertionGuard guard(b_);
    if (!body->empty() && body->back().hasTrait<OpTrait::IsTerminator>()) body->back().erase();
    b_.setInsertionPointToEnd(body);
    Block &src = op.getRegion().front();
    for (Operation &inner : src.without_terminator())
      if (!emitOp(&inner, err)) return false;
    auto yield = cast<scf::YieldOp>(src.getTerminator());
    currentPos_ = pos_[yield];
    SmallVector<Value> yields;
    bool any = false;
    for (auto [i, v] : llvm::enumerate(yield.getOperands())) {
      if (scalarSlot[i] >= 0) {
        yields.push_back(scalars_.lookup(v));
        continue;
      }
      const View &from = viewOf(v);
      if (from.kind == View::Buffer && from.mem == carried[i].mem) continue;
      View dst = carried[i];
      forEachElement(dst.shape, loc, [&](ArrayRef<Value> idx) { write(dst, idx, read(from, idx, loc), loc); });
      any = true;
    }
    if (any) barrier(loc);
    for (tile::LoadOp ld : ahead) {
      Prefetch &pf = prefetch_[ld];
      yields.append(pf.next.begin(), pf.next.end());
    }
    scf::YieldOp::create(b_, loc, yields);
  }
  loops_.pop_back();
  for (tile::LoadOp ld : ahead) prefetch_.erase(ld);
  for (size_t i = 0; i < op.getNumResults(); ++i) {
    if (scalarSlot[i] >= 0) scalars_.map(op.getResult(i), loop.getResult(scalarSlot[i]));
    else tiles_[op.getResult(i)] = carried[i];
  }
  return true;
}

/// `v` for the loop's next (or first) iteration: the induction variable as `m` maps it, values
/// from outside the loop as they are, scalar ops of the body cloned.
Value SimtCodegen::materialize(Value v, scf::ForOp loop, IRMapping &m) {
  if (Value x = m.lookupOrNull(v)) return x;
  Operation *def = v.getDefiningOp();
  if (!def || !loop->isProperAncestor(def)) return scalars_.lookup(v);
  for (Value o : def->getOperands()) m.map(o, materialize(o, loop, m));
  Operation *c = b_.clone(*def, m);
  return c->getResult(unsigned(cast<OpResult>(v).getResultNumber()));
}

/// A load can be issued an iteration ahead when its pointer, offsets and extents are
/// computed from the induction variable and loop-invariant values by scalar arithmetic
/// (not from a tile or a value carried by the loop), straight in the loop's body.
bool SimtCodegen::prefetchable(tile::LoadOp ld, scf::ForOp loop) {
  if (ld->getBlock() != loop.getBody()) return false;
  std::function<bool(Value)> ok = [&](Value v) -> bool {
    if (v == loop.getInductionVar()) return true;
    if (auto arg = dyn_cast<BlockArgument>(v)) return !loop->isAncestor(arg.getOwner()->getParentOp());
    Operation *def = v.getDefiningOp();
    if (!loop->isProperAncestor(def)) return true;
    if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def)) return false;
    if (!isa<arith::ArithDialect>(def->getDialect())) return false;
    return llvm::all_of(def->getOperands(), [&](Value o) { return !isa<RankedTensorType>(o.getType()) && ok(o); });
  };
  return llvm::all_of(ld->getOperands(), ok);
}

bool SimtCodegen::emitOp(Operation *op, std::string &err) {
  currentPos_ = pos_[op];
  Location loc = op->getLoc();
  auto isTile = [](Value v) { return isa<RankedTensorType>(v.getType()); };
  bool tileResult = op->getNumResults() == 1 && isTile(op->getResult(0));

  if (auto f = dyn_cast<scf::ForOp>(op)) return emitFor(f, err);
  if (isa<func::ReturnOp>(op)) {
    ::mlir::gpu::ReturnOp::create(b_, loc);
    return true;
  }
  if (auto c = dyn_cast<arith::ConstantOp>(op); c && tileResult) {
    auto splat = dyn_cast<SplatElementsAttr>(c.getValue());
    if (!splat) {
      err = "the GPU target supports only splat tile constants";
      return false;
    }
    View v;
    v.kind = View::Splat;
    auto rt = cast<RankedTensorType>(c.getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.scalar = arith::ConstantOp::create(b_, loc, cast<TypedAttr>(splat.getSplatValue<Attribute>()));
    tiles_[c.getResult()] = v;
    return true;
  }
  if (auto s = dyn_cast<tile::SplatOp>(op)) {
    View v;
    v.kind = View::Splat;
    auto rt = cast<RankedTensorType>(s.getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.scalar = scalars_.lookup(s.getValue());
    tiles_[s.getResult()] = v;
    return true;
  }
  if (auto bc = dyn_cast<tile::BroadcastOp>(op)) {
    View v;
    v.kind = View::Broadcast;
    auto rt = cast<RankedTensorType>(bc.getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.source = std::make_shared<View>(viewOf(bc.getSource()));
    tiles_[bc.getResult()] = v;
    return true;
  }
  if (auto bid = dyn_cast<tile::BlockIdOp>(op)) {
    scalars_.map(bid.getResult(), emitBlockId(b_, loc, bid.getAxis()));
    return true;
  }
  if (auto cv = dyn_cast<tile::ConvertOp>(op)) {
    auto rt = dyn_cast<RankedTensorType>(cv.getType());
    if (!rt) {
      scalars_.map(cv.getResult(), convert(scalars_.lookup(cv.getSource()), cv.getType(), loc));
      return true;
    }
    const View &src = viewOf(cv.getSource());
    if (lazyConverts_.count(op)) {
      View v;
      v.kind = View::Convert;
      v.shape.assign(rt.getShape().begin(), rt.getShape().end());
      v.elem = rt.getElementType();
      v.source = std::make_shared<View>(src);
      tiles_[cv.getResult()] = v;
      return true;
    }
    View out = allocate(cv.getResult(), rt.getShape(), rt.getElementType(), loc);
    forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
      write(out, idx, convert(read(src, idx, loc), rt.getElementType(), loc), loc);
    });
    barrier(loc);
    tiles_[cv.getResult()] = out;
    return true;
  }
  if (auto ld = dyn_cast<tile::LoadOp>(op)) {
    auto rt = cast<RankedTensorType>(ld.getType());
    Type elem = rt.getElementType();
    View out = allocate(ld.getResult(), rt.getShape(), elem, loc);
    if (auto it = prefetch_.find(op); it != prefetch_.end()) {
      // Loaded during the previous iteration (or before the loop): store it, then issue the
      // next iteration's loads, which arrive while this iteration computes.
      LoopCtx &lc = loops_.back();
      auto args = lc.newBody->getArguments().slice(1 + it->second.first, it->second.count);
      storeLoaded(ld, out, ValueRange(args), loc);
      Value next = arith::AddIOp::create(b_, loc, lc.iv, lc.step);
      Value more = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::slt, next, lc.ub);
      IRMapping m;
      m.map(lc.src.getInductionVar(), next);
      scf::ForOp src = lc.src;
      it->second.next = issueLoads(ld, [&](Value v) { return materialize(v, src, m); }, more, loc);
    } else if (loadsPerThread(ld) <= 32) {
      SmallVector<Value> vals = issueLoads(ld, nullptr, Value(), loc);
      storeLoaded(ld, out, vals, loc);
    } else {
      int64_t width = vectorWidth(ld, elem);
      forEachGlobalVector(ld, rt.getShape(), width, loc, [&](ArrayRef<Value> idx, Value inBounds, Value ptr) {
        Type type = width > 1 ? Type(VectorType::get({width}, elem)) : elem;
        unsigned align = width > 1 ? 16 : 0;
        Value v = emitLoadOrZero(b_, loc, type, ptr, align, inBounds);
        if (width == 1) {
          write(out, idx, v, loc);
          return;
        }
        for (int64_t e = 0; e < width; ++e) {
          SmallVector<Value> at(idx);
          at.back() = arith::AddIOp::create(b_, loc, idx.back(), cIndex(e, loc));
          Value pos = arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(int32_t(e)));
          write(out, at, LLVM::ExtractElementOp::create(b_, loc, v, pos), loc);
        }
      });
    }
    barrier(loc);
    tiles_[ld.getResult()] = out;
    return true;
  }
  if (auto st = dyn_cast<tile::StoreOp>(op)) {
    const View &src = viewOf(st.getValue());
    auto rt = cast<RankedTensorType>(st.getValue().getType());
    Type elem = rt.getElementType();
    int64_t width = vectorWidth(st, elem);
    forEachGlobalVector(st, rt.getShape(), width, loc, [&](ArrayRef<Value> idx, Value inBounds, Value ptr) {
      Value v;
      if (width == 1) {
        v = read(src, idx, loc);
      } else {
        v = LLVM::PoisonOp::create(b_, loc, VectorType::get({width}, elem));
        SmallVector<Value> xs = readRow(src, idx, width, loc);
        for (int64_t e = 0; e < width; ++e) {
          Value pos = arith::ConstantOp::create(b_, loc, b_.getI32IntegerAttr(int32_t(e)));
          v = LLVM::InsertElementOp::create(b_, loc, v, xs[e], pos);
        }
      }
      unsigned align = width > 1 ? 16 : 0;
      emitStoreIf(b_, loc, v, ptr, align, inBounds);
    });
    if (src.kind != View::Splat) barrier(loc);
    return true;
  }
  if (auto ex = dyn_cast<tile::ExtractOp>(op)) {
    auto rt = cast<RankedTensorType>(ex.getType());
    const View &src = viewOf(ex.getSource());
    ArrayRef<bool> squeezed = ex.getSqueezed();
    View out = allocate(ex.getResult(), rt.getShape(), rt.getElementType(), loc);
    forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
      SmallVector<Value> sidx;
      unsigned k = 0;
      for (size_t d = 0; d < squeezed.size(); ++d) {
        Value o = scalars_.lookup(ex.getOffsets()[d]);
        sidx.push_back(squeezed[d] ? o : arith::AddIOp::create(b_, loc, o, idx[k++]).getResult());
      }
      write(out, idx, read(src, sidx, loc), loc);
    });
    barrier(loc);
    tiles_[ex.getResult()] = out;
    return true;
  }
  if (auto ins = dyn_cast<tile::InsertOp>(op)) {
    auto rt = cast<RankedTensorType>(ins.getType());
    const View &dest = viewOf(ins.getDest());
    const View &val = viewOf(ins.getValue());
    ArrayRef<bool> squeezed = ins.getSqueezed();
    ArrayRef<int64_t> lens = ins.getLens();
    Type elem = rt.getElementType();
    View out = allocate(ins.getResult(), rt.getShape(), elem, loc);
    forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
      // One pass: inside the slice take the value's element, else the dest's.
      Value inside;
      SmallVector<Value> vidx;
      for (size_t d = 0; d < squeezed.size(); ++d) {
        Value o = scalars_.lookup(ins.getOffsets()[d]);
        Value c;
        if (squeezed[d]) {
          c = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::eq, idx[d], o);
        } else {
          Value rel = arith::SubIOp::create(b_, loc, idx[d], o);
          // Unsigned compare: idx < o wraps around and fails too.
          c = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::ult, rel, cIndex(lens[d], loc));
          vidx.push_back(rel);
        }
        inside = inside ? arith::AndIOp::create(b_, loc, inside, c).getResult() : c;
      }
      Value v;
      if (!inside) {
        v = read(val, vidx, loc);
      } else {
        auto ifOp = scf::IfOp::create(b_, loc, TypeRange{elem}, inside, true);
        OpBuilder::InsertionGuard g(b_);
        b_.setInsertionPointToStart(ifOp.thenBlock());
        scf::YieldOp::create(b_, loc, ValueRange{read(val, vidx, loc)});
        b_.setInsertionPointToStart(ifOp.elseBlock());
        scf::YieldOp::create(b_, loc, ValueRange{read(dest, idx, loc)});
        v = ifOp.getResult(0);
      }
      write(out, idx, v, loc);
    });
    barrier(loc);
    tiles_[ins.getResult()] = out;
    return true;
  }
  if (auto dot = dyn_cast<tile::DotOp>(op)) {
    auto rt = cast<RankedTensorType>(dot.getType());
    Type acc = rt.getElementType();
    const View &a = viewOf(dot.getA()), &bv = viewOf(dot.getB());
    int64_t kdim = cast<RankedTensorType>(dot.getA().getType()).getShape()[1];
    bool transB = dot.getTransB();
    View out = allocate(dot.getResult(), rt.getShape(), acc, loc);
    int64_t m = rt.getShape()[0], n = rt.getShape()[1];
    // Register blocking: each thread computes tm x tn outputs, rows bi + r*(m/tm)
    // and columns bj + c*(n/tn), so operands loaded once feed tm*tn FMAs and a
    // warp's consecutive threads read consecutive (or broadcast) elements.
    // 4x4, 4x2 or 2x4 outputs per thread where that keeps every thread busy; else the most
    // reuse that keeps half of them busy (decode's [G, BC] scores: an element of b read once
    // feeds all G rows).
    int64_t tm = 1, tn = 1;
    static const std::pair<int64_t, int64_t> blockings[] = {{4, 4}, {4, 2}, {2, 4}, {4, 1}, {2, 2},
                                                            {1, 4}, {1, 2}, {2, 1}, {1, 1}};
    auto pick = [&](int64_t need, size_t count) {
      for (size_t i = 0; i < count; ++i) {
        auto [cm, cn] = blockings[i];
        if (m % cm == 0 && n % cn == 0 && (m / cm) * (n / cn) >= need) {
          tm = cm, tn = cn;
          return true;
        }
      }
      return false;
    };
    if (!pick(opts_.threads, 3)) pick(std::max<int64_t>(1, std::min<int64_t>(opts_.threads, m * n) / 2), 9);
    // The k loop moves w (up to 8) elements of a row at a time in 16-byte shared-memory
    // loads of a, and of b when it is read along k (dot_t's b[j, k]). 32 bytes a step
    // halves the loop's overhead but holds twice the operands in registers.
    int64_t w = std::min<int64_t>(8, opts_.dotStepBytes / std::max(storageBytes(a), transB ? storageBytes(bv) : int64_t(1)));
    while (w > 1 && kdim % w) w /= 2;
    int64_t sm = m / tm, sn = n / tn;
    forEachElement({sm, sn}, loc, [&](ArrayRef<Value> idx) {
      SmallVector<Value> rows, cols;
      for (int64_t r = 0; r < tm; ++r)
        rows.push_back(r ? arith::AddIOp::create(b_, loc, idx[0], cIndex(r * sm, loc)).getResult() : idx[0]);
      for (int64_t c = 0; c < tn; ++c)
        cols.push_back(c ? arith::AddIOp::create(b_, loc, idx[1], cIndex(c * sn, loc)).getResult() : idx[1]);
      Value zero = arith::ConstantOp::create(b_, loc, b_.getZeroAttr(acc));
      SmallVector<Value> inits(tm * tn, zero);
      SmallVector<Value> totals = reduceLoopN(kdim / w, inits, loc, [&](Value kb, ValueRange sums) {
        Value k = w > 1 ? arith::MulIOp::create(b_, loc, kb, cIndex(w, loc)).getResult() : kb;
        SmallVector<SmallVector<Value>> xs, ys;
        SmallVector<Value> next(sums.begin(), sums.end());
        for (Value i : rows) {
          xs.emplace_back();
          for (Value x : readRow(a, {i, k}, w, loc)) xs.back().push_back(convert(x, acc, loc));
        }
        for (Value j : cols) {
          ys.emplace_back();
          if (transB) {
            for (Value y : readRow(bv, {j, k}, w, loc)) ys.back().push_back(convert(y, acc, loc));
          } else {
            for (int64_t e = 0; e < w; ++e) {
              Value ke = e ? arith::AddIOp::create(b_, loc, k, cIndex(e, loc)).getResult() : k;
              ys.back().push_back(convert(read(bv, {ke, j}, loc), acc, loc));
            }
          }
        }
        // k ascending for every output, as with w = 1: the same sums, bit for bit.
        for (int64_t e = 0; e < w; ++e)
          for (int64_t r = 0; r < tm; ++r)
            for (int64_t c = 0; c < tn; ++c) {
              Value x = xs[r][e], y = ys[c][e], &sum = next[r * tn + c];
              sum = isa<FloatType>(acc) ? math::FmaOp::create(b_, loc, x, y, sum).getResult()
                                        : arith::AddIOp::create(b_, loc, arith::MulIOp::create(b_, loc, x, y), sum)
                                              .getResult();
            }
        return next;
      });
      for (int64_t r = 0; r < tm; ++r)
        for (int64_t c = 0; c < tn; ++c) write(out, {rows[r], cols[c]}, totals[r * tn + c], loc);
    });
    barrier(loc);
    tiles_[dot.getResult()] = out;
    return true;
  }
  if (isa<tile::RowMaxOp, tile::RowSumOp>(op)) {
    bool isMax = isa<tile::RowMaxOp>(op);
    Value srcV = op->getOperand(0);
    auto st = cast<RankedTensorType>(srcV.getType());
    auto rt = cast<RankedTensorType>(op->getResult(0).getType());
    Type outElem = rt.getElementType();
    // A 16-bit sum accumulates in f32 and is rounded once (docs/language.md, "Precision").
    bool widen = !isMax && isa<FloatType>(outElem) && outElem.getIntOrFloatBitWidth() < 32;
    Type elem = widen ? Type(b_.getF32Type()) : outElem;
    const View &src = viewOf(srcV);
    View out = allocate(op->getResult(0), rt.getShape(), outElem, loc);
    int64_t cols = st.getShape()[1];
    int64_t w = 16 / storageBytes(src);
    while (w > 1 && cols % w) w /= 2;
    forEachElement({rt.getShape()[0]}, loc, [&](ArrayRef<Value> idx) {
      Value init;
      if (auto ft = dyn_cast<FloatType>(elem))
        init = arith::ConstantOp::create(
            b_, loc, elem, b_.getFloatAttr(ft, isMax ? APFloat::getInf(ft.getFloatSemantics(), true) : APFloat::getZero(ft.getFloatSemantics())));
      else
        init = arith::ConstantOp::create(
            b_, loc, elem,
            b_.getIntegerAttr(elem, isMax ? APInt::getSignedMinValue(elem.getIntOrFloatBitWidth()) : APInt(elem.getIntOrFloatBitWidth(), 0)));
      // Columns in order, w (16 bytes) per step: the same result as one at a time.
      Value total = reduceLoop(cols / w, init, loc, [&](Value cb, Value r) -> Value {
        Value c = w > 1 ? arith::MulIOp::create(b_, loc, cb, cIndex(w, loc)).getResult() : cb;
        for (Value x : readRow(src, {idx[0], c}, w, loc)) {
          if (widen) x = arith::ExtFOp::create(b_, loc, elem, x);
          if (isa<FloatType>(elem))
            r = isMax ? arith::MaximumFOp::create(b_, loc, r, x).getResult() : arith::AddFOp::create(b_, loc, r, x).getResult();
          else
            r = isMax ? arith::MaxSIOp::create(b_, loc, r, x).getResult() : arith::AddIOp::create(b_, loc, r, x).getResult();
        }
        return r;
      });
      if (widen) total = arith::TruncFOp::create(b_, loc, outElem, total);
      write(out, {idx[0], cIndex(0, loc)}, total, loc);
    });
    barrier(loc);
    tiles_[op->getResult(0)] = out;
    return true;
  }
  if (auto mc = dyn_cast<tile::MaskColsOp>(op)) {
    auto rt = cast<RankedTensorType>(mc.getType());
    const View &src = viewOf(mc.getSource());
    Value n = scalars_.lookup(mc.getN()), value = scalars_.lookup(mc.getValue());
    View out = allocate(mc.getResult(), rt.getShape(), rt.getElementType(), loc);
    forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
      Value j = arith::IndexCastOp::create(b_, loc, b_.getI32Type(), idx[1]);
      Value masked = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::sge, j, n);
      write(out, idx, arith::SelectOp::create(b_, loc, masked, value, read(src, idx, loc)), loc);
    });
    barrier(loc);
    tiles_[mc.getResult()] = out;
    return true;
  }
  if (auto cm = dyn_cast<tile::CausalMaskOp>(op)) {
    auto rt = cast<RankedTensorType>(cm.getType());
    auto ft = cast<FloatType>(rt.getElementType());
    const View &src = viewOf(cm.getSource());
    Value row = scalars_.lookup(cm.getRow()), col = scalars_.lookup(cm.getCol());
    View out = allocate(cm.getResult(), rt.getShape(), ft, loc);
    forEachElement(rt.getShape(), loc, [&](ArrayRef<Value> idx) {
      Value i = arith::IndexCastOp::create(b_, loc, b_.getI32Type(), idx[0]);
      Value j = arith::IndexCastOp::create(b_, loc, b_.getI32Type(), idx[1]);
      Value lhs = arith::AddIOp::create(b_, loc, col, j), rhs = arith::AddIOp::create(b_, loc, row, i);
      Value masked = arith::CmpIOp::create(b_, loc, arith::CmpIPredicate::sgt, lhs, rhs);
      Value big = arith::ConstantOp::create(b_, loc, ft, b_.getFloatAttr(ft, -1.0e30));
      write(out, idx, arith::SelectOp::create(b_, loc, masked, big, read(src, idx, loc)), loc);
    });
    barrier(loc);
    tiles_[cm.getResult()] = out;
    return true;
  }
  if (auto ex = dyn_cast<tensor::ExtractOp>(op)) {
    SmallVector<Value> idx;
    for (Value i : ex.getIndices()) idx.push_back(scalars_.lookup(i));
    scalars_.map(ex.getResult(), read(viewOf(ex.getTensor()), idx, loc));
    // The read is of shared memory like any other op's: until every thread has made it, the
    // buffer must not be handed to the next tile (compute-sanitizer's racecheck saw
    // `Lens[b]`'s word overwritten by the first K block's load).
    barrier(loc);
    return true;
  }
  if (op->getNumRegions() != 0) {
    err = "the GPU target cannot lower `" + op->getName().getStringRef().str() + "` (an op with regions)";
    return false;
  }
  if (lazyOps_.count(op)) {
    View v;
    v.kind = View::Lazy;
    auto rt = cast<RankedTensorType>(op->getResult(0).getType());
    v.shape.assign(rt.getShape().begin(), rt.getShape().end());
    v.elem = rt.getElementType();
    v.op = op;
    for (Value o : op->getOperands()) v.args.push_back(std::make_shared<View>(viewOf(o)));
    tiles_[op->getResult(0)] = v;
    return true;
  }
  if (tileResult && llvm::all_of(op->getOperands(), isTile) &&
      (isa<arith::ArithDialect, math::MathDialect>(op->getDialect())))
    return emitElementwise(op, err);
  if (llvm::none_of(op->getOperands(), isTile) && llvm::none_of(op->getResults(), isTile)) {
    b_.clone(*op, scalars_);
    return true;
  }
  err = "the GPU target cannot lower `" + op->getName().getStringRef().str() + "` on tiles";
  return false;
}

bool SimtCodegen::run(::mlir::gpu::GPUModuleOp gm, std::string &err) {
  MLIRContext *ctx = func_.getContext();
  computeLiveness();
  // Global tensors become pointers into global memory; everything else keeps its type.
  SmallVector<Type> argTypes;
  auto global = LLVM::LLVMPointerType::get(ctx, 1);
  for (Type t : func_.getArgumentTypes()) argTypes.push_back(isa<tile::PtrType>(t) ? Type(global) : t);
  b_.setInsertionPointToEnd(gm.getBody());
  auto gf = ::mlir::gpu::GPUFuncOp::create(b_, func_.getLoc(), func_.getName(), FunctionType::get(ctx, argTypes, {}));
  gf->setAttr(::mlir::gpu::GPUDialect::getKernelFuncAttrName(), UnitAttr::get(ctx));
  gf.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(ctx, {opts_.threads, 1, 1}));
  result_.kernelName = func_.getName().str();
  Block &entry = gf.getBody().front();
  for (auto [from, to] : llvm::zip(func_.getArguments(), entry.getArguments())) scalars_.map(from, to);
  b_.setInsertionPointToStart(&entry);
  Location loc = func_.getLoc();
  tid_ = ::mlir::gpu::ThreadIdOp::create(b_, loc, ::mlir::gpu::Dimension::x);
  auto wg = ::mlir::gpu::AddressSpaceAttr::get(ctx, ::mlir::gpu::AddressSpace::Workgroup);
  smem_ = ::mlir::gpu::DynamicSharedMemoryOp::create(
      b_, loc, MemRefType::get({ShapedType::kDynamic}, b_.getI8Type(), MemRefLayoutAttrInterface(), wg));
  // The same block as an LLVM pointer, for 8- and 16-byte accesses (memref accesses are scalar).
  {
    Value addr = memref::ExtractAlignedPointerAsIndexOp::create(b_, loc, smem_);
    Value i64 = arith::IndexCastOp::create(b_, loc, b_.getI64Type(), addr);
    smemBase_ = LLVM::IntToPtrOp::create(b_, loc, LLVM::LLVMPointerType::get(ctx, 3), i64);
  }
  for (Operation &op : func_.getBody().front())
    if (!emitOp(&op, err)) return false;
  if (entry.empty() || !entry.back().hasTrait<OpTrait::IsTerminator>()) ::mlir::gpu::ReturnOp::create(b_, loc);
  if (result_.sharedBytes > opts_.sharedLimit) {
    result_.sharedExceeded = true;
    return false;
  }
  return true;
}

} // namespace

bool convertTileToSimt(ModuleOp module, const SimtOptions &opts, SimtResult &result, std::string &err) {
  SmallVector<func::FuncOp> funcs;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isDeclaration()) funcs.push_back(f);
  if (funcs.size() != 1) {
    err = "the GPU target expects one kernel function in the tile module, found " + std::to_string(funcs.size());
    return false;
  }
  MLIRContext *ctx = module.getContext();
  ctx->getOrLoadDialect<::mlir::gpu::GPUDialect>();
  ctx->getOrLoadDialect<LLVM::LLVMDialect>();
  ctx->getOrLoadDialect<memref::MemRefDialect>();
  ctx->getOrLoadDialect<scf::SCFDialect>();
  ctx->getOrLoadDialect<math::MathDialect>();
  module->setAttr(::mlir::gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
  OpBuilder b(ctx);
  b.setInsertionPointToEnd(module.getBody());
  auto gm = ::mlir::gpu::GPUModuleOp::create(b, module.getLoc(), "ph_kernels");
  // Size arguments after the kernel's own parameters: i32 or index.
  for (Type t : funcs[0].getArgumentTypes())
    if (isa<IndexType>(t)) result.sizeArgs64 = true;
  SimtOptions o = opts;
  // A tuning knob for measuring what issuing loads an iteration ahead brings (0: off).
  if (const char *e = std::getenv("PH_SIMT_PREFETCH_REGS")) o.prefetchRegisters = std::atoi(e);
  if (const char *e = std::getenv("PH_SIMT_DOT_STEP_BYTES")) o.dotStepBytes = std::max(4, std::atoi(e));
  if (const char *e = std::getenv("PH_SIMT_LAZY")) o.lazyElementwise = std::atoi(e) != 0;
  SimtCodegen cg(funcs[0], o, result);
  if (!cg.run(gm, err)) return false;
  funcs[0].erase();
  return true;
}

} // namespace ph::simt
