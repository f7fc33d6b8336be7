//===- TileToLoops.cpp - The CPU lowering of the tile dialect and its pipelines ===//
//
// tile-to-linalg rewrites tile ops into tensor/linalg/scf ops that still hold
// tiles as tensors; upstream One-Shot Bufferize then turns tensors into
// buffers and linalg into loops. Doing the tile ops' semantics on tensors
// lets the upstream bufferizer do the in-place analysis (insert into a tile
// inside a loop updates its buffer, a copy happens only where `var a = x[..]`
// must not alias x).
//
//===----------------------------------------------------------------------===//
#include "ph/Conversion/ConvertRules.h"
#include "ph/Conversion/Passes.h"
#include "ph/Dialect/Tile/TileDialect.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/BufferizationToMemRef/BufferizationToMemRef.h"
#include "mlir/Conversion/ConvertToLLVM/ToLLVMPass.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/OneShotAnalysis.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace ph::tile {
#define GEN_PASS_DEF_TILETOLINALG
#define GEN_PASS_DEF_TILEBUFFERIZE
#define GEN_PASS_REGISTRATION
#include "ph/Conversion/Passes.h.inc"
} // namespace ph::tile

using namespace ph::tile;

namespace {

//===----------------------------------------------------------------------===//
// Scalar helpers shared by the op lowerings.
//===----------------------------------------------------------------------===//

/// Converts a scalar or a tensor to `resultType`: tile.convert's rules, shared
/// with the GPU lowerings (ph/Conversion/ConvertRules.h).
Value convertTo(OpBuilder &b, Location loc, Value v, Type resultType) {
  return ph::conv::convertValue(b, loc, v, resultType);
}

Value constantOf(OpBuilder &b, Location loc, Type elem, double value) {
  if (auto ft = dyn_cast<FloatType>(elem))
    return arith::ConstantOp::create(b, loc, elem, b.getFloatAttr(ft, value));
  return arith::ConstantOp::create(b, loc, elem, b.getIntegerAttr(elem, (int64_t)value));
}

/// The identity of max: -inf for floats, the smallest integer otherwise.
Value lowestOf(OpBuilder &b, Location loc, Type elem) {
  if (auto ft = dyn_cast<FloatType>(elem))
    return arith::ConstantOp::create(
        b, loc, elem, b.getFloatAttr(ft, APFloat::getInf(ft.getFloatSemantics(), true)));
  return arith::ConstantOp::create(
      b, loc, elem,
      b.getIntegerAttr(elem, APInt::getSignedMinValue(elem.getIntOrFloatBitWidth())));
}

Value addOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::AddFOp::create(b, loc, x, y);
  return arith::AddIOp::create(b, loc, x, y);
}

Value maxOf(OpBuilder &b, Location loc, Value x, Value y) {
  if (isa<FloatType>(x.getType()))
    return arith::MaximumFOp::create(b, loc, x, y);
  return arith::MaxSIOp::create(b, loc, x, y);
}

/// A tensor of `type` filled with `value` (tensor.empty + linalg.fill).
Value filled(OpBuilder &b, Location loc, RankedTensorType type, Value value) {
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType());
  return linalg::FillOp::create(b, loc, ValueRange{value}, ValueRange{empty}).getResult(0);
}

SmallVector<utils::IteratorType> parallel(unsigned n) {
  return SmallVector<utils::IteratorType>(n, utils::IteratorType::parallel);
}

//===----------------------------------------------------------------------===//
// Global tensor access through a raw pointer.
//===----------------------------------------------------------------------===//

/// Per-element addressing of a load or store: the element's tensor indices
/// (offset + tile index, or the offset alone where squeezed), whether it is
/// inside every masked dimension, and its row-major linear index.
struct ElementAddress {
  Value inBounds; // null when no dimension is masked
  Value linear;   // index
};

