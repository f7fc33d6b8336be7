//===- Passes.td - The TileGPU passes --------------------------------------===//
#ifndef PH_DIALECT_TILEGPU_PASSES_TD
#define PH_DIALECT_TILEGPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileGPUAssignLayouts : Pass<"tilegpu-assign-layouts", "::mlir::ModuleOp"> {
  let summary = "Give every tile value a layout, by a per-architecture policy";
  let description = [{
    The policy is chosen per kernel from the architecture and `@tensorcore`
    (the `tile.tensorcore` attribute): `simt` puts every tile in a
    `#tilegpu.blocked` layout over the kernel's threads; `mma` (sm_80 and
    later, a kernel with a 16-bit dot) puts dot results and everything
    computed from them in `#tilegpu.mma<2>`, their operands in
    `#tilegpu.dot_op` (through `tilegpu.convert_layout`), folds
    `acc + dot(a, b)` into `tilegpu.dot`, and gives loads and stores
    `#tilegpu.blocked` unless their only users want a register layout. A
    kernel the mma policy cannot place is reported (an error with the tile's
    location and why) and keeps no layouts; the driver then uses SIMT.
  }];
  let options = [
    Option<"arch", "arch", "std::string", /*default=*/"\"sm_80\"", "sm_80, sm_86, sm_89, sm_90 or sm_90a">,
    Option<"policy", "policy", "std::string", /*default=*/"\"auto\"",
           "auto (wgmma for @tensorcore GEMMs on sm_90a, mma for @tensorcore kernels with a 16-bit dot, else simt), simt, mma or wgmma">,
    Option<"threads", "threads", "int", /*default=*/"0", "threads per CTA (0: the kernel's tile.threads, else 128)">,
    Option<"rowLoadVectors", "row-load-vectors", "bool", /*default=*/"true",
           "a SIMT row reduction of loaded rows takes its vectors from the loads (their element type, capped by their alignment); false: from the reduced tile's element type">,
    Option<"splitRowWarps", "split-row-warps", "bool", /*default=*/"true",
           "a SIMT row reduction of fewer rows than warps spreads the spare warps along the columns (the partials meet in shared memory); false: the warps replicate the rows">,
  ];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect"];
}

