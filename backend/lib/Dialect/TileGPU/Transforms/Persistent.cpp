//===- Persistent.cpp - tilegpu-persistent: a kernel's body in a loop over its tiles ---===//
//
// A CTA alone on its SM (attention at D = 128: 229 KB of rings) pays, at every
// tile, its launch, the wait for its first K and V and its epilogue with
// nothing else on the SM to hide them: about 2.4 key blocks of its 32 at
// [4, 16, 4096] (docs/tilegpu.md, "What is left at D = 128"). A persistent CTA
// walks the tiles a CTA count apart instead, and tilegpu-pipeline issues the
// next tile's first stages while this one finishes (FlashAttention-3's
// persistent scheduler, without its atomic counter: only kernels whose tiles
// all do the same work are taken, so a static order balances them).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "GroupedOrder.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPERSISTENT
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Whether every tile does the same work: no op with regions (a loop, a branch) takes an operand
/// computed from a block id, so every loop runs as many iterations in every tile.
bool uniformTiles(func::FuncOp f, ArrayRef<tile::BlockIdOp> ids) {
  llvm::SetVector<Operation *> dependent;
  SmallVector<Operation *> work(ids.begin(), ids.end());
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    if (!dependent.insert(op)) continue;
    for (Value r : op->getResults())
      for (Operation *u : r.getUsers()) work.push_back(u);
    // A value that leaves a region (scf.yield) makes the parent's results, and a loop's carried
    // arguments, depend on the block ids too.
    if (op->hasTrait<OpTrait::IsTerminator>())
      if (Operation *parent = op->getParentOp(); parent && !isa<func::FuncOp>(parent)) {
        work.push_back(parent);
        for (Region &r : parent->getRegions())
          for (BlockArgument a : r.getArguments())
            for (Operation *u : a.getUsers()) work.push_back(u);
      }
  }
  bool uniform = true;
  f.walk([&](Operation *op) {
    if (op->getNumRegions() == 0) return;
    for (Value v : op->getOperands())
      if (Operation *d = v.getDefiningOp(); d && dependent.contains(d)) uniform = false;
  });
  return uniform;
}

