//===- TileGPUDialect.cpp - Registration, syntax and verifiers of TileGPU --===//
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/IR/OpImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>

using namespace mlir;
using namespace ph::tilegpu;

#include "ph/Dialect/TileGPU/TileGPUDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "ph/Dialect/TileGPU/TileGPUAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "ph/Dialect/TileGPU/TileGPUTypes.cpp.inc"

#define GET_OP_CLASSES
#include "ph/Dialect/TileGPU/TileGPUOps.cpp.inc"

namespace {
/// `#blocked`, `#mma`, `#dot_op`, `#shared` at the top of printed IR, as Triton prints
/// its encodings: a tile's type then reads `tensor<64x32xf16, #dot_op1>`.
struct TileGPUAsmInterface : OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<BlockedEncodingAttr>(attr)) os << "blocked";
    else if (isa<MmaEncodingAttr>(attr)) os << "mma";
    else if (isa<DotOperandEncodingAttr>(attr)) os << "dot_op";
    else if (isa<SharedEncodingAttr>(attr)) os << "shared";
    else return AliasResult::NoAlias;
    return AliasResult::FinalAlias;
  }
};
} // namespace

void TileGPUDialect::initialize() {
  addInterfaces<TileGPUAsmInterface>();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "ph/Dialect/TileGPU/TileGPUAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "ph/Dialect/TileGPU/TileGPUTypes.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "ph/Dialect/TileGPU/TileGPUOps.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Attribute syntax: `<{key = [1, 2], key = 3, parent = #attr}>` for every layout.
//===----------------------------------------------------------------------===//

namespace {

struct Fields {
  std::map<std::string, SmallVector<unsigned>> lists;
  std::map<std::string, unsigned> ints;
  Attribute parent;
};

ParseResult parseFields(AsmParser &p, Fields &f) {
  if (p.parseLess() || p.parseLBrace()) return failure();
  if (failed(p.parseOptionalRBrace())) {
    do {
      std::string key;
      if (p.parseKeywordOrString(&key) || p.parseEqual()) return failure();
      if (key == "parent") {
        if (p.parseAttribute(f.parent)) return failure();
      } else if (succeeded(p.parseOptionalLSquare())) {
        auto &list = f.lists[key];
        if (failed(p.parseOptionalRSquare())) {
          do {
            unsigned v;
            if (p.parseInteger(v)) return failure();
            list.push_back(v);
          } while (succeeded(p.parseOptionalComma()));
          if (p.parseRSquare()) return failure();
        }
      } else {
        unsigned v;
        if (p.parseInteger(v)) return failure();
        f.ints[key] = v;
      }
    } while (succeeded(p.parseOptionalComma()));
    if (p.parseRBrace()) return failure();
  }
  return p.parseGreater();
}

void printList(AsmPrinter &p, StringRef key, ArrayRef<unsigned> v, bool first = false) {
  p << (first ? "" : ", ") << key << " = [";
  llvm::interleaveComma(v, p);
  p << "]";
}

/// A required field, with an error at the attribute when it is missing.
template <typename T>
bool take(AsmParser &p, const std::map<std::string, T> &m, const char *key, T &out) {
  auto it = m.find(key);
  if (it == m.end()) {
    p.emitError(p.getCurrentLocation(), "missing `") << key << "`";
    return false;
  }
  out = it->second;
  return true;
}

bool isPermutation(ArrayRef<unsigned> order) {
  SmallVector<bool> seen(order.size(), false);
  for (unsigned o : order) {
    if (o >= order.size() || seen[o]) return false;
    seen[o] = true;
  }
  return true;
}

} // namespace

Attribute BlockedEncodingAttr::parse(AsmParser &p, Type) {
  Fields f;
  if (parseFields(p, f)) return {};
  SmallVector<unsigned> spt, tpw, wpc, order;
  if (!take(p, f.lists, "sizePerThread", spt) || !take(p, f.lists, "threadsPerWarp", tpw) ||
      !take(p, f.lists, "warpsPerCTA", wpc) || !take(p, f.lists, "order", order))
    return {};
  return p.getChecked<BlockedEncodingAttr>(p.getContext(), spt, tpw, wpc, order);
}

void BlockedEncodingAttr::print(AsmPrinter &p) const {
  p << "<{";
  printList(p, "sizePerThread", getSizePerThread(), true);
  printList(p, "threadsPerWarp", getThreadsPerWarp());
  printList(p, "warpsPerCTA", getWarpsPerCTA());
  printList(p, "order", getOrder());
  p << "}>";
}

LogicalResult BlockedEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, ArrayRef<unsigned> spt,
                                          ArrayRef<unsigned> tpw, ArrayRef<unsigned> wpc, ArrayRef<unsigned> order) {
  if (spt.size() != tpw.size() || spt.size() != wpc.size() || spt.size() != order.size() || spt.empty())
    return emitError() << "a blocked layout needs sizePerThread, threadsPerWarp, warpsPerCTA and order of one rank";
  unsigned lanes = 1;
  for (unsigned t : tpw) lanes *= t;
  if (lanes != 32) return emitError() << "threadsPerWarp must multiply to 32 lanes, not " << lanes;
  for (unsigned s : spt)
    if (s == 0) return emitError() << "sizePerThread must be positive";
  for (unsigned w : wpc)
    if (w == 0) return emitError() << "warpsPerCTA must be positive";
  if (!isPermutation(order)) return emitError() << "order must be a permutation of the dimensions";
  return success();
}