template <typename AccessOp>
ElementAddress addressOf(OpBuilder &b, Location loc, AccessOp op, ValueRange tileIvs) {
  ElementAddress a{};
  ArrayRef<bool> squeezed = op.getSqueezed(), masked = op.getMasked();
  unsigned k = 0;
  for (size_t d = 0; d < squeezed.size(); ++d) {
    Value i = op.getOffsets()[d];
    if (!squeezed[d])
      i = arith::AddIOp::create(b, loc, i, tileIvs[k++]);
    if (masked[d]) {
      // Unsigned: a negative index is out of bounds too.
      Value c = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult, i, op.getExtents()[d]);
      a.inBounds = a.inBounds ? arith::AndIOp::create(b, loc, a.inBounds, c).getResult() : c;
    }
    a.linear = d == 0 ? i
                      : arith::AddIOp::create(
                            b, loc, arith::MulIOp::create(b, loc, a.linear, op.getExtents()[d]), i)
                            .getResult();
  }
  return a;
}

Value elementPtr(OpBuilder &b, Location loc, Value base, Type elem, Value linear) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), linear);
  return LLVM::GEPOp::create(b, loc, LLVM::LLVMPointerType::get(b.getContext()), elem, base,
                             ValueRange{i64});
}

/// The type an element has in memory for the LLVM dialect's loads and stores: fp8
/// (no LLVM type) as its bits, i8; the value itself stays fp8 through arith.bitcast.
Type memoryElem(OpBuilder &b, Type elem) {
  return isa<Float8E4M3FNType, Float8E5M2Type>(elem) ? b.getI8Type() : elem;
}

Value lowerLoad(OpBuilder &b, LoadOp op, Value base) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getType();
  Type elem = type.getElementType();
  return tensor::GenerateOp::create(
      b, loc, type, ValueRange{}, [&](OpBuilder &bb, Location l, ValueRange ivs) {
        ElementAddress a = addressOf(bb, l, op, ivs);
        auto load = [&](OpBuilder &lb, Location ll) -> Value {
          Type mem = memoryElem(lb, elem);
          Value v = LLVM::LoadOp::create(lb, ll, mem, elementPtr(lb, ll, base, mem, a.linear));
          return mem == elem ? v : arith::BitcastOp::create(lb, ll, elem, v).getResult();
        };
        Value v;
        if (!a.inBounds) {
          v = load(bb, l);
        } else {
          auto ifOp = scf::IfOp::create(
              bb, l, a.inBounds,
              [&](OpBuilder &tb, Location tl) { scf::YieldOp::create(tb, tl, load(tb, tl)); },
              [&](OpBuilder &eb, Location el) {
                scf::YieldOp::create(eb, el, constantOf(eb, el, elem, 0));
              });
          v = ifOp.getResult(0);
        }
        tensor::YieldOp::create(bb, l, v);
      });
}

void lowerStore(OpBuilder &b, StoreOp op, Value base) {
  Location loc = op.getLoc();
  RankedTensorType type = op.getValue().getType();
  Type elem = type.getElementType();
  SmallVector<Value> lbs, ubs, steps;
  Value c0 = arith::ConstantIndexOp::create(b, loc, 0), c1 = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t n : type.getShape()) {
    lbs.push_back(c0);
    ubs.push_back(arith::ConstantIndexOp::create(b, loc, n));
    steps.push_back(c1);
  }
  scf::buildLoopNest(b, loc, lbs, ubs, steps, [&](OpBuilder &bb, Location l, ValueRange ivs) {
    Value v = tensor::ExtractOp::create(bb, l, op.getValue(), ivs);
    ElementAddress a = addressOf(bb, l, op, ivs);
    auto store = [&](OpBuilder &sb, Location sl) {
      Type mem = memoryElem(sb, elem);
      Value bits = mem == elem ? v : arith::BitcastOp::create(sb, sl, mem, v).getResult();
      LLVM::StoreOp::create(sb, sl, bits, elementPtr(sb, sl, base, mem, a.linear));
    };
    if (!a.inBounds) {
      store(bb, l);
      return;
    }
    scf::IfOp::create(bb, l, a.inBounds, [&](OpBuilder &tb, Location tl) {
      store(tb, tl);
      scf::YieldOp::create(tb, tl);
    });
  });
}

