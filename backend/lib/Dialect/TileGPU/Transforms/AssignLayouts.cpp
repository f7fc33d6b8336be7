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
// This file holds the pass and the order of the steps; Assigner.h names the
// files that hold each.
//
//===----------------------------------------------------------------------===//
#include "ph/Backend/Arch.h"
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "Assigner.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"

#include <cstdlib>
#include <string>

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUASSIGNLAYOUTS
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;
using ph::backend::GpuArch;

namespace ph::tilegpu::assign {

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

} // namespace ph::tilegpu::assign

namespace ph::tilegpu {
namespace {

using assign::Assigner;

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
