//===- Builtins.cpp - The registry of builtins and decorators ---------------===//
//
// One entry per builtin (see ph/Builtins.h): the resolver, the elaborator,
// hover, completion, signature help, the interpreter and the tile-dialect
// emitter read it. std functions are documented by their own `///` comments.
//
//===----------------------------------------------------------------------===//
#include "ph/Builtins.h"
#include "ph/Analysis.h"

#include <cmath>
#include <deque>
#include <string>
#include <unordered_map>

namespace ph {
namespace {

using K = BuiltinKind;
using kir::Op;

Builtin fn(const char *name, const char *sig, const char *doc, K kind, int minArgs, int maxArgs, Op op = Op::None,
           double (*eval)(double) = nullptr, const char *mlirOp = nullptr) {
  return Builtin{name, sig, doc, false, kind, minArgs, maxArgs, op, eval, mlirOp, -1, Elem::F32};
}
Builtin unary(const char *name, const char *doc, Op op, double (*eval)(double), const char *mlirOp) {
  static std::deque<std::string> sigs; // stable storage for "name(x)"
  sigs.push_back(std::string(name) + "(x)");
  return fn(name, sigs.back().c_str(), doc, K::Unary, 1, 1, op, eval, mlirOp);
}
Builtin decorator(const char *name, const char *sig, const char *doc) {
  return Builtin{name, sig, doc, true, K::Decorator, 0, 0, Op::None, nullptr, nullptr, -1, Elem::F32};
}

double fExp(double x) { return std::exp(x); }
double fExp2(double x) { return std::exp2(x); }
double fLog(double x) { return std::log(x); }
double fLog2(double x) { return std::log2(x); }
double fSqrt(double x) { return std::sqrt(x); }
double fRsqrt(double x) { return 1.0 / std::sqrt(x); }
double fTanh(double x) { return std::tanh(x); }
double fErf(double x) { return std::erf(x); }
double fSin(double x) { return std::sin(x); }
double fCos(double x) { return std::cos(x); }
double fFloor(double x) { return std::floor(x); }

const std::vector<Builtin> &table() {
  static const std::vector<Builtin> kTable = [] {
    std::vector<Builtin> t;
    t.push_back(fn("dot", "dot(a: tile[M, K], b: tile[K, N]) -> tile[M, N]",
                   "Matrix product of two tiles. The accumulator type is the destination's (a declared type, or "
                   "the target of `+=`), else the operands'. Under `@tensorcore` an f32 operand meeting a 16-bit one "
                   "is rounded to 16 bits, as FlashAttention-2 does with P before P·V.",
                   K::Dot, 2, 2));
    t.push_back(fn("dot_t", "dot_t(a: tile[M, K], b: tile[N, K]) -> tile[M, N]",
                   "Matrix product with the second operand transposed: `a · bᵀ`. Use it for scores `q · kᵀ` when the "
                   "key tile is `[BC, D]`. Accumulates like `dot`.",
                   K::Dot, 2, 2));
    t.push_back(fn("rowmax", "rowmax(x: tile[R, C]) -> tile[R, 1]", "The maximum of each row.", K::RowReduce, 1, 1,
                   Op::Max));
    t.push_back(fn("rowsum", "rowsum(x: tile[R, C]) -> tile[R, 1]", "The sum of each row.", K::RowReduce, 1, 1,
                   Op::Sum));
    t.push_back(fn("rowmin", "rowmin(x: tile[R, C]) -> tile[R, 1]", "The minimum of each row.", K::RowReduce, 1, 1,
                   Op::Min));
    t.push_back(fn("rowargmax", "rowargmax(x: tile[R, C]) -> tile<i32>[R, 1]",
                   "The column index of each row's maximum: the first one when it occurs more than once, the "
                   "first NaN when the row holds one (numpy's `argmax`). Greedy sampling: "
                   "`Out[r :+ BR, :] = rowargmax(logits)`.",
                   K::ArgMax, 1, 1));
    t.push_back(fn("colmax", "colmax(x: tile[R, C]) -> tile[1, C]", "The maximum of each column.", K::ColReduce, 1,
                   1, Op::Max));
    t.push_back(fn("colsum", "colsum(x: tile[R, C]) -> tile[1, C]",
                   "The sum of each column (a bias gradient: `colsum(dY)`).", K::ColReduce, 1, 1, Op::Sum));
    auto conv = [&](const char *name, const char *sig, const char *doc, Elem e) {
      Builtin c = fn(name, sig, doc, K::Convert, 1, 1);
      c.elem = e;
      t.push_back(c);
    };
    conv("f32", "f32(x) -> f32", "Converts a scalar or a tile to `f32` (exact from f16 and bf16; an i32 is rounded to "
         "nearest even).", Elem::F32);
    conv("f16", "f16(x) -> f16", "Converts a scalar or a tile to `f16`, rounding to nearest even (too large gives "
         "±inf).", Elem::F16);
    conv("bf16", "bf16(x) -> bf16", "Converts a scalar or a tile to `bf16`, rounding to nearest even.", Elem::BF16);
    conv("i32", "i32(x) -> i32", "Converts a scalar or a tile to `i32`: a float is truncated toward zero and "
         "saturates (NaN gives 0).", Elem::I32);
    t.push_back(fn("tmax", "tmax(a, b)",
                   "Elementwise maximum, broadcasting `[R, 1]`, `[1, C]` or a scalar against `[R, C]`.", K::Binary, 2,
                   2, Op::Max));
    t.push_back(fn("tmin", "tmin(a, b)", "Elementwise minimum, broadcasting like `tmax`.", K::Binary, 2, 2, Op::Min));
    t.push_back(unary("exp", "Elementwise eˣ.", Op::Exp, fExp, "math.exp"));
    t.push_back(unary("exp2", "Elementwise 2ˣ.", Op::Exp2, fExp2, "math.exp2"));
    t.push_back(unary("log", "Elementwise natural logarithm.", Op::Log, fLog, "math.log"));
    t.push_back(unary("log2", "Elementwise base-2 logarithm.", Op::Log2, fLog2, "math.log2"));
    t.push_back(unary("sqrt", "Elementwise square root.", Op::Sqrt, fSqrt, "math.sqrt"));
    t.push_back(unary("rsqrt", "Elementwise 1 / √x.", Op::Rsqrt, fRsqrt, "math.rsqrt"));
    t.push_back(fn("abs", "abs(x)", "Elementwise absolute value (of floats or i32).", K::Unary, 1, 1, Op::Abs));
    t.push_back(unary("tanh", "Elementwise hyperbolic tangent (GELU's tanh form, logit soft-capping).", Op::Tanh,
                      fTanh, "math.tanh"));
    t.push_back(fn("sigmoid", "sigmoid(x)",
                   "Elementwise logistic function `1 / (1 + e⁻ˣ)` (SiLU is `x * sigmoid(x)`).", K::Unary, 1, 1,
                   Op::Sigmoid));
    t.push_back(unary("erf", "Elementwise error function (GELU's exact form: `0.5 * x * (1 + erf(x / √2))`).", Op::Erf,
                      fErf, "math.erf"));
    t.push_back(unary("sin", "Elementwise sine (radians).", Op::Sin, fSin, "math.sin"));
    t.push_back(unary("cos", "Elementwise cosine (radians).", Op::Cos, fCos, "math.cos"));
    t.push_back(unary("floor", "Elementwise largest integer not above x (as a float).", Op::Floor, fFloor,
                      "math.floor"));
    t.push_back(fn("where", "where(c: bool tile, a, b)",
                   "Elementwise select: `a` where `c` holds, else `b`. `c` is a comparison (`s < 0.0`, "
                   "`col_ids(s) + kt <= row_ids(s) + row`); the three broadcast like arithmetic (`[R, 1]`, `[1, C]` "
                   "or a scalar against `[R, C]`). A causal mask: `s = where(kt + col_ids(s) <= row + row_ids(s), s, "
                   "-1.0e30)`.",
                   K::Select, 3, 3));
    Builtin rows = fn("row_ids", "row_ids(t: tile[R, C]) -> tile<i32>[R, C]",
                      "An i32 tile of `t`'s shape holding each element's row index `i` (0 to R - 1).", K::IndexTile,
                      1, 1);
    rows.axis = 0;
    t.push_back(rows);
    Builtin cols = fn("col_ids", "col_ids(t: tile[R, C]) -> tile<i32>[R, C]",
                      "An i32 tile of `t`'s shape holding each element's column index `j` (0 to C - 1).",
                      K::IndexTile, 1, 1);
    cols.axis = 1;
    t.push_back(cols);
    t.push_back(fn("extent", "extent(x, d: int) -> i32",
                   "The extent of dimension `d` of `x`: a tensor's size (known at launch, or a constant) or a tile's "
                   "compile-time extent.",
                   K::Extent, 2, 2));
    t.push_back(fn("range", "range(start, end, step)",
                   "The values `start, start + step, ...` below `end`; drives `for`. `step` is a positive "
                   "compile-time integer.",
                   K::Range, 2, 3));
    t.push_back(decorator("tensorcore", "@tensorcore",
                          "Dot results and every tile computed from them live in the tensor cores' registers "
                          "(mma.sync accumulators) instead of shared memory."));
    t.push_back(decorator("launch", "@launch(threads)",
                          "Threads per CTA (default 128): a multiple of 32, at most 1024; an integer or an "
                          "`@autotune` parameter (`@launch(T)` with `T in [128, 256]`: each variant its count)."));
    t.push_back(decorator("autotune", "@autotune(P in [v, ...], ..., where CONDITION)",
                          "Compile one variant per combination of values; each name is a compile-time constant in "
                          "its variant. `where CONDITION` (any number of them) keeps only the combinations where "
                          "it holds: `@autotune(D in [64, 128], BC in [32, 64], where D * BC == 4096)`; a "
                          "condition uses the parameters and integers with `+ - * / %`, comparisons and "
                          "`&& || !`. `ph bench` times every variant and picks the fastest."));
    t.push_back(decorator("aligned", "@aligned(N = B, ...)",
                          "Promises that size `N` is a multiple of `B`: masks along `N` disappear, and the launch "
                          "refuses sizes that break the promise."));
    t.push_back(decorator("grid", "@grid(x, y, z)",
                          "Gives the grid explicitly (each axis an integer, a size, or `N / B` rounded up), "
                          "overriding inference from `ctx.block` slices."));
    return t;
  }();
  return kTable;
}

} // namespace

const std::vector<Builtin> &allBuiltins() { return table(); }

const Builtin *findBuiltin(std::string_view name) {
  // Called for every name and call the resolver sees: a hash map, not a scan.
  static const std::unordered_map<std::string_view, const Builtin *> byName = [] {
    std::unordered_map<std::string_view, const Builtin *> m;
    for (const Builtin &b : table()) m.emplace(b.name, &b);
    return m;
  }();
  auto it = byName.find(name);
  return it == byName.end() ? nullptr : it->second;
}

const Builtin *findBuiltinFunction(std::string_view name) {
  const Builtin *b = findBuiltin(name);
  return b && !b->isDecorator ? b : nullptr;
}

const Builtin *builtinOfOp(kir::Op op) {
  for (const Builtin &b : table())
    if (b.kind == K::Unary && b.op == op) return &b;
  return nullptr;
}

const BuiltinDoc *findBuiltinDoc(std::string_view name) { return findBuiltin(name); }
const std::vector<BuiltinDoc> &allBuiltinDocs() { return table(); }

} // namespace ph
