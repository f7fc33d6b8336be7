//===- InlineCache.h - std functions' inlining, cached per call shape -*- C++ -*-===//
//
// The editor's analysis checks every kernel of a file on its own, and a file of many
// kernels inlines the same std function (std's `attention`, `online_softmax`) at many
// call sites with the same argument shapes: a fifth of a first analysis was that one
// body elaborated again and again with the same outcome. Without `specialise` (nothing
// reads the kir the editor builds) and for a body in the prelude (whose expressions and
// symbols record no facts), inlining a call does only this to the elaborator: it checks,
// makes the body's variables, marks the arguments' variables and tensors, adds grid
// candidates and `ctx.block` uses, and copies std text into messages. When it reports
// nothing, those effects are kept here under everything the body can read (the fn's
// text and its callees', the arguments' bindings with their types, integer facts, loop
// facts and aliasing, the tensors' and sizes' descriptions, the frames it runs under);
// the next call with the same key replays them instead of elaborating the body. A call
// whose body reports a diagnostic is never kept, so diagnostics (with their call-site
// notes) always come from a real elaboration.
//
// One cache per prelude (the incremental analysis's, shared by its items and threads):
// the fn declarations it memoises by address live as long as the prelude.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Elaborator.h"

#include <deque>
#include <mutex>

namespace ph::check::elab {

/// What inlining a call did, in terms of the call's key: variables and tensors of the
/// caller by their order of first appearance in the key (InlineAliases).
struct InlineEffects {
  struct NewVar {
    std::string name;
    Type type;
    bool isLet = false;
    SourceRange loc;
    uint32_t symbol = UINT32_MAX;
    bool fromDot = false; // at the end of the body
  };
  std::vector<NewVar> vars;                      // made by the body, in order
  std::vector<std::pair<uint32_t, bool>> fromDot; // alias -> the variable's fromDot after
  std::vector<std::pair<uint32_t, std::pair<bool, bool>>> tensorFlags; // alias -> the body read, wrote it
  std::vector<GridCandidate> grid[3];             // appended along each axis
  bool axisUsed[3] = {false, false, false};       // the body used ctx.block along the axis
  SourceRange axisUse[3];                         // its first use there
  std::vector<SourceRange> textReads;             // appended to State::textReads
};

/// The caller's variables and tensors a key names, in order of first appearance.
struct InlineAliases {
  std::vector<uint32_t> vars;
  std::vector<int> tensors;
};

struct InlineCacheStats {
  size_t hits = 0, misses = 0; // lookups that found an entry, and those that did not
  size_t stored = 0;           // entries added (a miss whose body reported nothing)
  size_t entries = 0;          // kept now
  size_t evicted = 0;          // dropped to stay within the capacity
};

class InlineCache {
public:
  explicit InlineCache(size_t capacity = 512) : capacity_(capacity) {}

  /// A small number for `text` (a fn's text and its callees'): equal texts, equal ids.
  uint32_t textId(const std::string &text);
  /// The id of `fn`'s text and the texts of the fns it calls, transitively (memoised by
  /// address: `fn` must outlive the cache, as a prelude's declarations do).
  uint32_t fnId(const State &st, const ast::Decl &fn);

  std::shared_ptr<const InlineEffects> find(const std::string &key);
  void insert(const std::string &key, std::shared_ptr<const InlineEffects> effects);
  InlineCacheStats stats() const;
  size_t capacity() const { return capacity_; }

private:
  mutable std::mutex mutex_;
  size_t capacity_;
  std::unordered_map<std::string, std::shared_ptr<const InlineEffects>> entries_;
  std::deque<std::string> order_; // insertion order, for eviction
  std::unordered_map<std::string, uint32_t> textIds_;
  std::unordered_map<const ast::Decl *, uint32_t> fnIds_;
  InlineCacheStats stats_;
};

} // namespace ph::check::elab
