//===- Attributes.cpp - The TileGPU dialect's discardable attributes -------===//
//
// The GPU passes hand facts to the passes after them on functions and ops
// (TileGPUDialect.td: discardableAttrs). Their readers fall back to a default
// when one is absent (the CTA's threads, no window, divisibility 1), so a
// misspelt, mistyped or misplaced one would change the kernel without a word:
// the verifier refuses it instead.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"

#include <limits>

using namespace mlir;
using namespace ph::tilegpu;

namespace {
/// One attribute on one op: what it must be, said once.
struct Check {
  Operation *op;
  StringRef name;
  Attribute value;

  LogicalResult fail(const Twine &want) const {
    return op->emitError() << "`" << name << "` must be " << want << ", found " << value;
  }
  /// Where it may appear (the pass that writes it puts it only there).
  LogicalResult misplaced(StringRef where) const {
    return op->emitError() << "`" << name << "` belongs on " << where << ", not on `" << op->getName() << "`";
  }
  /// A signless integer of `width` bits in [lo, hi].
  LogicalResult integer(unsigned width, int64_t lo, int64_t hi, const Twine &want) const {
    auto i = dyn_cast<IntegerAttr>(value);
    if (!i || !i.getType().isSignlessInteger(width) || i.getInt() < lo || i.getInt() > hi) return fail(want);
    return success();
  }
  /// A CTA thread count as tile.threads has it: whole warps, at most 1024.
  LogicalResult ctaThreads() const {
    const char *want = "an i32 thread count, a multiple of 32 in [32, 1024]";
    if (failed(integer(32, 32, 1024, want)) || cast<IntegerAttr>(value).getInt() % 32) return fail(want);
    return success();
  }
};
} // namespace

