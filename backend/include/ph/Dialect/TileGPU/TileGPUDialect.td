//===- TileGPUDialect.td - The TileGPU dialect: tiles with GPU layouts -----===//
//
// The GPU half of the backend works on tile IR whose tile values carry a
// layout as their tensor encoding: which thread of the CTA holds which
// element. SIMT, mma.sync and (next) wgmma are policies that choose these
// layouts (tilegpu-assign-layouts); the passes after it (shared-memory
// allocation, pipelining, barriers) and the lowering to NVVM read the
// layouts, never the policy. Triton's TritonGPU dialect is the model.
//
//===----------------------------------------------------------------------===//
#ifndef PH_DIALECT_TILEGPU_TILEGPUDIALECT_TD
#define PH_DIALECT_TILEGPU_TILEGPUDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def TileGPU_Dialect : Dialect {
  let name = "tilegpu";
  let cppNamespace = "::ph::tilegpu";
  let summary = "Tiles placed on a GPU: layouts, shared memory, async copies, barriers";
  let description = [{
    Layout attributes (`#tilegpu.blocked`, `#tilegpu.mma`, `#tilegpu.dot_op`)
    are the encodings of tile tensors; `#tilegpu.shared` describes a
    shared-memory buffer (`!tilegpu.memdesc`). See docs/backend.md.
  }];
  let useDefaultAttributePrinterParser = 1;
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::ph::tile::TileDialect", "::mlir::arith::ArithDialect"];
  // What the GPU passes leave on functions and ops for the passes and the
  // lowering after them. Registered, one name and one type each, as the tile
  // dialect's are: the code spells them through the constants of
  // TileGPUDialect.h and the verifier (verifyOperationAttribute in
  // TileGPUDialect.cpp) refuses an unknown, mistyped or misplaced `tilegpu.*`
  // attribute, where a reader would otherwise fall back to a default.
  let discardableAttrs = (ins
    // On the kernel: the layout policy assign-layouts chose ("simt", "mma", "wgmma").
    "::mlir::StringAttr":$policy,
    // On the kernel: dynamic shared memory of the CTA in bytes (allocate-shared).
    "::mlir::IntegerAttr":$shared_bytes,
    // On the kernel, warp-specialised by pipeline: the consumer warps' threads (i32)
    // and the CTA's threads, consumers and producers together (i32).
    "::mlir::IntegerAttr":$consumer_threads,
    "::mlir::IntegerAttr":$launch_threads,
    // On the kernel: the CTAs per SM its registers are fitted to (i32 in [1, 32]; ptxas's
    // .minnctapersm). tilegpu-pipeline sets it for a loop of vector dots it streams by
    // registers; otherwise only PH_TILEGPU_MIN_CTAS does, for measurements: 3 CTAs of mma.sync
    // attention were slower than ptxas's own choice (docs/tilegpu.md, "A fourth stage").
    "::mlir::IntegerAttr":$min_ctas,
    // On an scf.for of vector FMA dots that tilegpu-pipeline left to registers: the 32-bit
    // registers a thread (i64 in [1, 255]) tilegpu-prefetch-loads may carry for its blocks
    // (the pipeline's vector-dot-regs, which it counted them in); prefetch-loads removes it.
    "::mlir::IntegerAttr":$vector_dot_regs,
    // On an async_copy of the producer: its threads (i64 > 0) and the first of them (i64 >= 0).
    "::mlir::IntegerAttr":$threads,
    "::mlir::IntegerAttr":$thread_base,
    // On a local_load or local_store: the part of the buffer (or of one ring stage)
    // it reads or writes, an offset per dimension (>= 0) and the dimensions dropped.
    "::mlir::DenseI64ArrayAttr":$window,
    "::mlir::DenseBoolArrayAttr":$squeezed,
    // On a tile.load, tile.store or async_copy (TileGPUToNVVM): a number (>= 1) the
    // last dimension's offset and extent are multiples of.
    "::mlir::IntegerAttr":$divisibility,
    // On the kernel (pipeline, TMA rings): the TMA tensor maps its trailing `!tile.ptr<i8>`
    // arguments are, in order, one dictionary each: {tensor: i64 (the tensor argument),
    // box: array<i64> (per tensor dimension), swizzle: i64 (0, 32, 64 or 128 bytes)}.
    // ph build copies them into the manifest's `tma`; the runtime encodes the maps.
    "::mlir::ArrayAttr":$tma,
    // On the kernel (the GPU target, from the manifest's grid): how the grid follows from the
    // sizes, per axis x, y, z four i64: from-size (0 or 1), the size's index, its divisor and the
    // constant extent (docs/abi.md, "The grid"). tilegpu-persistent reads it.
    "::mlir::DenseI64ArrayAttr":$grid,
    // On the scf.for tilegpu-persistent wraps a kernel's body in: the loop over the grid's
    // linear tile ids, this CTA's first to the grid's size, a CTA count apart.
    "::mlir::UnitAttr":$tile_loop,
    // On a local_alloc (tilegpu-tma-store's epilogue buffer): the buffer may take the bytes
    // of buffers whose live ranges end before its first use, which a barrier precedes; it
    // lives to the kernel's end (a TMA store reads it asynchronously).
    "::mlir::UnitAttr":$after_dead
  );
  let hasOperationAttrVerify = 1;
}

class TileGPU_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<TileGPU_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class TileGPU_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<TileGPU_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

class TileGPU_Op<string mnemonic, list<Trait> traits = []>
    : Op<TileGPU_Dialect, mnemonic, traits>;

#endif // PH_DIALECT_TILEGPU_TILEGPUDIALECT_TD