//===----------------------------------------------------------------------===//
// Compute ops as linalg.generic on tensors.
//===----------------------------------------------------------------------===//

SmallVector<OpFoldResult> asFold(ValueRange vs) { return SmallVector<OpFoldResult>(vs.begin(), vs.end()); }

Value lowerDot(OpBuilder &b, DotOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  RankedTensorType rt = op.getType();
  Type re = rt.getElementType();
  Value init = filled(b, loc, rt, constantOf(b, loc, re, 0));
  AffineExpr m, n, k;
  bindDims(ctx, m, n, k);
  SmallVector<AffineMap> maps = {
      AffineMap::get(3, 0, {m, k}, ctx),
      AffineMap::get(3, 0, op.getTransB() ? ArrayRef<AffineExpr>{n, k} : ArrayRef<AffineExpr>{k, n}, ctx),
      AffineMap::get(3, 0, {m, n}, ctx)};
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel,
                                            utils::IteratorType::parallel,
                                            utils::IteratorType::reduction};
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{rt}, ValueRange{op.getA(), op.getB()}, ValueRange{init}, maps, iters,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value x = convertTo(bb, l, args[0], re), y = convertTo(bb, l, args[1], re);
        Value p = isa<FloatType>(re) ? arith::MulFOp::create(bb, l, x, y).getResult()
                                     : arith::MulIOp::create(bb, l, x, y).getResult();
        linalg::YieldOp::create(bb, l, addOf(bb, l, args[2], p));
      });
  return g.getResult(0);
}

/// The type a reduction accumulates in: f32 for a sum of 16-bit floats (rounded
/// once at the end, as the GPU's shuffles do and the interpreter models:
/// docs/language.md, "Precision"), else the element type.
Type accumulatorOf(OpBuilder &b, Type elem, bool isMax) {
  auto ft = dyn_cast<FloatType>(elem);
  return !isMax && ft && ft.getWidth() < 32 ? Type(b.getF32Type()) : elem;
}

/// rowsum / rowmax (`rows`) and colsum / colmax: the reduced dimension outer for
/// columns, inner for rows, so each sum adds in the interpreter's order.
Value lowerReduce(OpBuilder &b, Operation *op, bool isMax, bool rows) {
  Location loc = op->getLoc();
  MLIRContext *ctx = b.getContext();
  auto rt = cast<RankedTensorType>(op->getResult(0).getType());
  Type elem = rt.getElementType();
  Type acc = accumulatorOf(b, elem, isMax);
  auto at = RankedTensorType::get(rt.getShape(), acc);
  Value init = filled(b, loc, at, isMax ? lowestOf(b, loc, acc) : constantOf(b, loc, acc, 0));
  AffineExpr i, j;
  bindDims(ctx, i, j);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  SmallVector<AffineMap> maps = {AffineMap::get(2, 0, {i, j}, ctx),
                                 rows ? AffineMap::get(2, 0, {i, zero}, ctx) : AffineMap::get(2, 0, {zero, j}, ctx)};
  SmallVector<utils::IteratorType> iters = {rows ? utils::IteratorType::parallel : utils::IteratorType::reduction,
                                            rows ? utils::IteratorType::reduction : utils::IteratorType::parallel};
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{at}, ValueRange{op->getOperand(0)}, ValueRange{init}, maps, iters,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value x = acc == elem ? args[0] : convertTo(bb, l, args[0], acc);
        linalg::YieldOp::create(bb, l, isMax ? maxOf(bb, l, args[1], x) : addOf(bb, l, args[1], x));
      });
  return acc == elem ? g.getResult(0) : convertTo(b, loc, g.getResult(0), rt);
}

