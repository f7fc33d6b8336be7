//===- Features.h - Language features over one immutable snapshot -*- C++ -*-===//
//
// Each feature is a stateless function of a Snapshot (the document's text,
// its line index and its ph::Analysis) and the request's params, returning the
// LSP result in editor terms (UTF-16 ranges, labels, URIs). They run on
// scheduler workers, may run concurrently, and never touch server state; the
// protocol layer (Server.cpp) only routes to them. One feature per file in
// lsp/features/. Each calls checkpoint() between the items it walks (Budget.h), so a
// request cancelled or past its deadline stops there, whatever the file's size.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Budget.h" // checkpoint(): the features' interruption points
#include "Protocol.h"
#include "Scheduler.h"

#include <map>
#include <string>
#include <vector>

namespace ph {
struct Analysis;
struct TypeHint;
struct Diagnostic;
struct SourceRange;
class SourceFile;
} // namespace ph

namespace ph::lsp {

/// Per-item reads of the incremental analysis (IncrementalAnalyzer::Result): a
/// feature that only needs some items' facts reads them here while the whole
/// analysis of the version is not built, so an edit costs it the items it asks for.
struct ItemFacts {
  std::function<std::vector<TypeHint>(uint32_t from, uint32_t to)> typeHints;
};

/// What the client told us it can do, and settings that shape results.
struct FeatureOptions {
  bool snippets = true;            // completionItem.snippetSupport
  bool markdown = true;            // hover contentFormat includes markdown
  bool relatedInformation = true;  // publishDiagnostics.relatedInformation
  /// Per-kernel figures from the last compile (ptxas), keyed by kernel name:
  /// shown in the kernel's hover and lens.
  std::map<std::string, std::string> compileFigures;
  /// Where the tiles of the last compile's `@tensorcore` kernels live ("registers" or
  /// "shared memory"), by the canonical path of their source file and 1-based line:
  /// shown in the hover of that line.
  std::map<std::string, std::map<uint32_t, std::vector<std::string>>> tilePlacements;
  /// Where "Run" will execute, for the lens titles: "CPU", "GPU", "H200", "interpreter".
  std::string runTarget = "GPU";
};

/// The URI of a file of the analysis: the document's own for the main file.
std::string uriOf(const Snapshot &s, const SourceFile &file, bool isMain);
/// An LSP Location for a range in any file of the analysis.
json location(const Snapshot &s, const SourceRange &r);
/// The byte offset of `params.position` in the document.
uint32_t offsetOf(const Snapshot &s, const json &params);

// Diagnostics.cpp
/// The document's diagnostics, exactly those of `ph check`, grouped by URI
/// (the document first). A diagnostic inside a std file whose note points at a
/// call in the document is shown at that call; other diagnostics of std files
/// are published under their own URIs.
std::vector<std::pair<std::string, json>> diagnostics(const Snapshot &s, const FeatureOptions &o);
/// Adds a build's diagnostics (`ph build`'s, LSP shape) to the analysis's `into`, as one
/// source (`ph`): one with the code and start line of a diagnostic already there is left
/// out, so a shape error is listed once, not once per producer.
void mergeBuildDiagnostics(json &into, const json &build);
json toLsp(const Snapshot &s, const Diagnostic &d, const FeatureOptions &o);

// One function per request.
json hover(const Snapshot &s, const json &params, const FeatureOptions &o);
json definition(const Snapshot &s, const json &params);
json references(const Snapshot &s, const json &params);
json documentHighlight(const Snapshot &s, const json &params);
json prepareRename(const Snapshot &s, const json &params);
/// Throws RpcError when the symbol cannot be renamed or the name is invalid.
json rename(const Snapshot &s, const json &params);
json documentSymbol(const Snapshot &s, const json &params);
json completion(const Snapshot &s, const json &params, const FeatureOptions &o);
json signatureHelp(const Snapshot &s, const json &params);
json semanticTokens(const Snapshot &s, const json &params);
json semanticTokensLegend();
json inlayHint(const Snapshot &s, const json &params);
json foldingRange(const Snapshot &s, const json &params);
json codeAction(const Snapshot &s, const json &params, const FeatureOptions &o);
json codeLens(const Snapshot &s, const json &params, const FeatureOptions &o);

/// The kernel whose declaration contains `offset`, or the only kernel, or "".
std::string kernelAt(const Snapshot &s, uint32_t offset);

} // namespace ph::lsp
