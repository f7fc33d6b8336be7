//===- Interpreter.h - The reference interpreter of kir ---------*- C++ -*-===//
//
// `ph run --target interp`: a tree-walking evaluator of one checked, inlined,
// specialised kernel (kir::Kernel), values held in doubles. It shares no code
// with the MLIR path, so it is the oracle of every numerical test: it computes
// what the language says (docs/language.md, "Precision"): each float operation
// is exact, then rounded once to its type (f16, bf16, f32); `rowsum` adds left
// to right rounding each partial sum; `dot` sums in fp64 and rounds once.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Launch.h"

#include <string>

namespace ph {

class SourceManager;

struct InterpOptions {
  /// When set, errors carry `file:line:col` of the expression or statement.
  const SourceManager *sources = nullptr;
  /// Stop with an error after this many loop iterations in one CTA (0: no
  /// limit); guards tests against a checker bug producing a runaway loop.
  int64_t maxIterations = 0;
};

/// Runs every CTA of args.grid (z, then y, then x, each ascending) on the
/// tensors of `args`, which it reads and writes in place. Masked loads past a
/// tensor read 0 and masked stores past it are skipped; an unmasked access out
/// of range is an error naming the tensor (it means the checker proved
/// something false). Returns "" or an error message.
std::string interpret(const kir::Kernel &k, const LaunchArgs &args,
                      const InterpOptions &options = {});

} // namespace ph
