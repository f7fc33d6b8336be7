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