/// rowargmax: one reduction over the columns carrying (best value, its column),
/// left to right; a column replaces the best when it is larger, or a NaN over a
/// number, so the first maximum (or the first NaN) is kept.
Value lowerRowArgMax(OpBuilder &b, RowArgMaxOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  auto st = cast<RankedTensorType>(op.getSource().getType());
  auto rt = cast<RankedTensorType>(op.getResult().getType());
  Type elem = st.getElementType();
  bool isF = isa<FloatType>(elem);
  Value best = filled(b, loc, RankedTensorType::get(rt.getShape(), elem), lowestOf(b, loc, elem));
  Value at = filled(b, loc, rt, constantOf(b, loc, rt.getElementType(), 0));
  AffineExpr i, j;
  bindDims(ctx, i, j);
  AffineExpr zero = getAffineConstantExpr(0, ctx);
  AffineMap in = AffineMap::get(2, 0, {i, j}, ctx), out = AffineMap::get(2, 0, {i, zero}, ctx);
  SmallVector<utils::IteratorType> iters = {utils::IteratorType::parallel, utils::IteratorType::reduction};
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{best.getType(), rt}, ValueRange{op.getSource()}, ValueRange{best, at},
      SmallVector<AffineMap>{in, out, out}, iters,
      [&](OpBuilder &bb, Location l, ValueRange args) {
        Value x = args[0], bv = args[1], bi = args[2];
        Value take;
        if (isF) {
          Value gt = arith::CmpFOp::create(bb, l, arith::CmpFPredicate::OGT, x, bv);
          Value xNan = arith::CmpFOp::create(bb, l, arith::CmpFPredicate::UNO, x, x);
          Value bNum = arith::CmpFOp::create(bb, l, arith::CmpFPredicate::ORD, bv, bv);
          take = arith::OrIOp::create(bb, l, gt, arith::AndIOp::create(bb, l, xNan, bNum));
        } else {
          take = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sgt, x, bv);
        }
        Value col = arith::IndexCastOp::create(bb, l, bb.getI32Type(), linalg::IndexOp::create(bb, l, 1));
        linalg::YieldOp::create(bb, l, ValueRange{arith::SelectOp::create(bb, l, take, x, bv).getResult(),
                                                  arith::SelectOp::create(bb, l, take, col, bi).getResult()});
      });
  return g.getResult(1);
}

/// A linalg.generic computing `body(indices, element)` for every element of
/// `source` into a new tensor of the same type.
Value mapWithIndices(OpBuilder &b, Location loc, Value source,
                     function_ref<Value(OpBuilder &, Location, ValueRange, Value)> body) {
  auto rt = cast<RankedTensorType>(source.getType());
  MLIRContext *ctx = b.getContext();
  Value empty = tensor::EmptyOp::create(b, loc, rt.getShape(), rt.getElementType());
  AffineMap id = AffineMap::getMultiDimIdentityMap(rt.getRank(), ctx);
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{rt}, ValueRange{source}, ValueRange{empty}, SmallVector<AffineMap>{id, id},
      parallel(rt.getRank()), [&](OpBuilder &bb, Location l, ValueRange args) {
        SmallVector<Value> idx;
        for (int64_t d = 0; d < rt.getRank(); ++d)
          idx.push_back(linalg::IndexOp::create(bb, l, d));
        linalg::YieldOp::create(bb, l, body(bb, l, idx, args[0]));
      });
  return g.getResult(0);
}

Value lowerBroadcast(OpBuilder &b, BroadcastOp op) {
  Location loc = op.getLoc();
  MLIRContext *ctx = b.getContext();
  RankedTensorType st = op.getSource().getType(), rt = op.getType();
  SmallVector<AffineExpr> in;
  for (int64_t d = 0; d < rt.getRank(); ++d)
    in.push_back(st.getDimSize(d) == 1 && rt.getDimSize(d) != 1 ? getAffineConstantExpr(0, ctx)
                                                                : getAffineDimExpr(d, ctx));
  Value empty = tensor::EmptyOp::create(b, loc, rt.getShape(), rt.getElementType());
  SmallVector<AffineMap> maps = {AffineMap::get(rt.getRank(), 0, in, ctx),
                                 AffineMap::getMultiDimIdentityMap(rt.getRank(), ctx)};
  auto g = linalg::GenericOp::create(
      b, loc, TypeRange{rt}, ValueRange{op.getSource()}, ValueRange{empty}, maps,
      parallel(rt.getRank()),
      [&](OpBuilder &bb, Location l, ValueRange args) { linalg::YieldOp::create(bb, l, args[0]); });
  return g.getResult(0);
}

