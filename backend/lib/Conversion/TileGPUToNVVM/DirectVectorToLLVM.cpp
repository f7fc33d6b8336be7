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

/// Whether every vector op of `root` is one the GPU lowerings make and the conversion takes:
/// vector.extract and vector.insert on vectors of rank 1 or 2 (an n-D vector is an array of 1-D
/// ones in LLVM), vector.bitcast of rank 1, and vector.from_elements, whose rank-2 results
/// (mma.sync's A and B fragments, vector<4x2xf16>) go to `unroll` first: the conversion takes
/// only 1-D ones. Scalable vectors and any other vector op: false.
bool directlyConvertible(Operation *root, SmallVectorImpl<Operation *> &unroll, bool &any) {
  bool all = true;
  root->walk([&](Operation *op) {
    if (!isa<vector::VectorDialect>(op->getDialect())) return WalkResult::advance();
    any = true;
    int64_t maxRank = isa<vector::BitCastOp>(op) ? 1 : 2;
    if (!isa<vector::ExtractOp, vector::InsertOp, vector::FromElementsOp, vector::BitCastOp>(op)) all = false;
    for (Type t : llvm::concat<Type>(op->getOperandTypes(), op->getResultTypes()))
      if (auto v = dyn_cast<VectorType>(t); v && (v.getRank() > maxRank || v.isScalable())) all = false;
    if (!all) return WalkResult::interrupt();
    if (auto fe = dyn_cast<vector::FromElementsOp>(op); fe && fe.getType().getRank() > 1) unroll.push_back(op);
    return WalkResult::advance();
  });
  return all;
}

/// Erases every op without uses, side effects or regions, and what that leaves unused, bottom-up.
/// (An op with regions is left alone: erasing it would free ops still on the worklist.)
void eraseDeadOps(Operation *root) {
  llvm::SetVector<Operation *> work;
  auto dead = [](Operation *op) { return op->getNumRegions() == 0 && isOpTriviallyDead(op); };
  root->walk([&](Operation *op) {
    if (op != root && dead(op)) work.insert(op);
  });
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    SmallVector<Operation *, 4> defs;
    for (Value v : op->getOperands())
      if (Operation *d = v.getDefiningOp()) defs.push_back(d);
    op->erase();
    for (Operation *d : defs)
      if (dead(d)) work.insert(d);
  }
}

/// vector.from_elements of rank 2 as rank-1 ones inserted into the result (what the upstream
/// greedy step's unroll patterns do), on those ops only.
LogicalResult unrollFromElements(ArrayRef<Operation *> ops) {
  if (ops.empty()) return success();
  RewritePatternSet patterns(ops.front()->getContext());
  vector::populateVectorFromElementsUnrollPatterns(patterns);
  GreedyRewriteConfig config;
  config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps);
  return applyOpPatternsGreedily(ops, std::move(patterns), config);
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
    SmallVector<Operation *> unroll;
    bool any = false;
    if (directlyConvertible(root, unroll, any)) {
      // Unrolled first: the erasure may free ops of `unroll`.
      if (failed(unrollFromElements(unroll))) return signalPassFailure();
      eraseDeadOps(root);
      // No vector op at all (every GPU lowering's module since TileGPU's mma.sync went straight
      // to NVVM): the conversion would walk the module for nothing.
      if (!any) return;
    } else {
      lowerVectorsGreedily(root);
    }
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