Attribute MmaEncodingAttr::parse(AsmParser &p, Type) {
  Fields f;
  if (parseFields(p, f)) return {};
  unsigned version;
  SmallVector<unsigned> wpc, instr;
  if (!take(p, f.ints, "version", version) || !take(p, f.lists, "warpsPerCTA", wpc) ||
      !take(p, f.lists, "instrShape", instr))
    return {};
  return p.getChecked<MmaEncodingAttr>(p.getContext(), version, wpc, instr);
}

void MmaEncodingAttr::print(AsmPrinter &p) const {
  p << "<{version = " << getVersion();
  printList(p, "warpsPerCTA", getWarpsPerCTA());
  printList(p, "instrShape", getInstrShape());
  p << "}>";
}

LogicalResult MmaEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned version,
                                      ArrayRef<unsigned> wpc, ArrayRef<unsigned> instr) {
  if (version != 2 && version != 3) return emitError() << "mma version must be 2 (mma.sync) or 3 (wgmma)";
  if (wpc.size() != 2 || instr.size() != 2) return emitError() << "an mma layout has 2-D warpsPerCTA and instrShape";
  if (wpc[0] == 0 || wpc[1] == 0) return emitError() << "warpsPerCTA must be positive";
  if (version == 2 && (instr[0] != 16 || instr[1] != 8)) return emitError() << "mma.sync's instrShape is [16, 8]";
  if (version == 3 && (instr[0] != 64 || instr[1] % 8 != 0 || instr[1] == 0 || instr[1] > 256))
    return emitError() << "wgmma's instrShape is [64, N], N a multiple of 8 up to 256";
  return success();
}

Attribute DotOperandEncodingAttr::parse(AsmParser &p, Type) {
  Fields f;
  if (parseFields(p, f)) return {};
  unsigned opIdx, kWidth = 2;
  if (!take(p, f.ints, "opIdx", opIdx)) return {};
  if (auto it = f.ints.find("kWidth"); it != f.ints.end()) kWidth = it->second;
  if (!f.parent) {
    p.emitError(p.getCurrentLocation(), "missing `parent`");
    return {};
  }
  bool trans = false;
  if (auto it = f.ints.find("trans"); it != f.ints.end()) trans = it->second != 0;
  return p.getChecked<DotOperandEncodingAttr>(p.getContext(), opIdx, f.parent, kWidth, trans);
}

void DotOperandEncodingAttr::print(AsmPrinter &p) const {
  p << "<{opIdx = " << getOpIdx() << ", parent = " << getParent() << ", kWidth = " << getKWidth();
  if (getTrans()) p << ", trans = 1";
  p << "}>";
}

LogicalResult DotOperandEncodingAttr::verify(function_ref<InFlightDiagnostic()> emitError, unsigned opIdx,
                                             Attribute parent, unsigned kWidth, bool trans) {
  if (opIdx > 1) return emitError() << "opIdx is 0 (A) or 1 (B)";
  if (trans && opIdx == 0) return emitError() << "only a B operand is transposed";
  if (!isa<MmaEncodingAttr, BlockedEncodingAttr>(parent)) return emitError() << "a dot operand's parent is an mma or blocked layout";
  if (kWidth == 0) return emitError() << "kWidth must be positive";
  return success();
}

