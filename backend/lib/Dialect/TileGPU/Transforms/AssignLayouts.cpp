//===- AssignLayouts.cpp - tilegpu-assign-layouts: a layout for every tile ---===//
//
// Layouts are chosen once, up front, from the IR: a policy per kernel (SIMT
// or mma.sync, by architecture and `@tensorcore`), anchors (dot results in
// the mma layout), propagation through everything computed from them and
// back to the splats, constants and loads that feed them, and a blocked
// layout for the rest. Then types are rewritten in place, `acc + dot(a, b)`
// becomes `tilegpu.dot`, and `tilegpu.convert_layout` is put wherever an
// operand's layout is not the one its user needs. Whether a kernel fits is
// decided here, with the tile and the reason, not by emitting code and
// throwing it away.
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/Arch.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "CopyChunks.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cstdlib>
#include <string>

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;
using ph::backend::GpuArch;

namespace ph::tilegpu {
namespace {

int64_t elemBytes(Type t) { return (t.getIntOrFloatBitWidth() + 7) / 8; }

int64_t pow2AtMost(int64_t n) {
  int64_t p = 1;
  while (p * 2 <= n) p *= 2;
  return p;
}

/// The largest power of two that divides n (n > 0).
int64_t pow2Dividing(int64_t n) { return n > 0 ? n & -n : 1; }

/// A coalesced layout over `threads` threads: 16-byte vectors along the last
/// dimension, lanes along it first, warps along the first dimension.
/// `maxVec` caps the vector (a load whose rows may start unaligned reads one element per
/// access, and then lanes had better read consecutive elements).
Attribute defaultBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape, Type elem, int64_t threads,
                         int64_t maxVec = 16) {
  unsigned rank = shape.size();
  SmallVector<unsigned> spt(rank, 1), tpw(rank, 1), wpc(rank, 1), order;
  for (int d = int(rank) - 1; d >= 0; --d) order.push_back(unsigned(d));
  int64_t last = shape.back();
  int64_t vec = std::min({16 / elemBytes(elem), pow2AtMost(last), std::max<int64_t>(1, maxVec)});
  while (vec > 1 && last % vec) vec /= 2;
  spt[rank - 1] = unsigned(vec);
  int64_t lanes = 32;
  for (int d = int(rank) - 1; d >= 0 && lanes > 1; --d) {
    int64_t room = shape[d] / (d == int(rank) - 1 ? vec : 1);
    // As many lanes as divide the extent (the same as pow2AtMost for power-of-two extents):
    // 24 columns of f32 take 2 lanes of 4, three passes, and are covered exactly, as a
    // reduction along them needs (rowBlocked starts from this layout).
    int64_t t = std::min<int64_t>(lanes, std::max<int64_t>(1, pow2Dividing(room)));
    if (d == 0) t = lanes; // the rest replicate along the first dimension
    tpw[d] = unsigned(t);
    lanes /= t;
  }
  int64_t warps = std::max<int64_t>(1, threads / 32);
  for (unsigned d = 0; d < rank && warps > 1; ++d) {
    int64_t room = std::max<int64_t>(1, shape[d] / (int64_t(spt[d]) * tpw[d]));
    int64_t w = d + 1 == rank ? warps : std::min<int64_t>(warps, pow2AtMost(room));
    wpc[d] = unsigned(w);
    warps /= w;
  }
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

/// The SIMT layout of a tile whose rows are reduced: defaultBlocked's lanes and
/// vectors, warps along the rows, so that the reduction stays inside a warp
/// (ReduceToNVVM's butterfly shuffles). `maxVec` caps the vectors as defaultBlocked's
/// does (the loads behind the tile). With fewer rows than warps, `splitCols` puts the
/// spare warps along the columns where they cover them exactly (ReduceToNVVM then adds
/// the warps' partials through shared memory): a row softmax of one 4096-column row per
/// CTA holds 32 elements a thread instead of 128, each read once, where the warps used
/// to replicate the row (4 warps issuing the same loads). Else, or without it, the
/// spare warps replicate the rows.
Attribute rowBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape, Type elem, int64_t threads,
                     int64_t maxVec = 16, bool splitCols = false) {
  auto b = cast<BlockedEncodingAttr>(defaultBlocked(ctx, shape, elem, 32, maxVec));
  int64_t warps = std::max<int64_t>(1, threads / 32), wc = 1;
  if (splitCols && shape.size() == 2) {
    int64_t rowsPerWarp = b.getThreadsPerWarp()[0], colsPerWarp = int64_t(b.getSizePerThread()[1]) * b.getThreadsPerWarp()[1];
    int64_t rowGroups = std::max<int64_t>(1, shape[0] / rowsPerWarp);
    wc = warps / std::min(warps, pow2AtMost(rowGroups));
    while (wc > 1 && shape[1] % (colsPerWarp * wc)) wc /= 2;
  }
  SmallVector<unsigned> wpc(shape.size(), 1);
  wpc[0] = unsigned(warps / wc);
  wpc[shape.size() - 1] *= unsigned(wc);
  return BlockedEncodingAttr::get(ctx, b.getSizePerThread(), b.getThreadsPerWarp(), wpc, b.getOrder());
}

/// The layout of a tile whose columns are reduced (colsum, colmax): 16-byte
/// vectors along the columns, lanes along the rows only as far as the rows go
/// (the largest power of two dividing them, at most 32), the rest of the lanes
/// and every warp along the columns; ColReduceToNVVM then combines rows within
/// a thread and over lanes, and never counts a row twice.
Attribute colBlocked(MLIRContext *ctx, ArrayRef<int64_t> shape, Type elem, int64_t threads) {
  int64_t rows = shape[0], cols = shape[1];
  int64_t vec = std::min<int64_t>(16 / elemBytes(elem), pow2AtMost(cols));
  while (vec > 1 && cols % vec) vec /= 2;
  int64_t lanesRow = 1;
  while (lanesRow < 32 && rows % (lanesRow * 2) == 0) lanesRow *= 2;
  SmallVector<unsigned> spt = {1, unsigned(vec)}, tpw = {unsigned(lanesRow), unsigned(32 / lanesRow)},
                        wpc = {1, unsigned(std::max<int64_t>(1, threads / 32))}, order = {1, 0};
  return BlockedEncodingAttr::get(ctx, spt, tpw, wpc, order);
}

/// The SIMT policy's dot result: one element per thread per pass (spt [1, 1]),
/// so that a thread's rows and columns lie a pass apart (rows i, i + pass_m, ...)
/// and the lanes of a warp read consecutive rows of B (dot_t's K, read along K
/// in 16-byte vectors: conflict-free in a buffer padded by 16 bytes) or
/// consecutive columns. Among the splits of the lanes and warps, the one with
/// the fewest operand reads per K step (rows plus columns a thread holds),
/// counting replicated threads as wasted work; a result whose rows are
/// reduced keeps every warp along the rows (the reduction stays in a warp),
/// and others do on a tie (attention's P·V then shares the scores' layout and
/// its [R, 1] statistics, with no conversion between them).
Attribute fmaBlocked(MLIRContext *ctx, int64_t m, int64_t n, int64_t threads, bool rowsReduced) {
  int64_t warps = std::max<int64_t>(1, threads / 32);
  SmallVector<unsigned> best = {1, 32, unsigned(warps), 1};
  double bestCost = 1e300;
  for (int64_t wm = warps; wm >= 1; wm /= 2)
    for (int64_t tn = 32; tn >= 1; tn /= 2) {
      int64_t tm = 32 / tn, wn = warps / wm;
      // A reduced row is split over lanes that each hold distinct columns (ReduceToNVVM
      // reduces across the lanes along it: a column held twice would count twice).
      if (rowsReduced && tn > n) continue;
      int64_t coverM = std::min(m, tm * wm), coverN = std::min(n, tn * wn);
      double redundancy = double(tm * wm * tn * wn) / double(coverM * coverN);
      double cost = double(std::max<int64_t>(1, m / (tm * wm)) + std::max<int64_t>(1, n / (tn * wn))) +
                    2.0 * (redundancy - 1.0) + (wn > 1 ? (rowsReduced ? 8.0 : 1.0) : 0.0);
      if (cost < bestCost) {
        bestCost = cost;
        best = {unsigned(tm), unsigned(tn), unsigned(wm), unsigned(wn)};
      }
    }
  return BlockedEncodingAttr::get(ctx, {1, 1}, {best[0], best[1]}, {best[2], best[3]}, {1, 0});
}

bool isElementwise(Operation *op) {
  if (op->getNumResults() != 1 || !isa<RankedTensorType>(op->getResult(0).getType())) return false;
  if (isa<arith::ConstantOp>(op)) return false;
  return op->hasTrait<OpTrait::Elementwise>() ||
         isa<arith::ArithDialect, math::MathDialect>(op->getDialect());
}

/// Ops whose tile result may take whatever layout its users want.
bool isLayoutFree(Operation *op) {
  return op && (isa<arith::ConstantOp, tile::SplatOp, tile::LoadOp, tile::BroadcastOp, tile::ConvertOp, tile::IotaOp>(op) ||
                isElementwise(op));
}

/// Ops whose result and tile operands share one layout (the lowering works register by register;
/// tile.insert's dest and result must have one type, and its part goes through shared memory).
bool sharesLayout(Operation *op) {
  return isElementwise(op) ||
         isa<tile::BroadcastOp, tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp, tile::ConvertOp, tile::MaskColsOp, tile::CausalMaskOp,
             tile::ColMaxOp, tile::ColSumOp, tile::InsertOp>(op);
}

/// The dot whose result `v` is computed from in registers (through ops that
/// keep the layout), or null: attention's P, which feeds P·V, or its scores.
tile::DotOp dotBehind(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    Operation *def = x.getDefiningOp();
    if (!def) continue;
    if (auto d = dyn_cast<tile::DotOp>(def)) return d;
    if (sharesLayout(def))
      for (Value o : def->getOperands()) work.push_back(o);
  }
  return {};
}

