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
#include <optional>
#include <string>
#include <vector>

namespace ph {
struct Analysis;
struct TypeHint;
struct KernelSummary;
struct Diagnostic;
struct SourceRange;
class SourceFile;
} // namespace ph

namespace ph::lsp {

/// Per-item reads of the incremental analysis (IncrementalAnalyzer::Result): a
/// feature that only needs some items' facts reads them here while the whole
/// analysis of the version is not built, so an edit costs it the items it asks for.
struct ItemCache;
struct ItemFacts {
  std::function<std::vector<TypeHint>(uint32_t from, uint32_t to)> typeHints;
  /// The analysis of the items overlapping [from, to] (IncrementalAnalyzer::Result::slice).
  std::function<std::shared_ptr<const Analysis>(uint32_t from, uint32_t to, const std::function<bool()> &stop)> slice;
  /// The version's items, in document order; an item's identity stays while its facts do.
  struct Span {
    uint32_t begin = 0, end = 0;
    std::shared_ptr<const void> identity, typedBy;
  };
  std::shared_ptr<const std::vector<Span>> spans;
  /// What full-document features derived from each item, across versions (Items.cpp).
  std::shared_ptr<ItemCache> cache;
};

// Items.cpp: per-item reads (issue 21).
/// `s` with the analysis of the items overlapping [from, to] only, when the whole
/// analysis is not built yet; else `s` itself. Building it is an interruption point.
Snapshot sliceOf(const Snapshot &s, uint32_t from, uint32_t to);
/// A feature's entries, one at a time (a full-document answer is never held whole).
using EmitEntry = std::function<void(json entry)>;
/// A full-document feature item by item, each item computed on its own slice, which is
/// dropped before the next (so the version's whole analysis is never built): `compute`
/// emits the item's entries in document lines; `lineOf` says where an entry starts
/// (entries outside the item are dropped: a slice also holds the symbols of the fns it
/// calls). With the per-document ItemCache (ServerOptions::itemCache), an item seen
/// before under `variant` (options that shape the result) gives back its earlier entries
/// instead, kept counted from the item's first line and moved by `shift`. `sink` gets
/// every entry in document order. Returns false, emitting nothing, when the version has
/// no items (it went through the whole analysis) or its whole analysis is built already:
/// read that then.
bool eachItemEntry(const Snapshot &s, const std::string &feature, const std::string &variant,
                   const std::function<void(const Snapshot &item, const EmitEntry &emit)> &compute,
                   const std::function<int64_t(const json &entry)> &lineOf,
                   const std::function<void(json &entry, int64_t lines)> &shift, const EmitEntry &sink);
/// A result written as JSON text (Reply::raw): the large full-document answers.
struct JsonText {
  std::string text;
};
/// Writes a JSON array one element at a time, as json::dump would write the whole.
class JsonArrayWriter {
public:
  JsonArrayWriter() { text_.push_back('['); }
  void add(const json &e) {
    if (text_.size() > 1) text_.push_back(',');
    text_ += e.dump(-1, ' ', false, json::error_handler_t::replace);
  }
  JsonText finish() {
    text_.push_back(']');
    return {std::move(text_)};
  }

private:
  std::string text_;
};
/// Adds `lines` to the `line` of a range's start and end (documentSymbol, codeLens).
void shiftRange(json &range, int64_t lines);

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

// One function per request. The full-document ones also write their answer as text
// (`...Text`, what the server sends); the json ones parse it back (tests).
json hover(const Snapshot &s, const json &params, const FeatureOptions &o);
json definition(const Snapshot &s, const json &params);
json references(const Snapshot &s, const json &params);
json documentHighlight(const Snapshot &s, const json &params);
json prepareRename(const Snapshot &s, const json &params);
/// Throws RpcError when the symbol cannot be renamed or the name is invalid.
json rename(const Snapshot &s, const json &params);
json documentSymbol(const Snapshot &s, const json &params);
JsonText documentSymbolText(const Snapshot &s, const json &params);
json completion(const Snapshot &s, const json &params, const FeatureOptions &o);
json signatureHelp(const Snapshot &s, const json &params);
json semanticTokens(const Snapshot &s, const json &params);
JsonText semanticTokensText(const Snapshot &s, const json &params);
json semanticTokensLegend();
json inlayHint(const Snapshot &s, const json &params);
json foldingRange(const Snapshot &s, const json &params);
JsonText foldingRangeText(const Snapshot &s, const json &params);
json codeAction(const Snapshot &s, const json &params, const FeatureOptions &o);
json codeLens(const Snapshot &s, const json &params, const FeatureOptions &o);
JsonText codeLensText(const Snapshot &s, const json &params, const FeatureOptions &o);

/// The kernel whose declaration contains `offset`, or the only kernel, or "".
std::string kernelAt(const Snapshot &s, uint32_t offset);
/// A kernel's threads per CTA for hover (`markdown`) and code lens: `128`, or
/// `T` = 128, 256 for `@launch(T)`.
std::string threadsText(const KernelSummary &k, bool markdown);

} // namespace ph::lsp
