//===- TileGpuPipeline.cpp - The TileGPU passes as the GPU target runs them --===//
#include "TileGpuPipeline.h"
#include "Ptxas.h"
#include "ph/Backend/Arch.h"
#include "ph/Dialect/TileGPU/Layouts.h"
#include "Emit/Stages.h"

#include "ph/Dialect/TileGPU/Passes.h"
#include "ph/Dialect/TileGPU/TileGPUDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace mlir;

namespace ph::backend {
namespace {

std::string text(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}

std::string where(Location loc) {
  std::string out;
  loc->walk([&](Location l) {
    if (auto r = dyn_cast<FileLineColRange>(l)) {
      out = r.getFilename().str() + ":" + std::to_string(r.getStartLine()) + ":" + std::to_string(r.getStartColumn());
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return out;
}

/// The register layout's name, the detail of a "registers" placement.
std::string layoutDetail(Attribute a) {
  if (isa<tilegpu::MmaEncodingAttr>(a)) return "mma";
  if (isa<tilegpu::DotOperandEncodingAttr>(a)) return "dot operand";
  if (isa<tilegpu::BlockedEncodingAttr>(a)) return "blocked";
  return "";
}

std::string layoutName(Attribute a) {
  if (isa<tilegpu::MmaEncodingAttr>(a)) return "registers (mma)";
  if (isa<tilegpu::DotOperandEncodingAttr>(a)) return "registers (dot operand)";
  if (isa<tilegpu::BlockedEncodingAttr>(a)) return "registers (blocked)";
  return "registers";
}

/// Where each tile lives, for `ph build`'s notes and the editor's hover.
void collectPlacements(ModuleOp m, TileGpuResult &res) {
  m.walk([&](Operation *op) {
    if (auto alloc = dyn_cast<tilegpu::LocalAllocOp>(op)) {
      // A ring's mbarriers are no tile.
      if (llvm::any_of(alloc.getResult().getUsers(),
                       [](Operation *u) { return isa<tilegpu::MBarrierInitOp, tilegpu::MBarrierWaitOp>(u); }))
        return;
      // The tile the buffer holds (a ring's leading dimension counts its stages).
      auto t = alloc.getResult().getType();
      ArrayRef<int64_t> shape = t.getShape();
      int64_t stages = 1;
      for (Operation *u : alloc.getResult().getUsers())
        if (auto l = dyn_cast<tilegpu::LocalLoadOp>(u); l && l.getStage()) stages = shape.front();
        else if (auto c = dyn_cast<tilegpu::AsyncCopyOp>(u); c && c.getStage()) stages = shape.front();
        else if (auto w = dyn_cast<tilegpu::WarpgroupDotOp>(u);
                 w && ((w.getA() == alloc.getResult() && w.getAStage()) || (w.getB() == alloc.getResult() && w.getBStage())))
          stages = shape.front();
      if (stages > 1) shape = shape.drop_front();
      std::string w = where(op->getLoc());
      res.placements.push_back("`" + text(RankedTensorType::get(shape, t.getElementType())) + "`" +
                               (w.empty() ? "" : " at " + w) + ": shared memory" +
                               (stages > 1 ? " (" + std::to_string(stages) + " stages)" : ""));
      res.tiles.push_back({text(RankedTensorType::get(shape, t.getElementType())), spanOf(op->getLoc()), "shared memory",
                           stages > 1 ? std::to_string(stages) + " stages" : ""});
      unsigned rank = unsigned(t.getShape().size() - (stages > 1 ? 1 : 0));
      int64_t bytes = t.getStageBytes(rank) * stages;
      if (bytes > res.largestSharedBytes) {
        res.largestSharedBytes = bytes;
        res.largestShared = "`" + text(RankedTensorType::get(shape, t.getElementType())) + "`" +
                            (stages > 1 ? " in " + std::to_string(stages) + " stages" : "");
        res.largestSharedAt = spanOf(op->getLoc());
      }
      ++res.sharedTiles;
      return;
    }
    if (isa<tilegpu::ConvertLayoutOp>(op) || op->getNumResults() != 1) return;
    auto rt = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!rt || !rt.getEncoding()) return;
    std::string w = where(op->getLoc());
    res.placements.push_back("`" + text(RankedTensorType::get(rt.getShape(), rt.getElementType())) + "`" +
                             (w.empty() ? "" : " at " + w) + ": " + layoutName(rt.getEncoding()));
    res.tiles.push_back({text(RankedTensorType::get(rt.getShape(), rt.getElementType())), spanOf(op->getLoc()),
                         "registers", layoutDetail(rt.getEncoding())});
    ++res.registerTiles;
  });
}

} // namespace

/// One dot on the tensor cores: a GEMM, whose CTAs share operands along both
/// grid axes. (Attention's two dots read K and V per head, along y: launch
/// order already keeps a head's CTAs together.)
static bool gemmShaped(ModuleOp m) {
  int dots = 0;
  m.walk([&](tilegpu::DotOp) { ++dots; });
  return dots == 1;
}

/// Attention written without `@launch` gets one warpgroup (128 threads) by default. Where its
/// two accumulators (S = Q K^T and the output) would leave a thread more than
/// `kAccumulatorsPerThread` f32 values, it gets two warpgroups instead, each with half the rows:
/// [128, 128] blocks of keys at D = 128 would otherwise hold 256 values a thread and spill, and
/// on two warpgroups they are the fastest blocks (H100, 2026-12-07, [4,16,4096,128]: 402 TFLOP/s
/// against 326 for 32-key blocks on two warpgroups and 340-348 on one; docs/tilegpu.md,
/// "Two warpgroups where one would hold too much"). Below the bound one warpgroup is as fast or
/// faster (mma.sync at D = 64: 8 warps read every K and V fragment twice as often).
/// PH_TILEGPU_ATTN_THREADS=128 keeps one warpgroup, 256 takes two wherever the rows allow.
static constexpr int64_t kAccumulatorsPerThread = 160;

/// The f32 values the dots of the loop that reduces rows keep live, over the CTA: the dots at
/// the top of that loop's body (S = Q K^T and P V; a dot after the loop or under an `if` is not
/// live beside them). 0 where no loop reduces rows of a dot of 128 or more rows.
static int64_t attentionAccumulators(func::FuncOp f) {
  int64_t best = 0;
  f.walk([&](tile::RowMaxOp r) {
    auto loop = r->getParentOfType<scf::ForOp>();
    if (!loop) return;
    int dots = 0;
    int64_t values = 0;
    bool rows128 = false;
    for (auto d : loop.getBody()->getOps<tile::DotOp>()) {
      auto t = cast<RankedTensorType>(d.getType());
      ++dots;
      values += t.getNumElements();
      rows128 |= t.getDimSize(0) >= 128;
    }
    if (dots >= 2 && rows128) best = std::max(best, values);
  });
  return best;
}

static void attentionOnTwoWarpgroups(ModuleOp m, const char *knob) {
  std::string mode = knob ? knob : "auto";
  if (mode == "128") return;
  for (auto f : m.getOps<func::FuncOp>()) {
    auto t = f->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr);
    if (!t || t.getInt() != 128 || f->hasAttr(ph::tile::kLaunchAttr) || !f->hasAttr(ph::tile::kTensorcoreAttr)) continue;
    int64_t accumulators = attentionAccumulators(f);
    if (!accumulators) continue;
    if (mode != "256" && accumulators / t.getInt() <= kAccumulatorsPerThread) continue;
    f->setAttr(ph::tile::kThreadsAttr, IntegerAttr::get(t.getType(), 256));
    // The manifest's `threads` and the launch follow the lowering's count.
    f->setAttr(tilegpu::kLaunchThreadsAttr, IntegerAttr::get(t.getType(), 256));
  }
}

void setGridAttr(ModuleOp m, const kir::Kernel &k) {
  SmallVector<int64_t> g;
  for (const kir::GridAxis &a : k.grid)
    g.append({a.fromSize ? 1 : 0, int64_t(a.size), a.divisor, a.constant});
  if (llvm::any_of(g, [](int64_t v) { return v < 0; })) return;
  for (auto f : m.getOps<func::FuncOp>()) f->setAttr(tilegpu::kGridAttr, DenseI64ArrayAttr::get(m.getContext(), g));
}

int launchedThreads(ModuleOp m, int written) {
  int threads = written;
  m->walk([&](Operation *op) {
    if (auto t = op->getAttrOfType<IntegerAttr>(tilegpu::kLaunchThreadsAttr)) threads = int(t.getInt());
  });
  return threads;
}

/// Whether a wgmma in `m` reads A from registers and GpuTarget's two-CTA fit will cap the kernel's
/// registers: fitTwoCtas on the lowering's shared memory and launched threads, and nothing that
/// makes withMinCtasPerSm leave the PTX alone (a CTA count of the kernel's own, a producer
/// warpgroup's setmaxnreg).
static bool registersFittedToTwoCtas(ModuleOp m, const std::string &arch, const TileGpuResult &res) {
  bool registerA = false;
  m.walk([&](tilegpu::WarpgroupDotOp d) { registerA |= isa<RankedTensorType>(d.getA().getType()); });
  if (!registerA) return false;
  int written = 0;
  for (auto f : m.getOps<func::FuncOp>()) {
    if (f->hasAttr(tilegpu::kMinCtasAttr)) return false;
    if (auto t = f->getAttrOfType<IntegerAttr>(ph::tile::kThreadsAttr)) written = std::max(written, int(t.getInt()));
  }
  int launched = launchedThreads(m, written);
  if (launched != written) return false; // a producer warpgroup beside the kernel's own
  return fitTwoCtas(arch, res.instruction(), launched, res.sharedBytes);
}

std::vector<std::string> TileGpuResult::warnings() const {
  std::vector<std::string> out;
  for (const LoweringDiag &d : diags)
    if (!d.error)
      out.push_back(d.at.file.empty() ? d.message
                                      : d.at.file + ":" + std::to_string(d.at.line) + ":" + std::to_string(d.at.col) +
                                            ": " + d.message);
  return out;
}

GpuLowering gpuLowering() {
  const char *e = std::getenv("PH_GPU_LOWERING");
  std::string v = e ? e : "auto";
  if (v == "tilegpu") return GpuLowering::TileGpu;
  return GpuLowering::Auto;
}

bool runTileGpu(ModuleOp m, const std::string &arch, bool lower, TileGpuResult &res, std::string &err,
                bool lowerSimt, bool compactRings) {
  MLIRContext *ctx = m.getContext();
  ctx->getOrLoadDialect<tilegpu::TileGPUDialect>();
  // The policy's reasons are warnings at the tile that could not be placed; the passes'
  // errors are at the op that failed. Both become data through the capture every lowering
  // shares (Target/LoweringDiagnostics.h), never re-read from text.
  LoweringCapture capture(ctx, res.diags, &err);
  PassManager pm(ctx);
  pm.enableVerifier(verifyEachPass());
  tilegpu::TileGPUAssignLayoutsOptions lo;
  lo.arch = arch;
  // Measuring knob: one policy for every kernel (auto, simt, mma, wgmma).
  if (const char *e = std::getenv("PH_TILEGPU_POLICY")) lo.policy = e;
  // Measuring knobs for the memory-bound rows (docs/tilegpu.md, "Memory-bound rows"): reduced
  // rows' vectors from the loads behind them (PH_TILEGPU_ROW_LOAD_VECTORS=0: from the reduced
  // tile's element type), and rows fewer than the warps split over the spare warps along the
  // columns (PH_TILEGPU_SPLIT_ROWS=0: the warps replicate the rows).
  if (const char *e = std::getenv("PH_TILEGPU_ROW_LOAD_VECTORS")) lo.rowLoadVectors = std::string(e) != "0";
  if (const char *e = std::getenv("PH_TILEGPU_SPLIT_ROWS")) lo.splitRowWarps = std::string(e) != "0";
  // A row that fits one column block read once by a two-pass kernel (softmax, the norms): off,
  // since on the H200 it was no faster than the second read from L2 (softmax 2,879 against
  // 2,875 GB/s, RMSNorm 3,559 against 3,663; docs/tilegpu.md, "Memory-bound rows") and holds the
  // block in registers; PH_TILEGPU_REUSE_ROW_LOADS=1 turns it on.
  if (const char *e = std::getenv("PH_TILEGPU_REUSE_ROW_LOADS"); e && std::string(e) == "1")
    pm.addPass(tilegpu::createTileGPUReuseRowLoads());
  // Attention of 128 query rows written without @launch on two warpgroups where one would hold
  // too much (a count for the tensor cores' accumulators, so not on the SIMT fallback);
  // PH_TILEGPU_ATTN_THREADS=128 or 256 for A/B runs.
  if (!lowerSimt) attentionOnTwoWarpgroups(m, std::getenv("PH_TILEGPU_ATTN_THREADS"));
  pm.addPass(tilegpu::createTileGPUAssignLayouts(lo));
  if (failed(pm.run(m))) return false;
  for (auto f : m.getOps<func::FuncOp>()) {
    if (auto p = f->getAttrOfType<StringAttr>(tilegpu::kPolicyAttr)) res.policy = p.getValue().str();
    res.kernelName = f.getName().str();
  }
  // A tile whose extents its layout cannot cover (neither a multiple nor a divisor
  // of the layout's pass: [6, 24] under 16-byte vectors and 4 warps) has no register
  // form: say so at the tile, instead of converting it (which ran out of memory).
  m.walk([&](Operation *op) {
    if (!err.empty()) return;
    for (Value v : op->getResults()) {
      auto rt = dyn_cast<RankedTensorType>(v.getType());
      std::string why;
      // Dot operands are checked where they are made (a wgmma operand lives in shared memory).
      if (!rt || !isa_and_nonnull<tilegpu::BlockedEncodingAttr, tilegpu::MmaEncodingAttr>(rt.getEncoding()) ||
          tilegpu::registerLayout(rt.getEncoding(), rt.getShape(), &why))
        continue;
      // An error at the tile, through the capture: E0504 there, not a string.
      op->emitError() << "the tile `" << text(RankedTensorType::get(rt.getShape(), rt.getElementType()))
                      << "` has no register layout on the GPU (" << why << "); use power-of-two extents";
      return;
    }
  });
  if (!err.empty()) return false;
  if (!res.tensorCores() && !lowerSimt) return true;
  PassManager lowerPm(ctx);
  lowerPm.enableVerifier(verifyEachPass());
  // L2 reuse across the CTAs of a wave; PH_TILEGPU_RASTER=0 turns it off for A/B measurements.
  // Added below, before tilegpu-pipeline, once the pipeline's options say whether the kernel is
  // made persistent (which then walks its tiles in the same order).
  const char *raster = std::getenv("PH_TILEGPU_RASTER");
  bool rasterize = gemmShaped(m) && !(raster && std::string(raster) == "0");
  tilegpu::TileGPURasterizeOptions ro;
  // PH_TILEGPU_RASTER_GROUP: row blocks per group, for A/B measurements of the default.
  if (const char *e = std::getenv("PH_TILEGPU_RASTER_GROUP")) ro.group = std::max(1, std::atoi(e));
  tilegpu::TileGPUPipelineOptions po;
  // Tuning knobs for measuring pipeline depth (default 3 stages, 4 for wgmma operands). The
  // SIMT policy's FMA dots read their rings in place: 2 stages (one block ahead) leave room for
  // a third CTA per SM, measured faster on the H200 (decode 3,842 vs 3,532 GB/s, docs/tilegpu.md).
  if (res.policy == "simt") po.stages = 2;
  // A GEMM's K loop on mma.sync: a fourth stage where the CTA keeps the SM's shared memory to
  // itself anyway (docs/tilegpu.md, "A fourth stage"); PH_TILEGPU_CHAINED_STAGES overrides.
  if (const GpuArch *a = findGpuArch(arch)) {
    po.chainedStages = 4;
    po.sharedPerSM = a->sharedPerSM;
    po.sharedPerBlock = a->sharedPerBlock;
  }
  if (const char *e = std::getenv("PH_TILEGPU_CHAINED_STAGES")) po.chainedStages = std::atoi(e);
  if (const char *e = std::getenv("PH_TILEGPU_STAGES")) po.stages = std::max(1, std::atoi(e));
  // The SIMT policy's FMA-dot operands as register loads a block ahead instead of rings
  // (measuring: PH_TILEGPU_FMA_RINGS=0).
  const char *fmaRings = std::getenv("PH_TILEGPU_FMA_RINGS");
  po.fmaRings = !(fmaRings && std::string(fmaRings) == "0");
  // A loop of vector dots leaves its blocks to tilegpu-prefetch-loads: not when that pass is off.
  if (const char *e = std::getenv("PH_TILEGPU_PREFETCH_LOADS"); e && std::string(e) == "0") po.vectorDotsByRegisters = false;
  if (const char *e = std::getenv("PH_TILEGPU_WGMMA_STAGES")) po.wgmmaStages = std::max(2, std::atoi(e));
  if (compactRings) {
    po.stages = 2;
    po.wgmmaStages = 2;
    po.chainedStages = 0;
  }
  // Rings on mbarriers: measured on the H200 (docs/tilegpu.md), +18 % for D = 128 attention on
  // mma.sync; on wgmma, with the fast exp, +5 % (cp.async) and +10-18 % filled by TMA (an H100,
  // docs/tilegpu.md, "K and V by TMA"); PH_TILEGPU_MBARRIERS=0|1 overrides.
  // mbarrier.try_wait.parity needs sm_90: on sm_80-89 a ring waits on cp.async groups (ptxas
  // refused every mma-policy attention there, examples/softcap_attention.ph included).
  const GpuArch *ga = findGpuArch(arch);
  bool hasTryWait = ga && ga->sm >= 90;
  po.mbarriers = (res.policy == "mma" || res.policy == "wgmma") && hasTryWait;
  if (const char *e = std::getenv("PH_TILEGPU_MBARRIERS")) po.mbarriers = std::string(e) == "1" && hasTryWait;
  // A producer warpgroup for wgmma loops (measuring: off by default).
  if (const char *e = std::getenv("PH_TILEGPU_WARPSPEC")) {
    po.warpSpecialize = std::string(e) == "1";
    if (po.warpSpecialize) po.mbarriers = true;
  }
  // wgmma rings filled by TMA (tensor maps encoded by the runtime; docs/tilegpu.md, "TMA" and
  // "K and V by TMA"): the GEMM's K loop +9-12 % (H200), attention +4-18 % (H100);
  // PH_TILEGPU_TMA=0|1 overrides.
  po.tma = ga && ga->tma;
  if (const char *e = std::getenv("PH_TILEGPU_TMA")) po.tma = std::string(e) == "1" && ga && ga->tma;
  // A producer that only issues TMA (one thread, no address arithmetic) keeps 24 registers and
  // gives the rest to the consumers, FlashAttention-3's split; cp.async producers need 56.
  if (po.tma && po.warpSpecialize) {
    po.consumerRegs = 240;
    po.producerRegs = 24;
  }
  // "consumer,producer" registers after setmaxnreg.
  if (const char *e = std::getenv("PH_TILEGPU_WS_REGS")) {
    std::string v = e;
    size_t comma = v.find(',');
    if (comma != std::string::npos) {
      po.consumerRegs = std::atoi(v.substr(0, comma).c_str());
      po.producerRegs = std::atoi(v.substr(comma + 1).c_str());
    }
  }
  // Attention's P·V under the next block's softmax (FlashAttention-3's intra-warpgroup
  // pipelining; docs/tilegpu.md, "P·V under the next softmax"): PH_TILEGPU_OVERLAP=1 until a GPU
  // run has timed it.
  if (const char *e = std::getenv("PH_TILEGPU_OVERLAP")) po.overlapSoftmax = std::string(e) == "1";
  // A CTA that walks the grid's tiles, the next tile's first boxes issued under this tile's last
  // iterations (docs/tilegpu.md, "Persistent CTAs"): wgmma kernels filled by TMA whose tiles all do
  // the same work (tilegpu-persistent refuses the others); a GEMM walks them in the rasterized
  // order. By default only kernels of one dot (GEMMs: 8192³ 618 -> 653 TFLOP/s on an H100);
  // attention measured no faster at D = 128 and spilled at D = 64. PH_TILEGPU_PERSISTENT=1 takes
  // attention too, =0 none.
  const char *persist = std::getenv("PH_TILEGPU_PERSISTENT");
  bool persistAll = persist && std::string(persist) == "1";
  bool persistNone = persist && std::string(persist) == "0";
  if (!persistNone && res.policy == "wgmma" && po.tma && !po.warpSpecialize && !po.overlapSoftmax) {
    tilegpu::TileGPUPersistentOptions pso;
    if (rasterize) pso.group = ro.group;
    pso.oneDot = !persistAll;
    lowerPm.addPass(tilegpu::createTileGPUPersistent(pso));
  }
  // After a persistent wrap there is no block id left to renumber; a kernel it refused keeps its
  // rasterized grid.
  if (rasterize) lowerPm.addPass(tilegpu::createTileGPURasterize(ro));
  // Q in flight with the ring's first K and V boxes (docs/tilegpu.md, "Q with the first K and V"):
  // correct, and within the noise on an H100 (+0-3 % at D = 128), so PH_TILEGPU_Q_AFTER_PROLOGUE=1 only.
  if (const char *e = std::getenv("PH_TILEGPU_Q_AFTER_PROLOGUE")) po.onceAfterPrologue = std::string(e) == "1";
  lowerPm.addPass(tilegpu::createTileGPUPipeline(po));
  // Row loops read their next block while this one is reduced (loops without rings, stores or
  // dots): softmax 0.85 -> 0.93 of copy, cross-entropy 0.74 -> 0.81 on an H100 (docs/tilegpu.md,
  // "The next block in flight"). PH_TILEGPU_PREFETCH_LOADS=0 turns it off, =N sets the budget.
  if (const char *e = std::getenv("PH_TILEGPU_PREFETCH_LOADS"); !e || std::string(e) != "0") {
    tilegpu::TileGPUPrefetchLoadsOptions plo;
    if (int n = e ? std::atoi(e) : 0; n > 1) plo.maxRegs = n;
    plo.fmaDots = !po.fmaRings;
    lowerPm.addPass(tilegpu::createTileGPUPrefetchLoads(plo));
  }
  // mma.sync K loops read their fragments a step ahead; PH_TILEGPU_PREFETCH=0 for A/B measurements.
  const char *prefetch = std::getenv("PH_TILEGPU_PREFETCH");
  if (!(prefetch && std::string(prefetch) == "0")) lowerPm.addPass(tilegpu::createTileGPUPrefetchFragments());
  // Dot operands read where their dot runs (attention's V after the softmax, not before it);
  // PH_TILEGPU_AT_USE=0 for A/B measurements.
  const char *atUse = std::getenv("PH_TILEGPU_AT_USE");
  tilegpu::TileGPUFragmentsAtUseOptions fo;
  if (const char *e = std::getenv("PH_TILEGPU_HOISTED_REGS")) fo.maxHoistedRegs = std::atoi(e);
  if (!(atUse && std::string(atUse) == "0")) lowerPm.addPass(tilegpu::createTileGPUFragmentsAtUse(fo));
  lowerPm.addPass(tilegpu::createTileGPUThroughShared());
  // The epilogue's store through a swizzled shared buffer and one TMA store (docs/tilegpu.md,
  // "The epilogue by TMA"), where the K loop's rings are filled by TMA and no warpgroups
  // specialize or take turns: attention at D = 128 +3-5 %, the 4-warp GEMM +7 % on an H100.
  // PH_TILEGPU_TMA_STORE=0 keeps the direct stores.
  const char *pingpong = std::getenv("PH_TILEGPU_PINGPONG");
  bool turns = pingpong && std::string(pingpong) == "1";
  const char *tmaStore = std::getenv("PH_TILEGPU_TMA_STORE");
  if (!(tmaStore && std::string(tmaStore) == "0") && res.policy == "wgmma" && po.tma && !po.warpSpecialize && !turns) {
    tilegpu::TileGPUTmaStoreOptions tso;
    tso.sharedPerBlock = po.sharedPerBlock;
    lowerPm.addPass(tilegpu::createTileGPUTmaStore(tso));
  }
  lowerPm.addPass(tilegpu::createTileGPUAllocateShared());
  lowerPm.addPass(tilegpu::createTileGPUInsertBarriers());
  // Two warpgroups take turns at the tensor cores (FlashAttention-3's ping-pong; docs/tilegpu.md,
  // "Warpgroups in turn"): PH_TILEGPU_PINGPONG=1 until a GPU run has timed it.
  if (turns) lowerPm.addPass(tilegpu::createTileGPUPingPong());
  if (failed(lowerPm.run(m))) return false;
  m.walk([&](scf::ForOp loop) {
    if (loop->hasAttr(tilegpu::kTileLoopAttr)) res.persistent = true;
  });
  collectPlacements(m, res);
  for (auto f : m.getOps<func::FuncOp>())
    if (auto s = f->getAttrOfType<IntegerAttr>(tilegpu::kSharedBytesAttr)) res.sharedBytes = s.getInt();
  // Measuring knob: fit every kernel's registers to N CTAs per SM.
  if (const char *e = std::getenv("PH_TILEGPU_MIN_CTAS"))
    for (auto f : m.getOps<func::FuncOp>())
      if (int n = std::atoi(e); n >= 1 && n <= 32)
        f->setAttr(tilegpu::kMinCtasAttr, IntegerAttr::get(IntegerType::get(ctx, 32), n));
  if (!lower) return true;
  PassManager convertPm(ctx);
  convertPm.enableVerifier(verifyEachPass());
  // The causal mask against one difference a tile (docs/compile.md, "Where a causal variant's
  // codegen goes"): on since the H100 checked it (108 examples, prefill level);
  // PH_TILEGPU_MASK_DIFF=0 compares `col + j > row + i` per register, as before, for A/B runs.
  tilegpu::ConvertTileGPUToNVVMOptions co;
  if (const char *e = std::getenv("PH_TILEGPU_MASK_DIFF"); e && std::string(e) == "0") co.causalMaskDiff = false;
  // The softmax's exp on wgmma as one ex2 (docs/tilegpu.md, "P·V under the next softmax");
  // PH_TILEGPU_WGMMA_EXPF=1 keeps libdevice's expf for A/B runs.
  if (const char *e = std::getenv("PH_TILEGPU_WGMMA_EXPF"); e && std::string(e) == "1") co.wgmmaFastExp = false;
  // Its 2^y as one MUFU.EX2 (docs/tilegpu.md, "One MUFU a score"): on since an H100 timed it with
  // the kernels it pushes past two CTAs' registers fitted back to two (D = 128: 491 -> 509 TFLOP/s,
  // D = 64: 394 -> 408); PH_TILEGPU_EXP_FTZ=0 for A/B runs.
  co.expFtz = true;
  if (const char *e = std::getenv("PH_TILEGPU_EXP_FTZ")) co.expFtz = std::string(e) == "1";
  // wgmma's registers written before its fence (docs/tilegpu.md, "wgmma's registers written before
  // its fence, where two CTAs share an SM") where a dot takes A from registers (attention's P V)
  // and GpuTarget will fit the registers to two CTAs an SM: ptxas's fences then cost spills (D = 64
  // at 128 registers: +3-8 % on an H100), while a kernel alone on its SM lost 1-5 % (D = 128).
  // PH_TILEGPU_WGMMA_TIE=0|1 overrides.
  co.wgmmaOperandsBeforeFence = !po.warpSpecialize && registersFittedToTwoCtas(m, arch, res);
  if (const char *e = std::getenv("PH_TILEGPU_WGMMA_TIE")) co.wgmmaOperandsBeforeFence = std::string(e) == "1";
  convertPm.addPass(tilegpu::createConvertTileGPUToNVVM(co));
  if (failed(convertPm.run(m))) {
    if (err.empty()) err = "the TileGPU lowering failed";
    return false;
  }
  return true;
}

} // namespace ph::backend
