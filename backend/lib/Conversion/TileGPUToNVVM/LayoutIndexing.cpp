//===- LayoutIndexing.cpp - Types, packing and thread positions of layouts ---===//
#include "PatternBase.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;

namespace ph::tilegpu {

TileGPUTypeConverter::TileGPUTypeConverter(MLIRContext *ctx) {
  addConversion([](Type t) { return t; });
  addConversion([ctx](tile::PtrType) -> Type { return LLVM::LLVMPointerType::get(ctx, 1); });
  addConversion([ctx](MemDescType) -> Type { return LLVM::LLVMPointerType::get(ctx, 3); });
  addConversion([ctx](RankedTensorType t) -> std::optional<Type> {
    if (!t.getEncoding()) return std::nullopt;
    auto rl = registerLayout(t.getEncoding(), t.getShape());
    if (!rl) return std::nullopt;
    SmallVector<Type> elems(rl->numRegs(), t.getElementType());
    return LLVM::LLVMStructType::getLiteral(ctx, elems);
  });
  auto cast = [](OpBuilder &b, Type to, ValueRange in, Location loc) -> Value {
    return UnrealizedConversionCastOp::create(b, loc, to, in).getResult(0);
  };
  addSourceMaterialization(cast);
  addTargetMaterialization(cast);
}

namespace {

/// The elements `pack` inserted into `s`, or nothing when `s` is not such a chain
/// (a loop's carried struct, a call's result).
SmallVector<Value> packedElements(Value s, size_t n) {
  SmallVector<Value> out(n);
  size_t found = 0;
  for (Operation *def = s.getDefiningOp(); def; def = def->getOperand(0).getDefiningOp()) {
    if (isa<LLVM::UndefOp>(def)) break;
    auto ins = dyn_cast<LLVM::InsertValueOp>(def);
    if (!ins || ins.getPosition().size() != 1) return {};
    int64_t i = ins.getPosition()[0];
    // The last insertion into a position is the one the struct holds.
    if (!out[i]) {
      out[i] = ins.getValue();
      ++found;
    }
  }
  if (found != n) return {};
  return out;
}

} // namespace

SmallVector<Value> unpack(OpBuilder &b, Location loc, Value s) {
  auto st = cast<LLVM::LLVMStructType>(s.getType());
  // A struct another pattern just packed: its elements themselves. The extractvalue ops
  // would fold into them in to-nvvm anyway (convert-gpu-to-nvvm's greedy step), but each of
  // those folds walks the insertvalue chain: on a 128-register tile, every element an op
  // reads cost a walk of up to 128 ops, and the dead ops a pass of their own
  // (docs/compile.md, "2026-12-06, fourth session").
  if (SmallVector<Value> direct = packedElements(s, st.getBody().size()); !direct.empty()) return direct;
  SmallVector<Value> out;
  for (int64_t i = 0, n = st.getBody().size(); i < n; ++i) out.push_back(LLVM::ExtractValueOp::create(b, loc, s, i));
  return out;
}

Value pack(OpBuilder &b, Location loc, Type type, ValueRange elems) {
  Value s = LLVM::UndefOp::create(b, loc, type);
  for (auto [i, e] : llvm::enumerate(elems)) s = LLVM::InsertValueOp::create(b, loc, s, e, int64_t(i));
  return s;
}

namespace {

/// The constant an index operand holds (arith.constant or llvm.mlir.constant), else -1.
int64_t constantIndex(Value v) {
  IntegerAttr c;
  if (auto k = v.getDefiningOp<arith::ConstantOp>()) c = dyn_cast<IntegerAttr>(k.getValue());
  else if (auto k = v.getDefiningOp<LLVM::ConstantOp>()) c = dyn_cast<IntegerAttr>(k.getValue());
  return c ? c.getInt() : -1;
}

/// The vector of `type` whose elements `elems` extract in order, if they do (an ldmatrix
/// register's two halves, going back into an mma.sync fragment).
Value extractedFrom(ValueRange elems, VectorType type) {
  Value src;
  for (auto [i, e] : llvm::enumerate(elems)) {
    auto x = e.getDefiningOp<LLVM::ExtractElementOp>();
    if (!x || (src && x.getVector() != src) || constantIndex(x.getPosition()) != int64_t(i)) return {};
    src = x.getVector();
  }
  return src.getType() == type ? src : Value();
}

} // namespace

Value vectorOf(OpBuilder &b, Location loc, ValueRange elems) {
  auto type = VectorType::get({int64_t(elems.size())}, elems.front().getType());
  // LLVM's InstCombine would fold the round trip; not making it spares to-nvvm and LLVM both.
  if (Value src = extractedFrom(elems, type)) return src;
  Value v = LLVM::PoisonOp::create(b, loc, type);
  for (auto [i, e] : llvm::enumerate(elems)) {
    Value at = LLVM::ConstantOp::create(b, loc, b.getI64Type(), b.getI64IntegerAttr(int64_t(i)));
    v = LLVM::InsertElementOp::create(b, loc, type, v, e, at);
  }
  return v;
}

Value cIndex(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

Value threadId(OpBuilder &b, Location loc) { return gpu::ThreadIdOp::create(b, loc, gpu::Dimension::x); }

RegisterLayout layoutOfType(Type t) {
  auto rt = cast<RankedTensorType>(t);
  auto rl = registerLayout(rt.getEncoding(), rt.getShape());
  assert(rl && "a tile without a register layout reached the lowering");
  return *rl;
}

namespace {

/// Coordinates of `linear` over `counts`, `order[0]` fastest.
SmallVector<Value> delinearize(OpBuilder &b, Location loc, Value linear, ArrayRef<unsigned> counts,
                               ArrayRef<unsigned> order) {
  SmallVector<Value> out(counts.size());
  for (unsigned d : order) {
    Value c = cIndex(b, loc, counts[d]);
    out[d] = arith::RemUIOp::create(b, loc, linear, c);
    linear = arith::DivUIOp::create(b, loc, linear, c);
  }
  return out;
}

} // namespace

SmallVector<Value> threadBase(OpBuilder &b, Location loc, Attribute layout, const RegisterLayout &rl) {
  Value tid = threadId(b, loc);
  Value c32 = cIndex(b, loc, 32);
  Value lane = arith::RemUIOp::create(b, loc, tid, c32);
  Value warp = arith::DivUIOp::create(b, loc, tid, c32);
  SmallVector<Value> base;
  if (auto bl = dyn_cast<BlockedEncodingAttr>(layout)) {
    SmallVector<Value> lc = delinearize(b, loc, lane, bl.getThreadsPerWarp(), bl.getOrder());
    SmallVector<Value> wc = delinearize(b, loc, warp, bl.getWarpsPerCTA(), bl.getOrder());
    for (unsigned d = 0; d < rl.rank(); ++d) {
      int64_t spt = bl.getSizePerThread()[d], tpw = bl.getThreadsPerWarp()[d];
      Value l = arith::MulIOp::create(b, loc, lc[d], cIndex(b, loc, spt));
      Value w = arith::MulIOp::create(b, loc, wc[d], cIndex(b, loc, spt * tpw));
      base.push_back(arith::AddIOp::create(b, loc, l, w));
    }
    return base;
  }
  // mma v2 and its operands: warp (row, col) row-major over warpsPerCTA; lane (g, t).
  MmaEncodingAttr m = dyn_cast<MmaEncodingAttr>(layout);
  auto op = dyn_cast<DotOperandEncodingAttr>(layout);
  if (op) m = cast<MmaEncodingAttr>(op.getParent());
  Value wn = cIndex(b, loc, m.getWarpsPerCTA()[1]);
  Value wRow = arith::DivUIOp::create(b, loc, warp, wn), wCol = arith::RemUIOp::create(b, loc, warp, wn);
  Value g = arith::DivUIOp::create(b, loc, lane, cIndex(b, loc, 4));
  Value t2 = arith::MulIOp::create(b, loc, arith::RemUIOp::create(b, loc, lane, cIndex(b, loc, 4)), cIndex(b, loc, 2));
  auto rows = [&] { return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, wRow, cIndex(b, loc, 16)), g).getResult(); };
  auto cols = [&](Value inBlock) {
    return arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, wCol, cIndex(b, loc, 8)), inBlock).getResult();
  };
  if (!op) return {rows(), cols(t2)};
  if (op.getOpIdx() == 0) return {rows(), t2};
  return op.getTrans() ? SmallVector<Value>{cols(g), t2} : SmallVector<Value>{t2, cols(g)};
}

