//===- TileDialect.cpp - The tile dialect: registration and verifiers ------===//
#include "ph/Dialect/Tile/TileDialect.h"
#include "ph/Dialect/Tile/Divisibility.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/PatternMatch.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace ph::tile;

#include "ph/Dialect/Tile/TileOpsDialect.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ph/Dialect/Tile/TileOpsTypes.cpp.inc"

#define GET_OP_CLASSES
#include "ph/Dialect/Tile/TileOps.cpp.inc"

void TileDialect::initialize() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "ph/Dialect/Tile/TileOpsTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ph/Dialect/Tile/TileOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// The dialect's discardable attributes (TileDialect.td: discardableAttrs).
//===----------------------------------------------------------------------===//

/// Every `tile.*` attribute an op carries: one of the registered names with its
/// registered type, else an error. The passes read these with a default when the
/// attribute is absent (128 threads, no divisibility), so a misspelt or mistyped one
/// would otherwise change the kernel without a word.
LogicalResult TileDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  StringRef name = attr.getName().strref();
  Attribute value = attr.getValue();
  auto wrongType = [&](const char *want) {
    return op->emitError() << "`" << name << "` must be " << want << ", found " << value;
  };
  if (name == ThreadsAttrHelper::getNameStr()) {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || !i.getType().isSignlessInteger(32))
      return wrongType("an i32 thread count");
    if (i.getInt() < 32 || i.getInt() > 1024 || i.getInt() % 32 != 0)
      return op->emitError() << "`" << name << "` must be a multiple of 32 in [32, 1024], found "
                             << i.getInt();
    return success();
  }
  if (name == TensorcoreAttrHelper::getNameStr() || name == LaunchAttrHelper::getNameStr())
    return isa<UnitAttr>(value) ? success() : wrongType("a unit attribute");
  if (name == DivisibilityAttrHelper::getNameStr()) {
    auto d = dyn_cast<DenseI64ArrayAttr>(value);
    if (!d)
      return wrongType("an array<i64> with one entry per function argument");
    for (int64_t v : d.asArrayRef())
      if (v < 1)
        return op->emitError() << "`" << name << "` entries must be positive, found " << v;
    // Lowerings append arguments (the CPU target's block ids), never remove them.
    if (auto f = dyn_cast<FunctionOpInterface>(op); f && d.size() > f.getNumArguments())
      return op->emitError() << "`" << name << "` has " << d.size() << " entries but the function has "
                             << f.getNumArguments() << " arguments";
    return success();
  }
  if (name == SharedBytesAttrHelper::getNameStr()) {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || !i.getType().isSignlessInteger(64) || i.getInt() < 0)
      return wrongType("a non-negative i64 byte count");
    return success();
  }
  return op->emitError() << "unknown attribute `" << name << "` of the tile dialect (known: "
                         << ThreadsAttrHelper::getNameStr() << ", " << TensorcoreAttrHelper::getNameStr()
                         << ", " << DivisibilityAttrHelper::getNameStr() << ", "
                         << SharedBytesAttrHelper::getNameStr() << ")";
}

//===----------------------------------------------------------------------===//
// Slices: shared checks of load, store, extract and insert.
//===----------------------------------------------------------------------===//

static std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static SmallVector<int64_t> tileShapeOf(ArrayRef<int64_t> lens, ArrayRef<bool> squeezed) {
  SmallVector<int64_t> shape;
  for (size_t d = 0; d < lens.size(); ++d)
    if (d >= squeezed.size() || !squeezed[d])
      shape.push_back(lens[d]);
  return shape;
}

/// Checks that the per-dimension lists agree in length, that lengths are
/// positive, squeezed dimensions have length 1, and that `tile` (the loaded,
/// stored, extracted or inserted tile) has the unsqueezed lengths as shape.
static LogicalResult verifySlice(Operation *op, size_t rank, size_t numOffsets,
                                 ArrayRef<int64_t> lens, ArrayRef<bool> squeezed,
                                 RankedTensorType tile, const char *tileName) {
  if (numOffsets != rank || lens.size() != rank || squeezed.size() != rank)
    return op->emitOpError() << "expects one offset, length and squeeze flag per dimension ("
                             << rank << "), got " << numOffsets << " offsets, " << lens.size()
                             << " lengths and " << squeezed.size() << " squeeze flags";
  for (size_t d = 0; d < rank; ++d) {
    if (lens[d] <= 0)
      return op->emitOpError() << "slice length " << lens[d] << " along dimension " << d
                               << " is not positive";
    if (squeezed[d] && lens[d] != 1)
      return op->emitOpError() << "squeezed dimension " << d << " has length " << lens[d]
                               << ", expected 1";
  }
  SmallVector<int64_t> want = tileShapeOf(lens, squeezed);
  if (tile.getShape() != ArrayRef<int64_t>(want))
    return op->emitOpError() << tileName << " shape " << shapeStr(tile.getShape())
                             << " does not match the slice's " << shapeStr(want);
  return success();
}

