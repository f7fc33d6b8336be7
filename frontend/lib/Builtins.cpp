//===- Builtins.cpp - Documentation of builtins and decorators -------------===//
//
// The text shown on hover and in completion for the language's builtins and
// decorators; std functions are documented by their own `///` comments.
//
//===----------------------------------------------------------------------===//
#include "ph/Analysis.h"

#include <string_view>

namespace ph {

static const std::vector<BuiltinDoc> kDocs = {
    {"dot", "dot(a: tile[M, K], b: tile[K, N]) -> tile[M, N]",
     "Matrix product of two tiles. The accumulator type is the destination's (a declared type, or the "
     "target of `+=`), else the operands'. Under `@tensorcore` an f32 operand meeting a 16-bit one is "
     "rounded to 16 bits, as FlashAttention-2 does with P before P·V.",
     false},
    {"dot_t", "dot_t(a: tile[M, K], b: tile[N, K]) -> tile[M, N]",
     "Matrix product with the second operand transposed: `a · bᵀ`. Use it for scores `q · kᵀ` when the "
     "key tile is `[BC, D]`. Accumulates like `dot`.",
     false},
    {"rowmax", "rowmax(x: tile[R, C]) -> tile[R, 1]", "The maximum of each row.", false},
    {"rowsum", "rowsum(x: tile[R, C]) -> tile[R, 1]", "The sum of each row.", false},
    {"tmax", "tmax(a, b)", "Elementwise maximum, broadcasting `[R, 1]`, `[1, C]` or a scalar against `[R, C]`.",
     false},
    {"tmin", "tmin(a, b)", "Elementwise minimum, broadcasting like `tmax`.", false},
    {"exp", "exp(x)", "Elementwise eˣ.", false},
    {"exp2", "exp2(x)", "Elementwise 2ˣ.", false},
    {"log", "log(x)", "Elementwise natural logarithm.", false},
    {"sqrt", "sqrt(x)", "Elementwise square root.", false},
    {"rsqrt", "rsqrt(x)", "Elementwise 1 / √x.", false},
    {"abs", "abs(x)", "Elementwise absolute value.", false},
    {"mask_cols", "mask_cols(s: tile[R, C], n: i32, v: scalar)",
     "Sets the columns `j >= n` of `s` to `v`, in place. Masks the keys past the end of the last block: "
     "`mask_cols(s, extent(K, 0) - kt, -1.0e30)`.",
     false},
    {"causal_mask", "causal_mask(s: tile[R, C], row: i32, col: i32)",
     "Sets `s[i, j]` to `-1.0e30` where `col + j > row + i`, in place: a query at row `row + i` does not "
     "see keys after it.",
     false},
    {"extent", "extent(x, d: int) -> i32",
     "The extent of dimension `d` of `x`: a tensor's size (known at launch, or a constant) or a tile's "
     "compile-time extent.",
     false},
    {"range", "range(start, end, step)",
     "The values `start, start + step, ...` below `end`; drives `for`. `step` is a positive compile-time "
     "integer.",
     false},
    {"tensorcore", "@tensorcore",
     "Dot results and every tile computed from them live in the tensor cores' registers (mma.sync "
     "accumulators) instead of shared memory.",
     true},
    {"launch", "@launch(threads)", "Threads per CTA (default 128): a multiple of 32, at most 1024.", true},
    {"autotune", "@autotune(P in [v, ...], ...)",
     "Compile one variant per combination of values; each name is a compile-time constant in its variant. "
     "`ph bench` times every variant and picks the fastest.",
     true},
    {"aligned", "@aligned(N = B, ...)",
     "Promises that size `N` is a multiple of `B`: masks along `N` disappear, and the launch refuses sizes "
     "that break the promise.",
     true},
    {"grid", "@grid(x, y, z)",
     "Gives the grid explicitly (each axis an integer, a size, or `N / B` rounded up), overriding "
     "inference from `ctx.block` slices.",
     true},
};

const BuiltinDoc *findBuiltinDoc(std::string_view name) {
  for (const BuiltinDoc &d : kDocs)
    if (name == d.name) return &d;
  return nullptr;
}

const std::vector<BuiltinDoc> &allBuiltinDocs() { return kDocs; }

} // namespace ph
