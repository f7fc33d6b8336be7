//===- PipelineFit.cpp - tilegpu-pipeline: how deep a ring, and which kind ---===//
//
// Before a loop's ring is built, the kernel's budgets decide its shape: how
// many stages fit beside what is staged once (and, for a chained accumulator,
// how many more cost no CTA an SM), whether a loop of vector FMA dots keeps no
// ring at all and streams its blocks through registers, and whether the ring is
// synchronized by mbarriers instead of a CTA barrier per iteration. These are
// measured trade-offs (docs/tilegpu.md), apart from the code that builds the
// ring so that each can be read and retuned alone.
//
//===----------------------------------------------------------------------===//
#include "Pipeliner.h"
#include "LoopFacts.h"

#include "ph/Dialect/TileGPU/Layouts.h"

using namespace mlir;

namespace ph::tilegpu::pipeline {

bool chainsAccumulator(scf::ForOp loop) { return bool(chainedAccumulatorDot(loop)); }

/// The ring depth of a loop: wgmma operands of a dot left in flight get a
/// deeper ring (the tensor cores read it directly, no registers are spent on
/// it), as deep as fits. Where every wgmma is waited for (attention), the ring
/// keeps the mma.sync depth: measured on the H200, a smaller ring that lets
/// two CTAs share an SM beats a deeper one (docs/tilegpu.md).
int64_t Pipeliner::stagesFor(MutableArrayRef<Staged> loads, scf::ForOp loop) const {
  bool wgmma = llvm::any_of(loads, [](Staged &s) { return s.wgmma(); });
  // The bytes one stage of the loop's rings takes.
  auto stageBytes = [&] {
    int64_t bytes = 0;
    for (Staged &s : loads) bytes += bufferType(s.load, 1, wgmma).getStageBytes(unsigned(s.load.getType().getRank()));
    return bytes;
  };
  if (!wgmma) {
    int64_t perStage = stageBytes();
    // A ring as deep as the CTA's shared memory holds, down to 2 stages: D = 128 attention with
    // 128 x 128 blocks needs 244 KiB at 3 stages on mma.sync, 174 KiB at 2 (the legacy emitter,
    // deleted since, ran those at 2; docs/tilegpu.md).
    if (sharedPerBlock_ > 0 && stages_ > 2) {
      int64_t S = stages_;
      while (S > 2 && S * perStage + onceBytes_ > sharedPerBlock_) --S;
      if (S < stages_) return S;
    }
    if (chainedStages_ <= stages_ || sharedPerSM_ <= 0 || stages_ < 2 || !chainsAccumulator(loop)) return stages_;
    // The CTAs per SM the ring's shared memory allows (1 KiB of each CTA's shared memory is the system's).
    auto ctas = [&](int64_t S) { return sharedPerSM_ / (S * perStage + 1024); };
    int64_t S = stages_;
    while (S < chainedStages_ && ctas(S + 1) == ctas(stages_) && (S + 1) * perStage + 8192 <= sharedPerBlock_) ++S;
    return S;
  }
  if (!chainsAccumulator(loop)) return std::max<int64_t>(stages_, 2);
  int64_t perStage = stageBytes();
  int64_t S = std::max<int64_t>(wgmmaStages_, 2);
  while (S > 2 && S * perStage > ringBytes_) --S;
  return S;
}

/// Whether a loop of vector FMA dots streams its blocks through registers: read a block ahead
/// (tilegpu-prefetch-loads) and stored to one buffer each at the top of the iteration, as many
/// CTAs an SM as registers and shared memory allow (up to 4) keep more bytes in flight than a
/// ring that shared memory limits to three (flash-decoding, MHA: 710 against 738 us on an H100;
/// docs/tilegpu.md, "The legacy SIMT emitter, deleted"). Its G-row form keeps the ring. Only
/// when prefetch-loads carries every operand load of the loop (else the loop keeps its rings,
/// and none becomes a load waited for in place); the kernel then asks for those CTAs
/// (`tilegpu.min_ctas`) unless it says otherwise.
bool Pipeliner::streamsByRegisters(scf::ForOp loop) {
  auto [it, fresh] = byRegisters_.try_emplace(loop.getOperation(), false);
  if (!fresh) return it->second;
  if (!vectorDotLoop(loop)) return false;
  SmallVector<tile::LoadOp> carried = prefetchableLoads(loop, vectorDotRegs_, /*fmaDots=*/true);
  if (carried.empty()) return false;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto l = dyn_cast<tile::LoadOp>(&op); l && feedsOnlyFmaDots(l.getResult()) && !llvm::is_contained(carried, l))
      return false;
  int64_t regs = 0, bytes = 0;
  for (tile::LoadOp l : carried) {
    regs += registersPerThread(cast<RankedTensorType>(l.getType())).value_or(0);
    bytes += bufferType(l, 1, false).getStageBytes(unsigned(l.getType().getRank()));
  }
  int64_t threads = this->threads();
  // 64K registers an SM: the carried blocks and as many again for the rest; 1 KiB of shared
  // memory a CTA is the system's.
  int64_t ctas = std::min<int64_t>(4, 65536 / (threads * (regs + 64)));
  if (sharedPerSM_ > 0) ctas = std::min<int64_t>(ctas, sharedPerSM_ / (bytes + 1024));
  if (ctas >= 2 && !f_->hasAttr(kMinCtasAttr))
    f_->setAttr(kMinCtasAttr, Builder(f_.getContext()).getI32IntegerAttr(int32_t(ctas)));
  // tilegpu-prefetch-loads carries them within the same budget.
  loop->setAttr(kVectorDotRegsAttr, Builder(f_.getContext()).getI64IntegerAttr(vectorDotRegs_));
  it->second = true;
  return true;
}

/// Whether a loop's ring is synchronized by mbarriers: asked for, every read of
/// a stage finished within its iteration (no wgmma left in flight), no
/// accumulator chained from one iteration's dot to the next (a GEMM's K loop
/// keeps its warps in step anyway and would only lose a stage of prefetch),
/// and the loop not inside another loop (the barriers' phases follow its
/// iterations from the first; a second run would start them again at 0) but a
/// persistent kernel's loop over its tiles, whose ring counts the iterations of
/// all its tiles (pipelineLoop).
bool Pipeliner::byMBarriers(scf::ForOp loop, bool async, int64_t stages) const {
  if (!mbarriers_ || async || stages < 3 || chainsAccumulator(loop)) return false;
  // Not with P·V under the next softmax, whose release of a stage one iteration late does not
  // carry across tiles: its ring stays on the CTA barrier there.
  if (tileLoopAround(loop)) return !overlapSoftmax_;
  for (Operation *p = loop->getParentOp(); p && p != f_; p = p->getParentOp())
    if (!isa<scf::IfOp>(p)) return false;
  return true;
}

} // namespace ph::tilegpu::pipeline