template <typename AccessOp>
static LogicalResult verifyAccess(AccessOp op, RankedTensorType tile, const char *tileName) {
  size_t rank = op.getLens().size();
  if (op.getExtents().size() != rank || op.getMasked().size() != rank)
    return op.emitOpError() << "expects one extent and mask flag per dimension (" << rank
                            << "), got " << op.getExtents().size() << " extents and "
                            << op.getMasked().size() << " mask flags";
  if (failed(verifySlice(op, rank, op.getOffsets().size(), op.getLens(), op.getSqueezed(),
                         tile, tileName)))
    return failure();
  Type elem = cast<PtrType>(op.getPtr().getType()).getElementType();
  if (elem != tile.getElementType())
    return op.emitOpError() << tileName << " element type " << tile.getElementType()
                            << " differs from the tensor's " << elem;
  return success();
}

SmallVector<int64_t> LoadOp::getTileShape() { return tileShapeOf(getLens(), getSqueezed()); }
SmallVector<int64_t> StoreOp::getTileShape() { return tileShapeOf(getLens(), getSqueezed()); }

LogicalResult LoadOp::verify() { return verifyAccess(*this, getType(), "result"); }
LogicalResult StoreOp::verify() { return verifyAccess(*this, getValue().getType(), "stored tile"); }

/// A tile slice must fit in its source; constant offsets are checked here.
static LogicalResult verifyTileSlice(Operation *op, RankedTensorType source, ValueRange offsets,
                                     ArrayRef<int64_t> lens, ArrayRef<bool> squeezed,
                                     RankedTensorType tile, const char *tileName) {
  if (failed(verifySlice(op, source.getRank(), offsets.size(), lens, squeezed, tile, tileName)))
    return failure();
  if (source.getElementType() != tile.getElementType())
    return op->emitOpError() << tileName << " element type " << tile.getElementType()
                             << " differs from the source's " << source.getElementType();
  for (size_t d = 0; d < lens.size(); ++d) {
    if (lens[d] > source.getDimSize(d))
      return op->emitOpError() << "slice length " << lens[d] << " exceeds extent "
                               << source.getDimSize(d) << " of dimension " << d;
    APInt c;
    if (matchPattern(offsets[d], m_ConstantInt(&c)) &&
        (c.getSExtValue() < 0 || c.getSExtValue() + lens[d] > source.getDimSize(d)))
      return op->emitOpError() << "slice " << c.getSExtValue() << " :+ " << lens[d]
                               << " is outside dimension " << d << " of extent "
                               << source.getDimSize(d);
  }
  return success();
}

LogicalResult ExtractOp::verify() {
  return verifyTileSlice(*this, getSource().getType(), getOffsets(), getLens(), getSqueezed(),
                         getType(), "result");
}

LogicalResult InsertOp::verify() {
  return verifyTileSlice(*this, getDest().getType(), getOffsets(), getLens(), getSqueezed(),
                         getValue().getType(), "inserted tile");
}

//===----------------------------------------------------------------------===//
// Compute ops.
//===----------------------------------------------------------------------===//

LogicalResult DotOp::verify() {
  ArrayRef<int64_t> a = getA().getType().getShape(), b = getB().getType().getShape(),
                    r = getType().getShape();
  int64_t k = getTransB() ? b[1] : b[0], n = getTransB() ? b[0] : b[1];
  if (a[1] != k)
    return emitOpError() << "contraction mismatch: a is " << shapeStr(a) << ", b is "
                         << shapeStr(b) << (getTransB() ? " (transposed)" : "");
  if (r[0] != a[0] || r[1] != n)
    return emitOpError() << "result shape " << shapeStr(r) << ", expected "
                         << shapeStr({a[0], n});
  Type ra = getA().getType().getElementType(), rb = getB().getType().getElementType(),
       rr = getType().getElementType();
  if (isa<FloatType>(ra) != isa<FloatType>(rr) || isa<FloatType>(rb) != isa<FloatType>(rr))
    return emitOpError() << "mixes integer and float operands (" << ra << ", " << rb << " -> "
                         << rr << ")";
  return success();
}