Attribute SharedEncodingAttr::parse(AsmParser &p, Type) {
  Fields f;
  if (parseFields(p, f)) return {};
  auto get = [&](const char *k, unsigned d) {
    auto it = f.ints.find(k);
    return it == f.ints.end() ? d : it->second;
  };
  SmallVector<unsigned> order;
  if (!take(p, f.lists, "order", order)) return {};
  return SharedEncodingAttr::get(p.getContext(), get("vec", 8), get("perPhase", 1), get("maxPhase", 1), get("pad", 0), order);
}

void SharedEncodingAttr::print(AsmPrinter &p) const {
  p << "<{vec = " << getVec() << ", perPhase = " << getPerPhase() << ", maxPhase = " << getMaxPhase()
    << ", pad = " << getPad();
  printList(p, "order", getOrder());
  p << "}>";
}

//===----------------------------------------------------------------------===//
// !tilegpu.memdesc<3x64x32xf16, #tilegpu.shared<...>>
//===----------------------------------------------------------------------===//

Type MemDescType::parse(AsmParser &p) {
  SmallVector<int64_t> shape;
  Type elem;
  Attribute enc;
  if (p.parseLess() || p.parseDimensionList(shape, /*allowDynamic=*/false, /*withTrailingX=*/true) ||
      p.parseType(elem) || p.parseComma() || p.parseAttribute(enc) || p.parseGreater())
    return {};
  return MemDescType::get(p.getContext(), shape, elem, enc);
}

void MemDescType::print(AsmPrinter &p) const {
  p << "<";
  for (int64_t d : getShape()) p << d << "x";
  p << getElementType() << ", " << getEncoding() << ">";
}

int64_t MemDescType::getStageBytes(unsigned tileRank) {
  ArrayRef<int64_t> shape = getShape().take_back(tileRank);
  int64_t pad = 0;
  if (auto s = dyn_cast<SharedEncodingAttr>(getEncoding())) pad = s.getPad();
  int64_t n = 1;
  for (size_t i = 0; i < shape.size(); ++i) n *= (i + 1 == shape.size()) ? shape[i] + pad : shape[i];
  return n * ((getElementType().getIntOrFloatBitWidth() + 7) / 8);
}

//===----------------------------------------------------------------------===//
// Ops
//===----------------------------------------------------------------------===//

OpFoldResult ConvertLayoutOp::fold(FoldAdaptor) {
  if (getSource().getType() == getResult().getType()) return getSource();
  return {};
}

LogicalResult DotOp::verify() {
  auto a = cast<RankedTensorType>(getA().getType()), b = cast<RankedTensorType>(getB().getType()),
       c = cast<RankedTensorType>(getAcc().getType());
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2) return emitOpError("takes 2-D tiles");
  int64_t k = a.getDimSize(1);
  int64_t bk = getTransB() ? b.getDimSize(1) : b.getDimSize(0), bn = getTransB() ? b.getDimSize(0) : b.getDimSize(1);
  if (bk != k) return emitOpError("A is ") << a.getDimSize(0) << "x" << k << " but B's K is " << bk;
  if (c.getDimSize(0) != a.getDimSize(0) || c.getDimSize(1) != bn)
    return emitOpError("the accumulator must be ") << a.getDimSize(0) << "x" << bn;
  return success();
}

LogicalResult WarpgroupDotOp::verify() {
  auto b = getB().getType();
  auto c = cast<RankedTensorType>(getAcc().getType());
  auto m = dyn_cast_or_null<MmaEncodingAttr>(c.getEncoding());
  if (!m || m.getVersion() != 3) return emitOpError("the accumulator must be in an mma version 3 (wgmma) layout");
  auto aMem = dyn_cast<MemDescType>(getA().getType());
  auto aReg = dyn_cast<RankedTensorType>(getA().getType());
  ArrayRef<int64_t> aShape = aMem ? aMem.getShape() : aReg.getShape();
  if (aShape.size() < 2 || b.getShape().size() < 2 || c.getRank() != 2) return emitOpError("takes 2-D tiles");
  if (aReg) {
    auto op = dyn_cast_or_null<DotOperandEncodingAttr>(aReg.getEncoding());
    if (aReg.getRank() != 2 || !op || op.getOpIdx() != 0 || op.getParent() != m)
      return emitOpError("an A operand in registers must be in the accumulator's dot_op layout (opIdx 0)");
    if (getAStage()) return emitOpError("an A operand in registers takes no stage index");
  }
  if ((aMem && bool(getAStage()) != (aShape.size() == 3)) || bool(getBStage()) != (b.getShape().size() == 3))
    return emitOpError("a ring buffer needs a stage index, a single buffer none");
  ArrayRef<int64_t> ta = aShape.take_back(2), tb = b.getShape().take_back(2);
  int64_t k = ta[1];
  int64_t bk = getTransB() ? tb[1] : tb[0], bn = getTransB() ? tb[0] : tb[1];
  if (bk != k) return emitOpError("A is ") << ta[0] << "x" << k << " but B's K is " << bk;
  if (c.getDimSize(0) != ta[0] || c.getDimSize(1) != bn)
    return emitOpError("the accumulator must be ") << ta[0] << "x" << bn;
  SmallVector<MemDescType, 2> bufs = {b};
  if (aMem) bufs.push_back(aMem);
  for (MemDescType t : bufs) {
    auto enc = dyn_cast_or_null<SharedEncodingAttr>(t.getEncoding());
    if (!enc || enc.getMaxPhase() < 2 || enc.getPad() != 0)
      return emitOpError("wgmma reads swizzled shared buffers (maxPhase > 1, no padding)");
  }
  return success();
}

