//===- TileGPUToNVVM.cpp - convert-tilegpu-to-nvvm: the driver of the patterns ---===//
#include "PatternBase.h"
#include "ph/Dialect/TileGPU/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_CONVERTTILEGPUTONVVM
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
// ScalarLoadToNVVM.cpp (declared here, not in PatternBase.h, which every pattern file includes).
void populateScalarLoadPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p);
// ColReduceToNVVM.cpp: colsum, colmax.
void populateColReducePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p);
// MBarrierToNVVM.cpp: the mbarriers of a ring.
void populateMBarrierPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p);
// WarpSpecializeToNVVM.cpp: the producer/consumer split.
void populateWarpSpecializePatterns(TileGPUTypeConverter &tc, RewritePatternSet &p);
// TmaToNVVM.cpp: ring stages filled by TMA.
void populateTmaPatterns(TileGPUTypeConverter &tc, RewritePatternSet &p);

namespace {

/// func.func @k -> gpu.func @k kernel (tensors as !llvm.ptr<1>), its attributes kept.
struct FuncPattern : OpConversionPattern<func::FuncOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(func::FuncOp f, OpAdaptor, ConversionPatternRewriter &rw) const override {
    TypeConverter::SignatureConversion sig(f.getNumArguments());
    SmallVector<Type> args;
    for (auto [i, t] : llvm::enumerate(f.getArgumentTypes())) {
      Type c = getTypeConverter()->convertType(t);
      sig.addInputs(unsigned(i), c);
      args.push_back(c);
    }
    auto gf = gpu::GPUFuncOp::create(rw, f.getLoc(), f.getName(), FunctionType::get(f.getContext(), args, {}));
    gf->setAttr(gpu::GPUDialect::getKernelFuncAttrName(), rw.getUnitAttr());
    int32_t threads = 128;
    if (auto t = f->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) threads = int32_t(t.getInt());
    if (auto t = f->getAttrOfType<IntegerAttr>(kLaunchThreadsAttr)) threads = int32_t(t.getInt());
    gf.setKnownBlockSizeAttr(DenseI32ArrayAttr::get(f.getContext(), {threads, 1, 1}));
    // The CTAs per SM the kernel is meant to share an SM with: ptxas then fits its registers
    // to 65,536 / (threads x that), which it would not aim for by itself (.minnctapersm).
    if (auto n = f->getAttrOfType<IntegerAttr>(kMinCtasAttr))
      gf->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(), rw.getI32IntegerAttr(int32_t(n.getInt())));
    for (NamedAttribute a : f->getAttrs())
      if (a.getName().getValue().starts_with("tile") ) gf->setAttr(a.getName(), a.getValue());
    // gpu.func comes with an entry block; the kernel's body replaces it.
    rw.eraseBlock(&gf.getBody().front());
    rw.inlineRegionBefore(f.getBody(), gf.getBody(), gf.getBody().end());
    if (failed(rw.convertRegionTypes(&gf.getBody(), *getTypeConverter(), &sig))) return failure();
    rw.eraseOp(f);
    return success();
  }
};

struct ReturnPattern : OpConversionPattern<func::ReturnOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult matchAndRewrite(func::ReturnOp op, OpAdaptor, ConversionPatternRewriter &rw) const override {
    rw.replaceOpWithNewOp<gpu::ReturnOp>(op);
    return success();
  }
};

bool hasTiles(Operation *op) {
  auto tile = [](Type t) { return isa<RankedTensorType, tile::PtrType, MemDescType>(t); };
  return llvm::any_of(op->getOperandTypes(), tile) || llvm::any_of(op->getResultTypes(), tile);
}

struct ConvertPass : impl::ConvertTileGPUToNVVMBase<ConvertPass> {
  using ConvertTileGPUToNVVMBase::ConvertTileGPUToNVVMBase;
  // Patterns build math.fma (the FMA dot) and arith ops on scalars: a module that
  // has none yet (ph-opt on a hand-written fma_dot) must still have them loaded,
  // or creating the op is undefined (it crashed in math::FmaOp::create).
  void getDependentDialects(DialectRegistry &r) const override {
    ConvertTileGPUToNVVMBase::getDependentDialects(r);
    r.insert<math::MathDialect, arith::ArithDialect>();
  }
  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *ctx = &getContext();
    SmallVector<func::FuncOp> kernels;
    for (auto f : module.getOps<func::FuncOp>())
      if (!f.isDeclaration()) kernels.push_back(f);
    if (kernels.empty()) return;
    noteDivisibility(module);
    module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(), UnitAttr::get(ctx));
    OpBuilder b(ctx);
    b.setInsertionPointToEnd(module.getBody());
    auto gm = gpu::GPUModuleOp::create(b, module.getLoc(), "ph_kernels");
    for (func::FuncOp f : kernels) {
      if (auto s = f->getAttrOfType<IntegerAttr>(kSharedBytesAttr)) f->setAttr(ph::tile::kSharedBytesAttr, s);
      f->moveBefore(gm.getBody(), gm.getBody()->end());
    }

    TileGPUTypeConverter tc(ctx);
    RewritePatternSet patterns(ctx);
    patterns.add<FuncPattern, ReturnPattern>(tc, ctx);
    populateElementwisePatterns(tc, patterns, causalMaskDiff, wgmmaFastExp, expFtz);
    populateReducePatterns(tc, patterns);
    populateLoadStorePatterns(tc, patterns);
    populateSharedPatterns(tc, patterns);
    populateConvertLayoutPatterns(tc, patterns);
    populateDotMMAv2Patterns(tc, patterns);
    populateDotWGMMAPatterns(tc, patterns, wgmmaOperandsBeforeFence);
    populateDotFMAPatterns(tc, patterns);
    populateScalarLoadPatterns(tc, patterns);
    populateColReducePatterns(tc, patterns);
    populateMBarrierPatterns(tc, patterns);
    populateWarpSpecializePatterns(tc, patterns);
    populateTmaPatterns(tc, patterns);
    ConversionTarget target(*ctx);
    target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect, gpu::GPUDialect,
                           vector::VectorDialect, memref::MemRefDialect>();
    target.addIllegalDialect<tile::TileDialect, TileGPUDialect, func::FuncDialect>();
    target.addDynamicallyLegalDialect<arith::ArithDialect, math::MathDialect>([](Operation *op) { return !hasTiles(op); });
    target.addLegalOp<UnrealizedConversionCastOp>();
    scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
    if (failed(applyFullConversion(gm, target, std::move(patterns)))) signalPassFailure();
  }
};

} // namespace
} // namespace ph::tilegpu
