//===- Rasterize.cpp - tilegpu-rasterize: CTAs of a 2-D grid in groups of rows ---===//
//
// The hardware starts CTAs in launch order, x fastest. For a GEMM whose CTA
// (x, y) computes row block x and column block y, one wave then covers a few
// columns of B and every row of A, and A streams through L2 once per wave.
// Renumbering the CTAs so that consecutive ones walk `group` row blocks
// before moving to the next column (Triton's grouped ordering, CUTLASS's
// rasterization swizzle) makes a wave a near-square patch of C whose A and
// B slices stay in L2. It is a bijection of the grid: which CTA computes
// which block changes, not what is computed.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "GroupedOrder.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Builders.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPURASTERIZE
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

void rasterize(func::FuncOp f, int64_t group) {
  SmallVector<tile::BlockIdOp> ids[2];
  f.walk([&](tile::BlockIdOp op) {
    if (op.getAxis() < 2) ids[op.getAxis()].push_back(op);
  });
  // A 1-D use of the grid has no order to improve.
  if (ids[0].empty() || ids[1].empty()) return;
  OpBuilder b = OpBuilder::atBlockBegin(&f.getBody().front());
  Location loc = f.getLoc();
  Value bx = gpu::BlockIdOp::create(b, loc, gpu::Dimension::x), by = gpu::BlockIdOp::create(b, loc, gpu::Dimension::y);
  Value gx = gpu::GridDimOp::create(b, loc, gpu::Dimension::x), gy = gpu::GridDimOp::create(b, loc, gpu::Dimension::y);
  Value pid = arith::AddIOp::create(b, loc, bx, arith::MulIOp::create(b, loc, by, gx));
  std::array<Value, 2> block = groupedOrder(b, loc, pid, gx, gy, group);
  for (int axis = 0; axis < 2; ++axis)
    for (tile::BlockIdOp op : ids[axis]) {
      OpBuilder at(op);
      op.getResult().replaceAllUsesWith(arith::IndexCastOp::create(at, op.getLoc(), op.getType(), block[axis]));
      op.erase();
    }
}

struct RasterizePass : impl::TileGPURasterizeBase<RasterizePass> {
  using TileGPURasterizeBase::TileGPURasterizeBase;
  void runOnOperation() override {
    if (group < 1) {
      getOperation().emitError() << "tilegpu-rasterize needs group >= 1, not " << static_cast<int64_t>(group);
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp f) { rasterize(f, group); });
  }
};

} // namespace
} // namespace ph::tilegpu
