//===- AllocateShared.cpp - tilegpu-allocate-shared: offsets of shared buffers ---===//
//
// Ops are numbered in program order; a buffer lives from its first to its last
// use, a use inside a loop covering the whole outermost loop around it (the
// next iteration reads it again). Buffers are placed largest first at the
// lowest 128-byte-aligned offset that overlaps no buffer placed before whose
// live range meets its own. Reusing the bytes of a dead buffer is only safe
// once a barrier separates its last read from the next buffer's first write:
// until tilegpu-insert-barriers proves that, `reuse` stays off and every
// buffer gets bytes of its own, except a `tilegpu.after_dead` buffer (an
// epilogue's, tilegpu-tma-store), whose first write a barrier precedes: it
// takes the bytes of buffers dead before it (not mbarriers', which would need
// an mbarrier.inval first), and lives to the kernel's end. A row reduction
// split over warps (the SIMT policy's few rows) exchanges its partials through
// the first bytes of shared memory, kept for it before any buffer (ReduceToNVVM,
// between its own barriers).
//
//===----------------------------------------------------------------------===//
#include "SharedPlan.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUALLOCATESHARED
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

struct Interval {
  LocalAllocOp alloc; // null for the planned buffer of plannedSharedBytes
  int64_t bytes = 0, begin = 0, end = 0, offset = 0, align = 128;
  bool afterDead = false;
  bool barriers = false; // mbarriers: never share bytes (no mbarrier.inval before reuse)
};

int64_t allocBytes(LocalAllocOp a) {
  MemDescType t = a.getResult().getType();
  // Every dimension but the stage one (when there is one) is the tile's.
  unsigned tileRank = t.getShape().size();
  int64_t stages = 1;
  for (Operation *u : a.getResult().getUsers()) {
    Value stage;
    if (auto l = dyn_cast<LocalLoadOp>(u)) stage = l.getStage();
    if (auto s = dyn_cast<LocalStoreOp>(u)) stage = s.getStage();
    if (auto c = dyn_cast<AsyncCopyOp>(u)) stage = c.getStage();
    if (stage) {
      tileRank = t.getShape().size() - 1;
      stages = t.getShape()[0];
      break;
    }
  }
  return stages * t.getStageBytes(tileRank);
}

/// 128 bytes, or 1024 for a swizzled buffer: its XOR pattern reads address
/// bits 4-9, which must be those of the offset within the buffer.
int64_t alignmentOf(LocalAllocOp a) {
  auto enc = dyn_cast_or_null<SharedEncodingAttr>(a.getType().getEncoding());
  return enc && enc.getMaxPhase() > 1 ? 1024 : 128;
}

/// Bytes at the start of shared memory that row reductions split over warps need:
/// a 32-bit partial (64-bit for 64-bit elements) per row and warp along the columns.
int64_t reduceScratchBytes(func::FuncOp f) {
  int64_t need = 0;
  f.walk([&](Operation *op) {
    if (!isa<tile::RowMaxOp, tile::RowSumOp>(op)) return;
    auto t = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
    auto b = t ? dyn_cast_or_null<BlockedEncodingAttr>(t.getEncoding()) : BlockedEncodingAttr();
    if (!b || t.getRank() != 2 || b.getWarpsPerCTA()[1] == 1) return;
    int64_t bytes = t.getElementTypeBitWidth() > 32 ? 8 : 4;
    need = std::max(need, t.getDimSize(0) * int64_t(b.getWarpsPerCTA()[1]) * bytes);
  });
  return need;
}

/// A buffer plannedSharedBytes adds to the plan: first used at `firstUse`, `tilegpu.after_dead`.
struct Planned {
  Operation *firstUse;
  int64_t bytes, align;
};

