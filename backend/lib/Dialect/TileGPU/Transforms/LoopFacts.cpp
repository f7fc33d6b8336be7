//===- LoopFacts.cpp - What the TileGPU passes ask of a kernel's loops ---------===//
#include "LoopFacts.h"

using namespace mlir;

namespace ph::tilegpu {

DotOp chainedAccumulatorDot(scf::ForOp loop) {
  Block *body = loop.getBody();
  auto yield = cast<scf::YieldOp>(body->getTerminator());
  for (Operation &op : *body) {
    auto d = dyn_cast<DotOp>(op);
    auto arg = d ? dyn_cast<BlockArgument>(d.getAcc()) : BlockArgument();
    if (!arg || arg.getOwner() != body || arg == loop.getInductionVar() || !arg.hasOneUse()) continue;
    unsigned idx = arg.getArgNumber() - loop.getNumInductionVars();
    if (d.getResult().hasOneUse() && yield.getOperand(idx) == d.getResult()) return d;
  }
  return {};
}

} // namespace ph::tilegpu
