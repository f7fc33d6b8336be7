//===- TileGPUOps.td - Types and ops of the TileGPU dialect ----------------===//
#ifndef PH_DIALECT_TILEGPU_TILEGPUOPS_TD
#define PH_DIALECT_TILEGPU_TILEGPUOPS_TD

include "ph/Dialect/TileGPU/TileGPUAttrs.td"
include "ph/Dialect/Tile/TileDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

def SharedMemoryResource : Resource<"::ph::tilegpu::SharedMemoryResource">;

def TileGPU_MemDescType : TileGPU_Type<"MemDesc", "memdesc"> {
  let summary = "a buffer in shared memory, with the layout of its elements";
  let description = [{
    `!tilegpu.memdesc<3x64x32xf16, #tilegpu.shared<...>>`: a leading
    dimension beyond the tile's rank counts pipeline stages (buffers of one
    shape used in turn). tilegpu-allocate-shared gives each its offset.
  }];
  let parameters = (ins ArrayRefParameter<"int64_t">:$shape, "::mlir::Type":$elementType,
                        "::mlir::Attribute":$encoding);
  let hasCustomAssemblyFormat = 1;
  let extraClassDeclaration = [{
    /// Bytes of one buffer (one stage), padding included.
    int64_t getStageBytes(unsigned tileRank);
  }];
}

def TileGPU_Tensor : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;

