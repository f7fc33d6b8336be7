//===- Limits.h - What one file, one kernel or one run may ask for -*- C++ -*-===//
//
// Small inputs must not ask for unbounded time or memory (issue 20): each limit
// here has a registry diagnostic (E06xx, W0601) or a message naming the limit,
// and is documented in docs/reliability.md ("Limits"). The checks live here so
// that the lexer, resolver, analysis, `ph` and `ph-lsp` call one line each.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ph::limits {

/// Autotune configurations of one kernel (the product of its lists' lengths).
inline constexpr uint64_t kMaxAutotuneConfigs = 1024;
/// The largest product of autotune lists whose `where` conditions are evaluated to count the
/// configurations they keep (at most this many evaluations, a few milliseconds); a larger
/// product is refused whatever its conditions keep.
inline constexpr uint64_t kMaxAutotuneProduct = 65536;
/// Diagnostics shown for one file; the rest are counted in one W0601.
inline constexpr size_t kMaxDiagnostics = 200;
/// Diagnostics a sink keeps while checking (before duplicates are merged).
inline constexpr size_t kMaxStoredDiagnostics = 10 * kMaxDiagnostics;
/// Bytes of a source line quoted under a diagnostic, around its column.
inline constexpr size_t kQuoteWidth = 160;
/// Bytes of one source file (`ph check`, `ph build`, `ph run`, documents in `ph-lsp`).
inline constexpr uint64_t kMaxSourceBytes = 4ull << 20;
/// Bytes of all the tensors one `ph run` / `ph-run` allocates on the host: 32 GiB, so that
/// decode at cache 32,768 with 32 KV heads (K and V 8 GiB each, bench_decode.py) runs.
inline constexpr uint64_t kMaxRunTensorBytes = 32ull << 30;

/// The product of `sizes`, saturating at UINT64_MAX (never materialised).
uint64_t configCount(const std::vector<size_t> &sizes);

/// Reads `path` if it is a regular file (symbolic links followed) of at most
/// `maxBytes`; else sets `err` (naming the path and why) and, when given,
/// `kind` to NotARegularFile, FileTooLarge or Count (cannot be opened). The messages name
/// the file `reportAs` when given (`--source-name`: the user's name for a temporary copy).
bool readRegularFile(const std::string &path, uint64_t maxBytes, std::string &out, std::string &err,
                     DiagKind *kind = nullptr, const std::string &reportAs = "");

/// E0602 for a source text over kMaxSourceBytes (range: its first byte), else nothing.
std::optional<Diagnostic> oversizedSource(const std::string &path, size_t bytes, FileId file);

/// Keeps the first kMaxDiagnostics of `diags` (sorted) and appends one W0601
/// counting the rest (`alsoDropped`/`alsoDroppedErrors`: those a sink never kept).
void capDiagnostics(std::vector<Diagnostic> &diags, FileId mainFile, size_t alsoDropped = 0,
                    size_t alsoDroppedErrors = 0);

/// "1 234 567" (for messages about sizes).
std::string groupDigits(uint64_t v);

} // namespace ph::limits
