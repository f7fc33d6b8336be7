//===- TileOps.td - The tile dialect's operations --------------------------===//
#ifndef PH_DIALECT_TILE_TILEOPS_TD
#define PH_DIALECT_TILE_TILEOPS_TD

include "ph/Dialect/Tile/TileDialect.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

def Tile_Tile : RankedTensorOf<[AnyFloat, AnySignlessInteger]>;
def Tile_Tile2D : 2DTensorOf<[AnyFloat, AnySignlessInteger]>;

def Tile_BlockIdOp : Tile_Op<"block_id", [Pure]> {
  let summary = "the CTA's index along one grid axis (`ctx.block.x|y|z`)";
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<2>]>:$axis);
  let results = (outs I32:$result);
  let assemblyFormat = "$axis attr-dict";
}

// Slices of a global tensor. One offset, extent, length, mask flag and squeeze
// flag per tensor dimension: `X[t :+ 8, :, 0]` over [T, 64, 2] reads lens
// [8, 64, 1] with the last dimension squeezed, giving tensor<8x64xf32>.
class Tile_SliceAccess<string mnemonic, list<Trait> traits = []>
    : Tile_Op<mnemonic, !listconcat(traits, [AttrSizedOperandSegments])> {
  code sliceDecls = [{
    /// Tile shape: `lens` without the squeezed dimensions.
    llvm::SmallVector<int64_t> getTileShape();
  }];
}

def Tile_LoadOp : Tile_SliceAccess<"load"> {
  let summary = "masked load of a slice of a global tensor";
  let description = [{
    Reads `tensor[offsets[d] + i_d]` for i_d in [0, lens[d]) along each
    dimension d. Along a dimension whose `masked` flag is set, elements at or
    past `extents[d]` read as zero; along the others the slice is known to
    stay inside (a static extent, or `@aligned`) and no check is made.
    Squeezed dimensions (an integer index in the source) have length 1 and
    are dropped from the result.

    ```mlir
    %q = tile.load %Q[%row, %c0] extents [%Nq, %c64]
           {lens = array<i64: 64, 64>, masked = array<i1: false, false>,
            squeezed = array<i1: false, false>}
           : !tile.ptr<f16> -> tensor<64x64xf16>
    ```
  }];
  let arguments = (ins Arg<Tile_PtrType, "", [MemRead]>:$ptr,
                       Variadic<Index>:$offsets, Variadic<Index>:$extents,
                       DenseI64ArrayAttr:$lens, DenseBoolArrayAttr:$masked,
                       DenseBoolArrayAttr:$squeezed);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $ptr `[` $offsets `]` `extents` `[` $extents `]` attr-dict `:` qualified(type($ptr)) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = sliceDecls;
}

def Tile_StoreOp : Tile_SliceAccess<"store"> {
  let summary = "masked store of a tile into a slice of a global tensor";
  let description = [{
    The converse of `tile.load`: elements that fall at or past the extent of
    a masked dimension are not written. The value's element type is the
    tensor's (narrowing is an explicit `tile.convert` before the store).
  }];
  let arguments = (ins Tile_Tile:$value, Arg<Tile_PtrType, "", [MemWrite]>:$ptr,
                       Variadic<Index>:$offsets, Variadic<Index>:$extents,
                       DenseI64ArrayAttr:$lens, DenseBoolArrayAttr:$masked,
                       DenseBoolArrayAttr:$squeezed);
  let assemblyFormat = [{
    $value `,` $ptr `[` $offsets `]` `extents` `[` $extents `]` attr-dict `:` type($value) `,` qualified(type($ptr))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = sliceDecls;
}

def Tile_ExtractOp : Tile_Op<"extract", [Pure]> {
  let summary = "a slice of a tile (a copy)";
  let description = [{
    `x[:, 0 :+ 32]` of a tile: `lens[d]` elements from `offsets[d]` along
    each dimension, squeezed dimensions (length 1) dropped. The slice must
    lie inside the source; offsets are checked when they are constants.
  }];
  let arguments = (ins Tile_Tile:$source, Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$lens, DenseBoolArrayAttr:$squeezed);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $source `[` $offsets `]` attr-dict `:` type($source) `->` type($result)
  }];
  let hasVerifier = 1;
}

def Tile_InsertOp : Tile_Op<"insert", [Pure, AllTypesMatch<["dest", "result"]>]> {
  let summary = "a tile with a slice replaced (`x[slices] = v`)";
  let arguments = (ins Tile_Tile:$value, Tile_Tile:$dest, Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$lens, DenseBoolArrayAttr:$squeezed);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = [{
    $value `into` $dest `[` $offsets `]` attr-dict `:` type($value) `into` type($dest)
  }];
  let hasVerifier = 1;
}

def Tile_DotOp : Tile_Op<"dot", [Pure]> {
  let summary = "matrix product [M,K]·[K,N] (or [M,K]·[N,K]ᵀ with `transB`)";
  let description = [{
    Products are accumulated in the result's element type (the accumulator
    type): operands narrower than it are widened first, and accumulation
    starts at zero (`acc += dot(a, b)` is an `arith.addf` of the result).
    ```mlir
    %s = tile.dot %q, %k {transB} : tensor<64x64xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
    ```
  }];
  let arguments = (ins Tile_Tile2D:$a, Tile_Tile2D:$b,
                       UnitAttr:$transB);
  let results = (outs Tile_Tile2D:$result);
  let assemblyFormat = [{
    $a `,` $b attr-dict `:` type($a) `,` type($b) `->` type($result)
  }];
  let hasVerifier = 1;
}

