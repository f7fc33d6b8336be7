// std/masks.ph: the score masks of attention, written with `where`, `col_ids` and `row_ids`.
// Every function here is in scope in every file, without an import (the prelude).
// Each lowers to one mask op of the tile dialect (tile.mask_cols, tile.causal_mask), which
// the targets lower without index tiles; the tensor-core path skips it on the blocks it
// leaves unchanged. A mask of another form is an ordinary `where` (docs/language.md).

/// Sets the columns `j >= n` of `s` (`[R, C]`) to `v`, in place: the keys past the end of
/// the last key block, `mask_cols(s, extent(K, 0) - kt, -1.0e30)`.
fn mask_cols(s, n, v) {
  s = where(col_ids(s) < n, s, v)
}

/// Sets `s[i, j]` to `-1.0e30` where `col + j > row + i`, in place: the query at row
/// `row + i` does not see the keys after it. `row` is the block's first query and `col`
/// the key block's first key: `causal_mask(s, row, kt)`.
fn causal_mask(s, row, col) {
  s = where(col + col_ids(s) <= row + row_ids(s), s, -1.0e30)
}