bool fromDotResult(Value v) { return bool(dotBehind(v)); }

class Assigner {
public:
  Assigner(func::FuncOp f, const GpuArch &arch, StringRef policy, int64_t threads, bool checkDotK,
           bool rowLoadVectors, bool splitRowWarps)
      : f_(f), ctx_(f.getContext()), arch_(arch), policy_(policy), threads_(threads), checkDotK_(checkDotK),
        rowLoadVectors_(rowLoadVectors), splitRowWarps_(splitRowWarps) {}

  LogicalResult run();

private:
  bool wantsMma();
  LogicalResult chooseMma();
  bool chooseWgmma();
  void propagate();
  /// Spreads the layouts set so far to the values that share them, to a fixpoint.
  void spread();
  LogicalResult check();
  void rewrite();
  void set(Value v, Attribute a) {
    if (isa<RankedTensorType>(v.getType()) && !layout_.count(v)) {
      layout_[v] = a;
      changed_ = true;
    }
  }
  Attribute get(Value v) const { return layout_.lookup(v); }
  Value convertTo(Value v, Attribute want, OpBuilder &b);
  Value convertAt(Value v, Attribute want, OpBuilder &b);
  /// The layout of the dot result `v` is computed from through ops that share one layout.
  Attribute dotLayoutBehind(Value v) const;