/// Rewrites every tile op of one function (already given raw pointers and
/// block-id arguments) into tensor/linalg/scf/llvm ops.
LogicalResult lowerBody(func::FuncOp f, ArrayRef<Value> blockIds) {
  SmallVector<Operation *> ops;
  f.walk([&](Operation *op) {
    if (isa<TileDialect>(op->getDialect()))
      ops.push_back(op);
  });
  for (Operation *op : ops) {
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value repl;
    if (auto o = dyn_cast<BlockIdOp>(op)) {
      repl = blockIds[o.getAxis()];
    } else if (auto o = dyn_cast<LoadOp>(op)) {
      repl = lowerLoad(b, o, o.getPtr());
    } else if (auto o = dyn_cast<StoreOp>(op)) {
      lowerStore(b, o, o.getPtr());
    } else if (auto o = dyn_cast<ExtractOp>(op)) {
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t n : o.getLens()) {
        sizes.push_back(b.getIndexAttr(n));
        strides.push_back(b.getIndexAttr(1));
      }
      repl = tensor::ExtractSliceOp::create(b, loc, o.getType(), o.getSource(), asFold(o.getOffsets()),
                                            sizes, strides);
    } else if (auto o = dyn_cast<InsertOp>(op)) {
      SmallVector<OpFoldResult> sizes, strides;
      for (int64_t n : o.getLens()) {
        sizes.push_back(b.getIndexAttr(n));
        strides.push_back(b.getIndexAttr(1));
      }
      repl = tensor::InsertSliceOp::create(b, loc, o.getValue(), o.getDest(), asFold(o.getOffsets()),
                                           sizes, strides);
    } else if (auto o = dyn_cast<DotOp>(op)) {
      repl = lowerDot(b, o);
    } else if (isa<RowMaxOp, RowSumOp>(op)) {
      repl = lowerReduce(b, op, isa<RowMaxOp>(op), /*rows=*/true);
    } else if (isa<ColMaxOp, ColSumOp>(op)) {
      repl = lowerReduce(b, op, isa<ColMaxOp>(op), /*rows=*/false);
    } else if (auto o = dyn_cast<RowArgMaxOp>(op)) {
      repl = lowerRowArgMax(b, o);
    } else if (auto o = dyn_cast<BroadcastOp>(op)) {
      repl = lowerBroadcast(b, o);
    } else if (auto o = dyn_cast<SplatOp>(op)) {
      repl = filled(b, loc, o.getType(), o.getValue());
    } else if (auto o = dyn_cast<MaskColsOp>(op)) {
      Value n = arith::IndexCastOp::create(b, loc, b.getIndexType(), o.getN());
      Value v = o.getValue();
      repl = mapWithIndices(b, loc, o.getSource(), [&](OpBuilder &bb, Location l, ValueRange idx, Value x) {
        Value past = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sge, idx[1], n);
        return arith::SelectOp::create(bb, l, past, v, x).getResult();
      });
    } else if (auto o = dyn_cast<CausalMaskOp>(op)) {
      Value row = arith::IndexCastOp::create(b, loc, b.getIndexType(), o.getRow());
      Value col = arith::IndexCastOp::create(b, loc, b.getIndexType(), o.getCol());
      Type elem = o.getType().getElementType();
      repl = mapWithIndices(b, loc, o.getSource(), [&](OpBuilder &bb, Location l, ValueRange idx, Value x) {
        Value key = arith::AddIOp::create(bb, l, col, idx[1]);
        Value query = arith::AddIOp::create(bb, l, row, idx[0]);
        Value future = arith::CmpIOp::create(bb, l, arith::CmpIPredicate::sgt, key, query);
        return arith::SelectOp::create(bb, l, future, constantOf(bb, l, elem, -1.0e30), x).getResult();
      });
    } else if (auto o = dyn_cast<IotaOp>(op)) {
      int64_t dim = o.getDim();
      Value empty = tensor::EmptyOp::create(b, loc, o.getType().getShape(), b.getI32Type());
      repl = mapWithIndices(b, loc, empty, [&](OpBuilder &bb, Location l, ValueRange idx, Value) {
        return arith::IndexCastOp::create(bb, l, bb.getI32Type(), idx[dim]).getResult();
      });
    } else if (auto o = dyn_cast<ConvertOp>(op)) {
      repl = convertTo(b, loc, o.getSource(), o.getType());
    } else {
      return op->emitOpError("has no CPU lowering");
    }
    if (repl)
      op->getResult(0).replaceAllUsesWith(repl);
    op->erase();
  }
  return success();
}

