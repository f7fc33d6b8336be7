//===- BlockedLayouts.cpp - tilegpu-assign-layouts: the SIMT layouts ---------===//
//
// What runs on the CUDA cores is laid out by a few blocked layouts, each
// shaped for what reads it: coalesced 16-byte vectors for loads and
// elementwise code, one warp per row group where rows are reduced (the
// reduction stays in shuffles), lanes along the rows where columns are, and the
// FMA dot's one element per pass. They are pure functions of a shape, an
// element type and the CTA's threads, kept apart from the walks that decide
// where each goes so that a layout's choice of vectors, lanes and warps can be
// read and checked alone.
//
//===----------------------------------------------------------------------===//
#include "Assigner.h"

using namespace mlir;

namespace ph::tilegpu::assign {

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
                         int64_t maxVec) {
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
                     int64_t maxVec, bool splitCols) {
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

} // namespace ph::tilegpu::assign
