//===- ThroughShared.cpp - tilegpu-through-shared: what registers cannot move ---===//
//
// Two things need the tile of another thread: a layout conversion that is not
// a renaming of registers (a [R, 1] row statistic of one blocked layout meeting
// a tile of another, a blocked value feeding a dot operand), and the SIMT
// policy's dot, where a thread computing C[i, j] reads all of row i of A and
// column j of B. Both go through a shared buffer: a barrier (the previous
// iteration's readers are done), the store in the source layout, a barrier (the
// store is visible), then the reads. Buffers get their offsets afterwards from
// tilegpu-allocate-shared, each its own bytes. Parts of tiles (tile.extract,
// tile.insert: `x[:, 3 :+ 4]`, `x[:, 3 :+ 4] = v`) go through a buffer too.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "LoopFacts.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/TypeUtilities.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUTHROUGHSHARED
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The only conversion ConvertLayoutToNVVM does in registers: an mma
/// accumulator becoming the A operand of a dot of the same layout, warps along rows.
bool inRegisters(ConvertLayoutOp op) {
  auto m = dyn_cast<MmaEncodingAttr>(layoutOf(op.getSource().getType()));
  auto d = dyn_cast<DotOperandEncodingAttr>(layoutOf(op.getType()));
  return m && d && d.getOpIdx() == 0 && d.getParent() == m && m.getWarpsPerCTA()[1] == 1;
}

/// How many groups of warps hold the same elements of a blocked tile because its rows are
/// fewer than the warps along them cover (a decode's one query row over 4 warps: 4); 1 when
/// none do, or when the columns repeat over warps too (not split).
int64_t rowWarpRepeats(RankedTensorType t) {
  auto bl = dyn_cast<BlockedEncodingAttr>(t.getEncoding());
  if (!bl || t.getRank() != 2) return 1;
  int64_t rowsPerWarp = int64_t(bl.getSizePerThread()[0]) * bl.getThreadsPerWarp()[0];
  int64_t warpsAlong = bl.getWarpsPerCTA()[0], rows = t.getDimSize(0);
  int64_t colsCovered = int64_t(bl.getSizePerThread()[1]) * bl.getThreadsPerWarp()[1] * bl.getWarpsPerCTA()[1];
  if (rows % rowsPerWarp || rowsPerWarp * warpsAlong <= rows || colsCovered > t.getDimSize(1)) return 1;
  return rowsPerWarp * warpsAlong / rows;
}

/// A buffer for tile type `t`, rows padded by `padBytes` (at least one element).
MemDescType bufferType(RankedTensorType t, int64_t padBytes) {
  MLIRContext *ctx = t.getContext();
  int64_t elem = (t.getElementTypeBitWidth() + 7) / 8;
  unsigned pad = unsigned(std::max<int64_t>(padBytes / elem, padBytes ? 1 : 0));
  SmallVector<unsigned> order;
  for (int d = int(t.getRank()) - 1; d >= 0; --d) order.push_back(unsigned(d));
  auto enc = SharedEncodingAttr::get(ctx, /*vec=*/1, /*perPhase=*/1, /*maxPhase=*/1, pad, order);
  return MemDescType::get(ctx, t.getShape(), t.getElementType(), enc);
}

class Rewriter {
public:
  explicit Rewriter(func::FuncOp f) : f_(f), b_(f.getContext()) {}

  void run() {
    SmallVector<DotOp> dots;
    f_.walk([&](DotOp d) {
      if (isFmaDot(d)) dots.push_back(d);
    });
    for (DotOp d : dots) fmaDot(d);
    SmallVector<ConvertLayoutOp> cvts;
    f_.walk([&](ConvertLayoutOp c) {
      if (!inRegisters(c) && layoutOf(c.getSource().getType()) != layoutOf(c.getType())) cvts.push_back(c);
    });
    for (ConvertLayoutOp c : cvts) throughShared(c);
    SmallVector<Operation *> slices;
    f_.walk([&](Operation *op) {
      if (isa<tile::InsertOp, tile::ExtractOp>(op)) slices.push_back(op);
    });
    for (Operation *op : slices)
      if (failed(slice(op))) failed_ = true;
  }