def TileGPUPrefetchLoads : Pass<"tilegpu-prefetch-loads", "::mlir::ModuleOp"> {
  let summary = "Loads of a loop's next block into registers while this block is computed";
  let description = [{
    A loop over blocks of columns that reduces each block (a row softmax's or
    a norm's statistics, cross-entropy's logsumexp) issues its next global
    load only after this block's reductions: one block of loads in flight per
    thread, and the memory system idles through every reduction's shuffles.
    Each `tile.load` directly in such a loop's body whose offsets and extents
    come from the induction variable and values defined outside the loop
    (through pure ops) is read one iteration ahead, into registers: the loop
    carries the block, the first block is read before the loop (under
    `scf.if`, when the loop runs at all), and each iteration starts by
    reading the next block, at `select(iv + step < ub, iv + step, iv)` (the
    last iteration re-reads its own block instead of reading past the end,
    which an unmasked dimension would not catch). Only in loops that store to
    no tensor (the prefetched read must not pass a write that might alias
    it) and hold no dot, no TileGPU op and no nested loop; at most
    `max-regs` 32-bit registers a thread are carried. A loop whose FMA dots
    all have one row is taken too when tilegpu-pipeline left its operands to
    this pass (vector-dots-by-registers): the pipeline marks the loop with
    `tilegpu.vector_dot_regs`, the registers it found every operand load to
    fit in, and this pass carries up to that many; its carried blocks' conversions (their stores to shared memory) open
    the iteration, before the next blocks' reads. Runs after
    tilegpu-assign-layouts (the carried tiles keep their layouts).
  }];
  let options = [
    Option<"maxRegs", "max-regs", "int", /*default=*/"32",
           "32-bit registers a thread may carry across the loop for prefetched blocks">,
    Option<"fmaDots", "fma-dots", "bool", /*default=*/"false",
           "also loops with FMA dots (blocked layouts): their operands, left as register loads by "
           "tilegpu-pipeline's fma-rings=false, read a block ahead">,
  ];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileGPUReuseRowLoads : Pass<"tilegpu-reuse-row-loads", "::mlir::ModuleOp"> {
  let summary = "A second loop over the same column blocks reuses the first loop's load when there is one block";
  let description = [{
    A two-pass row kernel (softmax, the norms: statistics in one loop, the
    rows written in a second loop over the same range) reads each block of
    its rows twice. When the range is one block (the row fits the tile), the
    second read is the first one's tile: the first loop also yields its load,
    and the second loop becomes `scf.if (one block) { the loop with that
    tile } else { the loop as written }`. Only for a load in the second loop
    before any store in it, matched by a load of the same tensor with the
    same offsets (the first loop's induction variable for the second's) and
    shape, with no store in the first loop or between the loops, in a
    kernel without a dot. Runs before tilegpu-assign-layouts.
  }];
  let dependentDialects = ["::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileGPUPipeline : Pass<"tilegpu-pipeline", "::mlir::ModuleOp"> {
  let summary = "Dot operands loaded from global memory go through shared memory by cp.async, N stages ahead in loops";
  let description = [{
    A `tile.load` whose only use is a `tilegpu.convert_layout` to a
    `#tilegpu.dot_op` layout becomes a `tilegpu.async_copy` into a shared
    buffer and a `tilegpu.local_load` in the operand layout. Inside an
    `scf.for` whose offsets depend only on the induction variable, the copy
    runs `stages - 1` iterations ahead into a ring of `stages` buffers
    (the prologue issues the first ones; one commit group per iteration;
    `async_wait {pending = stages - 2}` and one barrier before the reads,
    which also orders the reuse of the buffer read one iteration before).
    Outside loops: one buffer, a wait for everything, a barrier.

    A loop whose dots read wgmma operands gets a ring of `wgmma-stages`
    buffers (fewer if the ring would pass `ring-bytes`), and when it has at
    least 3 its accumulating `tilegpu.warpgroup_dot` becomes `async`: each
    iteration waits for the previous iteration's group only
    (`tilegpu.warpgroup_wait 1`), so the copies run `stages - 2` ahead (the
    buffer they overwrite was read two iterations before), and one
    `warpgroup_wait 0` after the loop retires the last group before the
    accumulator is read; loop and wait go under `scf.if (lb < ub)`, so that
    no path where the loop did not run joins the wait's (ptxas would
    serialize the wgmmas).

    A loop of other dots that chains its accumulator from one iteration to the
    next (a GEMM's K loop on mma.sync) gets up to `chained-stages` buffers, one
    more at a time while the CTAs per SM that shared memory allows
    (`shared-per-sm` over the ring and 1 KiB reserved per CTA) stay what
    `stages` gives them and the ring stays 8 KiB under `shared-per-block`: a
    deeper ring costs a CTA alone on its SM nothing, and the 8-warp
    128x256x64 GEMM gains 6 % at 4096³ from a fourth stage (docs/tilegpu.md),
    where the 4-warp 128x128 loses the SM's second CTA and 3-5 %.
  }];
  let options = [
    Option<"stages", "stages", "int", /*default=*/"3", "buffers in the ring of a pipelined loop (2 or more)">,
    Option<"fmaRings", "fma-rings", "bool", /*default=*/"true",
           "the SIMT policy's FMA-dot operands go through rings (false: they stay register loads, which "
           "tilegpu-prefetch-loads with fma-dots may read a block ahead)">,
    Option<"vectorDotsByRegisters", "vector-dots-by-registers", "bool", /*default=*/"true",
           "a loop whose FMA dots all have one row (flash-decoding with one query a key-value head) "
           "leaves their operands to registers, which tilegpu-prefetch-loads reads a block ahead, and "
           "its kernel asks for four CTAs an SM (tilegpu.min_ctas) unless it says otherwise">,
    Option<"vectorDotRegs", "vector-dot-regs", "int", /*default=*/"64",
           "32-bit registers a thread may carry across such a loop (K and V blocks of 64 x 128 f16: 64; "
           "at most 255, 0 or less: none); the loop is marked `tilegpu.vector_dot_regs` with it for "
           "tilegpu-prefetch-loads">,
    Option<"wgmmaStages", "wgmma-stages", "int", /*default=*/"4",
           "buffers in the ring of a loop whose dots are wgmmas (3 or more keeps one wgmma group in flight)">,
    Option<"ringBytes", "ring-bytes", "int64_t", /*default=*/"196608",
           "the most shared memory the rings of one loop may take; a wgmma ring gets fewer stages beyond it">,
    Option<"chainedStages", "chained-stages", "int", /*default=*/"0",
           "the deepest ring of an mma.sync or FMA loop that chains an accumulator (a GEMM's K loop): "
           "deeper than `stages` only while the CTAs that shared memory lets share an SM stay as many "
           "(needs shared-per-sm; 0: `stages`)">,
    Option<"sharedPerSM", "shared-per-sm", "int64_t", /*default=*/"0",
           "shared memory of one multiprocessor in bytes (0: unknown, no ring deeper than `stages`)">,
    Option<"sharedPerBlock", "shared-per-block", "int64_t", /*default=*/"0",
           "the most shared memory one CTA may take, in bytes (with shared-per-sm)">,
    Option<"mbarriers", "mbarriers", "bool", /*default=*/"false",
           "synchronize a ring of 3 or more stages whose reads end within their iteration by a full and a "
           "free mbarrier per stage instead of a CTA barrier per iteration (copies stages - 2 ahead)">,
    Option<"warpSpecialize", "warp-specialize", "bool", /*default=*/"false",
           "with mbarriers, a wgmma loop's copies move to a producer warpgroup of 128 threads "
           "(tilegpu.warp_specialize) when its bounds and addresses come from the arguments">,
    Option<"tma", "tma", "bool", /*default=*/"false",
           "fill the rings of a wgmma loop that keeps one group in flight by TMA (sm_90): one thread "
           "copies each stage's boxes onto the stage's full mbarrier, where every operand is a 2-D box "
           "of a tensor argument with rows of whole 16-byte chunks (the kernel takes one tensor map per "
           "box, `tilegpu.tma`)">,
    Option<"overlapSoftmax", "overlap-softmax", "bool", /*default=*/"false",
           "an attention loop (S = Q·Kᵀ, then P·V accumulated into what the loop carries, both wgmma, a "
           "ring of 3 or more stages on the CTA barrier) issues P·V of block j after S of block j + 1, so "
           "that it runs under that block's softmax (FlashAttention-3's intra-warpgroup pipelining); "
           "iteration 0 is peeled and the last P·V follows the loop; copies run stages - 2 ahead; not where "
           "S, the accumulator and two P tiles would pass 192 registers a thread">,
    Option<"onceAfterPrologue", "once-after-prologue", "bool", /*default=*/"false",
           "an operand copied once before a ring's loop (attention's Q) is waited for after the ring's "
           "prologue, where that prologue commits no cp.async group (TMA, or copies on mbarriers): its "
           "copy and the first stages' are in flight together">,
    Option<"consumerRegs", "consumer-regs", "int64_t", /*default=*/"224",
           "registers per consumer thread after setmaxnreg (warp-specialize)">,
    Option<"producerRegs", "producer-regs", "int64_t", /*default=*/"56",
           "registers per producer thread after setmaxnreg (warp-specialize)">,
  ];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect", "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileGPUPrefetchFragments : Pass<"tilegpu-prefetch-fragments", "::mlir::ModuleOp"> {
  let summary = "An mma.sync K loop reads each 16-deep step's fragments one step ahead, across iterations too";
  let description = [{
    For an `scf.for` that tilegpu-pipeline left with one `async_wait` and
    one `tilegpu.barrier` at the top and one accumulating mma.sync
    `tilegpu.dot` of two ring reads: the dot becomes one dot per 16-deep K
    step, the reads of step k + 1 (`tilegpu.local_load` with a
    `tilegpu.window` of the stage) come before the dot of step k, and the
    wait and barrier move to the end of the iteration, before its last step's
    dot, followed by the reads of the next stage's first step, which the loop
    carries; the first stage's wait, barrier and first reads move before the
    loop. The tensor cores keep working while the barrier waits. Runs after
    tilegpu-pipeline.
  }];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect", "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def TileGPUFragmentsAtUse : Pass<"tilegpu-fragments-at-use", "::mlir::ModuleOp"> {
  let summary = "An mma.sync operand read from shared memory is read where its dot runs, not where the pipeline put it";
  let description = [{
    A `tilegpu.local_load` into a dot operand layout whose one use is an
    mma.sync `tilegpu.dot` further down its block moves to just before that
    dot, unless an op between them synchronizes or writes shared memory (a
    barrier, an mbarrier, a copy, a store: the read must stay on its side).
    Attention's V fragments were read at the top of the key loop, with K's,
    and held through the softmax (41 more registers a thread at D = 64).
    A read before a loop whose fragments a thread would hold in more than
    `max-hoisted-regs` 32-bit registers (Q at BR = 128, D = 128: 64) is
    made again inside the loop, before its dot, when nothing in the loop
    writes the buffer, as the legacy emitter does. Runs after
    tilegpu-pipeline and tilegpu-prefetch-fragments (whose windowed reads it
    leaves alone).
  }];
  let options = [
    Option<"maxHoistedRegs", "max-hoisted-regs", "int64_t", "32",
           "registers a thread may hold for an operand read once before a loop">,
  ];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect", "::mlir::scf::SCFDialect"];
}

def TileGPUPersistent : Pass<"tilegpu-persistent", "::mlir::ModuleOp"> {
  let summary = "A kernel's body in a loop over the grid's tiles: CTAs that stay on their SM from one tile to the next";
  let description = [{
    For a kernel with `tilegpu.grid` (how its grid follows from the sizes) whose
    loops run as many iterations in every CTA (their bounds do not depend on the
    block ids): the body moves into an `scf.for` (`tilegpu.tile_loop`) over the
    linear tile ids, from the CTA's linear id to the grid's size, the launched
    CTA count apart, and each `tile.block_id` becomes
    the tile's coordinate (x fastest, the hardware's launch order). The runtime
    launches min(tiles, SMs x CTAs an SM) CTAs along x (docs/abi.md, "The
    grid"); a launch of the whole grid computes the same. tilegpu-pipeline then
    keeps a ring's stages and mbarrier phases across tiles and issues the next
    tile's first stages in this tile's last iterations, so a CTA alone on its SM
    does not wait for its first K and V at every tile. Runs before
    tilegpu-pipeline. With `group` > 0 a kernel that uses block ids x and y (a
    GEMM) walks its tiles in tilegpu-rasterize's grouped order instead, which
    it then replaces.
  }];
  let options = [
    Option<"group", "group", "int64_t", /*default=*/"0",
           "row blocks (along x) per group of the tiles' order, as tilegpu-rasterize (0: x fastest)">,
    Option<"oneDot", "one-dot", "bool", /*default=*/"false",
           "take only kernels with one dot (GEMMs): attention's two measured no faster persistent">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def TileGPURasterize : Pass<"tilegpu-rasterize", "::mlir::ModuleOp"> {
  let summary = "Renumber the CTAs of a 2-D grid so that consecutive ones cover `group` row blocks of one column";
  let description = [{
    Replaces `tile.block_id` x and y (in a kernel that uses both) by the
    grouped ordering of the linear launch index (Triton's GROUP_SIZE_M):
    a wave of CTAs then covers a near-square patch of a GEMM's output and
    reuses its operands from L2. A bijection of the grid; the GPU target
    runs it for kernels the wgmma policy takes.
  }];
  let options = [
    Option<"group", "group", "int64_t", /*default=*/"8", "row blocks (along x) per group">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::arith::ArithDialect"];
}

def TileGPUTmaStore : Pass<"tilegpu-tma-store", "::mlir::ModuleOp"> {
  let summary = "An epilogue's store of a register tile through a swizzled shared buffer and one TMA store";
  let description = [{
    On sm_90a (the wgmma policy), a `tile.store` of a register tile into a
    slice of a kernel tensor that TMA can address (a box of the tensor's last
    two dimensions, at most 256 rows, rows of whole 16-byte chunks, the tensor
    touched by nothing else in the kernel) becomes: a barrier, a
    `tilegpu.local_store` into a buffer in the swizzled layout TMA reads, a
    `tilegpu.fence_async_shared`, a barrier, and one thread's
    `tilegpu.tma_store` (FlashAttention-3's and CUTLASS's epilogue). TMA
    clips what lies past the tensor's extents, the masks' semantics. A store
    inside a loop (a persistent kernel's tile loop) first waits until the
    last tile's store has read the buffer (`tilegpu.tma_store_wait`); the
    kernel waits so before it returns. The buffer (`tilegpu.after_dead`) takes
    the bytes of buffers dead before the epilogue (the K loop's rings), so a
    kernel that fills shared memory keeps its CTAs an SM; where even that
    passes `shared-per-block`, or the kernel is warp-specialized, the store
    stays as it is. Runs after tilegpu-pipeline (the map follows the rings')
    and before tilegpu-allocate-shared.
  }];
  let options = [
    Option<"sharedPerBlock", "shared-per-block", "int64_t", /*default=*/"0",
           "bytes of shared memory a CTA may take (0: no limit)">,
  ];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect"];
}

def TileGPUThroughShared : Pass<"tilegpu-through-shared", "::mlir::ModuleOp"> {
  let summary = "Layout conversions that registers cannot do, and the SIMT policy's dot operands, through shared memory";
  let description = [{
    A `tilegpu.convert_layout` that no register renaming does (every one but
    an mma accumulator becoming the next dot's A operand) becomes a buffer, a
    barrier, a `tilegpu.local_store` in the source layout, a barrier and a
    `tilegpu.local_load` in the destination layout. A `tilegpu.dot` whose
    accumulator is `#tilegpu.blocked` (the SIMT policy) becomes a
    `tilegpu.fma_dot` over two buffers, each operand stored (between two
    barriers) where it is made: a loop-invariant operand once, before the loop.
    The first barrier keeps the store from overwriting what threads still
    read from the buffer one loop iteration before. Runs after
    tilegpu-pipeline and before tilegpu-allocate-shared.
  }];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect"];
}

def TileGPUAllocateShared : Pass<"tilegpu-allocate-shared", "::mlir::ModuleOp"> {
  let summary = "Give every shared buffer its offset in the CTA's dynamic shared memory";
  let description = [{
    Each `tilegpu.local_alloc` gets an `offset` (bytes, 128-aligned) and the
    function `tilegpu.shared_bytes`, the total. With `reuse`, buffers whose
    live ranges do not overlap (first to last use, a use inside a loop
    counting to the loop's end) share bytes, first-fit in order of size; that
    needs a barrier between one's last read and the other's first write,
    which tilegpu-insert-barriers will place, so it is off by default.
  }];
  let options = [
    Option<"reuse", "reuse", "bool", /*default=*/"false", "let buffers that are not live together share bytes">,
  ];
}

def TileGPUInsertBarriers : Pass<"tilegpu-insert-barriers", "::mlir::ModuleOp"> {
  let summary = "A barrier wherever a thread may touch what another thread wrote or read since the last one";
  let description = [{
    A membar analysis (Triton's Membar): each kernel is walked in program
    order, through `scf.if` and around `scf.for`'s back edge to a fixed point,
    keeping the accesses made since the last `tilegpu.barrier`. An access to a
    buffer that another pending access wrote or reads, where the two may
    overlap and may be different threads' elements, gets a `tilegpu.barrier`
    before it. Buffers are the global tensors (through the same `!tile.ptr`)
    and the shared buffers without stages whose every use is a local_store,
    local_load or fma_dot; the pipeline's rings order themselves. Two accesses
    need no barrier when their slices are disjoint (offsets `v + c` of one
    value, or constants; along a loop, an offset advancing by at least the
    extent each iteration), or when they are one slice in one register layout
    that holds each element once. Existing barriers count. Runs after
    tilegpu-allocate-shared.
  }];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect"];
}

def TileGPUPingPong : Pass<"tilegpu-pingpong", "::mlir::ModuleOp"> {
  let summary = "Two warpgroups take turns at the tensor cores: one's softmax under the other's wgmmas";
  let description = [{
    In a kernel of two warpgroups (`tile.threads` = 256, or 256 consumers of a
    warp-specialized kernel) whose top-level `scf.for` waits for two or more
    `tilegpu.warpgroup_dot`s (attention's S = Q K^T and P V), each such dot
    becomes an `async` one between a `tilegpu.warpgroup_turn wait` and `pass`,
    followed by a `tilegpu.warpgroup_wait 0` whose result replaces it; `init`
    goes before the loop and `fini` after it. Warpgroup 0 issues its dot, then
    warpgroup 1 issues its own while warpgroup 0 waits for its result and runs
    its softmax, and so on: the tensor cores take the two warpgroups' dots in
    turn instead of both at once, then idling through both softmaxes
    (FlashAttention-3's ping-pong schedule). Loops whose dots sit deeper (in an
    `scf.if`) or are already async (a GEMM's chained K loop) are left alone.
  }];
  let options = [
    Option<"barrier", "barrier", "int32_t", /*default=*/"2",
           "the first of the two named barriers (0 is the CTA's, 1 the consumers' under warp specialization)">,
  ];
  let dependentDialects = ["::ph::tilegpu::TileGPUDialect"];
}

def ConvertTileGPUToNVVM : Pass<"convert-tilegpu-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower a kernel with layouts to a gpu.func of LLVM, NVVM and nvgpu ops";
  let description = [{
    One conversion pattern per op family (backend/lib/Conversion/TileGPUToNVVM):
    elementwise and masks, reductions and broadcasts, global loads and stores,
    shared buffers (cp.async, ldmatrix, barriers), layout conversions, and the
    dot on mma.sync (nvgpu.mma.sync). Tiles become structs of the registers a
    thread holds. The kernel becomes a `gpu.func` in `gpu.module @ph_kernels`
    with the ABI of docs/abi.md; convert-gpu-to-nvvm and
    convert-nvgpu-to-nvvm finish the job. A kernel with an op no pattern takes
    fails with that op's location.
  }];
  let options = [
    Option<"causalMaskDiff", "causal-mask-diff", "bool", /*default=*/"true",
           "a causal mask compares each register's constant column-minus-row offset with one "
           "difference a tile (row - col less the thread's base), instead of `col + j > row + i` "
           "per register: one use of a loop's induction variable where there were one a register, "
           "which LLVM's loop strength reduction spent 23 % of a causal variant's compile on "
           "(docs/compile.md; `ph` takes it unless PH_TILEGPU_MASK_DIFF=0)">,
    Option<"wgmmaFastExp", "wgmma-fast-exp", "bool", /*default=*/"true",
           "exp of an f32 tile in a wgmma accumulator layout (attention's softmax on sm_90a) is "
           "2^(x log2 e), a multiply and one ex2.approx, as in the mma.sync and blocked layouts, "
           "instead of libdevice's expf (about ten instructions a score); false keeps expf "
           "(`ph`: PH_TILEGPU_WGMMA_EXPF=1, for A/B runs)">,
    Option<"expFtz", "exp-ftz", "bool", /*default=*/"false",
           "that fast exp's 2^y in a wgmma accumulator layout is ex2.approx.ftz.f32, one MUFU.EX2 "
           "(results below 2^-126 are "
           "zero), where ex2.approx.f32 takes a compare and two predicated multiplies around it to "
           "keep them: +4-8 % for attention on an H100 (`ph` turns it on; PH_TILEGPU_EXP_FTZ=0 for "
           "A/B runs)">,
    Option<"wgmmaOperandsBeforeFence", "wgmma-operands-before-fence", "bool", /*default=*/"false",
           "every register a group of wgmmas reads (A's 16-bit pairs, the accumulators) is written "
           "before its wgmma.fence and tied there by an empty asm (CUTLASS's "
           "warpgroup_fence_operand), so that ptxas injects no warpgroup.arrive (C7519) before the "
           "wgmmas that follow; `ph` turns it on where a dot takes A from registers and the kernel's "
           "registers are fitted to two CTAs an SM (+3-8 % at D = 64 on an H100; PH_TILEGPU_WGMMA_TIE=0|1 "
           "overrides)">,
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::LLVM::LLVMDialect", "::mlir::NVVM::NVVMDialect",
                           "::mlir::nvgpu::NVGPUDialect", "::mlir::vector::VectorDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect"];
}

def DirectVectorToLLVM : Pass<"tilegpu-direct-vector-to-llvm"> {
  let summary = "convert-vector-to-llvm without its greedy pre-pass where the conversion takes every vector op";
  let description = [{
    MLIR's convert-vector-to-llvm first runs a greedy driver over the whole module
    (vector canonicalizations, progressive lowering of contractions, transposes,
    masks, n-D transfers), then the conversion. The GPU lowerings made only the
    vector ops nvgpu.mma.sync's operands need (and none since mma.sync goes to
    nvvm.mma.sync directly: then the pass only erases the dead ops): vector.from_elements (rank 2 for
    the A and B fragments, which this pass unrolls into rank-1 ones on those ops
    only), vector.extract and insert (rank 1 or 2) and vector.bitcast (rank 1),
    which the conversion patterns then take; on a TileGPU mma.sync variant the
    greedy step was a third of `to-nvvm` (docs/compile.md). This pass erases the
    ops nobody uses and that hold no region (what the greedy driver's DCE did:
    left in, they cost the later conversions and CSE more than the step saved),
    then converts with the upstream pass's patterns and default options. A module
    with any other vector op takes the upstream greedy step first, as before.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect", "::mlir::arith::ArithDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ScalarCarries : Pass<"tilegpu-scalar-carries"> {
  let summary = "A block argument of LLVM struct type read only by extractvalue becomes one argument per element";
  let description = [{
    A tile a loop carries reaches LLVM as a phi of an LLVM struct (a register per element),
    built each iteration by a chain of insertvalue ops and read by extractvalue ops. LLVM
    keeps the struct phi and pays for it in several places: SCCP's lattice per struct
    element on each insertvalue, the SLP vectorizer's build-aggregate attempts, and the
    NVPTX instruction selector, which makes a node of all the elements for each insertvalue
    of the chain. This pass gives such an argument one argument per element: each
    predecessor passes the elements (those an insertvalue chain inserted, a constant's, or
    extractvalue ops of any other struct), each extractvalue of the argument becomes the
    element's argument, and the chains nobody reads any more are erased.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

#endif // PH_DIALECT_TILEGPU_PASSES_TD
