//===- Builtins.h - The registry of builtins and decorators -----*- C++ -*-===//
//
// One entry per builtin: its name, arity, shape and type rule (the signature
// hover and signature help show), documentation, how the elaborator checks a
// call (its kind and the kir op it builds), the interpreter's fp64 function for
// an elementwise one, and the op the tile-dialect emitter builds for it. The
// resolver, the elaborator, hover, completion, signature help, the interpreter
// and the emitter all read this table; no other list of builtin names exists.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"

#include <string_view>
#include <vector>

namespace ph {

/// How the elaborator checks and builds a call.
enum class BuiltinKind {
  Dot,         // dot, dot_t: [M,K]·[K,N] (or [N,K]ᵀ), accumulating in the destination's type
  RowReduce,   // [R,C] -> [R,1] (op: Max, Sum; Min is written -rowmax(-x))
  ColReduce,   // [R,C] -> [1,C] (op: Max, Sum)
  ArgMax,      // rowargmax: [R,C] -> i32 [R,1], written with rowmax, ==, where and col_ids (KirToTile lowers that to tile.rowargmax)
  Convert,     // f16(x), bf16(x), f32(x), i32(x): explicit element conversion (elem below)
  Unary,       // elementwise, floating point (op; eval and mlirOp below)
  Binary,      // elementwise, broadcasting (op: Max, Min)
  InPlaceMask, // unused: mask_cols and causal_mask are std functions (std/masks.ph)
  Extent,      // extent(x, d)
  Range,       // range(start, end, step): drives `for`
  Select,      // where(c, a, b)
  IndexTile,   // row_ids(t), col_ids(t): i32 tiles of t's shape (axis below)
  Decorator,   // @tensorcore, @launch, ...
};

struct Builtin {
  const char *name;
  const char *signature; // the shape and type rule, as hover and signature help show it
  const char *doc;       // Markdown
  bool isDecorator;
  BuiltinKind kind;
  int minArgs, maxArgs;  // arity (maxArgs == minArgs unless it varies)
  kir::Op op;            // the kir op the elaborator builds, or None
  /// The interpreter's fp64 function (Unary), or nullptr when the elaborator
  /// writes the builtin with other ops (sigmoid(x) = 1 / (1 + exp(-x))).
  double (*eval)(double);
  /// The op the tile-dialect emitter builds for a Unary (a `math` op, applied
  /// elementwise by every lowering), or nullptr.
  const char *mlirOp;
  int axis = -1;         // IndexTile: 0 for rows, 1 for columns
  Elem elem = Elem::F32; // Convert: the target element type
};
/// The former name: hover and completion read the same fields.
using BuiltinDoc = Builtin;

/// The builtin or decorator called `name`, or nullptr.
const Builtin *findBuiltin(std::string_view name);
/// The builtin function (not a decorator) called `name`, or nullptr.
const Builtin *findBuiltinFunction(std::string_view name);
/// Every entry, in the order completion lists them.
const std::vector<Builtin> &allBuiltins();
/// The Unary builtin whose kir op is `op`, or nullptr.
const Builtin *builtinOfOp(kir::Op op);

} // namespace ph