LogicalResult WarpgroupTurnOp::verify() {
  StringRef k = getKind();
  if (k != "init" && k != "wait" && k != "pass" && k != "fini")
    return emitOpError("kind must be init, wait, pass or fini, not `") << k << "`";
  // Two barriers, barrier and barrier + 1, of the CTA's 16 (0 is the CTA-wide one).
  if (getBarrier() < 1 || getBarrier() > 14) return emitOpError("barrier must be in [1, 14], not ") << getBarrier();
  return success();
}

LogicalResult WarpgroupWaitOp::verify() {
  if (getValues().getTypes() != getResults().getTypes()) return emitOpError("returns its values unchanged: the same types");
  return success();
}

static LogicalResult checkStage(Operation *op, MemDescType buf, RankedTensorType t, bool hasStage) {
  ArrayRef<int64_t> shape = buf.getShape();
  size_t rank = static_cast<size_t>(t.getRank());
  if (shape.size() != rank && shape.size() != rank + 1)
    return op->emitOpError("a buffer of rank ") << shape.size() << " holds tiles of rank " << shape.size() << " or "
                                                << shape.size() - 1 << ", not " << rank;
  if (shape.take_back(rank) != t.getShape()) return op->emitOpError("the tile's shape is not the buffer's");
  if ((shape.size() == rank + 1) != hasStage)
    return op->emitOpError(hasStage ? "a single buffer takes no stage index" : "a multi-buffer needs a stage index");
  if (buf.getElementType() != t.getElementType()) return op->emitOpError("element types differ");
  return success();
}

/// A local_load or local_store of a part of a single buffer (tilegpu-through-shared's
/// tile.extract and tile.insert): `tilegpu.window` holds an offset per buffer dimension,
/// `tilegpu.squeezed` the dimensions the tile drops; the part must lie inside the buffer.
static LogicalResult checkWindow(Operation *op, MemDescType buf, RankedTensorType t, bool hasStage,
                                 DenseI64ArrayAttr window) {
  // In a ring, the window lies in one stage (tilegpu-prefetch-fragments' K steps).
  ArrayRef<int64_t> shape = buf.getShape();
  if (hasStage) {
    if (shape.size() < 2) return op->emitOpError("a stage of a buffer that has no stages");
    shape = shape.drop_front();
  }
  auto sq = op->getAttrOfType<DenseBoolArrayAttr>(kSqueezedAttr);
  if (window.size() != int64_t(shape.size()) || (sq && sq.size() != window.size()))
    return op->emitOpError("a window needs one offset (and squeeze flag) per dimension of the buffer or its stage");
  if (buf.getElementType() != t.getElementType()) return op->emitOpError("element types differ");
  unsigned k = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    bool dropped = sq && sq[d];
    int64_t len = dropped ? 1 : k < t.getRank() ? t.getDimSize(k++) : -1;
    if (len < 0 || window[d] < 0 || window[d] + len > shape[d])
      return op->emitOpError("the window does not lie inside the buffer along dimension ") << d;
  }
  if (k != t.getRank()) return op->emitOpError("the window's rank is not the tile's");
  return success();
}

LogicalResult LocalLoadOp::verify() {
  if (auto w = (*this)->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr))
    return checkWindow(*this, getBuffer().getType(), getResult().getType(), !!getStage(), w);
  return checkStage(*this, getBuffer().getType(), getResult().getType(), !!getStage());
}

