//===- LayoutPolicy.cpp - tilegpu-assign-layouts: SIMT, mma.sync or wgmma ----===//
//
// A kernel runs on one policy, chosen from the architecture, `@tensorcore`,
// the pass's `policy` option and the kernel's dots: mma.sync where its warps
// split every dot into 16 x 8 blocks, wgmma on sm_90a where every operand it
// reads from shared memory can get there by whole 16-byte copies, SIMT
// otherwise. Whether the choice fits is decided here, with the tile and the
// reason in a warning, not by emitting code and throwing it away.
//
//===----------------------------------------------------------------------===//
#include "Assigner.h"
#include "CopyChunks.h"

#include "ph/Dialect/TileGPU/Layouts.h"

#include <string>

using namespace mlir;

namespace ph::tilegpu::assign {

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

namespace {

/// The swizzle width wgmma reads a buffer with: rows of `bytes` contiguous
/// bytes need a 32, 64 or 128-byte swizzle that they fill (or a multiple of 128).
int64_t swizzleBytes(int64_t bytes) {
  if (bytes >= 128) return bytes % 128 ? 0 : 128;
  return bytes == 64 || bytes == 32 ? bytes : 0;
}

} // namespace

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

} // namespace ph::tilegpu::assign