  func::FuncOp f_;
  MLIRContext *ctx_;
  const GpuArch &arch_;
  std::string policy_;
  int64_t threads_;
  bool checkDotK_;
  bool rowLoadVectors_;
  bool splitRowWarps_;
  MmaEncodingAttr mma_;
  DenseMap<Value, Attribute> layout_;
  DenseMap<std::pair<Value, Attribute>, Value> converted_;
  bool changed_ = false;
};

/// The loads of `v`'s shape that `v` is computed from through ops that share one layout, and no
/// dot: a memory-bound row reduction's (softmax's X, a norm's rows). Their narrowest element
/// sets the reduced tile's vectors (16 bytes of f16 are 8 elements, where f32 arithmetic alone
/// would give 4), their alignment caps them (loadLastDimDivisibility: rows that may start
/// anywhere read one element per lane and pass, consecutive across the warp, instead of 4-element
/// runs read as 4 scalar loads 8 bytes apart). Null element type: no such load.
std::pair<Type, int64_t> loadsBehindReduction(Value v) {
  auto shape = cast<RankedTensorType>(v.getType()).getShape();
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  Type narrow;
  int64_t div = 16;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    // Through a loop's carried value (a per-element sum reduced after the loop: layer_norm.ph,
    // cross-entropy's picked logit) to what the body yields and what it starts from.
    if (auto arg = dyn_cast<BlockArgument>(x)) {
      if (auto loop = dyn_cast<scf::ForOp>(arg.getOwner()->getParentOp()); loop && arg.getArgNumber() > 0) {
        unsigned i = arg.getArgNumber() - 1;
        work.push_back(loop.getInitArgs()[i]);
        work.push_back(loop.getBody()->getTerminator()->getOperand(i));
      }
      continue;
    }
    Operation *def = x.getDefiningOp();
    if (auto loop = dyn_cast<scf::ForOp>(def)) {
      unsigned i = cast<OpResult>(x).getResultNumber();
      work.push_back(loop.getRegionIterArgs()[i]);
      continue;
    }
    if (isa<tile::DotOp>(def)) return {Type(), 16};
    auto rt = dyn_cast<RankedTensorType>(x.getType());
    if (auto ld = dyn_cast<tile::LoadOp>(def)) {
      if (!rt || rt.getShape() != shape) continue;
      if (!narrow || elemBytes(rt.getElementType()) < elemBytes(narrow)) narrow = rt.getElementType();
      div = std::min(div, loadLastDimDivisibility(ld));
      continue;
    }
    if (sharesLayout(def))
      for (Value o : def->getOperands()) work.push_back(o);
  }
  return {narrow, div};
}

/// Whether rows of `v`, or of a tile computed from it through ops that share
/// one layout, are reduced (attention's scores).
bool rowsReducedFrom(Value v) {
  SmallVector<Value> work = {v};
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value x = work.pop_back_val();
    if (!seen.insert(x).second) continue;
    for (Operation *u : x.getUsers()) {
      if (isa<tile::RowMaxOp, tile::RowSumOp>(u)) return true;
      if (sharesLayout(u)) work.push_back(u->getResult(0));
    }
  }
  return false;
}

