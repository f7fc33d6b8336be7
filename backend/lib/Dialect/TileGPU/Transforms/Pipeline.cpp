//===- Pipeline.cpp - tilegpu-pipeline: dot operands by cp.async, N ahead ---===//
//
// The tensor cores read their operands from registers that ldmatrix fills
// from shared memory, so a dot operand loaded from global memory goes there
// first. In a loop the copy for iteration i + stages - 1 is issued while
// iteration i computes (CUTLASS's multistage mainloop): the copy engine and
// the tensor cores overlap, and one barrier per iteration both publishes the
// copy that completed and retires the buffer read one iteration before.
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "CopyChunks.h"
#include "LoopFacts.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_TILEGPUPIPELINE
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {

namespace {

/// A load the pipeline moves into shared memory: a tensor-core operand (with the
/// conversion to its dot-operand layout, which becomes the read of the ring), or
/// (no conversion) an operand of the SIMT policy's FMA dots, which read the ring.
struct Staged {
  tile::LoadOp load;
  ConvertLayoutOp convert;
  bool wgmma();
  /// The op whose result the ring's read replaces.
  Value replaced() { return convert ? convert.getResult() : load.getResult(); }
};

/// An operand of a wgmma dot: read by the tensor cores from shared memory.
bool forWgmma(Type t) {
  auto op = dyn_cast_or_null<DotOperandEncodingAttr>(layoutOf(t));
  auto m = op ? dyn_cast<MmaEncodingAttr>(op.getParent()) : MmaEncodingAttr();
  return m && m.getVersion() == 3;
}

bool Staged::wgmma() { return convert && forWgmma(convert.getType()); }

/// Whether every use of `v` is, through layout conversions and widenings of its
/// elements, an operand of a dot in a blocked layout (the SIMT policy's FMA dot,
/// which reads its operands from shared memory and widens them as it reads).
bool feedsOnlyFmaDots(Value v) {
  if (v.use_empty()) return false;
  for (OpOperand &use : v.getUses()) {
    Operation *u = use.getOwner();
    if (isa<ConvertLayoutOp>(u)) {
      if (!feedsOnlyFmaDots(u->getResult(0))) return false;
      continue;
    }
    if (auto c = dyn_cast<tile::ConvertOp>(u)) {
      auto from = dyn_cast<FloatType>(getElementTypeOrSelf(c.getSource().getType()));
      auto to = dyn_cast<FloatType>(getElementTypeOrSelf(c.getType()));
      if (!from || !to || from.getWidth() >= to.getWidth() || !feedsOnlyFmaDots(c.getResult())) return false;
      continue;
    }
    auto d = dyn_cast<DotOp>(u);
    if (!d || use.getOperandNumber() > 1 || !isFmaDot(d)) return false;
  }
  return true;
}

/// For ldmatrix, rows padded by 16 bytes: its eight 16-byte row reads then
/// hit eight distinct groups of four banks whatever the row length. For
/// wgmma, the swizzle its descriptors name: 16-byte chunks of row r XORed
/// by (r / perPhase) % maxPhase within rows of 32, 64 or 128 bytes.
MemDescType bufferType(tile::LoadOp ld, int64_t stages, bool wgmma) {
  auto t = cast<RankedTensorType>(ld.getResult().getType());
  MLIRContext *ctx = ld.getContext();
  unsigned elem = (t.getElementTypeBitWidth() + 7) / 8;
  unsigned pad = 16 / elem;
  SmallVector<unsigned> order;
  for (int d = int(t.getRank()) - 1; d >= 0; --d) order.push_back(unsigned(d));
  auto enc = SharedEncodingAttr::get(ctx, /*vec=*/pad, /*perPhase=*/1, /*maxPhase=*/1, pad, order);
  if (wgmma) {
    unsigned width = std::min<unsigned>(128, unsigned(t.getShape().back()) * elem);
    enc = SharedEncodingAttr::get(ctx, /*vec=*/16 / elem, /*perPhase=*/128 / width, /*maxPhase=*/width / 16, 0, order);
  }
  SmallVector<int64_t> shape;
  if (stages > 1) shape.push_back(stages);
  shape.append(t.getShape().begin(), t.getShape().end());
  return MemDescType::get(ctx, shape, t.getElementType(), enc);
}

/// Whether TMA can copy the load into a wgmma ring: a box of the tensor's last two
/// dimensions (the others squeezed) of a tensor argument of the kernel, at most 256 rows
/// (TMA's box), rows of whole 16-byte chunks (the tensor map's strides; `@aligned` on a size).
/// Masked dimensions need nothing: TMA writes zeros past the tensor's extents.
bool tmaCanCopy(tile::LoadOp ld, func::FuncOp f) {
  auto arg = dyn_cast<BlockArgument>(ld.getPtr());
  if (!arg || arg.getOwner() != &f.getBody().front()) return false;
  for (unsigned i = 0; i < arg.getArgNumber(); ++i)
    if (!isa<ph::tile::PtrType>(f.getArgument(i).getType())) return false;
  size_t n = ld.getLens().size();
  ArrayRef<bool> sq = ld.getSqueezed();
  if (n < 2 || n > 5 || sq[n - 1] || sq[n - 2] || llvm::count(sq, false) != 2 || ld.getLens()[n - 2] > 256)
    return false;
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t vec = 16 / std::max<int64_t>(1, (rt.getElementTypeBitWidth() + 7) / 8);
  return divisibility(ld.getExtents()[n - 1]) % vec == 0;
}

/// The ops inside `loop`'s body that the load's operands are computed from, in
/// program order; false when one of them is not pure or reads an iter_arg.
bool sliceInLoop(tile::LoadOp ld, scf::ForOp loop, SmallVectorImpl<Operation *> &slice) {
  SetVector<Operation *> ops;
  SmallVector<Value> work(ld->getOperands().begin(), ld->getOperands().end());
  DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (!seen.insert(v).second) continue;
    if (auto arg = dyn_cast<BlockArgument>(v)) {
      if (arg.getOwner() == loop.getBody() && arg != loop.getInductionVar()) return false;
      if (loop->isProperAncestor(arg.getOwner()->getParentOp())) return false;
      continue;
    }
    Operation *def = v.getDefiningOp();
    if (!loop->isProperAncestor(def)) continue;
    if (def->getBlock() != loop.getBody() || def->getNumRegions() || !isMemoryEffectFree(def)) return false;
    ops.insert(def);
    for (Value o : def->getOperands()) work.push_back(o);
  }
  slice.assign(ops.begin(), ops.end());
  llvm::sort(slice, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
  return true;
}

Value indexOf(OpBuilder &b, Location loc, Value v) {
  if (v.getType().isIndex()) return v;
  return arith::IndexCastOp::create(b, loc, b.getIndexType(), v);
}

Value constIndex(OpBuilder &b, Location loc, int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }

void copyInto(OpBuilder &b, tile::LoadOp ld, IRMapping &map, Value buffer, Value stage) {
  auto mapAll = [&](ValueRange vs) {
    SmallVector<Value> out;
    for (Value v : vs) out.push_back(map.lookupOrDefault(v));
    return out;
  };
  AsyncCopyOp::create(b, ld.getLoc(), map.lookupOrDefault(ld.getPtr()), mapAll(ld.getOffsets()), mapAll(ld.getExtents()),
                      buffer, stage, ld.getLensAttr(), ld.getMaskedAttr(), ld.getSqueezedAttr());
}

/// The load (and its conversion) become a read of `stage` of the ring, where the load's
/// value was used (the SIMT policy's FMA dots read the ring in place instead: through-shared).
void readFromRing(Staged s, Value buf, Value stage) {
  Value old = s.replaced();
  OpBuilder at(old.getDefiningOp());
  auto read = LocalLoadOp::create(at, s.load.getLoc(), old.getType(), buf, stage);
  old.replaceAllUsesWith(read.getResult());
  if (s.convert) s.convert.erase();
  s.load.erase();
}

class Pipeliner {
public:
  Pipeliner(func::FuncOp f, bool fmaRings, int64_t vectorDotRegs, int64_t stages, int64_t wgmmaStages, int64_t ringBytes, bool mbarriers,
            bool warpSpecialize, int64_t consumerRegs, int64_t producerRegs, int64_t chainedStages,
            int64_t sharedPerSM, int64_t sharedPerBlock, bool tma)
      : tma_(tma), fmaRings_(fmaRings), vectorDotRegs_(vectorDotRegs), f_(f), stages_(stages), wgmmaStages_(wgmmaStages), ringBytes_(ringBytes), mbarriers_(mbarriers),
        warpSpecialize_(warpSpecialize), consumerRegs_(consumerRegs), producerRegs_(producerRegs),
        chainedStages_(chainedStages), sharedPerSM_(sharedPerSM), sharedPerBlock_(sharedPerBlock) {}
  void run();

private:
  Value alloc(Staged s, int64_t stages) {
    OpBuilder b(f_.getContext());
    b.setInsertionPointToStart(&f_.getBody().front());
    return LocalAllocOp::create(b, s.load.getLoc(), bufferType(s.load, stages, s.wgmma()),
                                IntegerAttr())
        .getResult();
  }
  void stageOnce(Staged s, bool inLoop);
  void pipelineLoop(scf::ForOp loop, SmallVector<Staged> loads);
  int64_t stagesFor(MutableArrayRef<Staged> loads, scf::ForOp loop) const;
  void toWarpgroupDots();
  void keepOneGroupInFlight(WarpgroupDotOp dot);

  Value allocBarriers(Location loc, int64_t stages) {
    OpBuilder b(f_.getContext());
    b.setInsertionPointToStart(&f_.getBody().front());
    MLIRContext *ctx = f_.getContext();
    auto enc = SharedEncodingAttr::get(ctx, /*vec=*/1, /*perPhase=*/1, /*maxPhase=*/1, /*pad=*/0, {0u});
    return LocalAllocOp::create(b, loc, MemDescType::get(ctx, {stages}, b.getI64Type(), enc), IntegerAttr()).getResult();
  }
  bool byMBarriers(scf::ForOp loop, bool async, int64_t stages) const;
  bool streamsByRegisters(scf::ForOp loop);
  bool cloneDefs(Value v, OpBuilder *b, IRMapping &map);
  bool producerCanIssue(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<SmallVector<Operation *>> slices);
  void specialize(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<Value> bufs,
                  ArrayRef<SmallVector<Operation *>> slices, int64_t S, Value full, Value free, bool tma);
  void moveIntoConsumers();
  Value tmaMap(tile::LoadOp ld, MemDescType ring);

  bool tma_;
  bool fmaRings_;
  /// The registers a thread a loop of vector dots may carry to stream by registers (0: never).
  int64_t vectorDotRegs_;
  /// Loops whose FMA operands go through registers (streamsByRegisters), once decided.
  llvm::DenseMap<Operation *, bool> byRegisters_;
  /// The kernel's TMA map arguments so far (`tilegpu.tma`), one per tensor, box and swizzle.
  SmallVector<Attribute> tmaMaps_;
  func::FuncOp f_;
  int64_t stages_, wgmmaStages_, ringBytes_;
  bool mbarriers_, warpSpecialize_;
  int64_t consumerRegs_, producerRegs_;
  int64_t chainedStages_, sharedPerSM_, sharedPerBlock_;
  /// The shared memory of the operands staged once (attention's Q), beside the loops' rings.
  int64_t onceBytes_ = 0;
  WarpSpecializeOp ws_;
  /// Loops whose copies run stages - 2 ahead: their wgmma dots wait for one group less.
  DenseSet<Operation *> asyncLoops_;
};

bool chainsAccumulator(scf::ForOp loop) { return bool(chainedAccumulatorDot(loop)); }

/// The ring depth of a loop: wgmma operands of a dot left in flight get a
/// deeper ring (the tensor cores read it directly, no registers are spent on
/// it), as deep as fits. Where every wgmma is waited for (attention), the ring
/// keeps the mma.sync depth: measured on the H200, a smaller ring that lets
/// two CTAs share an SM beats a deeper one (docs/tilegpu.md).
int64_t Pipeliner::stagesFor(MutableArrayRef<Staged> loads, scf::ForOp loop) const {
  bool wgmma = llvm::any_of(loads, [](Staged &s) { return s.wgmma(); });
  // The bytes one stage of the loop's rings takes.
  auto stageBytes = [&] {
    int64_t bytes = 0;
    for (Staged &s : loads) bytes += bufferType(s.load, 1, wgmma).getStageBytes(unsigned(s.load.getType().getRank()));
    return bytes;
  };
  if (!wgmma) {
    int64_t perStage = stageBytes();
    // A ring as deep as the CTA's shared memory holds, down to 2 stages: D = 128 attention with
    // 128 x 128 blocks needs 244 KiB at 3 stages on mma.sync, 174 KiB at 2 (the legacy emitter,
    // deleted since, ran those at 2; docs/tilegpu.md).
    if (sharedPerBlock_ > 0 && stages_ > 2) {
      int64_t S = stages_;
      while (S > 2 && S * perStage + onceBytes_ > sharedPerBlock_) --S;
      if (S < stages_) return S;
    }
    if (chainedStages_ <= stages_ || sharedPerSM_ <= 0 || stages_ < 2 || !chainsAccumulator(loop)) return stages_;
    // The CTAs per SM the ring's shared memory allows (1 KiB of each CTA's shared memory is the system's).
    auto ctas = [&](int64_t S) { return sharedPerSM_ / (S * perStage + 1024); };
    int64_t S = stages_;
    while (S < chainedStages_ && ctas(S + 1) == ctas(stages_) && (S + 1) * perStage + 8192 <= sharedPerBlock_) ++S;
    return S;
  }
  if (!chainsAccumulator(loop)) return std::max<int64_t>(stages_, 2);
  int64_t perStage = stageBytes();
  int64_t S = std::max<int64_t>(wgmmaStages_, 2);
  while (S > 2 && S * perStage > ringBytes_) --S;
  return S;
}

/// Whether a loop of vector FMA dots streams its blocks through registers: read a block ahead
/// (tilegpu-prefetch-loads) and stored to one buffer each at the top of the iteration, as many
/// CTAs an SM as registers and shared memory allow (up to 4) keep more bytes in flight than a
/// ring that shared memory limits to three (flash-decoding, MHA: 710 against 738 us on an H100;
/// docs/tilegpu.md, "The legacy SIMT emitter, deleted"). Its G-row form keeps the ring. Only
/// when prefetch-loads carries every operand load of the loop (else the loop keeps its rings,
/// and none becomes a load waited for in place); the kernel then asks for those CTAs
/// (`tilegpu.min_ctas`) unless it says otherwise.
bool Pipeliner::streamsByRegisters(scf::ForOp loop) {
  auto [it, fresh] = byRegisters_.try_emplace(loop.getOperation(), false);
  if (!fresh) return it->second;
  if (!vectorDotLoop(loop)) return false;
  SmallVector<tile::LoadOp> carried = prefetchableLoads(loop, vectorDotRegs_, /*fmaDots=*/true);
  if (carried.empty()) return false;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto l = dyn_cast<tile::LoadOp>(&op); l && feedsOnlyFmaDots(l.getResult()) && !llvm::is_contained(carried, l))
      return false;
  int64_t regs = 0, bytes = 0;
  for (tile::LoadOp l : carried) {
    regs += registersPerThread(cast<RankedTensorType>(l.getType())).value_or(0);
    bytes += bufferType(l, 1, false).getStageBytes(unsigned(l.getType().getRank()));
  }
  int64_t threads = 128;
  if (auto t = f_->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) threads = t.getInt();
  // 64K registers an SM: the carried blocks and as many again for the rest; 1 KiB of shared
  // memory a CTA is the system's.
  int64_t ctas = std::min<int64_t>(4, 65536 / (threads * (regs + 64)));
  if (sharedPerSM_ > 0) ctas = std::min<int64_t>(ctas, sharedPerSM_ / (bytes + 1024));
  if (ctas >= 2 && !f_->hasAttr(kMinCtasAttr))
    f_->setAttr(kMinCtasAttr, Builder(f_.getContext()).getI32IntegerAttr(int32_t(ctas)));
  // tilegpu-prefetch-loads carries them within the same budget.
  loop->setAttr(kVectorDotRegsAttr, Builder(f_.getContext()).getI64IntegerAttr(vectorDotRegs_));
  it->second = true;
  return true;
}

/// One buffer: copy, wait for it, publish it, read it. In a loop, a barrier
/// first retires the previous iteration's reads of the same buffer.
void Pipeliner::stageOnce(Staged s, bool inLoop) {
  Value buf = alloc(s, 1);
  OpBuilder b(s.load);
  Location loc = s.load.getLoc();
  if (inLoop) BarrierOp::create(b, loc);
  IRMapping none;
  copyInto(b, s.load, none, buf, Value());
  AsyncCommitGroupOp::create(b, loc);
  AsyncWaitOp::create(b, loc, 0);
  if (forWgmma(s.convert.getType())) FenceAsyncSharedOp::create(b, loc);
  BarrierOp::create(b, loc);
  auto read = LocalLoadOp::create(b, loc, s.convert.getType(), buf, Value());
  s.convert.getResult().replaceAllUsesWith(read.getResult());
  s.convert.erase();
  s.load.erase();
}

/// Whether a loop's ring is synchronized by mbarriers: asked for, every read of
/// a stage finished within its iteration (no wgmma left in flight), no
/// accumulator chained from one iteration's dot to the next (a GEMM's K loop
/// keeps its warps in step anyway and would only lose a stage of prefetch),
/// and the loop not inside another loop (the barriers' phases follow its
/// iterations from the first; a second run would start them again at 0).
bool Pipeliner::byMBarriers(scf::ForOp loop, bool async, int64_t stages) const {
  if (!mbarriers_ || async || stages < 3 || chainsAccumulator(loop)) return false;
  for (Operation *p = loop->getParentOp(); p && p != f_; p = p->getParentOp())
    if (!isa<scf::IfOp>(p)) return false;
  return true;
}

/// The kernel's argument holding the TMA map of the load's tensor with the box one copy into
/// `ring` moves (a column block of the swizzle's row: wider tiles take one box per block),
/// appended after the kernel's other arguments the first time it is needed.
Value Pipeliner::tmaMap(tile::LoadOp ld, MemDescType ring) {
  MLIRContext *ctx = f_.getContext();
  Builder b(ctx);
  auto enc = cast<SharedEncodingAttr>(ring.getEncoding());
  auto rt = cast<RankedTensorType>(ld.getType());
  int64_t elem = (rt.getElementTypeBitWidth() + 7) / 8;
  int64_t rowBytes = int64_t(enc.getMaxPhase()) * 16;
  int64_t swizzle = enc.getMaxPhase() > 1 ? rowBytes : 0;
  size_t n = ld.getLens().size();
  SmallVector<int64_t> box;
  for (size_t d = 0; d < n; ++d) box.push_back(ld.getSqueezed()[d] ? 1 : ld.getLens()[d]);
  box[n - 1] = std::min<int64_t>(box[n - 1], rowBytes / elem);
  unsigned tensor = cast<BlockArgument>(ld.getPtr()).getArgNumber();
  auto entry = b.getDictionaryAttr({b.getNamedAttr("box", b.getDenseI64ArrayAttr(box)),
                                    b.getNamedAttr("swizzle", b.getI64IntegerAttr(swizzle)),
                                    b.getNamedAttr("tensor", b.getI64IntegerAttr(tensor))});
  unsigned first = f_.getNumArguments() - unsigned(tmaMaps_.size());
  for (auto [i, m] : llvm::enumerate(tmaMaps_))
    if (m == entry) return f_.getArgument(first + unsigned(i));
  unsigned idx = f_.getNumArguments();
  (void)f_.insertArgument(idx, ph::tile::PtrType::get(ctx, b.getIntegerType(8)), DictionaryAttr::get(ctx), ld.getLoc());
  tmaMaps_.push_back(entry);
  f_->setAttr(kTmaAttr, b.getArrayAttr(tmaMaps_));
  return f_.getArgument(idx);
}

void Pipeliner::pipelineLoop(scf::ForOp loop, SmallVector<Staged> loads) {
  Location loc = loop.getLoc();
  int64_t S = stagesFor(loads, loop);
  bool async = S >= 3 && chainsAccumulator(loop) &&
               llvm::all_of(loads, [](Staged &s) { return s.wgmma(); });
  if (async) asyncLoops_.insert(loop);
  bool mb = byMBarriers(loop, async, S);
  // TMA fills the ring (one thread, a full mbarrier per stage) where the loop keeps one wgmma
  // group in flight: the CTA barrier per iteration stays, and retires the stage being refilled.
  bool tma = tma_ && async && !mb && llvm::all_of(loads, [&](Staged &s) { return tmaCanCopy(s.load, f_); });
  // How many iterations ahead the copies run: with one wgmma group left in
  // flight, the buffer read two iterations before is the one free. On
  // mbarriers too: a stage is refilled once every thread has released it two
  // iterations before, so one warp may run an iteration ahead of another
  // (with a stage read one iteration before, every iteration would wait for
  // the slowest warp, as a CTA barrier does).
  int64_t D = async || mb ? S - 2 : S - 1;
  int64_t threads = 128;
  if (auto t = f_->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) threads = t.getInt();
  bool wgmma = llvm::any_of(loads, [](Staged &s) { return s.wgmma(); });
  Value full, free;
  if (mb) {
    full = allocBarriers(loc, S);
    free = allocBarriers(loc, S);
  }
  if (tma) full = allocBarriers(loc, S);
  SmallVector<Value> bufs;
  SmallVector<SmallVector<Operation *>> slices;
  for (Staged &s : loads) {
    bufs.push_back(alloc(s, S));
    SmallVector<Operation *> slice;
    sliceInLoop(s.load, loop, slice);
    slices.push_back(std::move(slice));
  }
  if ((mb || tma) && warpSpecialize_ && wgmma && !ws_ && loop->getParentOp() == f_.getOperation() &&
      producerCanIssue(loop, loads, slices)) {
    if (tma) free = allocBarriers(loc, S);
    specialize(loop, loads, bufs, slices, S, full, free, tma);
    return;
  }
  Value iv = loop.getInductionVar();
  Type ivType = iv.getType();
  auto ivConst = [&](OpBuilder &b, int64_t v) -> Value {
    if (ivType.isIndex()) return constIndex(b, loc, v);
    return arith::ConstantOp::create(b, loc, ivType, b.getIntegerAttr(ivType, v));
  };
  Value cS;
  // The parity of the phase that the n-th use of a stage completes: (n / S) % 2.
  auto parityOf = [&](OpBuilder &b, Value n) {
    return arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, n, cS), constIndex(b, loc, 2)).getResult();
  };
  // Issue the copies of the iteration whose induction variable is `at` (the
  // n-th, null in the prologue, whose stages are fresh), into stage `stage`, if it exists.
  auto issue = [&](OpBuilder &b, Value at, Value stage, Value n) {
    Value exists = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at, loop.getUpperBound());
    auto guard = scf::IfOp::create(b, loc, exists, /*withElseRegion=*/false);
    OpBuilder in = guard.getThenBodyBuilder();
    // On mbarriers: wait until every thread released the stage's previous use
    // (the phase before this use's; a fresh barrier counts it complete).
    if (mb && n)
      MBarrierWaitOp::create(in, loc, free, stage,
                             arith::XOrIOp::create(in, loc, parityOf(in, n), constIndex(in, loc, 1)));
    for (size_t i = 0; i < loads.size(); ++i) {
      IRMapping map;
      map.map(iv, at);
      for (Operation *op : slices[i]) in.clone(*op, map);
      if (tma) {
        SmallVector<Value> offsets;
        for (Value v : loads[i].load.getOffsets()) offsets.push_back(map.lookupOrDefault(v));
        TmaCopyOp::create(in, loc, tmaMap(loads[i].load, cast<MemDescType>(bufs[i].getType())), offsets, bufs[i],
                          stage, full, stage, loads[i].load.getSqueezed(), /*issuer=*/uint64_t(0));
      } else {
        copyInto(in, loads[i].load, map, bufs[i], stage);
      }
    }
    if (mb)
      MBarrierArriveOp::create(in, loc, full, stage, /*copies=*/true);
    else if (!tma)
      AsyncCommitGroupOp::create(b, loc);
  };

  // Prologue: iterations 0 .. D-1.
  OpBuilder pre(loop);
  cS = constIndex(pre, loc, S);
  if (mb) {
    MBarrierInitOp::create(pre, loc, full, int32_t(threads));
    MBarrierInitOp::create(pre, loc, free, int32_t(threads));
  }
  // One arrival (with the stage's bytes expected) per copy into a stage.
  if (tma) MBarrierInitOp::create(pre, loc, full, int32_t(loads.size()), /*tma=*/true);
  for (int64_t s = 0; s < D; ++s) {
    Value at = arith::AddIOp::create(pre, loc, loop.getLowerBound(),
                                     arith::MulIOp::create(pre, loc, loop.getStep(), ivConst(pre, s)));
    issue(pre, at, constIndex(pre, loc, s), Value());
  }
  // Each iteration: wait for its stage, publish it, issue D ahead, read.
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  // The iteration's number is never negative (scf.for's step is positive): unsigned division
  // and remainder, which a ring of 2 or 4 stages turns into a shift and a mask, where the
  // signed forms add the fix-ups for negative numbers to every iteration.
  Value iter = arith::DivUIOp::create(b, loc, arith::SubIOp::create(b, loc, iv, loop.getLowerBound()), loop.getStep());
  Value iterIdx = indexOf(b, loc, iter);
  Value stage = arith::RemUIOp::create(b, loc, iterIdx, cS);
  if (mb) {
    MBarrierWaitOp::create(b, loc, full, stage, parityOf(b, iterIdx));
    // The copies landed through the generic proxy; wgmma reads through the async one.
    if (wgmma) FenceAsyncSharedOp::create(b, loc);
  } else if (tma) {
    // TMA writes through the async proxy that wgmma reads by: no fence. The barrier after the
    // wait retires, in every warpgroup, the wgmma group that read the stage refilled below.
    MBarrierWaitOp::create(b, loc, full, stage, parityOf(b, iterIdx));
    BarrierOp::create(b, loc);
  } else {
    AsyncWaitOp::create(b, loc, int32_t(D - 1));
    if (wgmma) FenceAsyncSharedOp::create(b, loc);
    BarrierOp::create(b, loc);
  }
  Value ahead = arith::AddIOp::create(b, loc, iv, arith::MulIOp::create(b, loc, loop.getStep(), ivConst(b, D)));
  Value aheadIter = arith::AddIOp::create(b, loc, iterIdx, constIndex(b, loc, D));
  Value aheadStage = arith::RemUIOp::create(b, loc, aheadIter, cS);
  issue(b, ahead, aheadStage, aheadIter);
  // The stage's reads are done (nothing of it is left in flight): release it.
  if (mb) {
    OpBuilder end(loop.getBody()->getTerminator());
    MBarrierArriveOp::create(end, loc, free, stage, /*copies=*/false);
  }
  for (size_t i = 0; i < loads.size(); ++i) readFromRing(loads[i], bufs[i], stage);
  // Drain: the empty groups of the last iterations, and shared memory free for what follows.
  OpBuilder post(loop->getBlock(), std::next(Block::iterator(loop)));
  if (!mb && !tma) AsyncWaitOp::create(post, loc, 0);
  BarrierOp::create(post, loc);
}

