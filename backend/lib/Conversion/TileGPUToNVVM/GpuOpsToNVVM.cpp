//===- GpuOpsToNVVM.cpp - tilegpu-gpu-to-nvvm ------------------------------===//
//
// MLIR's convert-gpu-to-nvvm (LowerGpuOpsToNVVMOps.cpp, LLVM 22) with its in-dialect
// rewrites applied to the ops they rewrite, not by a greedy driver over the whole module
// (Passes.td says why). The conversion step is the upstream one, line for line.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"

#include "mlir/Conversion/ConvertToLLVM/ToLLVMInterface.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/LoweringOptions.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_GPUOPSTONVVM
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The ops the upstream pass's in-dialect patterns rewrite: gpu.all_reduce and gpu.global_id
/// (expanded), gpu.shuffle (a 64-bit one split into two 32-bit ones), and vector.from_elements
/// of rank > 1 (unrolled to 1-D).
bool rewrittenInDialect(Operation *op) {
  if (isa<gpu::AllReduceOp, gpu::GlobalIdOp, gpu::ShuffleOp>(op)) return true;
  if (auto fe = dyn_cast<vector::FromElementsOp>(op)) return fe.getType().getRank() > 1;
  return false;
}

struct GpuOpsToNVVMPass : impl::GpuOpsToNVVMBase<GpuOpsToNVVMPass> {
  using Base::Base;
  void runOnOperation() override {
    gpu::GPUModuleOp m = getOperation();
    MLIRContext *ctx = m.getContext();
    for (auto func : m.getOps<func::FuncOp>())
      func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(), UnitAttr::get(ctx));
    LowerToLLVMOptions options(ctx, DataLayout(cast<DataLayoutOpInterface>(m.getOperation())));
    options.overrideIndexBitwidth(indexBitwidth);

    SmallVector<Operation *> ops;
    m.walk([&](Operation *op) {
      if (rewrittenInDialect(op)) ops.push_back(op);
    });
    if (!ops.empty()) {
      RewritePatternSet patterns(ctx);
      populateGpuRewritePatterns(patterns);
      vector::populateVectorFromElementsUnrollPatterns(patterns);
      GreedyRewriteConfig config;
      config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
      if (failed(applyOpPatternsGreedily(ops, std::move(patterns), config))) return signalPassFailure();
    }

    LLVMTypeConverter converter(ctx, options);
    configureGpuToNVVMTypeConverter(converter);
    RewritePatternSet llvmPatterns(ctx);
    LLVMConversionTarget target(*ctx);
    // Higher benefit, so that these run before the generic LLVM lowering (as upstream).
    populateGpuToNVVMConversionPatterns(converter, llvmPatterns, /*benefit=*/10);
    for (Dialect *dialect : ctx->getLoadedDialects()) {
      // NVVM has its own math lowering.
      if (isa<math::MathDialect>(dialect)) continue;
      if (auto *iface = dyn_cast<ConvertToLLVMPatternInterface>(dialect))
        iface->populateConvertToLLVMConversionPatterns(target, converter, llvmPatterns);
    }
    populateGpuWMMAToNVVMConversionPatterns(converter, llvmPatterns);
    configureGpuToNVVMConversionLegality(target);
    if (failed(applyPartialConversion(m, target, std::move(llvmPatterns)))) signalPassFailure();
  }
};

} // namespace
} // namespace ph::tilegpu