Attribute Assigner::dotLayoutBehind(Value v) const {
  tile::DotOp d = dotBehind(v);
  return d ? get(d.getResult()) : Attribute();
}

bool Assigner::wantsMma() {
  if (policy_ == "simt") return false;
  bool tc = f_->hasAttr(ph::tile::kTensorcoreAttr) || policy_ == "mma" || policy_ == "wgmma";
  if (!tc || !arch_.mmaSync) return false;
  bool any = false;
  f_.walk([&](tile::DotOp d) {
    Type ea = cast<RankedTensorType>(d.getA().getType()).getElementType();
    Type eb = cast<RankedTensorType>(d.getB().getType()).getElementType();
    Type er = cast<RankedTensorType>(d.getResult().getType()).getElementType();
    if ((ea.isF16() || ea.isBF16()) && ea == eb && er.isF32()) any = true;
  });
  return any;
}

/// Warps along the rows only when rows are reduced or a dot feeds a dot (the
/// reductions stay inside a warp, and P feeds P·V from registers, as in
/// FlashAttention-2); otherwise the squarest warp tile that fits every dot.
LogicalResult Assigner::chooseMma() {
  int64_t warps = threads_ / 32;
  bool rowsOnly = false;
  SmallVector<std::pair<int64_t, int64_t>> shapes;
  f_.walk([&](Operation *op) {
    if (isa<tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp>(op)) rowsOnly = true;
    if (auto d = dyn_cast<tile::DotOp>(op)) {
      auto rt = cast<RankedTensorType>(d.getResult().getType());
      shapes.push_back({rt.getDimSize(0), rt.getDimSize(1)});
      // A dot operand computed from another dot's result.
      for (Value operand : {d.getA(), d.getB()})
        if (fromDotResult(operand)) rowsOnly = true;
    }
  });
  int64_t bestWm = -1, bestScore = -1;
  for (int64_t wm = warps; wm >= 1; wm /= 2) {
    int64_t wn = warps / wm;
    if (rowsOnly && wn != 1) continue;
    bool fits = true;
    int64_t score = INT64_MAX;
    for (auto [m, n] : shapes) {
      if (m % (16 * wm) || n % (8 * wn)) fits = false;
      score = std::min(score, std::min(m / wm, n / wn));
    }
    if (fits && score > bestScore) {
      bestScore = score;
      bestWm = wm;
    }
  }
  if (bestWm < 0) {
    tile::DotOp first;
    f_.walk([&](tile::DotOp d) {
      if (!first) first = d;
    });
    auto rt = cast<RankedTensorType>(first.getResult().getType());
    return first.emitWarning() << "tile " << rt << " cannot take the mma.sync register layout: "
                               << (rowsOnly ? "its rows are reduced, so the " + std::to_string(warps) +
                                                  " warps split its rows: they must be a multiple of " +
                                                  std::to_string(16 * warps)
                                            : std::string("no split of the ") + std::to_string(warps) +
                                                  " warps into 16-row and 8-column blocks fits every dot");
  }
  SmallVector<unsigned> wpc = {unsigned(bestWm), unsigned(warps / bestWm)};
  mma_ = MmaEncodingAttr::get(ctx_, 2, wpc, {16, 8});
  return success();
}

/// The swizzle width wgmma reads a buffer with: rows of `bytes` contiguous
/// bytes need a 32, 64 or 128-byte swizzle that they fill (or a multiple of 128).
int64_t swizzleBytes(int64_t bytes) {
  if (bytes >= 128) return bytes % 128 ? 0 : 128;
  return bytes == 64 || bytes == 32 ? bytes : 0;
}