def TileGPU_ConvertLayoutOp : TileGPU_Op<"convert_layout", [Pure, SameOperandsAndResultShape,
                                                           SameOperandsAndResultElementType]> {
  let summary = "the same tile in another layout (through shared memory, or shuffles)";
  let arguments = (ins TileGPU_Tensor:$source);
  let results = (outs TileGPU_Tensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasFolder = 1;
}

def TileGPU_DotOp : TileGPU_Op<"dot", [Pure, AllTypesMatch<["acc", "result"]>]> {
  let summary = "D = A·B + C on the tensor cores or the FMA units";
  let description = [{
    `tile.dot` followed by the `arith.addf` that accumulates it, as one op:
    the matrix instructions add into their accumulator for free. With
    `transB`, B is [N, K] (`dot_t`). A and B are in `#tilegpu.dot_op`
    layouts of C's layout (or all in one `#tilegpu.blocked` for FMA).
  }];
  let arguments = (ins TileGPU_Tensor:$a, TileGPU_Tensor:$b, TileGPU_Tensor:$acc, UnitAttr:$transB);
  let results = (outs TileGPU_Tensor:$result);
  let assemblyFormat = [{
    $a `,` $b `,` $acc attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupDotOp : TileGPU_Op<"warpgroup_dot", [AttrSizedOperandSegments,
    AllTypesMatch<["acc", "result"]>, MemoryEffects<[MemRead<SharedMemoryResource>]>]> {
  let summary = "D = A·B + C by wgmma, B (and A, or A from registers) read from shared memory";
  let description = [{
    The Hopper form of `tilegpu.dot` (sm_90a): the warpgroups of the CTA
    multiply A and B where they lie, in swizzled shared buffers (stage
    `aStage` / `bStage` of a ring), into C in the `#tilegpu.mma` version 3
    layout, and wait for the result. A may instead be a tile in registers,
    in the `#tilegpu.dot_op<{opIdx = 0}>` layout of that accumulator (P of
    attention's P·V, converted from S's registers). With `transB`, B is [N, K] (`dot_t`,
    K-major); otherwise [K, N] (N-major, wgmma's transposed B). With `async`
    the wgmmas are committed as one group and not waited for: the result may
    only feed the next `warpgroup_dot` on the same accumulator (the hardware
    chains them) until a `tilegpu.warpgroup_wait` retires the group.
  }];
  let arguments = (ins AnyTypeOf<[TileGPU_MemDescType, TileGPU_Tensor]>:$a, Optional<Index>:$aStage, TileGPU_MemDescType:$b,
                       Optional<Index>:$bStage, TileGPU_Tensor:$acc, UnitAttr:$transB, UnitAttr:$async);
  let results = (outs TileGPU_Tensor:$result);
  let assemblyFormat = [{
    $a (`[` $aStage^ `]`)? `,` $b (`[` $bStage^ `]`)? `,` $acc attr-dict `:` qualified(type($a)) `,`
    qualified(type($b)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupWaitOp : TileGPU_Op<"warpgroup_wait", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "waits until at most `pendings` async warpgroup_dot groups are in flight";
  let description = [{
    `wgmma.wait_group.sync.aligned pendings`. The values are accumulators of
    the groups it retires: they are returned unchanged, and only the results
    may be read, so that no use of the registers moves above the wait.
    In a pipelined loop `pendings = 1` keeps one K block's wgmmas running
    while the next block's operands are published and issued.
  }];
  let arguments = (ins Variadic<TileGPU_Tensor>:$values, I32Attr:$pendings);
  let results = (outs Variadic<TileGPU_Tensor>:$results);
  // Results typed explicitly: InferTypeOpInterface in scope would make ODS
  // infer warpgroup_dot's result from a fixed operand index, wrong with its
  // optional stage operands.
  let assemblyFormat = "$pendings ($values^ `:` type($values) `->` type($results))? attr-dict";
  let builders = [OpBuilder<(ins "::mlir::ValueRange":$values, "int32_t":$pendings), [{
    build($_builder, $_state, values.getTypes(), values, $_builder.getI32IntegerAttr(pendings));
  }]>];
  let hasVerifier = 1;
}

def TileGPU_WarpgroupTurnOp : TileGPU_Op<"warpgroup_turn"> {
  let summary = "two warpgroups take turns issuing wgmma, on a pair of named barriers (ping-pong)";
  let description = [{
    FlashAttention-3's warp-scheduler barriers: warpgroup w (of the CTA's
    first two, threads [0, 256)) owns named barrier `barrier + w`. `wait`
    blocks until the other warpgroup passed the turn (`bar.sync` on its own
    barrier, 256 threads: its 128 and the other's 128 arrivals); `pass` gives
    the turn to the other (`bar.arrive` on the other's barrier); `init`, before
    the loop, is warpgroup 1's pass that lets warpgroup 0 go first; `fini`,
    after it, is warpgroup 0's wait that takes the last pass, so every arrival
    is matched. Between its `wait` and `pass` a warpgroup issues its wgmmas;
    the other's softmax runs meanwhile. Both warpgroups must run the same
    sequence of turns (a loop with a CTA-uniform trip count).
  }];
  let arguments = (ins StrAttr:$kind, I32Attr:$barrier);
  let assemblyFormat = "$kind attr-dict";
  let hasVerifier = 1;
}

def TileGPU_FenceAsyncSharedOp : TileGPU_Op<"fence_async_shared"> {
  let summary = "orders this thread's shared-memory writes before the async proxy's reads (wgmma, TMA)";
  let description = [{
    `fence.proxy.async.shared::cta`: cp.async and st.shared write through the
    generic proxy, wgmma reads through the async proxy; a writer fences after
    its writes land and before the barrier that lets wgmma read them.
  }];
  let assemblyFormat = "attr-dict";
}

def TileGPU_LocalAllocOp : TileGPU_Op<"local_alloc", [MemoryEffects<[MemAlloc<SharedMemoryResource>]>]> {
  let summary = "a buffer in shared memory (offset given by tilegpu-allocate-shared)";
  let arguments = (ins OptionalAttr<I64Attr>:$offset);
  let results = (outs TileGPU_MemDescType:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
}

def TileGPU_LocalLoadOp : TileGPU_Op<"local_load", [MemoryEffects<[MemRead<SharedMemoryResource>]>]> {
  let summary = "a tile read from a shared buffer (stage `stage` of a multi-buffer)";
  let arguments = (ins TileGPU_MemDescType:$buffer, Optional<Index>:$stage);
  let results = (outs TileGPU_Tensor:$result);
  let assemblyFormat = [{
    $buffer (`[` $stage^ `]`)? attr-dict `:` qualified(type($buffer)) `->` type($result)
  }];
  let hasVerifier = 1;
}

def TileGPU_LocalStoreOp : TileGPU_Op<"local_store", [MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "a tile written into a shared buffer";
  let arguments = (ins TileGPU_Tensor:$value, TileGPU_MemDescType:$buffer, Optional<Index>:$stage);
  let assemblyFormat = [{
    $value `,` $buffer (`[` $stage^ `]`)? attr-dict `:` type($value) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def TileGPU_AsyncCopyOp : TileGPU_Op<"async_copy", [AttrSizedOperandSegments,
    MemoryEffects<[MemRead<DefaultResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "cp.async of a slice of a global tensor into a shared buffer";
  let description = [{
    The slice is that of `tile.load` (offsets, extents, lens, masked,
    squeezed); elements past a masked extent are written as zero. Completes
    in commit groups: `tilegpu.async_commit_group` closes one,
    `tilegpu.async_wait {pending = N}` waits until at most N are in flight.
  }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$ptr, Variadic<Index>:$offsets, Variadic<Index>:$extents,
                       TileGPU_MemDescType:$buffer, Optional<Index>:$stage,
                       DenseI64ArrayAttr:$lens, DenseBoolArrayAttr:$masked, DenseBoolArrayAttr:$squeezed);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `extents` `[` $extents `]` `into` $buffer (`[` $stage^ `]`)? attr-dict
    `:` qualified(type($ptr)) `,` qualified(type($buffer))
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaCopyOp : TileGPU_Op<"tma_copy", [
    MemoryEffects<[MemRead<DefaultResource>, MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "TMA of a slice of a global tensor into a ring stage, completing on an mbarrier";
  let description = [{
    `%map` is a kernel argument: the TMA tensor map (a device pointer to its 128
    bytes) that the runtime encodes over one tensor (the kernel's `tilegpu.tma`
    entry says which, with the box and the swizzle). The slice starts at
    `offsets` (one per dimension of the tensor); `squeezed` marks the
    dimensions the tile drops (box 1); the tile is the buffer's stage, 2-D and
    swizzled as wgmma reads it, so a tile wider than the swizzle's row is
    copied as one box per column block. Elements past the tensor's extents
    are written as zero by the hardware, so masks cost nothing.

    One thread, `issuer`, does it all: `mbarrier.arrive.expect_tx` on
    `barriers[barrierStage]` with the stage's bytes, then the copies, whose
    bytes complete that barrier's phase. A full barrier therefore counts one
    arrival per `tma_copy` into its stage.
  }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$map, Variadic<Index>:$offsets,
                       TileGPU_MemDescType:$buffer, Index:$stage, TileGPU_MemDescType:$barriers, Index:$barrierStage,
                       DenseBoolArrayAttr:$squeezed, DefaultValuedAttr<I64Attr, "0">:$issuer);
  let assemblyFormat = [{
    $map `[` $offsets `]` `into` $buffer `[` $stage `]` `on` $barriers `[` $barrierStage `]` attr-dict
    `:` qualified(type($map)) `,` qualified(type($buffer)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaStoreOp : TileGPU_Op<"tma_store", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<DefaultResource>]>]> {
  let summary = "TMA of a 2-D shared buffer into a slice of a global tensor, in one bulk group";
  let description = [{
    The converse of `tilegpu.tma_copy`, for an epilogue: `%buffer` holds the
    tile in the swizzled layout TMA reads (a tile wider than the swizzle's row
    as one box per column block), and `%map` is the kernel argument holding
    the tensor map of the destination (the kernel's `tilegpu.tma` entry). One
    thread, `issuer`, starts one `cp.async.bulk.tensor` per box and commits
    them as one bulk group. Elements past the tensor's extents are not
    written, the masks' semantics. The threads that wrote the buffer must have
    fenced their writes for the async proxy and met at a barrier first, and
    the buffer may be written again only after `tilegpu.tma_store_wait`.
  }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$map, Variadic<Index>:$offsets,
                       TileGPU_MemDescType:$buffer, DenseBoolArrayAttr:$squeezed,
                       DefaultValuedAttr<I64Attr, "0">:$issuer);
  let assemblyFormat = [{
    $buffer `into` $map `[` $offsets `]` attr-dict `:` qualified(type($buffer)) `,` qualified(type($map))
  }];
  let hasVerifier = 1;
}

def TileGPU_TmaStoreWaitOp : TileGPU_Op<"tma_store_wait",
    [MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "the issuing thread waits until at most `pending` of its TMA stores still read shared memory";
  let description = [{
    `cp.async.bulk.wait_group.read pending` on thread `issuer` (other threads
    have no bulk groups). Before a buffer a `tilegpu.tma_store` reads is
    written again (then followed by a barrier), and before the kernel returns,
    so that the CTA's shared memory outlives the reads. It writes shared memory
    as far as MLIR knows: an op that only read would be dead to the
    canonicalizer, and the buffer would be overwritten under the store.
  }];
  let arguments = (ins DefaultValuedAttr<I64Attr, "0">:$pending, DefaultValuedAttr<I64Attr, "0">:$issuer);
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncCommitGroupOp : TileGPU_Op<"async_commit_group"> {
  let summary = "closes the group of async copies issued since the last one";
  let assemblyFormat = "attr-dict";
}

def TileGPU_AsyncWaitOp : TileGPU_Op<"async_wait"> {
  let summary = "waits until at most `pending` commit groups are in flight";
  let arguments = (ins I32Attr:$pending);
  let assemblyFormat = "attr-dict";
}

def TileGPU_BarrierOp : TileGPU_Op<"barrier"> {
  let summary = "bar.sync of the CTA (placed by tilegpu-insert-barriers)";
  let assemblyFormat = "attr-dict";
}

def TileGPU_MBarrierInitOp : TileGPU_Op<"mbarrier_init", [MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "initializes every mbarrier of a buffer of them to `count` arrivals, then a CTA barrier";
  let description = [{
    `%bars` is a `!tilegpu.memdesc<S x i64>`: S mbarriers, one per stage of
    a ring. One thread initializes them (`mbarrier.init.shared.b64`) and a
    `bar.sync` publishes them before any thread arrives or waits.
  }];
  // `tma`: the barriers' phases are completed by TMA transactions (the async proxy): the
  // initializing thread also fences its inits (`fence.mbarrier_init`) before the bar.sync.
  let arguments = (ins TileGPU_MemDescType:$barriers, I32Attr:$count, UnitAttr:$tma);
  let assemblyFormat = "$barriers `count` $count attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def TileGPU_MBarrierArriveOp : TileGPU_Op<"mbarrier_arrive", [MemoryEffects<[MemWrite<SharedMemoryResource>]>]> {
  let summary = "this thread arrives on mbarrier `stage` (release), or when its cp.asyncs land (`copies`)";
  let description = [{
    Without `copies`: `mbarrier.arrive.shared.b64`, ordering this thread's
    earlier reads and writes before any thread that waits for the phase
    (a consumer releasing a ring stage). With `copies`:
    `cp.async.mbarrier.arrive.noinc.shared.b64`, an arrival made by the
    hardware once every cp.async this thread issued before it has written
    shared memory (a producer publishing a ring stage; the barrier's count
    includes it).
  }];
  let arguments = (ins TileGPU_MemDescType:$barriers, Index:$stage, UnitAttr:$copies);
  let assemblyFormat = "$barriers `[` $stage `]` attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def TileGPU_MBarrierWaitOp : TileGPU_Op<"mbarrier_wait", [
    MemoryEffects<[MemRead<SharedMemoryResource>, MemWrite<SharedMemoryResource>]>]> {
  let summary = "waits until the phase of mbarrier `stage` with parity `parity` has completed (acquire)";
  let description = [{
    `mbarrier.try_wait.parity.shared.b64` in a loop. The phases of a ring
    stage's barrier alternate 0, 1, 0, ...: the n-th use of a stage waits
    for parity n % 2. A freshly initialized barrier counts its phase
    "-1" (parity 1) as complete, so a producer's first wait for a free
    stage passes at once.
  }];
  let arguments = (ins TileGPU_MemDescType:$barriers, Index:$stage, Index:$parity);
  let assemblyFormat = "$barriers `[` $stage `]` `,` $parity attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def TileGPU_WarpSpecializeOp : TileGPU_Op<"warp_specialize", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "the CTA split into consumer warps and a producer warpgroup";
  let description = [{
    Threads [0, consumerThreads) run the `consumer` region (the kernel as
    written, its layouts over those threads), threads [consumerThreads,
    consumerThreads + 128) the `producer` region (the copies of the rings,
    completed on their full mbarriers; its `async_copy`s spread their chunks
    over its 128 threads). Each side first moves its register budget with
    `setmaxnreg` (the producer gives `producerRegs` back, the consumers grow
    to `consumerRegs`), as FlashAttention-3's warp-specialized kernels do.
    CTA barriers inside the consumer region synchronize the consumer threads
    only (a named barrier).
  }];
  let arguments = (ins I32Attr:$consumerThreads, I32Attr:$consumerRegs, I32Attr:$producerRegs);
  let regions = (region SizedRegion<1>:$consumer, SizedRegion<1>:$producer);
  let assemblyFormat = "attr-dict `consumer` $consumer `producer` $producer";
}

def TileGPU_FmaDotOp : TileGPU_Op<"fma_dot", [AttrSizedOperandSegments,
                                               MemoryEffects<[MemRead<SharedMemoryResource>]>,
                                               AllTypesMatch<["acc", "result"]>]> {
  let summary = "D = A·B + C on the FMA units, A and B read from shared buffers";
  let description = [{
    The SIMT policy's dot: every thread computes the accumulator elements its
    layout gives it, reading row i of A and column j of B (row j with
    `transB`, B stored [N, K]) from shared memory, several K steps a vector.
    tilegpu-through-shared makes it from a `tilegpu.dot` in a
    `#tilegpu.blocked` layout, storing the operands into the buffers first;
    an operand that tilegpu-pipeline already copied into a ring is read from
    its stage (`aStage`, `bStage`: the buffer then has a leading stage
    dimension). The operands keep their storage type (f16 K and V of a cache)
    and are widened to the accumulator's as they are read.

    Where the accumulator's layout repeats it over groups of warps (decode's
    one query row over four warps), `partials` (`[R, M, N]` of the
    accumulator's type, R the repeats) splits K between the groups: each sums
    its share, the shares meet in the buffer (between two barriers) and every
    group adds them all, in order, to the accumulator.
  }];
  let arguments = (ins TileGPU_MemDescType:$a, Optional<Index>:$aStage, TileGPU_MemDescType:$b,
                       Optional<Index>:$bStage, TileGPU_Tensor:$acc, Optional<TileGPU_MemDescType>:$partials,
                       UnitAttr:$transB);
  let results = (outs TileGPU_Tensor:$result);
  let assemblyFormat = [{
    $a (`[` $aStage^ `]`)? `,` $b (`[` $bStage^ `]`)? `,` $acc (`partials` $partials^ `:` qualified(type($partials)))?
    attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `->` type($result)
  }];
  let hasVerifier = 1;
}

#endif // PH_DIALECT_TILEGPU_TILEGPUOPS_TD
