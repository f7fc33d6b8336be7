//===- Pipeliner.h - What tilegpu-pipeline's files share -------*- C++ -*-===//
//
// tilegpu-pipeline is one walk over a kernel (Pipeliner::run) that turns its
// dot operands' loads into copies into shared-memory rings. Its decisions and
// its ways of building a ring live in separate files: the ring's pieces
// (PipelineRings.cpp), how deep a ring and how it is synchronized
// (PipelineFit.cpp), TMA (PipelineTma.cpp), the producer warpgroup
// (WarpSpecialize.cpp), wgmma dots left in flight (WarpgroupDots.cpp), and
// the loop's prologue and steady state (Pipeline.cpp). They share the
// Pipeliner's state, declared here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"

namespace ph::tilegpu::pipeline {

/// A load the pipeline moves into shared memory: a tensor-core operand (with the
/// conversion to its dot-operand layout, which becomes the read of the ring), or
/// (no conversion) an operand of the SIMT policy's FMA dots, which read the ring.
struct Staged {
  tile::LoadOp load;
  ConvertLayoutOp convert;
  bool wgmma();
  /// The op whose result the ring's read replaces.
  mlir::Value replaced() { return convert ? convert.getResult() : load.getResult(); }
};

// PipelineRings.cpp: the pieces of a ring.

/// An operand of a wgmma dot: read by the tensor cores from shared memory.
bool forWgmma(mlir::Type t);
/// Whether every use of `v` is, through conversions, an operand of the SIMT policy's FMA dots.
bool feedsOnlyFmaDots(mlir::Value v);
/// The type of a ring of `stages` buffers of the load's tile (1: one buffer, no stage dimension).
MemDescType bufferType(tile::LoadOp ld, int64_t stages, bool wgmma);
MemDescType bufferType(mlir::RankedTensorType t, int64_t stages, bool wgmma);
/// The ops inside `loop`'s body that the load's operands are computed from, in program order.
bool sliceInLoop(tile::LoadOp ld, mlir::scf::ForOp loop, llvm::SmallVectorImpl<mlir::Operation *> &slice);
/// The ops of a persistent kernel's tile loop body (outside `loop`) that the op's operands and
/// its slice in `loop` are computed from, in program order: false where one has an effect or a region.
bool sliceInTile(mlir::Operation *ld, llvm::ArrayRef<mlir::Operation *> inLoop, mlir::scf::ForOp tileLoop,
                 llvm::SmallVectorImpl<mlir::Operation *> &slice);
/// The persistent kernel's tile loop (tilegpu-persistent) whose body `loop` sits in directly, or null.
inline mlir::scf::ForOp tileLoopAround(mlir::scf::ForOp loop) {
  auto tiles = llvm::dyn_cast_or_null<mlir::scf::ForOp>(loop->getParentOp());
  return tiles && tiles->hasAttr(kTileLoopAttr) ? tiles : mlir::scf::ForOp();
}
mlir::Value indexOf(mlir::OpBuilder &b, mlir::Location loc, mlir::Value v);
mlir::Value constIndex(mlir::OpBuilder &b, mlir::Location loc, int64_t v);
/// A cp.async of the load (its operands through `map`) into `stage` of `buffer`.
void copyInto(mlir::OpBuilder &b, tile::LoadOp ld, mlir::IRMapping &map, mlir::Value buffer, mlir::Value stage);
/// The load (and its conversion) become a read of `stage` of the ring.
void readFromRing(Staged s, mlir::Value buf, mlir::Value stage);

// PipelineFit.cpp.

/// Whether `loop` carries a dot's accumulator from one iteration to the next (a GEMM's K loop).
bool chainsAccumulator(mlir::scf::ForOp loop);

// PipelineTma.cpp.

/// Whether TMA can copy the load into a wgmma ring.
bool tmaCanCopy(tile::LoadOp ld, mlir::func::FuncOp f);
bool tmaCanMove(mlir::Value ptr, llvm::ArrayRef<int64_t> lens, llvm::ArrayRef<bool> squeezed, mlir::Value lastExtent,
                mlir::RankedTensorType rt, mlir::func::FuncOp f);
/// The `tilegpu.tma` entry of a map over tensor argument `tensor` whose box moves one column
/// block of `buffer`'s swizzle row (or the whole tile when narrower).
mlir::DictionaryAttr tmaMapEntry(unsigned tensor, llvm::ArrayRef<int64_t> lens, llvm::ArrayRef<bool> squeezed,
                                 mlir::RankedTensorType rt, MemDescType buffer);
/// The kernel argument holding the map `entry` describes: an existing one, or a new
/// `!tile.ptr<i8>` appended after the kernel's arguments and its entry after `tilegpu.tma`'s.
mlir::Value tmaMapArgument(mlir::func::FuncOp f, mlir::DictionaryAttr entry, mlir::Location loc);

class Pipeliner {
public:
  Pipeliner(mlir::func::FuncOp f, bool fmaRings, int64_t vectorDotRegs, int64_t stages, int64_t wgmmaStages, int64_t ringBytes, bool mbarriers,
            bool warpSpecialize, int64_t consumerRegs, int64_t producerRegs, int64_t chainedStages,
            int64_t sharedPerSM, int64_t sharedPerBlock, bool tma, bool overlapSoftmax, bool waitAfterPrologue)
      : tma_(tma), overlapSoftmax_(overlapSoftmax), waitAfterPrologue_(waitAfterPrologue), fmaRings_(fmaRings), vectorDotRegs_(vectorDotRegs), f_(f), stages_(stages), wgmmaStages_(wgmmaStages), ringBytes_(ringBytes), mbarriers_(mbarriers),
        warpSpecialize_(warpSpecialize), consumerRegs_(consumerRegs), producerRegs_(producerRegs),
        chainedStages_(chainedStages), sharedPerSM_(sharedPerSM), sharedPerBlock_(sharedPerBlock) {}
  void run();

private:
  /// The kernel's threads (`tile.threads`; 128, one warpgroup, where it does not say).
  int64_t threads() const {
    if (auto t = f_->getAttrOfType<mlir::IntegerAttr>(ph::tile::kThreadsAttr)) return t.getInt();
    return 128;
  }
  mlir::Value alloc(Staged s, int64_t stages) {
    mlir::OpBuilder b(f_.getContext());
    b.setInsertionPointToStart(&f_.getBody().front());
    return LocalAllocOp::create(b, s.load.getLoc(), bufferType(s.load, stages, s.wgmma()),
                                mlir::IntegerAttr())
        .getResult();
  }
  // Pipeline.cpp.
  void stageOnce(Staged s, bool inLoop);
  void pipelineLoop(mlir::scf::ForOp loop, llvm::SmallVector<Staged> loads);
  // PipelineFit.cpp.
  int64_t stagesFor(llvm::MutableArrayRef<Staged> loads, mlir::scf::ForOp loop) const;
  // WarpgroupDots.cpp.
  void toWarpgroupDots();
  void keepOneGroupInFlight(WarpgroupDotOp dot);
  // OverlapSoftmax.cpp.
  bool overlapsSoftmax(mlir::scf::ForOp loop, llvm::ArrayRef<Staged> loads, int64_t stages) const;
  void overlapSoftmax(mlir::scf::ForOp loop);

