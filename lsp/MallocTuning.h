//===- MallocTuning.h - glibc malloc tunables ph-lsp runs under -*- C++ -*-===//
//
// glibc keeps 7 freed blocks of each small size per thread (its tcache); past that a
// free goes to the arena's bins and is merged, which is a third of a first analysis's
// instructions. A larger per-thread cache is a tunable read once at start-up
// (GLIBC_TUNABLES), not a mallopt, so main.cpp starts ph-lsp again with it set.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <optional>
#include <string>

namespace ph::lsp {

/// The tcache entries per size ph-lsp asks glibc for (glibc's default is 7). First
/// diagnostics of the 5,040-line file: 207.2 M -> 191.4 M instructions, for about
/// 1 MiB of peak RSS (docs/lsp.md, Performance, 2026-12-03 evening).
inline constexpr unsigned kTcacheCount = 64;

/// The GLIBC_TUNABLES value to run under: `existing` (null when unset) with
/// `glibc.malloc.tcache_count=COUNT` appended; nullopt when `existing` already sets the
/// tcache count (the user's choice, or this process already started again with it) or
/// when `count` is 0 (glibc's default wanted).
std::optional<std::string> tunedMallocTunables(const char *existing, unsigned count = kTcacheCount);

} // namespace ph::lsp