LogicalResult TileGPUDialect::verifyOperationAttribute(Operation *op, NamedAttribute attr) {
  Check c{op, attr.getName().strref(), attr.getValue()};
  StringRef name = c.name;
  bool onFunction = isa<FunctionOpInterface>(op);
  bool onCopy = isa<AsyncCopyOp>(op);
  bool onLocal = isa<LocalLoadOp, LocalStoreOp>(op);
  const int64_t max = std::numeric_limits<int64_t>::max();

  if (name == kPolicyAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    auto s = dyn_cast<StringAttr>(c.value);
    if (!s || !llvm::is_contained({StringRef("simt"), StringRef("mma"), StringRef("wgmma")}, s.getValue()))
      return c.fail("one of \"simt\", \"mma\", \"wgmma\"");
    return success();
  }
  if (name == kSharedBytesAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    return c.integer(64, 0, max, "a non-negative i64 byte count");
  }
  if (name == kConsumerThreadsAttr || name == kLaunchThreadsAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    return c.ctaThreads();
  }
  if (name == kMinCtasAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    return c.integer(32, 1, 32, "an i32 count of CTAs per SM in [1, 32]");
  }
  if (name == kVectorDotRegsAttr) {
    if (op->getName().getStringRef() != "scf.for") return c.misplaced("`scf.for`");
    return c.integer(64, 1, 255, "an i64 register count in [1, 255]");
  }
  if (name == kThreadsAttr) {
    if (!onCopy) return c.misplaced("`tilegpu.async_copy`");
    return c.integer(64, 1, 1024, "an i64 thread count in [1, 1024]");
  }
  if (name == kThreadBaseAttr) {
    if (!onCopy) return c.misplaced("`tilegpu.async_copy`");
    return c.integer(64, 0, 1023, "an i64 thread index in [0, 1024)");
  }
  if (name == kWindowAttr) {
    // Offsets only: whether the window lies inside the buffer (or, on a staged access,
    // inside one stage) is the op's own verifier's question, which sees the types.
    if (!onLocal) return c.misplaced("`tilegpu.local_load` or `tilegpu.local_store`");
    auto w = dyn_cast<DenseI64ArrayAttr>(c.value);
    if (!w) return c.fail("an array<i64> of offsets, one per dimension of the buffer or its stage");
    for (int64_t v : w.asArrayRef())
      if (v < 0) return op->emitError() << "`" << name << "` offsets must be non-negative, found " << v;
    return success();
  }
  if (name == kSqueezedAttr) {
    if (!onLocal) return c.misplaced("`tilegpu.local_load` or `tilegpu.local_store`");
    if (!isa<DenseBoolArrayAttr>(c.value)) return c.fail("an array<i1> of flags, one per dimension of the window");
    if (!op->hasAttr(kWindowAttr))
      return op->emitError() << "`" << name << "` says which dimensions of a `" << kWindowAttr
                             << "` the tile drops, and this op has no window";
    return success();
  }
  if (name == kDivisibilityAttr) {
    if (!isa<ph::tile::LoadOp, ph::tile::StoreOp, AsyncCopyOp>(op))
      return c.misplaced("`tile.load`, `tile.store` or `tilegpu.async_copy`");
    return c.integer(64, 1, max, "a positive i64");
  }
  if (name == kTmaAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    const char *want = "an array of {tensor: i64 >= 0, box: array<i64> of 1 to 5 extents in [1, 256], swizzle: 0, 32, "
                       "64 or 128}, one per trailing TMA map argument";
    auto maps = dyn_cast<ArrayAttr>(c.value);
    if (!maps) return c.fail(want);
    for (Attribute m : maps) {
      auto d = dyn_cast<DictionaryAttr>(m);
      auto tensor = d ? d.getAs<IntegerAttr>("tensor") : IntegerAttr();
      auto box = d ? d.getAs<DenseI64ArrayAttr>("box") : DenseI64ArrayAttr();
      auto swizzle = d ? d.getAs<IntegerAttr>("swizzle") : IntegerAttr();
      if (!tensor || !box || !swizzle || d.size() != 3 || tensor.getInt() < 0 || box.empty() || box.size() > 5 ||
          llvm::any_of(box.asArrayRef(), [](int64_t e) { return e < 1 || e > 256; }) ||
          (swizzle.getInt() != 0 && swizzle.getInt() != 32 && swizzle.getInt() != 64 && swizzle.getInt() != 128))
        return c.fail(want);
    }
    return success();
  }
  if (name == kGridAttr) {
    if (!onFunction) return c.misplaced("a kernel function");
    auto g = dyn_cast<DenseI64ArrayAttr>(c.value);
    if (!g || g.size() != 12 || llvm::any_of(g.asArrayRef(), [](int64_t v) { return v < 0; }))
      return c.fail("an array<i64> of 12 non-negative values: per axis x, y, z from-size (0 or 1), size index, "
                    "divisor, constant");
    return success();
  }
  if (name == kTileLoopAttr) {
    if (op->getName().getStringRef() != "scf.for") return c.misplaced("`scf.for`");
    if (!isa<UnitAttr>(c.value)) return c.fail("a unit attribute");
    return success();
  }
  if (name == kAfterDeadAttr) {
    if (!isa<LocalAllocOp>(op)) return c.misplaced("`tilegpu.local_alloc`");
    if (!isa<UnitAttr>(c.value)) return c.fail("a unit attribute");
    return success();
  }
  return op->emitError() << "unknown attribute `" << name << "` of the tilegpu dialect (known: " << kPolicyAttr
                         << ", " << kSharedBytesAttr << ", " << kConsumerThreadsAttr << ", " << kLaunchThreadsAttr
                         << ", " << kMinCtasAttr << ", " << kThreadsAttr << ", " << kThreadBaseAttr << ", " << kWindowAttr << ", "
                         << kSqueezedAttr << ", " << kDivisibilityAttr << ", " << kTmaAttr << ", " << kVectorDotRegsAttr << ", "
                         << kGridAttr << ", " << kTileLoopAttr << ")";
}