/// Clones into `b` the pure scalar ops of the function's body that `v` is computed
/// from (with `b` null: whether it could); function arguments are used as they are.
bool Pipeliner::cloneDefs(Value v, OpBuilder *b, IRMapping &map) {
  if (map.contains(v)) return true;
  if (auto arg = dyn_cast<BlockArgument>(v)) return arg.getOwner() == &f_.getBody().front();
  Operation *def = v.getDefiningOp();
  if (def->getBlock() != &f_.getBody().front() || def->getNumRegions() || !isMemoryEffectFree(def) ||
      llvm::any_of(def->getResultTypes(), [](Type t) { return isa<ShapedType, MemDescType>(t); }))
    return false;
  for (Value o : def->getOperands())
    if (!cloneDefs(o, b, map)) return false;
  if (b) b->clone(*def, map);
  else for (Value r : def->getResults()) map.map(r, r);
  return true;
}

/// The values from outside `loop` that its copies' addresses are computed from (the loads'
/// operands and those of the in-loop ops they are computed by), the induction variable aside.
SmallVector<Value> copiesReadFromOutside(scf::ForOp loop, ArrayRef<Staged> loads,
                                         ArrayRef<SmallVector<Operation *>> slices) {
  SmallVector<Value> out;
  for (size_t i = 0; i < loads.size(); ++i) {
    SmallVector<Value> used(const_cast<tile::LoadOp &>(loads[i].load)->getOperands());
    for (Operation *op : slices[i]) used.append(op->getOperands().begin(), op->getOperands().end());
    for (Value v : used)
      if (v != loop.getInductionVar() && !loop->isAncestor(v.getParentBlock()->getParentOp())) out.push_back(v);
  }
  return out;
}