  bool failed_ = false;

private:
  Value alloc(MemDescType t, Location loc) {
    OpBuilder::InsertionGuard g(b_);
    b_.setInsertionPointToStart(&f_.getBody().front());
    return LocalAllocOp::create(b_, loc, t, IntegerAttr());
  }

  /// barrier; store `v`; barrier, at the builder's insertion point.
  void store(Value v, Value buf, Location loc) {
    BarrierOp::create(b_, loc);
    LocalStoreOp::create(b_, loc, v, buf, Value());
    BarrierOp::create(b_, loc);
  }

  /// What an FMA dot operand is read from: the tile the operand was made from
  /// through layout conversions and widenings (the dot widens as it reads, so a
  /// cache's f16 keys take half the bytes), in the ring tilegpu-pipeline copied
  /// it into (the buffer and its stage), else in a buffer of its own, stored
  /// where it is made.
  std::pair<Value, Value> operandSource(Value v, Type accElem, Location loc) {
    while (true) {
      if (auto c = v.getDefiningOp<ConvertLayoutOp>()) {
        v = c.getSource();
        continue;
      }
      if (auto c = v.getDefiningOp<tile::ConvertOp>()) {
        auto from = dyn_cast<FloatType>(getElementTypeOrSelf(c.getSource().getType()));
        if (from && isa<FloatType>(accElem) && from.getWidth() < accElem.getIntOrFloatBitWidth()) {
          v = c.getSource();
          continue;
        }
      }
      break;
    }
    if (auto ring = v.getDefiningOp<LocalLoadOp>(); ring && ring.getStage()) return {ring.getBuffer(), ring.getStage()};
    auto t = cast<RankedTensorType>(v.getType());
    // A pad of 4 bytes: the lanes reading one column of different rows hit different banks;
    // 16 when rows are read along K in 16-byte vectors (FMA.cpp), which a pad of 16 keeps aligned.
    int64_t rowBytes = t.getRank() == 2 ? t.getDimSize(1) * ((t.getElementTypeBitWidth() + 7) / 8) : 0;
    Value buf = alloc(bufferType(t, rowBytes % 16 == 0 && rowBytes >= 64 ? 16 : 4), loc);
    OpBuilder::InsertionGuard g(b_);
    if (Operation *def = v.getDefiningOp()) b_.setInsertionPointAfter(def);
    else if (cast<BlockArgument>(v).getOwner() == &f_.getBody().front()) b_.setInsertionPointAfter(buf.getDefiningOp());
    else b_.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
    store(v, buf, loc);
    return {buf, Value()};
  }

  /// Erases what only fed the dot: conversions, widenings and ring reads left without users.
  static void eraseDeadChain(Value v) {
    while (Operation *def = v.getDefiningOp()) {
      if (!def->use_empty() || !isa<ConvertLayoutOp, tile::ConvertOp, LocalLoadOp>(def)) return;
      Value next = isa<LocalLoadOp>(def) ? Value() : def->getOperand(0);
      def->erase();
      if (!next) return;
      v = next;
    }
  }

  void fmaDot(DotOp d) {
    Location loc = d.getLoc();
    Type accElem = getElementTypeOrSelf(d.getAcc().getType());
    auto [a, aStage] = operandSource(d.getA(), accElem, loc);
    auto [b, bStage] = operandSource(d.getB(), accElem, loc);
    // Warps that hold the same accumulator elements (fewer rows than warp groups along them)
    // split K between them and meet in a buffer of partial sums (FMA.cpp).
    Value partials;
    auto accTy = cast<RankedTensorType>(d.getAcc().getType());
    int64_t k = cast<RankedTensorType>(d.getA().getType()).getDimSize(1);
    if (int64_t r = rowWarpRepeats(accTy); r > 1 && k % (8 * r) == 0) {
      MLIRContext *ctx = f_.getContext();
      auto enc = SharedEncodingAttr::get(ctx, /*vec=*/1, /*perPhase=*/1, /*maxPhase=*/1, /*pad=*/0, {2u, 1u, 0u});
      partials = alloc(MemDescType::get(ctx, {r, accTy.getDimSize(0), accTy.getDimSize(1)}, accElem, enc), loc);
    }
    b_.setInsertionPoint(d);
    auto fma = FmaDotOp::create(b_, loc, d.getType(), a, aStage, b, bStage, d.getAcc(), partials, d.getTransB());
    Value oldA = d.getA(), oldB = d.getB();
    d.getResult().replaceAllUsesWith(fma.getResult());
    d.erase();
    eraseDeadChain(oldA);
    if (oldB != oldA) eraseDeadChain(oldB);
  }