/// Turns kernel `@k(args)` into `@k_cta(args', bx, by, bz)` and adds the
/// grid entry `@k(args', gx, gy, gz)`, where args' has `!llvm.ptr` for
/// every `!tile.ptr<T>`.
LogicalResult lowerKernel(ModuleOp module, func::FuncOp f) {
  MLIRContext *ctx = module.getContext();
  if (f.getNumResults() != 0)
    return f.emitOpError("is a kernel and must return nothing (results are stored into tensors)");
  Type ptrTy = LLVM::LLVMPointerType::get(ctx);
  Type i32 = IntegerType::get(ctx, 32);
  Block &entry = f.getBody().front();
  for (BlockArgument arg : entry.getArguments())
    if (isa<PtrType>(arg.getType()))
      arg.setType(ptrTy);
  SmallVector<Type> abi(entry.getArgumentTypes());
  SmallVector<Value> blockIds;
  for (int i = 0; i < 3; ++i)
    blockIds.push_back(entry.addArgument(i32, f.getLoc()));
  f.setFunctionType(FunctionType::get(ctx, entry.getArgumentTypes(), {}));
  if (failed(lowerBody(f, blockIds)))
    return failure();

  std::string name = f.getSymName().str();
  f.setSymName(name + "_cta");
  f.setPrivate();
  OpBuilder b(ctx);
  b.setInsertionPointAfter(f);
  SmallVector<Type> entryTypes(abi);
  entryTypes.append(3, i32);
  auto grid = func::FuncOp::create(b, f.getLoc(), name, FunctionType::get(ctx, entryTypes, {}));
  Block *body = grid.addEntryBlock();
  b.setInsertionPointToStart(body);
  Location loc = f.getLoc();
  Value c0 = arith::ConstantIntOp::create(b, loc, i32, 0), c1 = arith::ConstantIntOp::create(b, loc, i32, 1);
  ValueRange args = body->getArguments();
  size_t n = abi.size();
  // z outermost, x innermost: CTAs run in the order of their linear id.
  auto fz = scf::ForOp::create(b, loc, c0, args[n + 2], c1);
  b.setInsertionPointToStart(fz.getBody());
  auto fy = scf::ForOp::create(b, loc, c0, args[n + 1], c1);
  b.setInsertionPointToStart(fy.getBody());
  auto fx = scf::ForOp::create(b, loc, c0, args[n], c1);
  b.setInsertionPointToStart(fx.getBody());
  SmallVector<Value> callArgs(args.take_front(n));
  callArgs.append({fx.getInductionVar(), fy.getInductionVar(), fz.getInductionVar()});
  func::CallOp::create(b, loc, f, callArgs);
  b.setInsertionPointToEnd(body);
  func::ReturnOp::create(b, loc);
  return success();
}

