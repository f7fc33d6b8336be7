//===- ThreadStack.h - A known stack for every thread of ph and ph-lsp -*- C++ -*-===//
//
// A thread's default stack is `ulimit -s` (2 MiB when unlimited): whatever the user's
// shell set. The deepest program the parser's nesting limits accept (ph/Parser.h) needs
// 128-160 KiB, and killed ph-lsp's analysis thread under `ulimit -s 128`. `ph` runs its
// command on a thread of this stack, and ph-lsp's workers get it (docs/reliability.md,
// "Limits"). Defined in Limits.cpp.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>

namespace ph::limits {

/// 50x what the deepest accepted program needs.
inline constexpr size_t kThreadStackBytes = 8ull << 20;

/// Makes kThreadStackBytes the stack of every thread created after the call (the
/// process's default attributes, pthread_setattr_default_np). False when it could not.
bool setThreadStack();

} // namespace ph::limits
