//===- Items.cpp - Per-item reads of the incremental analysis -------------===//
//
// Issue 21: after an edit, a feature should cost the items it reads, not the file.
// A request at a position (hover, definition, highlights, a local's references)
// reads the slice of the item under it (IncrementalAnalyzer::Result::slice). A
// full-document request (semantic tokens, symbols, folding, lenses) is computed
// item by item: an item seen in an earlier version (same identity: its text and
// everything its facts came from) gives back what it gave then, its lines moved; a
// new item is computed on its own slice. The cache keeps the items of the version
// asked last, per feature, so it is bounded by the document. Without the cache (the
// default) every item is computed on its own slice, dropped before the next: the peak
// memory of a full-document request is one item's analysis and the answer's text.
//
//===----------------------------------------------------------------------===//
#include "Features.h"
#include "ItemCache.h"

#include "ph/Analysis.h"

namespace ph::lsp {

Snapshot sliceOf(const Snapshot &s, uint32_t from, uint32_t to) {
  Snapshot out = s;
  if (!s.items || !s.items->slice || !s.analysis || s.analysis.built()) return out;
  auto a = s.items->slice(from, to, [] { return interruptRequested(); });
  if (!a) checkpoint(); // stopped: throws Interrupted for this request
  out.analysis = LazyAnalysis(std::move(a));
  return out;
}

void shiftRange(json &range, int64_t lines) {
  for (const char *end : {"start", "end"}) {
    json &p = range[end];
    p["line"] = p["line"].get<int64_t>() + lines;
  }
}

bool eachItemEntry(const Snapshot &s, const std::string &feature, const std::string &variant,
                   const std::function<void(const Snapshot &item, const EmitEntry &emit)> &compute,
                   const std::function<int64_t(const json &entry)> &lineOf,
                   const std::function<void(json &entry, int64_t lines)> &shift, const EmitEntry &sink) {
  if (!s.items || !s.items->slice || !s.items->spans || !s.analysis || s.analysis.built()) return false;
  ItemCache *cache = s.items->cache.get();
  std::map<ItemCache::Key, ItemCache::Entry> previous, now;
  if (cache) {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto f = cache->features.find(feature);
    if (f != cache->features.end() && f->second.variant == variant) previous = f->second.entries;
  }
  for (const ItemFacts::Span &sp : *s.items->spans) {
    checkpoint();
    int64_t first = s.lines.position(sp.begin).line;
    int64_t end = sp.end >= s.text->size() ? INT64_MAX : s.lines.position(sp.end).line;
    ItemCache::Key key{sp.identity.get(), sp.typedBy.get()};
    if (cache) {
      if (auto it = previous.find(key); it != previous.end()) {
        for (const json &e : *it->second.entries) {
          json x = e;
          shift(x, first);
          sink(std::move(x));
        }
        now.emplace(key, it->second);
        continue;
      }
    }
    // The item's slice lives for this item only: the peak is one item's analysis.
    auto entries = cache ? std::make_shared<json>(json::array()) : nullptr;
    {
      Snapshot item = sliceOf(s, sp.begin, sp.begin);
      compute(item, [&](json x) {
        int64_t line = lineOf(x);
        if (line < first || line >= end) return; // another item's (a called fn's symbol)
        if (entries) {
          json kept = x;
          shift(kept, -first);
          entries->push_back(std::move(kept));
        }
        sink(std::move(x));
      });
    }
    if (cache) now.emplace(key, ItemCache::Entry{sp.identity, sp.typedBy, std::move(entries)});
  }
  if (cache) {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto &f = cache->features[feature];
    f.variant = variant;
    f.entries = std::move(now);
  }
  return true;
}

} // namespace ph::lsp
