//===- IdleCores.h - How many threads a first analysis takes now -*- C++ -*-===//
//
// A document's first analysis is one batch of independent items: on a second core it
// takes about two thirds of the time, but only when that core is free. Two threads that
// share a busy machine's cores with others wait on each other (the malloc arena's lock,
// the batch's last item) and come later than one. So the server counts the tasks the
// kernel has runnable at that moment (/proc/loadavg's fourth field, which counts the
// calling thread) and takes the hardware threads that nothing else wants, at least one.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string_view>

namespace ph::lsp {

/// The runnable tasks of a /proc/loadavg line (`0.52 0.58 0.59 3/437 12345` -> 3);
/// nullopt when the line does not read that way.
std::optional<unsigned> runnableTasks(std::string_view loadavg);

/// Threads for a first analysis: 1 + the hardware threads no runnable task wants
/// (`hardware` - `runnable`, the caller being one of those), at most `most`, at least 1.
unsigned threadsForIdleCores(unsigned most, unsigned hardware, unsigned runnable);

/// threadsForIdleCores with this machine's hardware threads and /proc/loadavg now
/// (1 when it cannot be read: one thread is never slower on a busy machine).
unsigned threadsForIdleCoresNow(unsigned most);

} // namespace ph::lsp