  mlir::Value allocBarriers(mlir::Location loc, int64_t stages) {
    mlir::OpBuilder b(f_.getContext());
    b.setInsertionPointToStart(&f_.getBody().front());
    mlir::MLIRContext *ctx = f_.getContext();
    auto enc = SharedEncodingAttr::get(ctx, /*vec=*/1, /*perPhase=*/1, /*maxPhase=*/1, /*pad=*/0, {0u});
    return LocalAllocOp::create(b, loc, MemDescType::get(ctx, {stages}, b.getI64Type(), enc), mlir::IntegerAttr()).getResult();
  }
  // PipelineFit.cpp.
  bool byMBarriers(mlir::scf::ForOp loop, bool async, int64_t stages) const;
  bool streamsByRegisters(mlir::scf::ForOp loop);
  // WarpSpecialize.cpp.
  bool cloneDefs(mlir::Value v, mlir::OpBuilder *b, mlir::IRMapping &map);
  bool producerCanIssue(mlir::scf::ForOp loop, llvm::ArrayRef<Staged> loads,
                        llvm::ArrayRef<llvm::SmallVector<mlir::Operation *>> slices);
  void specialize(mlir::scf::ForOp loop, llvm::ArrayRef<Staged> loads, llvm::ArrayRef<mlir::Value> bufs,
                  llvm::ArrayRef<llvm::SmallVector<mlir::Operation *>> slices, int64_t S, mlir::Value full,
                  mlir::Value free, bool tma);
  void moveIntoConsumers();
  static void releasePrevious(mlir::OpBuilder &b, mlir::Location loc, mlir::Value free, mlir::Value iter, int64_t S);
  // PipelineTma.cpp.
  mlir::Value tmaMap(tile::LoadOp ld, MemDescType ring);

  bool tma_;
  /// Attention loops' P·V moves under the next block's softmax (OverlapSoftmax.cpp).
  bool overlapSoftmax_;
  /// Operands staged once wait after a ring's prologue (waitAfterPrologue).
  bool waitAfterPrologue_;
  llvm::SmallVector<mlir::scf::ForOp> overlapLoops_;
  bool fmaRings_;
  /// The registers a thread a loop of vector dots may carry to stream by registers (0: never).
  int64_t vectorDotRegs_;
  /// Loops whose FMA operands go through registers (streamsByRegisters), once decided.
  llvm::DenseMap<mlir::Operation *, bool> byRegisters_;
  /// The kernel's TMA map arguments so far (`tilegpu.tma`), one per tensor, box and swizzle.
  mlir::func::FuncOp f_;
  int64_t stages_, wgmmaStages_, ringBytes_;
  bool mbarriers_, warpSpecialize_;
  int64_t consumerRegs_, producerRegs_;
  int64_t chainedStages_, sharedPerSM_, sharedPerBlock_;
  /// The shared memory of the operands staged once (attention's Q), beside the loops' rings.
  int64_t onceBytes_ = 0;
  WarpSpecializeOp ws_;
  /// Loops whose copies run stages - 2 ahead: their wgmma dots wait for one group less.
  llvm::DenseSet<mlir::Operation *> asyncLoops_;
  /// An operand staged once outside a loop (attention's Q): the wait for its copy, the fence and
  /// barrier that publish it, and its read, which a ring's prologue may pass (Pipeline.cpp).
  struct OnceWait {
    AsyncCopyOp copy;
    AsyncWaitOp wait;
    FenceAsyncSharedOp fence;
    BarrierOp barrier;
    LocalLoadOp read;
  };
  llvm::SmallVector<OnceWait> onceWaits_;
  void waitAfterPrologue(mlir::scf::ForOp loop);
  void prefetchOnceAcrossTiles(mlir::scf::ForOp loop, mlir::scf::ForOp tileLoop, mlir::Operation *drain);
};

} // namespace ph::tilegpu::pipeline