/// Whether a producer warpgroup can run the loop's copies by itself: the loop's
/// bounds and every value its copies' addresses are computed from (outside the
/// loop) come from the function's arguments through pure scalar ops.
bool Pipeliner::producerCanIssue(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<SmallVector<Operation *>> slices) {
  IRMapping dry;
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (!cloneDefs(v, nullptr, dry)) return false;
  for (Value v : copiesReadFromOutside(loop, loads, slices))
    if (!cloneDefs(v, nullptr, dry)) return false;
  return true;
}

/// The loop's copies move to a producer warpgroup (FlashAttention-3's warp
/// specialization): it runs the loop's iterations by itself, each waiting for
/// its stage's free barrier (the consumers' release of the use S iterations
/// before; a fresh barrier passes), copying into the stage and arriving on its
/// full barrier when the copies land. The consumers only wait for full
/// stages and release them, so they run as far ahead as the ring lets them,
/// and no copy is issued from their registers.
void Pipeliner::specialize(scf::ForOp loop, ArrayRef<Staged> loads, ArrayRef<Value> bufs,
                           ArrayRef<SmallVector<Operation *>> slices, int64_t S, Value full, Value free, bool tma) {
  Location loc = loop.getLoc();
  int64_t consumers = 128;
  if (auto t = f_->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) consumers = t.getInt();
  const int64_t producers = 128;
  Block &body = f_.getBody().front();
  // After the allocations: the barriers' initialization (every thread), then the split.
  OpBuilder top(f_.getContext());
  Operation *first = &body.front();
  while (isa<LocalAllocOp>(first)) first = first->getNextNode();
  top.setInsertionPoint(first);
  // By TMA, one arrival (the issuer's expect_tx) per copy into a stage; by cp.async, each
  // producer thread's copies arrive.
  MBarrierInitOp::create(top, loc, full, int32_t(tma ? loads.size() : producers), tma);
  MBarrierInitOp::create(top, loc, free, int32_t(consumers));
  ws_ = WarpSpecializeOp::create(top, loc, top.getI32IntegerAttr(int32_t(consumers)),
                                 top.getI32IntegerAttr(int32_t(consumerRegs_)),
                                 top.getI32IntegerAttr(int32_t(producerRegs_)));
  ws_.getConsumer().emplaceBlock();
  ws_.getProducer().emplaceBlock();
  Builder attrs(f_.getContext());
  f_->setAttr(kConsumerThreadsAttr, attrs.getI32IntegerAttr(int32_t(consumers)));
  f_->setAttr(kLaunchThreadsAttr, attrs.getI32IntegerAttr(int32_t(consumers + producers)));

  // The producer: the same iterations, each into its stage once the stage is free.
  OpBuilder pb = OpBuilder::atBlockEnd(&ws_.getProducer().front());
  IRMapping pmap;
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()}) cloneDefs(v, &pb, pmap);
  for (Value v : copiesReadFromOutside(loop, loads, slices)) cloneDefs(v, &pb, pmap);
  Value lb = pmap.lookupOrDefault(loop.getLowerBound()), step = pmap.lookupOrDefault(loop.getStep());
  auto ploop = scf::ForOp::create(pb, loc, lb, pmap.lookupOrDefault(loop.getUpperBound()), step);
  OpBuilder in(ploop.getBody()->getTerminator());
  Value n = indexOf(in, loc, arith::DivSIOp::create(in, loc, arith::SubIOp::create(in, loc, ploop.getInductionVar(), lb), step));
  Value cS = constIndex(in, loc, S);
  Value stage = arith::RemUIOp::create(in, loc, n, cS);
  Value parity = arith::RemUIOp::create(in, loc, arith::DivUIOp::create(in, loc, n, cS), constIndex(in, loc, 2));
  MBarrierWaitOp::create(in, loc, free, stage, arith::XOrIOp::create(in, loc, parity, constIndex(in, loc, 1)));
  for (size_t i = 0; i < loads.size(); ++i) {
    IRMapping map = pmap;
    map.map(loop.getInductionVar(), ploop.getInductionVar());
    for (Operation *op : slices[i]) in.clone(*op, map);
    if (tma) {
      // The producer's first thread issues the stage's boxes: no address registers in the others.
      tile::LoadOp ld = loads[i].load;
      SmallVector<Value> offsets;
      for (Value v : ld.getOffsets()) offsets.push_back(map.lookupOrDefault(v));
      TmaCopyOp::create(in, loc, tmaMap(ld, cast<MemDescType>(bufs[i].getType())), offsets, bufs[i], stage, full, stage,
                        ld.getSqueezed(), uint64_t(consumers));
    } else {
      copyInto(in, loads[i].load, map, bufs[i], stage);
    }
  }
  // Its copies spread over the producer's own threads.
  ploop.getBody()->walk([&](AsyncCopyOp c) {
    c->setAttr(kThreadsAttr, attrs.getI64IntegerAttr(producers));
    c->setAttr(kThreadBaseAttr, attrs.getI64IntegerAttr(consumers));
  });
  if (!tma) MBarrierArriveOp::create(in, loc, full, stage, /*copies=*/true);

  // The consumers: wait for the stage, read it, release it.
  OpBuilder b = OpBuilder::atBlockBegin(loop.getBody());
  Value iter = indexOf(b, loc, arith::DivSIOp::create(b, loc, arith::SubIOp::create(b, loc, loop.getInductionVar(),
                                                                                      loop.getLowerBound()), loop.getStep()));
  Value cS2 = constIndex(b, loc, S);
  Value cstage = arith::RemUIOp::create(b, loc, iter, cS2);
  MBarrierWaitOp::create(b, loc, full, cstage,
                         arith::RemUIOp::create(b, loc, arith::DivUIOp::create(b, loc, iter, cS2), constIndex(b, loc, 2)));
  // cp.async lands through the generic proxy, TMA through the async one that wgmma reads by.
  if (!tma) FenceAsyncSharedOp::create(b, loc);
  for (size_t i = 0; i < loads.size(); ++i) readFromRing(loads[i], bufs[i], cstage);
  OpBuilder end(loop.getBody()->getTerminator());
  if (!asyncLoops_.contains(loop)) {
    MBarrierArriveOp::create(end, loc, free, cstage, /*copies=*/false);
    return;
  }
  // The iteration's wgmma group stays in flight: the `warpgroup_wait 1` that follows it
  // (keepOneGroupInFlight) retires the previous iteration's, whose stage is then released.
  Value later = arith::CmpIOp::create(end, loc, arith::CmpIPredicate::ugt, iter, constIndex(end, loc, 0));
  auto guard = scf::IfOp::create(end, loc, later, /*withElseRegion=*/false);
  OpBuilder rel = guard.getThenBodyBuilder();
  Value prev = arith::RemUIOp::create(rel, loc, arith::AddIOp::create(rel, loc, iter, constIndex(rel, loc, S - 1)), cS2);
  MBarrierArriveOp::create(rel, loc, free, prev, /*copies=*/false);
}

