//===- Layouts.cpp - Register layouts of blocked, mma and dot-operand tiles --===//
#include "ph/Dialect/TileGPU/Layouts.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

using namespace mlir;

namespace ph::tilegpu {

int64_t RegisterLayout::numRegs() const {
  int64_t n = 1;
  for (unsigned d = 0; d < rank(); ++d) n *= reps[d] * perThread[d];
  return n;
}

void RegisterLayout::decompose(int64_t r, SmallVectorImpl<int64_t> &rep, SmallVectorImpl<int64_t> &e) const {
  rep.assign(rank(), 0);
  e.assign(rank(), 0);
  for (int d = int(rank()) - 1; d >= 0; --d) {
    e[d] = r % perThread[d];
    r /= perThread[d];
  }
  for (int d = int(rank()) - 1; d >= 0; --d) {
    rep[d] = r % reps[d];
    r /= reps[d];
  }
}

int64_t RegisterLayout::compose(ArrayRef<int64_t> rep, ArrayRef<int64_t> e) const {
  int64_t r = 0;
  for (unsigned d = 0; d < rank(); ++d) r = r * reps[d] + rep[d];
  for (unsigned d = 0; d < rank(); ++d) r = r * perThread[d] + e[d];
  return r;
}

int64_t RegisterLayout::offset(int64_t r, unsigned d) const {
  SmallVector<int64_t> rep, e;
  decompose(r, rep, e);
  return rep[d] * pass[d] + elemOffset[d][e[d]];
}

namespace {

/// A dimension of extent 1 (the [R, 1] row vector of a reduction, the [1, C] of a
/// column reduction) gives a thread one element along it: the layout's other elements
/// along that dimension are the same element modulo 1. Keeping them would hold each
/// value twice in an mma layout (columns 2t and 2t + 1), and a loop-carried m or l of
/// attention would take twice the registers and compute its exp twice.
void collapseUnitDims(RegisterLayout &l) {
  for (unsigned d = 0; d < l.rank(); ++d)
    if (l.shape[d] == 1 && l.perThread[d] > 1) {
      l.perThread[d] = 1;
      l.elemOffset[d] = {0};
    }
}

/// Fills reps from shape and pass. With `exact` (the mma layouts, whose
/// instructions cover whole 16x8 blocks), false when a dimension is neither a
/// multiple nor a divisor of the pass. A blocked layout covers any extent:
/// ceil(s / p) passes, positions modulo s, so that a 24-wide tile under a
/// 16-wide pass holds columns 0-15, then 16-23 and 0-7 again, and a 24-row
/// tile under a 32-row pass holds rows 0-23, then 0-7 again. Every element is
/// held by at least one thread; the replicas compute the same value, store the
/// same value, and only a reduction across them would count one twice
/// (ReduceToNVVM and ColReduceToNVVM refuse a reduced dimension not covered
/// exactly, and the SIMT policy covers reduced dimensions exactly).
bool finish(RegisterLayout &l, std::string *why, bool exact = true) {
  l.reps.clear();
  for (unsigned d = 0; d < l.rank(); ++d) {
    int64_t s = l.shape[d], p = l.pass[d];
    if (!exact) {
      l.reps.push_back(s >= p ? (s + p - 1) / p : 1);
      continue;
    }
    if (s >= p && s % p != 0) {
      if (why) *why = "extent " + std::to_string(s) + " along dimension " + std::to_string(d) +
                      " is not a multiple of the layout's " + std::to_string(p);
      return false;
    }
    if (s < p && p % s != 0) {
      if (why) *why = "extent " + std::to_string(s) + " along dimension " + std::to_string(d) +
                      " does not divide the layout's " + std::to_string(p);
      return false;
    }
    l.reps.push_back(s >= p ? s / p : 1);
  }
  collapseUnitDims(l);
  return true;
}

SmallVector<int64_t> iota(int64_t n, int64_t step = 1) {
  SmallVector<int64_t> v;
  for (int64_t i = 0; i < n; ++i) v.push_back(i * step);
  return v;
}

/// mma v2 operand K offsets of one thread: 2t + {0, 1, 8, 9} less the base 2t.
SmallVector<int64_t> kOffsets() { return {0, 1, 8, 9}; }

} // namespace

std::optional<RegisterLayout> registerLayout(Attribute layout, ArrayRef<int64_t> shape, std::string *why) {
  RegisterLayout l;
  l.shape.assign(shape.begin(), shape.end());
  bool exact = true;
  if (auto b = dyn_cast_or_null<BlockedEncodingAttr>(layout)) {
    exact = false;
    if (b.getSizePerThread().size() != shape.size()) {
      if (why) *why = "a blocked layout of rank " + std::to_string(b.getSizePerThread().size()) + " on a tile of rank " +
                      std::to_string(shape.size());
      return std::nullopt;
    }
    for (unsigned d = 0; d < shape.size(); ++d) {
      int64_t spt = b.getSizePerThread()[d];
      l.pass.push_back(spt * b.getThreadsPerWarp()[d] * b.getWarpsPerCTA()[d]);
      l.perThread.push_back(spt);
      l.elemOffset.push_back(iota(spt));
    }
  } else if (auto m = dyn_cast_or_null<MmaEncodingAttr>(layout)) {
    if (shape.size() != 2) {
      if (why) *why = "an mma layout on a tile that is not 2-D";
      return std::nullopt;
    }
    // wgmma's accumulator (version 3) is mma.sync's, warp by warp: warp w of a
    // warpgroup holds rows 16w .. 16w + 15 of each 64-row block in the same
    // 16x8 pattern, so warps [W, 1] over 16-row strips describe both.
    l.pass = {16 * int64_t(m.getWarpsPerCTA()[0]), 8 * int64_t(m.getWarpsPerCTA()[1])};
    l.perThread = {2, 2};
    l.elemOffset = {{0, 8}, {0, 1}};
  } else if (auto o = dyn_cast_or_null<DotOperandEncodingAttr>(layout)) {
    auto m = dyn_cast<MmaEncodingAttr>(o.getParent());
    // wgmma's A may come from registers, in mma.sync's A fragment warp by warp
    // (P of P·V); its B is always read from shared memory.
    bool v3A = m && m.getVersion() == 3 && o.getOpIdx() == 0;
    if (!m || shape.size() != 2 || (m.getVersion() != 2 && !v3A)) {
      if (why) *why = m && m.getVersion() == 3 ? "a wgmma B operand lives in shared memory, not in registers"
                                               : "a dot operand layout other than mma.sync's";
      return std::nullopt;
    }
    // A [M, K]: rows as the accumulator's; K in blocks of 16, four elements a thread.
    // B [K, N] (or [N, K] with trans): N as the accumulator's columns, one element a thread.
    int64_t wm = m.getWarpsPerCTA()[0], wn = m.getWarpsPerCTA()[1];
    if (o.getOpIdx() == 0) {
      l.pass = {16 * wm, 16};
      l.perThread = {2, 4};
      l.elemOffset = {{0, 8}, kOffsets()};
    } else {
      unsigned kd = o.getTrans() ? 1 : 0, nd = 1 - kd;
      l.pass.assign(2, 0);
      l.perThread.assign(2, 0);
      l.elemOffset.assign(2, {});
      l.pass[kd] = 16;
      l.perThread[kd] = 4;
      l.elemOffset[kd] = kOffsets();
      l.pass[nd] = 8 * wn;
      l.perThread[nd] = 1;
      l.elemOffset[nd] = {0};
    }
  } else {
    if (why) *why = "a tile without a register layout";
    return std::nullopt;
  }
  if (!finish(l, why, exact)) return std::nullopt;
  return l;
}

bool RegisterLayout::wraps(unsigned d) const { return shape[d] < pass[d] * reps[d]; }

bool RegisterLayout::coversOnce(unsigned d) const { return shape[d] % pass[d] == 0; }

int64_t threadsOf(Attribute layout) {
  int64_t warps = 1;
  if (auto b = dyn_cast_or_null<BlockedEncodingAttr>(layout))
    for (unsigned w : b.getWarpsPerCTA()) warps *= w;
  else if (auto m = dyn_cast_or_null<MmaEncodingAttr>(layout))
    warps = int64_t(m.getWarpsPerCTA()[0]) * m.getWarpsPerCTA()[1];
  else if (auto o = dyn_cast_or_null<DotOperandEncodingAttr>(layout))
    return threadsOf(o.getParent());
  return warps * 32;
}

std::optional<int64_t> registersPerThread(RankedTensorType t) {
  auto rl = registerLayout(t.getEncoding(), t.getShape());
  if (!rl) return std::nullopt;
  return (rl->numRegs() * t.getElementTypeBitWidth() + 31) / 32;
}

} // namespace ph::tilegpu