/// On sm_90a, a `@tensorcore` kernel whose dots all fit wgmma runs on it: its
/// warpgroups multiply out of swizzled shared buffers, so operands loaded
/// from global memory never pass through registers. Each dot's B is a load
/// in the dot's block (a K block of a GEMM, attention's K or V); its A is a
/// load there or above it (attention's Q, loaded once), or a tile computed
/// in registers from a dot's result (attention's P), which wgmma takes from
/// registers in mma.sync's A fragment. The accumulators share one layout:
/// its registers do not depend on N, which each dot takes from its tile.
bool Assigner::chooseWgmma() {
  if (!arch_.wgmma || (policy_ != "auto" && policy_ != "wgmma")) return false;
  int64_t warps = threads_ / 32;
  if (threads_ % 128) return false;
  bool ok = true, sameN = true, reducesRows = false;
  int64_t n0 = -1, maxN = 0;
  f_.walk([&](Operation *op) {
    if (isa<tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp>(op)) reducesRows = true;
  });
  f_.walk([&](tile::DotOp d) {
    auto a = cast<RankedTensorType>(d.getA().getType()), b = cast<RankedTensorType>(d.getB().getType());
    auto r = cast<RankedTensorType>(d.getResult().getType());
    int64_t m = r.getDimSize(0), n = r.getDimSize(1), k = a.getDimSize(1), e = elemBytes(a.getElementType());
    if (n0 < 0) n0 = n;
    sameN = sameN && n == n0;
    maxN = std::max(maxN, n);
    auto ldB = d.getB().getDefiningOp<tile::LoadOp>();
    // The operands wgmma reads from shared memory get there by cp.async (or TMA), which moves
    // whole aligned 16-byte chunks: rows of an unaligned extent (a GEMM's K without `@aligned`)
    // go to mma.sync, whose operands can pass through registers.
    if (!ldB || !d.getB().hasOneUse() || ldB->getBlock() != d->getBlock() || !copiesInChunks(ldB)) ok = false;
    bool aShared = false;
    if (auto ldA = d.getA().getDefiningOp<tile::LoadOp>()) {
      aShared = true;
      if (!d.getA().hasOneUse() || !ldA->getBlock()->findAncestorOpInBlock(*d) || !copiesInChunks(ldA)) ok = false;
    } else if (!fromDotResult(d.getA())) {
      ok = false;
    }
    int64_t bRow = b.getDimSize(1); // the contiguous extent: N of [K, N], K of dot_t's [N, K]
    ok = ok && m % (16 * warps) == 0 && n % 8 == 0 && n <= 256 && k % 16 == 0 &&
         (!aShared || swizzleBytes(k * e)) && swizzleBytes(bRow * e);
  });
  if (!ok || n0 < 0) return false;
  // Measured on the H200 (docs/tilegpu.md): attention on wgmma with every
  // wgmma waited for is 1.1-1.3x the mma.sync emitter at D = 128 and 0.8-0.95x
  // at D = 64, where the softmax, which the wgmma does not overlap, is a larger
  // share. `auto` takes wgmma for a kernel that reduces rows only when a dot's
  // N reaches 128; `policy=wgmma` takes it whenever it fits.
  if (policy_ == "auto" && reducesRows && maxN < 128) return false;
  mma_ = MmaEncodingAttr::get(ctx_, 3, {unsigned(warps), 1}, {64, unsigned(sameN ? n0 : 8)});
  return true;
}