class Tile_RowReduceOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure, AllElementTypesMatch<["source", "result"]>]> {
  let summary = "row " # what # ": [R, C] -> [R, 1]";
  let arguments = (ins Tile_Tile2D:$source);
  let results = (outs Tile_Tile2D:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}
def Tile_RowMaxOp : Tile_RowReduceOp<"rowmax", "maximum">;
def Tile_RowSumOp : Tile_RowReduceOp<"rowsum", "sum">;

def Tile_RowArgMaxOp : Tile_Op<"rowargmax", [Pure]> {
  let summary = "the column of each row's maximum: [R, C] -> [R, 1] i32";
  let description = [{
    `rowargmax(x)`, one reduction of (value, column) pairs: the least column
    holding the row's maximum, or its first NaN (numpy's `argmax`). The
    combination is associative and commutative (larger value first, NaN above
    every number, then the smaller column), so any order of combining, a
    thread's registers and then butterfly shuffles, gives the same index.
  }];
  let arguments = (ins 2DTensorOf<[AnyFloat, I32]>:$source);
  let results = (outs 2DTensorOf<[I32]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

class Tile_ColReduceOp<string mnemonic, string what>
    : Tile_Op<mnemonic, [Pure, AllElementTypesMatch<["source", "result"]>]> {
  let summary = "column " # what # ": [R, C] -> [1, C]";
  let description = [{
    `colsum(x)`, `colmax(x)`. The CPU target and the interpreter add each
    column top to bottom; the GPU lowering combines a thread's rows, then the
    lanes along the rows with shuffles (tilegpu-assign-layouts keeps the
    rows of a reduced column in one warp).
  }];
  let arguments = (ins Tile_Tile2D:$source);
  let results = (outs Tile_Tile2D:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}
def Tile_ColMaxOp : Tile_ColReduceOp<"colmax", "maximum">;
def Tile_ColSumOp : Tile_ColReduceOp<"colsum", "sum">;

def Tile_BroadcastOp : Tile_Op<"broadcast", [Pure, AllElementTypesMatch<["source", "result"]>]> {
  let summary = "[R,1] or [1,C] repeated to [R,C] (extent-1 dimensions stretch)";
  let arguments = (ins Tile_Tile:$source);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

def Tile_SplatOp : Tile_Op<"splat", [Pure,
    TypesMatchWith<"element type matches the scalar", "result", "value",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "a tile with every element equal to a scalar";
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$value);
  let results = (outs Tile_Tile:$result);
  let assemblyFormat = "$value attr-dict `:` type($result)";
}

def Tile_MaskColsOp : Tile_Op<"mask_cols", [Pure, AllTypesMatch<["source", "result"]>,
    TypesMatchWith<"value has the element type", "source", "value",
                   "::llvm::cast<::mlir::RankedTensorType>($_self).getElementType()">]> {
  let summary = "`mask_cols(s, n, v)`: columns j >= n set to v";
  let description = [{
    Canonicalization drops it where no column can reach `n`: `n = ub - iv` for the induction
    variable of an `scf.for` up to `ub` whose lower bound (a constant at least 0) and `ub` are
    multiples of its constant step, as wide as the tile or wider (a key loop over `@aligned`
    keys: every block but none is whole, and there is no partial last one).
  }];
  let arguments = (ins Tile_Tile2D:$source, I32:$n, AnyTypeOf<[AnyFloat, AnySignlessInteger]>:$value);
  let results = (outs Tile_Tile2D:$result);
  let assemblyFormat = "$source `,` $n `,` $value attr-dict `:` type($source)";
  let hasCanonicalizeMethod = 1;
}

def Tile_CausalMaskOp : Tile_Op<"causal_mask", [Pure, AllTypesMatch<["source", "result"]>]> {
  let summary = "`causal_mask(s, row, col)`: s[i, j] = -1.0e30 where col + j > row + i";
  let arguments = (ins 2DTensorOf<[AnyFloat]>:$source, I32:$row, I32:$col);
  let results = (outs 2DTensorOf<[AnyFloat]>:$result);
  let assemblyFormat = "$source `,` $row `,` $col attr-dict `:` type($source)";
}

def Tile_IotaOp : Tile_Op<"iota", [Pure]> {
  let summary = "`row_ids(t)` (dim 0) and `col_ids(t)` (dim 1): each element's index along `dim`";
  let description = [{
    An i32 tile whose element (i, j) holds i (dim = 0) or j (dim = 1). With
    comparisons and `arith.select` it writes any mask of (row, column):
    `kt + col_ids(s) <= row + row_ids(s)` is the causal one.

    ```mlir
    %c = tile.iota 1 : tensor<64x32xi32>
    ```
  }];
  let arguments = (ins ConfinedAttr<I32Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim);
  let results = (outs 2DTensorOf<[I32]>:$result);
  let assemblyFormat = "$dim attr-dict `:` type($result)";
}

def Tile_ConvertOp : Tile_Op<"convert", [Pure]> {
  let summary = "element type conversion; narrowing rounds to nearest even";
  let description = [{
    Between float types (widening is exact, narrowing rounds to nearest
    even, f16 <-> bf16 through f32), and between i32 and floats (float to
    int truncates toward zero and saturates, NaN gives 0).
    Works on scalars and on tiles of one shape (ph/Conversion/ConvertRules.h).
  }];
  let arguments = (ins AnyTypeOf<[AnyFloat, AnySignlessInteger, Tile_Tile]>:$source);
  let results = (outs AnyTypeOf<[AnyFloat, AnySignlessInteger, Tile_Tile]>:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `->` type($result)";
  let hasVerifier = 1;
}

#endif // PH_DIALECT_TILE_TILEOPS_TD