/// Everything of the function after the split runs on the consumers.
void Pipeliner::moveIntoConsumers() {
  if (!ws_) return;
  Block &body = f_.getBody().front();
  Block &to = ws_.getConsumer().front();
  for (Operation &op : llvm::make_early_inc_range(
           llvm::make_range(std::next(ws_->getIterator()), body.getTerminator()->getIterator())))
    op.moveBefore(&to, to.end());
}

void Pipeliner::run() {
  llvm::MapVector<Operation *, SmallVector<Staged>> byLoop;
  SmallVector<Staged> single;
  f_.walk([&](tile::LoadOp ld) {
    ConvertLayoutOp cvt;
    if (ld.getResult().hasOneUse()) cvt = dyn_cast<ConvertLayoutOp>(*ld.getResult().getUsers().begin());
    bool operand = cvt && isa<DotOperandEncodingAttr>(layoutOf(cvt.getType())) && cvt->getBlock() == ld->getBlock();
    // The SIMT policy's dot operands: in a loop, copied ahead into a ring that
    // the FMA dot reads (tilegpu-through-shared); outside one, stored once.
    bool fma = fmaRings_ && !operand && feedsOnlyFmaDots(ld.getResult());
    // A loop of vector FMA dots whose blocks tilegpu-prefetch-loads carries keeps no ring.
    if (fma && vectorDotRegs_ > 0)
      if (auto loop = dyn_cast<scf::ForOp>(ld->getParentOp()); loop && streamsByRegisters(loop)) return;
    if (!operand && !fma) return;
    if (fma) cvt = {};
    if (!(operand && forWgmma(cvt.getType())) && !copiesInChunks(ld)) return;
    auto loop = dyn_cast<scf::ForOp>(ld->getParentOp());
    SmallVector<Operation *> slice;
    if (loop && stages_ >= 2 && sliceInLoop(ld, loop, slice))
      byLoop[loop].push_back({ld, cvt});
    else if (operand)
      single.push_back({ld, cvt});
  });
  for (Staged &s : single)
    onceBytes_ += bufferType(s.load, 1, s.wgmma()).getStageBytes(unsigned(s.load.getType().getRank()));
  for (Staged s : single) stageOnce(s, s.load->getParentOfType<scf::ForOp>() != nullptr);
  for (auto &[loop, loads] : byLoop) pipelineLoop(cast<scf::ForOp>(loop), loads);
  toWarpgroupDots();
  moveIntoConsumers();
}

