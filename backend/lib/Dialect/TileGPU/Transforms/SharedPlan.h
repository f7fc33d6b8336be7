//===- SharedPlan.h - The shared memory tilegpu-allocate-shared would give -*- C++ -*-===//
#pragma once

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ph::tilegpu {

/// The CTA's dynamic shared bytes tilegpu-allocate-shared would give `f` (no offsets
/// written), with, when `firstUse` is given, one more buffer of `bytes` (aligned to `align`)
/// first used there that takes the bytes of buffers dead before it and lives to the end, as a
/// `tilegpu.after_dead` buffer does: what a pass asks before it adds such a buffer.
int64_t plannedSharedBytes(mlir::func::FuncOp f, bool reuse, mlir::Operation *firstUse = nullptr, int64_t bytes = 0,
                           int64_t align = 128);

} // namespace ph::tilegpu
