//===- InsertBarriers.cpp - tilegpu-insert-barriers: a membar analysis --------===//
//
// A tile op is collective: each thread reads or writes the elements its layout
// gives it. Two accesses to one buffer in program order, at least one a write,
// race when an element of one is another thread's element of the other and no
// bar.sync lies between them: two stores of one global slice in two layouts
// (difftest seed 202261), a store then a load of what it wrote, a load then a
// store over what it read. As Triton's Membar analysis does, the pass walks
// each kernel in program order (through scf.if, and around scf.for's back edge
// to a fixed point) keeping the accesses made since the last barrier, and puts
// a `tilegpu.barrier` before an access that conflicts with one of them.
// Existing barriers count.
//
// The buffers: each global tensor argument (two accesses alias only through
// the same `!tile.ptr`; tensors passed twice are the program's business), and
// each shared buffer whose every use is a local_store, local_load or fma_dot
// without a stage. The pipeline's rings (buffers with stages, cp.async or
// wgmma users) order their own reuse with waits and barriers and are left out.
//
// No barrier is needed between two accesses that touch disjoint slices
// (offsets `v + c` of one value `v`, or constants, whose intervals do not meet,
// also between loop iterations when `v` advances by at least the extent per
// iteration), or that are one slice in one register layout that holds each
// element exactly once (each element then stays with one thread).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/DenseSet.h"

#include <vector>

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUINSERTBARRIERS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The part of a buffer an access touches, per buffer dimension: the offset
/// `base + add` (a null base: a constant) and the length.
struct Slice {
  bool known = true; // false: anywhere in the buffer
  SmallVector<Value> base;
  SmallVector<int64_t> add, lens;
  SmallVector<bool> squeezed;
  /// Carried around a loop's back edge: the access of an earlier iteration,
  /// whose offset along d was `base - j * shift[d]` (j >= 1). Empty: none.
  SmallVector<int64_t> shift;

  bool operator==(const Slice &o) const {
    return known == o.known && base == o.base && add == o.add && lens == o.lens && squeezed == o.squeezed &&
           shift == o.shift;
  }
};

struct Access {
  Operation *op = nullptr;
  Value buffer;
  bool write = false;
  /// The register layout that places elements on threads; null: any thread
  /// may touch any element (fma_dot's operand reads).
  Attribute layout;
  SmallVector<int64_t> shape; // the tile's
  Slice slice;

  bool operator==(const Access &o) const {
    return op == o.op && buffer == o.buffer && write == o.write && slice == o.slice;
  }
};

using State = std::vector<Access>;

void add(State &s, const Access &a) {
  if (!llvm::is_contained(s, a)) s.push_back(a);
}

void join(State &s, const State &o) {
  for (const Access &a : o) add(s, a);
}

bool sameSet(const State &a, const State &b) {
  return a.size() == b.size() && llvm::all_of(a, [&](const Access &x) { return llvm::is_contained(b, x); });
}

/// `v` as `base + add`, peeling constant additions.
std::pair<Value, int64_t> decompose(Value v) {
  int64_t add = 0;
  for (int guard = 0; guard < 16; ++guard) {
    if (auto c = getConstantIntValue(v)) return {Value(), add + *c};
    if (auto a = v.getDefiningOp<arith::AddIOp>()) {
      if (auto c = getConstantIntValue(a.getRhs())) { add += *c; v = a.getLhs(); continue; }
      if (auto c = getConstantIntValue(a.getLhs())) { add += *c; v = a.getRhs(); continue; }
    }
    if (auto s = v.getDefiningOp<arith::SubIOp>())
      if (auto c = getConstantIntValue(s.getRhs())) { add -= *c; v = s.getLhs(); continue; }
    // Offsets are index values; a kernel's integer arithmetic reaches them through a cast.
    if (auto c = v.getDefiningOp<arith::IndexCastOp>()) { v = c.getIn(); continue; }
    break;
  }
  return {v, add};
}

Slice sliceOf(OperandRange offsets, ArrayRef<int64_t> lens, ArrayRef<bool> squeezed) {
  Slice s;
  for (Value o : offsets) {
    auto [b, c] = decompose(o);
    s.base.push_back(b);
    s.add.push_back(c);
  }
  s.lens.assign(lens.begin(), lens.end());
  s.squeezed.assign(squeezed.begin(), squeezed.end());
  return s;
}