LogicalResult LocalStoreOp::verify() {
  if (auto w = (*this)->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr))
    return checkWindow(*this, getBuffer().getType(), getValue().getType(), !!getStage(), w);
  return checkStage(*this, getBuffer().getType(), getValue().getType(), !!getStage());
}

LogicalResult AsyncCopyOp::verify() {
  size_t n = getLens().size();
  if (getOffsets().size() != n || getExtents().size() != n || getMasked().size() != n || getSqueezed().size() != n)
    return emitOpError("needs one offset, extent, length, mask and squeeze flag per dimension");
  SmallVector<int64_t> tile;
  for (size_t i = 0; i < n; ++i)
    if (!getSqueezed()[i]) tile.push_back(getLens()[i]);
  auto t = RankedTensorType::get(tile, getBuffer().getType().getElementType());
  return checkStage(*this, getBuffer().getType(), t, !!getStage());
}

/// A buffer of mbarriers: one dimension (a barrier per ring stage) of i64.
static LogicalResult checkBarriers(Operation *op, MemDescType t) {
  if (t.getShape().size() != 1 || !t.getElementType().isInteger(64))
    return op->emitOpError("needs a buffer of mbarriers, `!tilegpu.memdesc<S x i64, ...>`");
  return success();
}

LogicalResult MBarrierInitOp::verify() {
  if (getCount() < 1 || getCount() >= (1 << 20)) return emitOpError("count must be in [1, 2^20)");
  return checkBarriers(*this, getBarriers().getType());
}
LogicalResult MBarrierArriveOp::verify() { return checkBarriers(*this, getBarriers().getType()); }
LogicalResult MBarrierWaitOp::verify() { return checkBarriers(*this, getBarriers().getType()); }

/// What tma_copy and tma_store ask of the slice they move, in this order: one offset and squeeze
/// flag per dimension (at most 5), the op's own buffer (`buffer`, which gives the tile's rows),
/// the last two dimensions kept, at most 256 rows (TMA's box), a thread of the CTA.
static LogicalResult verifyTmaSlice(Operation *op, size_t offsets, ArrayRef<bool> squeezed,
                                    function_ref<LogicalResult(int64_t &rows)> buffer, int64_t issuer, StringRef verb) {
  if (squeezed.size() != offsets || offsets > 5)
    return op->emitOpError("needs one offset and squeeze flag per dimension of the tensor (at most 5)");
  int64_t rows = 0;
  if (failed(buffer(rows))) return failure();
  if (llvm::count(squeezed, false) != 2 || squeezed.back() || squeezed[squeezed.size() - 2])
    return op->emitOpError() << verb << " a tile of the tensor's last two dimensions: only the others may be squeezed";
  if (rows > 256) return op->emitOpError() << verb << " at most 256 rows (TMA's box)";
  if (issuer >= 1024) return op->emitOpError("`issuer` must be a thread of the CTA");
  return success();
}

LogicalResult TmaStoreOp::verify() {
  auto buffer = [&](int64_t &rows) -> LogicalResult {
    MemDescType t = getBuffer().getType();
    auto enc = dyn_cast_or_null<SharedEncodingAttr>(t.getEncoding());
    if (t.getShape().size() != 2 || !enc || enc.getPad() != 0 || enc.getMaxPhase() < 2)
      return emitOpError("needs a swizzled 2-D buffer (`!tilegpu.memdesc<R x C>`, rows of 32, 64 or 128 bytes)");
    rows = t.getShape()[0];
    return success();
  };
  return verifyTmaSlice(*this, getOffsets().size(), getSqueezed(), buffer, getIssuer(), "stores");
}

LogicalResult TmaCopyOp::verify() {
  auto ring = [&](int64_t &rows) -> LogicalResult {
    MemDescType t = getBuffer().getType();
    auto enc = dyn_cast_or_null<SharedEncodingAttr>(t.getEncoding());
    if (t.getShape().size() != 3 || !enc || enc.getPad() != 0)
      return emitOpError("needs a ring of 2-D stages without padding (`!tilegpu.memdesc<S x R x C>`, swizzled or not)");
    rows = t.getShape()[1];
    return success();
  };
  if (failed(verifyTmaSlice(*this, getOffsets().size(), getSqueezed(), ring, getIssuer(), "copies"))) return failure();
  return checkBarriers(*this, getBarriers().getType());
}