struct TileToLinalgPass : ph::tile::impl::TileToLinalgBase<TileToLinalgPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> kernels(module.getOps<func::FuncOp>());
    for (func::FuncOp f : kernels)
      if (!f.isExternal() && failed(lowerKernel(module, f)))
        return signalPassFailure();
  }
};

struct TileBufferizePass : ph::tile::impl::TileBufferizeBase<TileBufferizePass> {
  void runOnOperation() override {
    bufferization::OneShotBufferizationOptions options;
    // A loop-carried tile is often rebuilt each iteration (m = max(m, ...)):
    // yielding a fresh buffer is fine, the deallocation pass frees the old one.
    options.allowReturnAllocsFromLoops = true;
    options.memCpyFn = [](OpBuilder &b, Location loc, Value from, Value to) {
      linalg::CopyOp::create(b, loc, from, to);
      return success();
    };
    bufferization::BufferizationState state;
    if (failed(bufferization::runOneShotBufferize(getOperation(), options, state)))
      signalPassFailure();
  }
};

/// math.erf as MLIR's polynomial approximation (f32; 16-bit values were widened to f32 by
/// math-extend-to-supported-types before it): LLVM has no erf intrinsic, so math.erf reached
/// LLVM translation unlowered and every kernel using `erf` failed on --target cpu.
struct ExpandErfPass : PassWrapper<ExpandErfPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ExpandErfPass)
  StringRef getArgument() const override { return "ph-cpu-expand-erf"; }
  void getDependentDialects(DialectRegistry &r) const override { r.insert<arith::ArithDialect, math::MathDialect>(); }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populatePolynomialApproximateErfPattern(patterns);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns)))) signalPassFailure();
  }
};

} // namespace

void ph::tile::buildTileToLoopsPipeline(OpPassManager &pm) {
  pm.addPass(createTileToLinalg());
  pm.addNestedPass<func::FuncOp>(createConvertElementwiseToLinalgPass());
  pm.addPass(createTileBufferize());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(createConvertBufferizationToMemRefPass());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
}

void ph::tile::buildLoopsToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // bf16 arithmetic (and 16-bit math functions) computed in f32 and rounded after each
  // operation, which is what it means (docs/language.md, "Precision"): x86 has no bf16
  // arithmetic, and LLVM's would call compiler-rt's __truncsfbf2, which the JIT lacks
  // (`bf16 * 2.0` checked clean and failed to compile).
  arith::ArithEmulateUnsupportedFloatsOptions emulate;
  emulate.sourceTypeStrs = {"bf16"};
  pm.addPass(arith::createArithEmulateUnsupportedFloats(emulate));
  pm.addPass(math::createMathExtendToSupportedTypes());
  pm.addPass(std::make_unique<ExpandErfPass>());
  // bf16 conversions as integer arithmetic: the JIT then needs no soft-float helpers.
  arith::ArithExpandOpsPassOptions expand;
  expand.includeBf16 = true;
  pm.addPass(arith::createArithExpandOpsPass(expand));
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(createConvertToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void ph::tile::registerPasses() {
  registerPhConversionPasses();
  tilegpu::registerTileGPUPasses();
  PassPipelineRegistration<>("tile-to-loops", "Lower the tile dialect to scf/memref loops (CPU)",
                             buildTileToLoopsPipeline);
  PassPipelineRegistration<>("tile-loops-to-llvm", "Lower the CPU loops to the LLVM dialect",
                             buildLoopsToLLVMPipeline);
  PassPipelineRegistration<>("tile-to-llvm", "tile-to-loops, then tile-loops-to-llvm",
                             [](OpPassManager &pm) {
                               buildTileToLoopsPipeline(pm);
                               buildLoopsToLLVMPipeline(pm);
                             });
}

void ph::tile::registerDialects(DialectRegistry &registry) {
  registry.insert<TileDialect, tilegpu::TileGPUDialect>();
  registerAllDialects(registry);
  registerAllExtensions(registry);
  // Without these, translation to LLVM IR (and the JIT) stops at func.func.
  registerAllToLLVMIRTranslations(registry);
}