template <typename ReduceOp> static LogicalResult verifyRowReduce(ReduceOp op) {
  ArrayRef<int64_t> s = op.getSource().getType().getShape(), r = op.getType().getShape();
  if (r[0] != s[0] || r[1] != 1)
    return op.emitOpError() << "result shape " << shapeStr(r) << ", expected "
                            << shapeStr({s[0], 1});
  return success();
}
LogicalResult RowMaxOp::verify() { return verifyRowReduce(*this); }
LogicalResult RowSumOp::verify() { return verifyRowReduce(*this); }
LogicalResult RowArgMaxOp::verify() { return verifyRowReduce(*this); }

template <typename ReduceOp> static LogicalResult verifyColReduce(ReduceOp op) {
  ArrayRef<int64_t> s = op.getSource().getType().getShape(), r = op.getType().getShape();
  if (r[0] != 1 || r[1] != s[1])
    return op.emitOpError() << "result shape " << shapeStr(r) << ", expected "
                            << shapeStr({1, s[1]});
  return success();
}
LogicalResult ColMaxOp::verify() { return verifyColReduce(*this); }
LogicalResult ColSumOp::verify() { return verifyColReduce(*this); }

LogicalResult BroadcastOp::verify() {
  ArrayRef<int64_t> s = getSource().getType().getShape(), r = getType().getShape();
  bool ok = s.size() == r.size();
  for (size_t d = 0; ok && d < s.size(); ++d)
    ok = s[d] == r[d] || s[d] == 1;
  if (!ok)
    return emitOpError() << "cannot broadcast " << shapeStr(s) << " to " << shapeStr(r)
                         << ": only extent-1 dimensions stretch";
  return success();
}

LogicalResult ConvertOp::verify() {
  Type s = getSource().getType(), r = getResult().getType();
  auto st = dyn_cast<RankedTensorType>(s), rt = dyn_cast<RankedTensorType>(r);
  if (bool(st) != bool(rt) || (st && st.getShape() != rt.getShape()))
    return emitOpError() << "converts " << s << " to " << r << ": shapes differ";
  return success();
}

//===----------------------------------------------------------------------===//
// tile.mask_cols: dropped where every column is below `n`.
//===----------------------------------------------------------------------===//

/// `n = ub - iv` inside `scf.for iv = lb to ub step s`, with lb a constant >= 0, lb and ub
/// multiples of s (ub by `@aligned`) and the tile's columns at most s: lb <= iv < ub, both
/// multiples of s, so ub - iv >= s >= every column index + 1.
LogicalResult MaskColsOp::canonicalize(MaskColsOp op, PatternRewriter &rw) {
  auto sub = op.getN().getDefiningOp<arith::SubIOp>();
  auto iv = sub ? dyn_cast<BlockArgument>(sub.getRhs()) : BlockArgument();
  auto loop = iv ? dyn_cast_or_null<scf::ForOp>(iv.getOwner()->getParentOp()) : scf::ForOp();
  // Signed bounds only: an unsigned loop may run up to a bound past 2^31, where ub - iv is
  // negative as the signed n that the mask compares with.
  if (!loop || loop.getInductionVar() != iv || loop.getUpperBound() != sub.getLhs() || loop.getUnsignedCmp())
    return failure();
  APInt lb, step;
  if (!matchPattern(loop.getLowerBound(), m_ConstantInt(&lb)) || !matchPattern(loop.getStep(), m_ConstantInt(&step)))
    return failure();
  int64_t s = step.getSExtValue(), l = lb.getSExtValue();
  int64_t cols = cast<RankedTensorType>(op.getType()).getShape()[1];
  if (s <= 0 || l < 0 || l % s != 0 || cols > s || divisibility(loop.getUpperBound()) % s != 0) return failure();
  rw.replaceOp(op, op.getSource());
  return success();
}