void makePersistent(func::FuncOp f, int64_t group, bool oneDot) {
  auto grid = f->getAttrOfType<DenseI64ArrayAttr>(kGridAttr);
  if (!grid || grid.size() != 12 || !f.getBody().hasOneBlock()) return;
  Block &entry = f.getBody().front();
  auto ret = dyn_cast<func::ReturnOp>(entry.getTerminator());
  if (!ret || ret.getNumOperands() != 0) return;
  SmallVector<tile::BlockIdOp> ids;
  bool nested = false;
  f.walk([&](Operation *op) {
    if (auto id = dyn_cast<tile::BlockIdOp>(op)) ids.push_back(id);
    if (auto loop = dyn_cast<scf::ForOp>(op); loop && loop->hasAttr(kTileLoopAttr)) nested = true;
  });
  if (ids.empty() || nested || !uniformTiles(f, ids)) return;
  if (oneDot) {
    int dots = 0;
    f.walk([&](Operation *op) { dots += isa<DotOp, WarpgroupDotOp, tile::DotOp>(op); });
    if (dots != 1) return;
  }
  unsigned tensors = 0;
  while (tensors < f.getNumArguments() && isa<tile::PtrType>(f.getArgument(tensors).getType())) ++tensors;
  ArrayRef<int64_t> g = grid.asArrayRef();
  for (int axis = 0; axis < 3; ++axis)
    if (g[4 * axis] && (tensors + g[4 * axis + 1] >= f.getNumArguments() ||
                        !f.getArgument(tensors + unsigned(g[4 * axis + 1])).getType().isInteger(32) ||
                        g[4 * axis + 2] < 1))
      return;

  Location loc = f.getLoc();
  OpBuilder b = OpBuilder::atBlockBegin(&entry);
  Type i32 = b.getI32Type();
  auto c = [&](int64_t v) { return arith::ConstantIntOp::create(b, loc, i32, v).getResult(); };
  // The grid's extent along each axis, as the runtime computes it from the sizes.
  Value extent[3];
  for (int axis = 0; axis < 3; ++axis) {
    if (g[4 * axis])
      extent[axis] = arith::CeilDivUIOp::create(b, loc, f.getArgument(tensors + unsigned(g[4 * axis + 1])),
                                                c(g[4 * axis + 2]));
    else
      extent[axis] = c(g[4 * axis + 3]);
  }
  Value plane = arith::MulIOp::create(b, loc, extent[0], extent[1]);
  Value tiles = arith::MulIOp::create(b, loc, plane, extent[2]);
  // The CTA's linear id and the launched CTAs: the runtime launches along x only, and a launch of
  // the whole grid (a launcher that ignores the manifest's `persistent`) gives each CTA one tile.
  auto cast = [&](Value v) { return arith::IndexCastOp::create(b, loc, i32, v).getResult(); };
  Value gdx = cast(gpu::GridDimOp::create(b, loc, gpu::Dimension::x));
  Value gdy = cast(gpu::GridDimOp::create(b, loc, gpu::Dimension::y));
  Value gdz = cast(gpu::GridDimOp::create(b, loc, gpu::Dimension::z));
  Value launchedPlane = arith::MulIOp::create(b, loc, gdx, gdy);
  Value first = arith::AddIOp::create(
      b, loc, cast(gpu::BlockIdOp::create(b, loc, gpu::Dimension::x)),
      arith::AddIOp::create(b, loc, arith::MulIOp::create(b, loc, cast(gpu::BlockIdOp::create(b, loc, gpu::Dimension::y)), gdx),
                            arith::MulIOp::create(b, loc, cast(gpu::BlockIdOp::create(b, loc, gpu::Dimension::z)),
                                                  launchedPlane)));
  Value ctas = arith::MulIOp::create(b, loc, launchedPlane, gdz);
  auto loop = scf::ForOp::create(b, loc, first, tiles, ctas);
  loop->setAttr(kTileLoopAttr, b.getUnitAttr());
  // Everything after the loop's header moves into it.
  Block *body = loop.getBody();
  for (Operation *op = loop->getNextNode(); op && op != ret.getOperation();) {
    Operation *next = op->getNextNode();
    op->moveBefore(body->getTerminator());
    op = next;
  }
  OpBuilder in = OpBuilder::atBlockBegin(body);
  Value t = loop.getInductionVar();
  Value coord[3] = {arith::RemUIOp::create(in, loc, t, extent[0]),
                    arith::RemUIOp::create(in, loc, arith::DivUIOp::create(in, loc, t, extent[0]), extent[1]),
                    arith::DivUIOp::create(in, loc, t, plane)};
  bool usesXY[2] = {false, false};
  for (tile::BlockIdOp id : ids)
    if (id.getAxis() < 2) usesXY[id.getAxis()] = true;
  if (group > 0 && usesXY[0] && usesXY[1]) {
    // tilegpu-rasterize's order, over the tile's id within its plane.
    std::array<Value, 2> xy = groupedOrder(in, loc, arith::RemUIOp::create(in, loc, t, plane), extent[0], extent[1], group);
    coord[0] = xy[0];
    coord[1] = xy[1];
  }
  for (tile::BlockIdOp id : ids) {
    int64_t axis = id.getAxis();
    if (axis < 0 || axis > 2) continue;
    id.getResult().replaceAllUsesWith(coord[axis]);
    id.erase();
  }
}

struct PersistentPass : impl::TileGPUPersistentBase<PersistentPass> {
  using TileGPUPersistentBase::TileGPUPersistentBase;
  void runOnOperation() override {
    if (group < 0) {
      getOperation().emitError() << "tilegpu-persistent needs group >= 0, not " << static_cast<int64_t>(group);
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp f) { makePersistent(f, group, oneDot); });
  }
};

} // namespace
} // namespace ph::tilegpu