Value position(OpBuilder &b, Location loc, const RegisterLayout &rl, ArrayRef<Value> base, int64_t r, unsigned d) {
  Value p = arith::AddIOp::create(b, loc, base[d], cIndex(b, loc, rl.offset(r, d)));
  if (rl.wraps(d)) p = arith::RemUIOp::create(b, loc, p, cIndex(b, loc, rl.shape[d]));
  return p;
}

int64_t loadLastDimDivisibility(Operation *load) {
  auto l = dyn_cast<tile::LoadOp>(load);
  if (!l || l.getOffsets().empty()) return 1;
  ArrayRef<bool> squeezed = l.getSqueezed();
  if (!squeezed.empty() && squeezed.back()) return 1;
  size_t d = l.getOffsets().size() - 1;
  return std::min(divisibility(l.getOffsets()[d]), divisibility(l.getExtents()[d]));
}

int64_t lastDimDivisibility(Operation *access) {
  auto a = access->getAttrOfType<IntegerAttr>(kDivisibilityAttr);
  return a ? a.getInt() : 1;
}

void noteDivisibility(Operation *root) {
  // Before the conversion moves the kernel's body: the facts come from the
  // function's arguments and loops, which the conversion replaces.
  root->walk([](Operation *op) {
    auto note = [&](auto o) {
      if (o.getOffsets().empty()) return;
      size_t d = o.getOffsets().size() - 1;
      int64_t v = std::min(divisibility(o.getOffsets()[d]), divisibility(o.getExtents()[d]));
      op->setAttr(kDivisibilityAttr, IntegerAttr::get(IntegerType::get(op->getContext(), 64), v));
    };
    if (auto l = dyn_cast<tile::LoadOp>(op)) note(l);
    else if (auto s = dyn_cast<tile::StoreOp>(op)) note(s);
    else if (auto c = dyn_cast<AsyncCopyOp>(op)) note(c);
  });
}

} // namespace ph::tilegpu
