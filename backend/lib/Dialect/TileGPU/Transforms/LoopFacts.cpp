//===- LoopFacts.cpp - What the TileGPU passes ask of a kernel's loops ---------===//
#include "LoopFacts.h"
#include "ph/Dialect/TileGPU/Layouts.h"

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

bool isFmaDot(DotOp d) { return isa_and_nonnull<BlockedEncodingAttr>(layoutOf(d.getAcc().getType())); }

bool vectorDotLoop(scf::ForOp loop) {
  bool any = false, all = true;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto d = dyn_cast<DotOp>(&op);
    if (!d) continue;
    auto a = cast<RankedTensorType>(d.getA().getType());
    any = true;
    all = all && isFmaDot(d) && a.getRank() == 2 && a.getShape()[0] == 1;
  }
  return any && all;
}

} // namespace ph::tilegpu
