//===- Incremental.h - Item-by-item analysis with a cache ---------*- C++ -*-===//
//
// The language server's analysis of a document, edit after edit. The file is cut
// into items (a kernel or fn with its `///` lines and decorators, up to the next
// one); each item is lexed, parsed, resolved and elaborated (every autotune
// configuration) on its own, against the prelude, the file's fns it calls (std
// included) and the names of the others, and the result is cached under its text
// and those dependencies. An edit re-analyses the items whose text changed and the
// items that call them; the rest comes from the cache. The diagnostics are byte
// for byte those of `analyze` (`ph check`): each item keeps its findings apart by
// phase and they are merged in analyze's order before its sort and de-duplication.
// Whatever the item split cannot reproduce exactly (names declared twice or
// shadowing a builtin or std function, the analysed file being a std file) goes
// through `analyze` whole.
//
// A large first analysis (or an edit of a fn every kernel calls) can run in stages:
// the first configuration of each changed kernel at once (the editor's diagnostics),
// the other configurations on the next call with `allConfigs`. An edit of a fn that
// many kernels call adds a stage before those: the fn and its callers nearest to the
// edit, the other callers keeping their previous check (Result::staleItems).
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Analysis.h"

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace ph {

struct IncrementalStats {
  size_t items = 0;          // items of the last version
  size_t itemsParsed = 0;    // lexed and parsed afresh by the last update
  size_t itemsChecked = 0;   // resolved and elaborated afresh by the last update
  size_t variants = 0;       // kernel configurations elaborated by the last update
  size_t itemsStale = 0;     // shown with their previous check by the last update (Result::staleItems)
  size_t itemsMoved = 0;     // callers whose fns changed only between tokens: previous check moved
  size_t treesReused = 0;    // checked on the tree the lazy update before parsed (not parsed again)
  size_t cachedItems = 0;    // entries kept in the cache
  size_t cacheBytes = 0;     // their approximate size
  bool whole = false;        // the last update went through `analyze` whole
  bool preludeSeeded = false; // each check starts from std's resolution made once (std has no findings)
  size_t inlineHits = 0;     // std fn calls replayed from the inline cache, since the analyzer began
  size_t inlineMisses = 0;   // std fn calls elaborated (and kept when they reported nothing)
  size_t inlineEntries = 0;  // call shapes kept (bounded: InlineCache's capacity)
};

class IncrementalAnalyzer {
public:
  /// `options.cancelled` is ignored (each update takes its own); `specialise` is
  /// forced off (the editor never needs kir::Kernels).
  explicit IncrementalAnalyzer(std::shared_ptr<const Prelude> prelude, AnalyzeOptions options = {});
  ~IncrementalAnalyzer();
  IncrementalAnalyzer(const IncrementalAnalyzer &) = delete;
  IncrementalAnalyzer &operator=(const IncrementalAnalyzer &) = delete;

  struct Result {
    /// The diagnostics, sources, main file and kernels (cheap to build; enough to
    /// publish diagnostics). Null only when cancelled before anything was done.
    std::shared_ptr<const Analysis> diagnostics;
    /// Builds the whole Analysis (symbols, occurrences, types, hints, tokens, the
    /// tree) from this version's cached items; callable from any thread, at any
    /// later time. Null when `diagnostics` already is the whole analysis. It polls
    /// `stop` between items and returns null when that turns true (the editor's
    /// request was cancelled or ran past its deadline); calling it again starts over.
    std::function<std::shared_ptr<const Analysis>(const std::function<bool()> &stop)> materialize;
    /// The type hints (Analysis::typeHints) of the items overlapping [from, to] (byte
    /// offsets of the file), read from those items alone: an editor asking for the
    /// visible lines' hints after each edit pays for those items, not for the file.
    /// Null with `materialize`.
    std::function<std::vector<TypeHint>(uint32_t from, uint32_t to)> typeHints;
    /// An Analysis of the items overlapping [from, to] only (byte offsets; an item is
    /// [begin, end), a point at the end of the file is the last item's): their tokens,
    /// tree, symbols, occurrences, expression facts, hints and kernels, with the symbols
    /// of the fns they call and the std and builtin symbols they refer to, all in the
    /// document's coordinates; the version's diagnostics. What a feature reads at a
    /// position or for one item costs that item, not the file. Null with `materialize`.
    /// Polls `stop` like `materialize`.
    std::function<std::shared_ptr<const Analysis>(uint32_t from, uint32_t to, const std::function<bool()> &stop)> slice;
    /// The items of this version in document order (with `slice`). `identity` stays the
    /// same object while the item's text and everything its facts were derived from do
    /// (its check, and for a fn the kernel whose inlining typed it); it is kept alive by
    /// the pointer, so a cache keyed by it can never see an address reused.
    struct ItemSpan {
      uint32_t begin = 0, end = 0;
      std::shared_ptr<const void> identity, typedBy;
    };
    std::shared_ptr<const std::vector<ItemSpan>> items;
    /// False when some kernels were elaborated for their first configuration only:
    /// call `update` again with `allConfigs` for the final diagnostics.
    bool complete = true;
    /// Some items that call an edited fn show their previous version's check (its
    /// diagnostics, less those inside the fns it calls, and its facts): the edited items
    /// and the `focusItems` callers nearest to them were checked, the others wait for
    /// the next `update` without `allConfigs`. Implies !complete.
    bool staleItems = false;
    bool cancelled = false;
  };

  /// Analyses `file` (a new version of the document), reusing every item unchanged
  /// since the last call. Without `allConfigs`, when more than `lazyVariants`
  /// configurations would have to be elaborated, only the first of each kernel is.
  /// Calls must not overlap (the server runs one analysis at a time per document).
  Result update(std::shared_ptr<const SourceFile> file, const std::function<bool()> &cancelled = {},
                bool allConfigs = true);

  IncrementalStats stats() const;
  /// Above this many configurations to elaborate, an update without `allConfigs`
  /// elaborates the first configuration of each kernel only.
  size_t lazyVariants = 64;
  /// In a lazy update that must check more items than this because a fn they call
  /// changed, only the edited items and this many of those callers, the nearest to an
  /// edited item in the file first, are checked; the rest keep their previous check
  /// (Result::staleItems).
  size_t focusItems = 8;
  /// Threads for a large batch of items (a first analysis, an edit of a fn every kernel
  /// calls), the caller's among them, and never more than the hardware has: enough for a
  /// 16-core host, few enough that an editor's machine stays usable. 1: all on the caller.
  unsigned maxThreads = 8;
  /// Threads for the first update of the document (nothing cached: a first analysis),
  /// in place of maxThreads when not 0 (ph-lsp: PH_LSP_FIRST_THREADS; docs/lsp.md,
  /// Performance, says why it is not the default on a 2-core machine).
  unsigned firstThreads = 0;
  /// Inline std functions through a cache per call shape (frontend/lib/elab/InlineCache.h):
  /// the same diagnostics and facts either way; false elaborates every call (A/B, tests).
  bool cacheInlining = true;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace ph