void Assigner::propagate() {
  if (mma_) f_.walk([&](tile::DotOp d) { set(d.getResult(), mma_); });
  // SIMT: dot results anchor in fmaBlocked; reduced rows anchor their tile in
  // one warp per row group (an [R, 1] statistic made first must not pick a
  // layout that splits the rows over warps), the dot's own layout where the
  // tile is computed from a dot result that keeps its rows in one warp.
  if (!mma_) {
    f_.walk([&](tile::DotOp d) {
      auto rt = cast<RankedTensorType>(d.getResult().getType());
      if (rt.getRank() == 2)
        set(d.getResult(), fmaBlocked(ctx_, rt.getDimSize(0), rt.getDimSize(1), threads_, rowsReducedFrom(d.getResult())));
    });
    bool hasArgMax = false;
    f_.walk([&](tile::RowArgMaxOp) { hasArgMax = true; });
    f_.walk([&](Operation *op) {
      if (!isa<tile::RowMaxOp, tile::RowSumOp, tile::RowArgMaxOp>(op)) return;
      auto t = cast<RankedTensorType>(op->getOperand(0).getType());
      if (t.getRank() != 2) return;
      auto [narrow, div] = loadsBehindReduction(op->getOperand(0));
      // rowargmax's (value, column) pairs meet only over lanes (ReduceToNVVM).
      bool split = splitRowWarps_ && !hasArgMax;
      Attribute a = narrow && rowLoadVectors_
                        ? rowBlocked(ctx_, t.getShape(), narrow, threads_, div, split)
                        : rowBlocked(ctx_, t.getShape(), t.getElementType(), threads_, 16, split);
      if (auto fromDot = dyn_cast_or_null<BlockedEncodingAttr>(dotLayoutBehind(op->getOperand(0)));
          fromDot && fromDot.getWarpsPerCTA()[1] == 1)
        a = fromDot;
      set(op->getOperand(0), a);
    });
  }
  // A reduced column anchors its tile and its [1, C] result in colBlocked under
  // every policy (a dot result keeps its layout and is converted to it).
  f_.walk([&](Operation *op) {
    if (!isa<tile::ColMaxOp, tile::ColSumOp>(op)) return;
    auto t = cast<RankedTensorType>(op->getOperand(0).getType());
    Attribute l = colBlocked(ctx_, t.getShape(), t.getElementType(), threads_);
    set(op->getResult(0), l);
    set(op->getOperand(0), l);
  });
  spread();
  // A load whose users all want one register layout takes it directly (a bias
  // row read in the accumulator's layout); loads feeding dots stay coalesced. A
  // yield wants what its loop carries or its `if` gives, and has no say while that
  // has no layout yet (tilegpu-reuse-row-loads' carried block); to a fixpoint, as a
  // load's layout spreads to what another load feeds.
  for (bool again = true; again;) {
    again = false;
    f_.walk([&](tile::LoadOp ld) {
      if (get(ld.getResult())) return;
      Attribute want;
      bool agree = true;
      for (OpOperand &use : ld.getResult().getUses()) {
        Operation *u = use.getOwner();
        Attribute a;
        if (auto y = dyn_cast<scf::YieldOp>(u)) {
          if (auto loop = dyn_cast<scf::ForOp>(y->getParentOp()))
            a = get(loop.getRegionIterArgs()[use.getOperandNumber()]);
          else if (auto ifOp = dyn_cast<scf::IfOp>(y->getParentOp()))
            a = get(ifOp.getResult(use.getOperandNumber()));
          if (!a) continue;
        } else if (sharesLayout(u)) {
          a = get(u->getResult(0));
        }
        if (!a || (want && a != want)) agree = false;
        want = a;
      }
      if (agree && want) {
        set(ld.getResult(), want);
        again = true;
      }
    });
    if (again) spread();
  }
  // A load nothing anchors is coalesced and vectorised for its own type, and what is
  // computed from it takes that layout too, one load at a time in program order: a
  // kernel without a dot or a reduction (SwiGLU: f16 loads, f32 arithmetic) then runs
  // in its first load's layout instead of converting between the f16 loads' and
  // the f32 arithmetic's defaults through shared memory three times). The layout's
  // vectors are as wide as the load's alignment allows: where rows may start anywhere
  // (SwiGLU's `[N, C]` for any C), one element per lane and pass, so that a warp's
  // scalar loads read consecutive elements (8-element runs per lane read 16 bytes apart
  // cost 8 times the load instructions per byte: 1,221 against the legacy emitter's
  // 1,977 GB/s on the H200).
  SmallVector<tile::LoadOp> loads;
  f_.walk([&](tile::LoadOp ld) { loads.push_back(ld); });
  for (tile::LoadOp ld : loads) {
    auto rt = dyn_cast<RankedTensorType>(ld.getResult().getType());
    if (!rt || rt.getRank() == 0 || get(ld.getResult())) continue;
    set(ld.getResult(), defaultBlocked(ctx_, rt.getShape(), rt.getElementType(), threads_, loadLastDimDivisibility(ld)));
    spread();
  }
  // Everything else: coalesced and vectorised over the kernel's threads.
  auto others = [&](Value v) {
    if (auto rt = dyn_cast<RankedTensorType>(v.getType()); rt && !get(v) && rt.getRank() > 0)
      set(v, defaultBlocked(ctx_, rt.getShape(), rt.getElementType(), threads_));
  };
  f_.walk([&](Operation *op) {
    for (Value r : op->getResults()) others(r);
    for (Region &reg : op->getRegions())
      for (Block &b : reg)
        for (Value a : b.getArguments()) others(a);
  });
}

void Assigner::spread() {
  do {
    changed_ = false;
    f_.walk([&](Operation *op) {
      // scf.if: a result takes the layout of what a branch yields (the other branch converts).
      if (auto ifOp = dyn_cast<scf::IfOp>(op); ifOp && ifOp.getNumResults() > 0) {
        for (unsigned i = 0; i < ifOp.getNumResults(); ++i) {
          Attribute a = get(ifOp.getResult(i));
          if (!a) a = get(ifOp.thenYield().getOperand(i));
          if (!a) a = get(ifOp.elseYield().getOperand(i));
          if (a) set(ifOp.getResult(i), a);
        }
      }
      if (sharesLayout(op)) {
        Attribute a;
        for (Value v : op->getOperands())
          if (!a) a = get(v);
        if (!a) a = get(op->getResult(0));
        if (!a) return;
        // Forward to the result; back to operands that may take any layout.
        set(op->getResult(0), a);
        for (Value v : op->getOperands())
          if (isa<RankedTensorType>(v.getType()) && isLayoutFree(v.getDefiningOp()) && !v.getDefiningOp<tile::LoadOp>())
            set(v, a);
      }
      if (auto loop = dyn_cast<scf::ForOp>(op)) {
        auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
        for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
          Value group[] = {loop.getInitArgs()[i], loop.getRegionIterArgs()[i], yield.getOperand(i), loop.getResult(i)};
          Attribute a;
          for (Value v : group)
            if (!a) a = get(v);
          if (!a) continue;
          for (Value v : {group[1], group[3]}) set(v, a);
          if (isLayoutFree(group[0].getDefiningOp()) && !group[0].getDefiningOp<tile::LoadOp>()) set(group[0], a);
        }
      }
    });
  } while (changed_);
}