/// A dot whose operands now lie in wgmma's buffers reads them there.
void Pipeliner::toWarpgroupDots() {
  SmallVector<DotOp> dots;
  f_.walk([&](DotOp d) {
    if (forWgmma(d.getA().getType()) && forWgmma(d.getB().getType())) dots.push_back(d);
  });
  for (DotOp d : dots) {
    // A is read in place when it was loaded into shared memory, else (P of
    // P·V, computed in registers) taken from its registers.
    auto la = d.getA().getDefiningOp<LocalLoadOp>(), lb = d.getB().getDefiningOp<LocalLoadOp>();
    if (!lb) {
      d.emitError() << "a wgmma B operand that is not in shared memory";
      continue;
    }
    OpBuilder b(d);
    Value a = la ? Value(la.getBuffer()) : Value(d.getA());
    Value aStage = la ? la.getStage() : Value();
    auto w = WarpgroupDotOp::create(b, d.getLoc(), d.getType(), a, aStage, lb.getBuffer(), lb.getStage(), d.getAcc(),
                                    d.getTransB(), /*async=*/false);
    d.getResult().replaceAllUsesWith(w.getResult());
    d.erase();
    for (LocalLoadOp l : {la, lb})
      if (l && l->use_empty()) l.erase();
    keepOneGroupInFlight(w);
  }
}