  void throughShared(ConvertLayoutOp c) {
    Location loc = c.getLoc();
    auto src = cast<RankedTensorType>(c.getSource().getType());
    // ldmatrix reads 16-byte rows: pad them by 16 bytes as tilegpu-pipeline does.
    bool operand = isa<DotOperandEncodingAttr>(layoutOf(c.getType()));
    Value buf = alloc(bufferType(src, operand ? 16 : 0), loc);
    b_.setInsertionPoint(c);
    store(c.getSource(), buf, loc);
    Value out = LocalLoadOp::create(b_, loc, c.getType(), buf, Value());
    c.getResult().replaceAllUsesWith(out);
    c.erase();
  }

  /// A part of a tile (`x[:, 3 :+ 4]`, tile.extract) and a tile with a part
  /// replaced (`x[:, 3 :+ 4] = v`, tile.insert) move elements between threads
  /// whatever the layouts: through a buffer of the whole tile. Insert: the
  /// tile stored, then the part over it (a barrier between: two threads may
  /// write one element), then the result read back; extract: the tile stored,
  /// the part read. The part's place is the discardable `tilegpu.window` (an
  /// offset per buffer dimension) and `tilegpu.squeezed` (dimensions the part
  /// drops) of the local_store or local_load; offsets must be constants.
  LogicalResult slice(Operation *op) {
    Location loc = op->getLoc();
    auto ins = dyn_cast<tile::InsertOp>(op);
    auto ex = dyn_cast<tile::ExtractOp>(op);
    OperandRange offsets = ins ? ins.getOffsets() : ex.getOffsets();
    ArrayRef<bool> squeezed = ins ? ins.getSqueezed() : ex.getSqueezed();
    SmallVector<int64_t> window;
    for (Value o : offsets) {
      APInt c;
      if (!matchPattern(o, m_ConstantInt(&c)))
        return op->emitError() << "the GPU target takes a part of a tile only at constant offsets; "
                                  "this one starts at a run-time offset";
      window.push_back(c.getSExtValue());
    }
    Value whole = ins ? ins.getDest() : ex.getSource();
    auto t = cast<RankedTensorType>(whole.getType());
    Value buf = alloc(bufferType(t, 0), loc);
    b_.setInsertionPoint(op);
    store(whole, buf, loc);
    auto place = [&](Operation *access) {
      access->setAttr(kWindowAttr, b_.getDenseI64ArrayAttr(window));
      access->setAttr(kSqueezedAttr, b_.getDenseBoolArrayAttr(squeezed));
    };
    Value out;
    if (ins) {
      place(LocalStoreOp::create(b_, loc, ins.getValue(), buf, Value()));
      BarrierOp::create(b_, loc);
      out = LocalLoadOp::create(b_, loc, ins.getType(), buf, Value());
    } else {
      auto ld = LocalLoadOp::create(b_, loc, ex.getType(), buf, Value());
      place(ld);
      out = ld;
    }
    op->getResult(0).replaceAllUsesWith(out);
    op->erase();
    return success();
  }

  func::FuncOp f_;
  OpBuilder b_;
};

struct ThroughSharedPass : impl::TileGPUThroughSharedBase<ThroughSharedPass> {
  void runOnOperation() override {
    bool failed = false;
    getOperation().walk([&](func::FuncOp f) {
      if (f.isDeclaration()) return;
      Rewriter r(f);
      r.run();
      failed |= r.failed_;
    });
    if (failed) signalPassFailure();
  }
};

} // namespace
} // namespace ph::tilegpu
