//===- TileGPUAttrs.td - Layouts of tiles on a GPU -------------------------===//
//
// A layout maps each element of a tile to the threads that hold it. Every
// register layout answers the same question through the layout-indexing
// functions of Layouts.h (for a thread and one of its registers: which
// element), so the elementwise, reduction, mask and store lowerings are
// written once for all of them, as Triton's LinearLayout serves its
// encodings. A tile smaller than a layout's CTA tile is replicated: several
// threads hold the same element (an [R, 1] row vector in an mma layout sits
// in the four lanes of a quad).
//
//===----------------------------------------------------------------------===//
#ifndef PH_DIALECT_TILEGPU_TILEGPUATTRS_TD
#define PH_DIALECT_TILEGPU_TILEGPUATTRS_TD

include "ph/Dialect/TileGPU/TileGPUDialect.td"

def TileGPU_BlockedEncodingAttr : TileGPU_Attr<"BlockedEncoding", "blocked"> {
  let summary = "SIMT: each thread holds sizePerThread contiguous elements, repeated";
  let description = [{
    Along dimension d a thread holds `sizePerThread[d]` consecutive elements;
    `threadsPerWarp[d]` lanes and `warpsPerCTA[d]` warps tile the dimension,
    and the pattern repeats until the tile is covered. `order` lists the
    dimensions fastest first (`[1, 0]`: row-major, lanes along columns).

    ```mlir
    tensor<64x64xf16, #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8],
                                        warpsPerCTA = [4, 1], order = [1, 0]}>>
    ```
  }];
  let parameters = (ins ArrayRefParameter<"unsigned">:$sizePerThread,
                        ArrayRefParameter<"unsigned">:$threadsPerWarp,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TileGPU_MmaEncodingAttr : TileGPU_Attr<"MmaEncoding", "mma"> {
  let summary = "the accumulator layout of the tensor cores' matrix instructions";
  let description = [{
    `version = 2`: mma.sync m16n8k16 (sm_80 and later). `warpsPerCTA` splits
    the tile over warps ([4, 1]: each warp owns a quarter of the rows, as
    FlashAttention-2 wants for its row reductions; [2, 2] for a GEMM), and
    each warp covers its part with `instrShape` = [16, 8] blocks: lane
    (g = lane / 4, t = lane % 4) holds rows g and g + 8, columns 2t and 2t + 1
    of each block. `version = 3`: wgmma (sm_90a), instrShape [64, N].
  }];
  let parameters = (ins "unsigned":$version,
                        ArrayRefParameter<"unsigned">:$warpsPerCTA,
                        ArrayRefParameter<"unsigned">:$instrShape);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TileGPU_DotOperandEncodingAttr : TileGPU_Attr<"DotOperandEncoding", "dot_op"> {
  let summary = "an operand of the tensor cores' matrix instruction, in registers";
  let description = [{
    `opIdx = 0`: the A operand ([M, K]), `opIdx = 1`: B ([K, N]) of a dot
    whose result has layout `parent`. For mma v2 an A fragment is four
    32-bit registers of two 16-bit elements per m16k16 block (what ldmatrix.x4
    gives), a B fragment two per k16n8 block. `kWidth`: 16-bit elements a
    register holds along K (2). `trans = 1` on a B operand: the tile is
    [N, K] (`dot_t`), K along its second dimension.
  }];
  let parameters = (ins "unsigned":$opIdx, "::mlir::Attribute":$parent, "unsigned":$kWidth, "bool":$trans);
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

def TileGPU_SharedEncodingAttr : TileGPU_Attr<"SharedEncoding", "shared"> {
  let summary = "how a tile sits in shared memory: padding or an XOR swizzle";
  let description = [{
    Rows of the tile's last dimension are stored `pad` elements apart beyond
    their length (padding), or, with `maxPhase > 1`, with the 16-byte chunks
    of row r XORed by `(r / perPhase) % maxPhase` (a swizzle: what ldmatrix,
    TMA and wgmma read without bank conflicts). `vec`: elements per chunk.
  }];
  let parameters = (ins "unsigned":$vec, "unsigned":$perPhase, "unsigned":$maxPhase,
                        "unsigned":$pad, ArrayRefParameter<"unsigned">:$order);
  let hasCustomAssemblyFormat = 1;
}

#endif // PH_DIALECT_TILEGPU_TILEGPUATTRS_TD
