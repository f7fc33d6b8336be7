//===- TileDialect.td - The tile dialect's definition and types ------------===//
//
// The target-independent form of one specialised Ph kernel. Tile values are
// builtin ranked tensors (`tensor<64x32xf32>`); global tensors are kernel
// arguments of type `!tile.ptr<T>` (row-major, contiguous), whose extents
// travel with each load and store. Elementwise math uses arith/math on
// tensors of equal shape; control flow is scf.for with iter_args.
//
//===----------------------------------------------------------------------===//
#ifndef PH_DIALECT_TILE_TILEDIALECT_TD
#define PH_DIALECT_TILE_TILEDIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::ph::tile";
  let summary = "Tiles of a Ph kernel: masked loads and stores, dot, reductions";
  let description = [{
    One function per kernel. Tiles are values of builtin `tensor` type with
    static extents; global tensors are `!tile.ptr<T>` arguments. See
    docs/backend.md for the op reference and the lowering pipelines.
  }];
  let useDefaultTypePrinterParser = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
}

class Tile_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<Tile_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def Tile_PtrType : Tile_Type<"Ptr", "ptr"> {
  let summary = "a global tensor: a pointer to row-major contiguous elements";
  let description = [{
    `!tile.ptr<f16>` points at the first element of a kernel's tensor
    parameter. The extents are not part of the type: loads and stores take
    them as index operands, so one type serves every size.
  }];
  let parameters = (ins "::mlir::Type":$elementType);
  let assemblyFormat = "`<` $elementType `>`";
}

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

#endif // PH_DIALECT_TILE_TILEDIALECT_TD