/// Offsets for every buffer of `f` (and `extra`, when given), largest first; the total.
int64_t plan(func::FuncOp f, bool reuse, SmallVectorImpl<Interval> &bufs, std::optional<Planned> extra) {
  int64_t scratch = reduceScratchBytes(f);
  DenseMap<Operation *, int64_t> index;
  int64_t n = 0;
  f.walk<WalkOrder::PreOrder>([&](Operation *op) { index[op] = n++; });
  // The end of an op's region tree: its last nested op.
  auto lastInside = [&](Operation *op) {
    int64_t last = index[op];
    op->walk([&](Operation *inner) { last = std::max(last, index[inner]); });
    return last;
  };
  auto outermostLoop = [&](Operation *u) {
    Operation *outer = u;
    for (Operation *p = u->getParentOp(); p && p != f; p = p->getParentOp())
      if (isa<scf::ForOp>(p)) outer = p;
    return outer;
  };
  f.walk([&](LocalAllocOp a) {
    Interval iv{a, allocBytes(a), INT64_MAX, -1, 0, alignmentOf(a), a->hasAttr(kAfterDeadAttr)};
    iv.barriers = llvm::any_of(a.getResult().getUsers(), [](Operation *u) { return isa<MBarrierInitOp>(u); });
    for (Operation *u : a.getResult().getUsers()) {
      Operation *outer = outermostLoop(u);
      iv.begin = std::min(iv.begin, index[outer]);
      iv.end = std::max(iv.end, outer == u ? index[u] : lastInside(outer));
    }
    // A TMA store reads its buffer asynchronously, until a wait that names no buffer; without
    // `reuse`, a buffer nothing uses still gets bytes (as every buffer did before after_dead).
    if (iv.afterDead || (!reuse && iv.end < 0)) iv.end = INT64_MAX;
    if (!reuse && iv.begin == INT64_MAX) iv.begin = 0;
    if (iv.end >= 0) bufs.push_back(iv);
  });
  if (extra)
    bufs.push_back(Interval{LocalAllocOp(), extra->bytes, index[outermostLoop(extra->firstUse)], INT64_MAX, 0,
                            extra->align, /*afterDead=*/true});
  SmallVector<Interval *> order;
  for (Interval &b : bufs) order.push_back(&b);
  llvm::stable_sort(order, [](Interval *a, Interval *b) { return a->bytes > b->bytes; });
  SmallVector<Interval *> placed;
  int64_t total = scratch;
  for (Interval *b : order) {
    int64_t off = (scratch + b->align - 1) / b->align * b->align;
    bool moved = true;
    while (moved) {
      moved = false;
      for (Interval *p : placed) {
        // Without `reuse`, only a buffer that a barrier separates from the dead ones shares.
        bool apart = (reuse || ((b->afterDead || p->afterDead) && !b->barriers && !p->barriers)) &&
                     (p->end < b->begin || b->end < p->begin);
        bool overlap = off < p->offset + p->bytes && p->offset < off + b->bytes;
        if (!apart && overlap) {
          off = (p->offset + p->bytes + b->align - 1) / b->align * b->align;
          moved = true;
        }
      }
    }
    b->offset = off;
    placed.push_back(b);
    total = std::max(total, off + b->bytes);
  }
  return total;
}

void allocate(func::FuncOp f, bool reuse) {
  SmallVector<Interval> bufs;
  int64_t total = plan(f, reuse, bufs, std::nullopt);
  Builder builder(f.getContext());
  for (Interval &b : bufs) b.alloc.setOffsetAttr(builder.getI64IntegerAttr(b.offset));
  f->setAttr(kSharedBytesAttr, builder.getI64IntegerAttr(total));
}

struct AllocateSharedPass : impl::TileGPUAllocateSharedBase<AllocateSharedPass> {
  using TileGPUAllocateSharedBase::TileGPUAllocateSharedBase;
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) { allocate(f, reuse); });
  }
};

} // namespace

int64_t plannedSharedBytes(func::FuncOp f, bool reuse, Operation *firstUse, int64_t bytes, int64_t align) {
  SmallVector<Interval> bufs;
  std::optional<Planned> extra;
  if (firstUse) extra = Planned{firstUse, bytes, align};
  return plan(f, reuse, bufs, extra);
}

} // namespace ph::tilegpu