/// A shared buffer's slice: the whole buffer, or the constant `tilegpu.window`
/// of tilegpu-through-shared's parts of tiles.
Slice sharedSlice(Operation *op, Value buffer, RankedTensorType tile) {
  auto bt = cast<MemDescType>(buffer.getType());
  Slice s;
  auto w = op->getAttrOfType<DenseI64ArrayAttr>(kWindowAttr);
  auto sq = op->getAttrOfType<DenseBoolArrayAttr>(kSqueezedAttr);
  unsigned t = 0;
  for (unsigned d = 0; d < bt.getShape().size(); ++d) {
    bool squeezed = sq && d < sq.size() && sq[d];
    s.base.push_back(Value());
    s.add.push_back(w && d < w.size() ? w[d] : 0);
    s.lens.push_back(w ? (squeezed ? 1 : tile.getShape()[t++]) : bt.getShape()[d]);
    s.squeezed.push_back(squeezed);
  }
  return s;
}

/// Whether two intervals along one dimension cannot meet.
bool disjointAlong(const Slice &p, const Slice &a, unsigned d) {
  if (p.base[d] != a.base[d]) return false;
  int64_t delta = a.add[d] - p.add[d]; // a's offset minus p's (same iteration)
  int64_t shift = p.shift.empty() ? 0 : p.shift[d];
  if (shift == 0) return delta >= p.lens[d] || -delta >= a.lens[d];
  // p is from an earlier iteration j >= 1: a - p = delta + j * shift.
  if (shift > 0) return delta + shift >= p.lens[d];
  return -delta - shift >= a.lens[d];
}

bool disjoint(const Slice &p, const Slice &a) {
  if (!p.known || !a.known || p.base.size() != a.base.size()) return false;
  for (unsigned d = 0; d < p.base.size(); ++d)
    if (disjointAlong(p, a, d)) return true;
  return false;
}

/// Whether `layout` over `shape` gives each element to exactly one thread.
bool ownsEachElementOnce(Attribute layout, ArrayRef<int64_t> shape) {
  if (!isa_and_nonnull<BlockedEncodingAttr, MmaEncodingAttr>(layout)) return false;
  auto rl = registerLayout(layout, shape);
  if (!rl) return false;
  for (unsigned d = 0; d < shape.size(); ++d)
    if (rl->wraps(d)) return false;
  return true;
}

/// Whether every element both touch is touched by the same thread.
bool sameThreads(const Access &p, const Access &a) {
  return p.layout && p.layout == a.layout && p.shape == a.shape && p.slice.known && p.slice.shift.empty() &&
         p.slice == a.slice && ownsEachElementOnce(p.layout, p.shape);
}

/// The bytes a plain shared buffer takes, once tilegpu-allocate-shared has placed it.
std::optional<std::pair<int64_t, int64_t>> bytesOf(Value buffer) {
  auto alloc = buffer.getDefiningOp<LocalAllocOp>();
  if (!alloc || !alloc.getOffset()) return std::nullopt;
  MemDescType t = alloc.getType();
  int64_t begin = *alloc.getOffset();
  return std::make_pair(begin, begin + t.getStageBytes(t.getShape().size()));
}

/// Two buffers that may share bytes: one buffer, or two shared buffers placed over
/// each other (tilegpu-allocate-shared's `reuse`).
bool mayAlias(Value x, Value y) {
  if (x == y) return true;
  auto bx = bytesOf(x), by = bytesOf(y);
  return bx && by && bx->first < by->second && by->first < bx->second;
}

bool conflicts(const Access &p, const Access &a) {
  if ((!p.write && !a.write) || !mayAlias(p.buffer, a.buffer)) return false;
  if (p.buffer != a.buffer) return true; // the same bytes under two buffers' element orders
  return !disjoint(p.slice, a.slice) && !sameThreads(p, a);
}

class Analysis {
public:
  explicit Analysis(func::FuncOp f) {
    // The shared buffers of this pass: no stages, only local stores, loads and fma_dot reads.
    f.walk([&](LocalAllocOp alloc) {
      bool plain = llvm::all_of(alloc->getUsers(), [&](Operation *u) {
        if (auto s = dyn_cast<LocalStoreOp>(u)) return !s.getStage();
        if (auto l = dyn_cast<LocalLoadOp>(u)) return !l.getStage();
        return isa<FmaDotOp>(u);
      });
      if (plain) shared_.insert(alloc.getResult());
    });
  }

