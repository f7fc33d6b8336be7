//===- DirectVectorToLLVM.cpp - tilegpu-direct-vector-to-llvm ---------------===//
//
// convert-vector-to-llvm without the greedy rewrite step where the conversion patterns take
// every vector op (Passes.td says why: a third of `to-nvvm` on a TileGPU mma.sync variant).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"

#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Dialect/Vector/Transforms/VectorRewritePatterns.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include "llvm/ADT/SetVector.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_DIRECTVECTORTOLLVM
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// Whether the conversion patterns alone take every vector op of `root`: the ops the GPU
/// lowerings make, on vectors of rank 1 or 2 (an n-D vector is an array of 1-D ones in LLVM).
bool conversionTakesAll(Operation *root) {
  bool all = true;
  root->walk([&](Operation *op) {
    if (!isa<vector::VectorDialect>(op->getDialect())) return WalkResult::advance();
    if (!isa<vector::ExtractOp, vector::InsertOp, vector::FromElementsOp, vector::BitCastOp>(op)) {
      all = false;
      return WalkResult::interrupt();
    }
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto v = dyn_cast<VectorType>(t); v && (v.getRank() > 2 || v.isScalable())) {
        all = false;
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return all;
}

/// Erases every op without uses or side effects, and what that leaves unused, bottom-up.
void eraseDeadOps(Operation *root) {
  llvm::SetVector<Operation *> work;
  root->walk([&](Operation *op) {
    if (op != root && isOpTriviallyDead(op)) work.insert(op);
  });
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    SmallVector<Operation *, 4> defs;
    for (Value v : op->getOperands())
      if (Operation *d = v.getDefiningOp()) defs.push_back(d);
    op->erase();
    for (Operation *d : defs)
      if (isOpTriviallyDead(d)) work.insert(d);
  }
}

/// The upstream pass's greedy step (ConvertVectorToLLVMPass.cpp, LLVM 22), for a module with
/// vector ops the conversion does not take directly.
void lowerVectorsGreedily(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  vector::populateVectorToVectorCanonicalizationPatterns(patterns);
  vector::populateVectorBitCastLoweringPatterns(patterns);
  vector::populateVectorBroadcastLoweringPatterns(patterns);
  vector::populateVectorContractLoweringPatterns(patterns, vector::VectorContractLowering::Dot);
  vector::populateVectorMaskOpLoweringPatterns(patterns);
  vector::populateVectorShapeCastLoweringPatterns(patterns);
  vector::populateVectorInterleaveLoweringPatterns(patterns);
  vector::populateVectorTransposeLoweringPatterns(patterns, vector::VectorTransposeLowering::EltWise);
  vector::populateVectorTransferLoweringPatterns(patterns, /*maxTransferRank=*/1);
  vector::populateVectorMaskMaterializationPatterns(patterns, /*force32BitVectorIndices=*/true);
  vector::populateVectorInsertExtractStridedSliceTransforms(patterns);
  vector::populateVectorStepLoweringPatterns(patterns);
  vector::populateVectorRankReducingFMAPattern(patterns);
  vector::populateVectorGatherLoweringPatterns(patterns);
  vector::populateVectorFromElementsUnrollPatterns(patterns);
  vector::populateVectorToElementsUnrollPatterns(patterns);
  (void)applyPatternsGreedily(root, std::move(patterns));
}

struct DirectVectorToLLVMPass : impl::DirectVectorToLLVMBase<DirectVectorToLLVMPass> {
  void runOnOperation() override {
    Operation *root = getOperation();
    MLIRContext *ctx = root->getContext();
    if (conversionTakesAll(root)) eraseDeadOps(root);
    else lowerVectorsGreedily(root);
    // The upstream pass's conversion step, with its default options.
    LowerToLLVMOptions options(ctx);
    LLVMTypeConverter converter(ctx, options);
    RewritePatternSet patterns(ctx);
    vector::populateVectorTransferLoweringPatterns(patterns);
    populateVectorToLLVMConversionPatterns(converter, patterns, /*reassociateFPReductions=*/false,
                                           /*force32BitVectorIndices=*/true, /*useVectorAlignment=*/false);
    LLVMConversionTarget target(*ctx);
    target.addLegalDialect<arith::ArithDialect, memref::MemRefDialect>();
    target.addLegalOp<UnrealizedConversionCastOp>();
    if (failed(applyPartialConversion(root, target, std::move(patterns)))) signalPassFailure();
  }
};

} // namespace
} // namespace ph::tilegpu