/// In a loop of `asyncLoops_` that carries the accumulator from one
/// warpgroup_dot to the next and reads it nowhere else, the dot is left in
/// flight: `warpgroup_wait 1` after it retires the previous iteration's
/// group (whose buffer the next copies overwrite), and `warpgroup_wait 0` on
/// the loop's result retires the last before anything reads it. The loop
/// and that wait go under `scf.if (lb < ub)`: otherwise the path that skips
/// the loop, where the accumulator is its initial value, joins the wait's
/// path before the wait, and ptxas then serializes every wgmma of the kernel
/// (C7515: "non wgmma instructions defining accumulator registers ... between
/// start and end of the pipeline stage").
void Pipeliner::keepOneGroupInFlight(WarpgroupDotOp dot) {
  auto loop = dyn_cast<scf::ForOp>(dot->getParentOp());
  if (!loop || !asyncLoops_.contains(loop)) return;
  auto arg = dyn_cast<BlockArgument>(dot.getAcc());
  if (!arg || arg.getOwner() != loop.getBody() || arg == loop.getInductionVar() || !arg.hasOneUse()) return;
  unsigned idx = arg.getArgNumber() - loop.getNumInductionVars();
  auto yield = cast<scf::YieldOp>(loop.getBody()->getTerminator());
  if (!dot.getResult().hasOneUse() || *dot.getResult().getUsers().begin() != yield ||
      yield.getOperand(idx) != dot.getResult())
    return;
  dot.setAsync(true);
  OpBuilder b(dot->getContext());
  b.setInsertionPointAfter(dot);
  WarpgroupWaitOp::create(b, dot.getLoc(), ValueRange{}, 1);

  Location loc = loop.getLoc();
  b.setInsertionPoint(loop);
  Value runs = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, loop.getLowerBound(), loop.getUpperBound());
  auto guard = scf::IfOp::create(b, loc, loop.getResultTypes(), runs, /*withElseRegion=*/true);
  loop->replaceAllUsesWith(guard.getResults());
  loop->moveBefore(guard.thenBlock(), guard.thenBlock()->end());
  OpBuilder in = OpBuilder::atBlockEnd(guard.thenBlock());
  SmallVector<Value> results(loop.getResults());
  results[idx] = WarpgroupWaitOp::create(in, dot.getLoc(), ValueRange{results[idx]}, 0).getResult(0);
  scf::YieldOp::create(in, loc, results);
  OpBuilder skip = OpBuilder::atBlockEnd(guard.elseBlock());
  scf::YieldOp::create(skip, loc, loop.getInitArgs());
}

struct PipelinePass : impl::TileGPUPipelineBase<PipelinePass> {
  using TileGPUPipelineBase::TileGPUPipelineBase;
  void runOnOperation() override {
    if (stages < 1) {
      getOperation().emitError() << "tilegpu-pipeline needs stages >= 1, not " << int64_t(stages);
      return signalPassFailure();
    }
    // The budget goes on the loop as tilegpu.vector_dot_regs, which the verifier keeps to a
    // thread's registers; 0 or less leaves every such loop its ring.
    if (vectorDotRegs > 255) {
      getOperation().emitError() << "tilegpu-pipeline needs vector-dot-regs <= 255 (32-bit registers a thread), not "
                                 << int64_t(vectorDotRegs);
      return signalPassFailure();
    }
    getOperation().walk([&](func::FuncOp f) { Pipeliner(f, fmaRings, vectorDotsByRegisters ? int64_t(vectorDotRegs) : 0, stages, wgmmaStages, ringBytes, mbarriers, warpSpecialize, consumerRegs, producerRegs, chainedStages, sharedPerSM, sharedPerBlock, tma).run(); });
  }
};

} // namespace
} // namespace ph::tilegpu