LogicalResult Assigner::check() {
  LogicalResult ok = success();
  for (auto &[v, a] : layout_) {
    if (!isa<MmaEncodingAttr>(a)) continue;
    std::string why;
    if (!registerLayout(a, cast<RankedTensorType>(v.getType()).getShape(), &why)) {
      Operation *at = v.getDefiningOp() ? v.getDefiningOp() : v.getParentBlock()->getParentOp();
      at->emitWarning() << "tile " << v.getType() << " cannot take the mma.sync register layout: " << why;
      ok = failure();
    }
  }
  f_.walk([&](tile::DotOp d) {
    int64_t k = cast<RankedTensorType>(d.getA().getType()).getDimSize(1);
    // Off only in tests (PH_TEST_TILEGPU_UNCHECKED_K=1), which then reach the conversion's own failure.
    if (checkDotK_ && mma_ && k % 16) {
      d.emitWarning() << "a dot over K = " << k << " cannot run on mma.sync m16n8k16: K must be a multiple of 16";
      ok = failure();
    }
  });
  return ok;
}

Value Assigner::convertTo(Value v, Attribute want, OpBuilder &b) {
  if (layoutOf(v.getType()) == want) return v;
  auto key = std::make_pair(v, want);
  if (auto it = converted_.find(key); it != converted_.end()) return it->second;
  // Converted once, where the value is made: a loop-invariant operand (attention's q)
  // is converted outside the loop, a load's conversion sits beside the load (where
  // tilegpu-pipeline finds it), and two users share one conversion.
  OpBuilder::InsertionGuard guard(b);
  if (Operation *def = v.getDefiningOp()) b.setInsertionPointAfter(def);
  else b.setInsertionPointToStart(cast<BlockArgument>(v).getOwner());
  Value out = convertAt(v, want, b);
  converted_[key] = out;
  return out;
}

Value Assigner::convertAt(Value v, Attribute want, OpBuilder &b) {
  // A splat constant is remade in the wanted layout rather than converted; so is a splat of a
  // scalar (one zero tile that starts a loop's carried sum and fills a `where`: the two may
  // want different layouts, and going through shared memory for a constant costs a barrier).
  if (auto c = v.getDefiningOp<arith::ConstantOp>())
    if (auto dense = dyn_cast<SplatElementsAttr>(c.getValue())) {
      auto t = withLayout(v.getType(), want);
      return arith::ConstantOp::create(b, c.getLoc(), t, SplatElementsAttr::get(t, dense.getSplatValue<Attribute>()));
    }
  if (auto sp = v.getDefiningOp<tile::SplatOp>())
    return tile::SplatOp::create(b, sp.getLoc(), withLayout(v.getType(), want), sp.getValue());
  return ConvertLayoutOp::create(b, v.getLoc(), withLayout(v.getType(), want), v);
}

