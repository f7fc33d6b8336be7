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
  // The kernel's facts that travel on its function (and on the gpu.func or
  // llvm.func it becomes). Registered here, one name and one type each, so the
  // code reads them through the generated helpers (TileDialect::ThreadsAttrHelper
  // ::getNameStr(), ...) and the verifier refuses an unknown or mistyped `tile.*`
  // attribute (verifyOperationAttribute in TileDialect.cpp) instead of a pass
  // silently reading a default.
  let discardableAttrs = (ins
    // `@launch(threads)`: threads per CTA, a multiple of 32 in [32, 1024].
    "::mlir::IntegerAttr":$threads,
    // `@launch(...)` was written: `threads` is the user's, not a default a target may change.
    "::mlir::UnitAttr":$launch,
    // `@tensorcore`: the kernel asks for the tensor cores.
    "::mlir::UnitAttr":$tensorcore,
    // `@aligned(N = B)`: per function argument, a number it is a multiple of (1: nothing known).
    "::mlir::DenseI64ArrayAttr":$divisibility,
    // Dynamic shared memory of the CTA in bytes, from allocate-shared (tilegpu.shared_bytes).
    "::mlir::IntegerAttr":$shared_bytes
  );
  let hasOperationAttrVerify = 1;
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