  void run(Block &body) {
    State s;
    walk(body, s);
  }

  int inserted = 0;

private:
  std::vector<Access> accessesOf(Operation *op) {
    std::vector<Access> out;
    auto tileAccess = [&](Value buffer, bool write, Value tile, Slice slice) {
      auto t = cast<RankedTensorType>(tile.getType());
      out.push_back(Access{op, buffer, write, t.getEncoding(), SmallVector<int64_t>(t.getShape()), std::move(slice)});
    };
    if (auto l = dyn_cast<tile::LoadOp>(op))
      tileAccess(l.getPtr(), false, l.getResult(), sliceOf(l.getOffsets(), l.getLens(), l.getSqueezed()));
    else if (auto st = dyn_cast<tile::StoreOp>(op))
      tileAccess(st.getPtr(), true, st.getValue(), sliceOf(st.getOffsets(), st.getLens(), st.getSqueezed()));
    else if (auto c = dyn_cast<AsyncCopyOp>(op)) {
      // The global side of the pipeline's copies: read in no register layout.
      Slice s = sliceOf(c.getOffsets(), c.getLens(), c.getSqueezed());
      out.push_back(Access{op, c.getPtr(), false, Attribute(), {}, std::move(s)});
    } else if (auto ls = dyn_cast<LocalStoreOp>(op)) {
      if (shared_.contains(ls.getBuffer()))
        tileAccess(ls.getBuffer(), true, ls.getValue(), sharedSlice(op, ls.getBuffer(), ls.getValue().getType()));
    } else if (auto ll = dyn_cast<LocalLoadOp>(op)) {
      if (shared_.contains(ll.getBuffer()))
        tileAccess(ll.getBuffer(), false, ll.getResult(), sharedSlice(op, ll.getBuffer(), ll.getType()));
    } else if (auto fd = dyn_cast<FmaDotOp>(op)) {
      for (Value b : {fd.getA(), fd.getB()})
        if (shared_.contains(b)) {
          Slice whole;
          whole.known = false;
          out.push_back(Access{op, b, false, Attribute(), {}, std::move(whole)});
        }
    }
    return out;
  }

  void visit(Operation *op, State &s) {
    if (isa<BarrierOp>(op)) {
      s.clear();
      return;
    }
    if (auto f = dyn_cast<scf::ForOp>(op)) return loop(op, f, s);
    if (auto i = dyn_cast<scf::IfOp>(op)) {
      State t = s, e = s;
      walk(i.getThenRegion().front(), t);
      if (!i.getElseRegion().empty()) walk(i.getElseRegion().front(), e);
      join(t, e);
      s = std::move(t);
      return;
    }
    // A warp-specialized kernel: the consumers run the kernel as written (their
    // barriers become a named barrier over their threads); the producer warpgroup
    // only fills the rings, which order themselves on mbarriers: no barrier there.
    if (auto ws = dyn_cast<WarpSpecializeOp>(op)) return walk(ws.getConsumer().front(), s);
    // Any other op with regions (scf.while, execute_region): its blocks in turn,
    // repeated as a loop would be, every slice from an earlier round unknown.
    if (op->getNumRegions()) return loop(op, nullptr, s);
    std::vector<Access> mine = accessesOf(op);
    if (mine.empty()) return;
    SmallVector<Operation *> clashing;
    for (const Access &a : mine)
      for (const Access &p : s)
        if (conflicts(p, a) && !orderedOnEntry(p.op)) clashing.push_back(p.op);
    if (!clashing.empty()) barrierFor(op, clashing, s);
    for (const Access &a : mine) add(s, a);
  }

  /// Whether a barrier right before one of the loops around the visited op lies
  /// between `p`, outside that loop, and the op: every way into a loop passes it.
  bool orderedOnEntry(Operation *p) const {
    return llvm::any_of(loops_, [&](const LoopContext &l) {
      return isa_and_nonnull<BarrierOp>(l.op->getPrevNode()) && !l.op->isAncestor(p);
    });
  }