void Assigner::rewrite() {
  // Types first (values keep their uses), constants re-typed with them.
  for (auto &[v, a] : layout_) v.setType(withLayout(v.getType(), a));
  f_.walk([&](arith::ConstantOp c) {
    auto t = dyn_cast<RankedTensorType>(c.getType());
    auto dense = dyn_cast<DenseElementsAttr>(c.getValue());
    if (t && dense && dense.getType() != t) c.setValueAttr(dense.reshape(t));
  });
  OpBuilder b(ctx_);
  // An anchor after a loop (a row reduction of its result) may have placed a result in
  // another layout than the body carries (a dot's): the loop returns what it carries and
  // the result is converted after it (differential seeds 300837, 301271, 301279).
  f_.walk([&](scf::ForOp loop) {
    for (unsigned i = 0; i < loop.getNumResults(); ++i) {
      Value r = loop.getResult(i);
      Type carried = loop.getRegionIterArgs()[i].getType();
      if (r.getType() == carried) continue;
      Attribute want = layoutOf(r.getType());
      r.setType(carried);
      b.setInsertionPointAfter(loop);
      Value c = convertAt(r, want, b);
      r.replaceAllUsesExcept(c, c.getDefiningOp());
      converted_[std::make_pair(r, want)] = c;
    }
  });
  SmallVector<tile::DotOp> dots;
  f_.walk([&](tile::DotOp d) { dots.push_back(d); });
  for (tile::DotOp d : dots) {
    b.setInsertionPoint(d);
    {
      Attribute res = layoutOf(d.getResult().getType());
      Attribute la = mma_ ? Attribute(DotOperandEncodingAttr::get(ctx_, 0, res, 2, false)) : res;
      Attribute lb = mma_ ? Attribute(DotOperandEncodingAttr::get(ctx_, 1, res, 2, d.getTransB())) : res;
      Value a = convertTo(d.getA(), la, b), bv = convertTo(d.getB(), lb, b);
      // acc + dot(a, b) as one op: the tensor cores add into their accumulator.
      arith::AddFOp add;
      if (d.getResult().hasOneUse()) add = dyn_cast<arith::AddFOp>(*d.getResult().getUsers().begin());
      if (add && layoutOf(add.getType()) == res) {
        Value acc = add.getLhs() == d.getResult() ? add.getRhs() : add.getLhs();
        b.setInsertionPoint(add);
        // The accumulator may have been placed by another anchor (a loop's carried value
        // that a reduction also reads): the dot accumulates in its own layout.
        acc = convertTo(acc, res, b);
        b.setInsertionPoint(add);
        auto fused = DotOp::create(b, d.getLoc(), add.getType(), a, bv, acc, d.getTransB());
        add.getResult().replaceAllUsesWith(fused.getResult());
        add.erase();
      } else {
        auto t = cast<RankedTensorType>(d.getResult().getType());
        Value zero = arith::ConstantOp::create(b, d.getLoc(), t,
                                               SplatElementsAttr::get(t, b.getZeroAttr(t.getElementType())));
        auto fused = DotOp::create(b, d.getLoc(), t, a, bv, zero, d.getTransB());
        d.getResult().replaceAllUsesWith(fused.getResult());
      }
      d.erase();
    }
  }
  SmallVector<Operation *> ops;
  f_.walk([&](Operation *op) { ops.push_back(op); });
  for (Operation *op : ops) {
    b.setInsertionPoint(op);
    if (sharesLayout(op)) {
      Attribute want = layoutOf(op->getResult(0).getType());
      for (OpOperand &o : op->getOpOperands())
        if (isa<RankedTensorType>(o.get().getType())) o.set(convertTo(o.get(), want, b));
      continue;
    }
    if (auto loop = dyn_cast<scf::ForOp>(op)) {
      for (unsigned i = 0; i < loop.getNumRegionIterArgs(); ++i) {
        Attribute want = layoutOf(loop.getRegionIterArgs()[i].getType());
        if (!want) continue;
        OpOperand &init = loop.getInitArgsMutable()[i];
        init.set(convertTo(init.get(), want, b));
      }
      continue;
    }
    if (auto y = dyn_cast<scf::YieldOp>(op)) {
      if (auto loop = dyn_cast<scf::ForOp>(y->getParentOp()))
        for (unsigned i = 0; i < y.getNumOperands(); ++i) {
          Attribute want = layoutOf(loop.getRegionIterArgs()[i].getType());
          if (want) y->setOperand(i, convertTo(y.getOperand(i), want, b));
        }
      if (auto ifOp = dyn_cast<scf::IfOp>(y->getParentOp()))
        for (unsigned i = 0; i < y.getNumOperands(); ++i) {
          Attribute want = layoutOf(ifOp.getResult(i).getType());
          if (want) y->setOperand(i, convertTo(y.getOperand(i), want, b));
        }
    }
  }
}

LogicalResult Assigner::run() {
  LogicalResult result = success();
  if (wantsMma() && failed(chooseMma())) result = failure();
  if (mma_ && succeeded(result)) chooseWgmma();
  propagate();
  if (mma_ && failed(check())) result = failure();
  if (failed(result) && mma_) {
    // The kernel runs with the SIMT policy; the warnings said why.
    mma_ = {};
    layout_.clear();
    propagate();
  }
  rewrite();
  f_->setAttr(kPolicyAttr, StringAttr::get(ctx_, !mma_ ? "simt" : mma_.getVersion() == 3 ? "wgmma" : "mma"));
  return result;
}

struct AssignLayoutsPass : impl::TileGPUAssignLayoutsBase<AssignLayoutsPass> {
  using TileGPUAssignLayoutsBase::TileGPUAssignLayoutsBase;
  void runOnOperation() override {
    const GpuArch *a = backend::findGpuArch(arch);
    if (!a) {
      getOperation().emitError() << "unknown architecture `" << arch << "` (use " << backend::supportedGpuArchs() << ")";
      return signalPassFailure();
    }
    if (policy != "auto" && policy != "simt" && policy != "mma" && policy != "wgmma") {
      getOperation().emitError() << "unknown layout policy `" << policy << "` (auto, simt, mma or wgmma)";
      return signalPassFailure();
    }
    // Test only (tests/lit/gpu/lowering/short-k.ph, docs/output.md): keep a dot whose K
    // ldmatrix cannot read, so that the conversion's legalization failure is reached.
    const char *unchecked = std::getenv("PH_TEST_TILEGPU_UNCHECKED_K");
    bool checkDotK = !(unchecked && std::string(unchecked) == "1");
    getOperation().walk([&](func::FuncOp f) {
      int64_t t = threads;
      if (t <= 0) {
        auto attr = f->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr);
        t = attr ? attr.getInt() : 128;
      }
      // A kernel the mma policy cannot place keeps its tiles unplaced (the
      // warning says why); the driver lowers it another way.
      (void)Assigner(f, *a, policy, t, checkDotK, rowLoadVectors, splitRowWarps).run();
    });
  }
};

} // namespace
} // namespace ph::tilegpu