  /// A barrier that orders `op` after the accesses of `clashing`: before the
  /// outermost loop around `op` that none of them is in (once, not every
  /// iteration: a store before a loop that reads it), else just before `op`.
  void barrierFor(Operation *op, ArrayRef<Operation *> clashing, State &s) {
    ++inserted;
    for (unsigned j = 0; j < loops_.size(); ++j) {
      Operation *l = loops_[j].op;
      if (llvm::any_of(clashing, [&](Operation *p) { return l->isAncestor(p); })) continue;
      OpBuilder b(l);
      BarrierOp::create(b, l->getLoc());
      // Everything from before the loop is ordered now.
      auto outside = [&](const Access &a) { return !l->isAncestor(a.op); };
      loops_[j].before->clear();
      for (unsigned i = j + 1; i < loops_.size(); ++i) llvm::erase_if(*loops_[i].before, outside);
      llvm::erase_if(s, outside);
      return;
    }
    OpBuilder b(op);
    BarrierOp::create(b, op->getLoc());
    s.clear();
  }

  void walk(Block &block, State &s) {
    for (Operation &op : llvm::make_early_inc_range(block)) visit(&op, s);
  }

  /// The iteration-to-iteration step of `v` in loop `f` (v = iv or iv * c), or 0.
  static int64_t stepOf(Value v, scf::ForOp f) {
    if (!f) return 0;
    std::optional<int64_t> step = getConstantIntValue(f.getStep());
    if (!step) return 0;
    Value iv = f.getInductionVar();
    auto isIv = [&](Value x) {
      if (auto c = x.getDefiningOp<arith::IndexCastOp>()) x = c.getIn();
      return x == iv;
    };
    if (isIv(v)) return *step;
    if (auto m = v.getDefiningOp<arith::MulIOp>()) {
      if (isIv(m.getLhs()))
        if (auto c = getConstantIntValue(m.getRhs())) return *step * *c;
      if (isIv(m.getRhs()))
        if (auto c = getConstantIntValue(m.getLhs())) return *step * *c;
    }
    return 0;
  }

  /// The accesses of one iteration as the next iteration sees them.
  static Access carried(Access a, Operation *loopOp, scf::ForOp f) {
    Slice &s = a.slice;
    if (!s.known) return a;
    for (unsigned d = 0; d < s.base.size(); ++d) {
      Value b = s.base[d];
      Region *where = b ? b.getParentRegion() : nullptr;
      if (!where || !loopOp->isAncestor(where->getParentOp())) continue; // the same value in every iteration
      int64_t step = stepOf(b, f);
      if (step == 0 || (!s.shift.empty() && s.shift[d] != 0 && s.shift[d] != step)) {
        s = Slice();
        s.known = false;
        return a;
      }
      if (s.shift.empty()) s.shift.assign(s.base.size(), 0);
      s.shift[d] = step;
    }
    return a;
  }

  /// An op whose regions run in turn zero or more times: their entry state is the
  /// state before the op joined with what one pass through them leaves behind (as
  /// the next iteration sees it), to a fixed point. Barriers placed in one round
  /// stay for the next: the states only grow.
  void loop(Operation *loopOp, scf::ForOp f, State &s) {
    loops_.push_back({loopOp, &s});
    State entry = s;
    State out;
    for (int round = 0; round < 16; ++round) {
      out = entry;
      for (Region &r : loopOp->getRegions())
        for (Block &b : r) walk(b, out);
      State next = s;
      for (const Access &a : out) add(next, carried(a, loopOp, f));
      if (sameSet(next, entry)) break;
      entry = std::move(next);
    }
    join(s, out);
    loops_.pop_back();
  }

  /// The loops (and other region ops) around the op being visited, outermost
  /// first, each with the state before it.
  struct LoopContext {
    Operation *op;
    State *before;
  };
  std::vector<LoopContext> loops_;
  llvm::DenseSet<Value> shared_;
};

struct InsertBarriersPass : impl::TileGPUInsertBarriersBase<InsertBarriersPass> {
  void runOnOperation() override {
    getOperation().walk([&](func::FuncOp f) {
      if (f.isDeclaration()) return;
      Analysis a(f);
      a.run(f.getBody().front());
    });
  }
};

} // namespace
} // namespace ph::tilegpu
