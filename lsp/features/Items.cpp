//===- Items.cpp - Per-item reads of the incremental analysis -------------===//
//
// Issue 21: after an edit, a feature should cost the items it reads, not the file.
// A request at a position (hover, definition, highlights, a local's references)
// reads the slice of the item under it (IncrementalAnalyzer::Result::slice). A
// full-document request (semantic tokens, symbols, folding, lenses) is computed
// item by item: an item seen in an earlier version (same identity: its text and
// everything its facts came from) gives back what it gave then, its lines moved; a
// new item is computed on its own slice. The cache keeps the items of the version
// asked last, per feature, so it is bounded by the document.
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

std::optional<std::vector<ItemEntries>> perItemEntries(const Snapshot &s, const std::string &feature,
                                                       const std::string &variant,
                                                       const std::function<json(const Snapshot &item)> &compute,
                                                       const std::function<int64_t(const json &entry)> &lineOf,
                                                       const std::function<void(json &entry, int64_t lines)> &shift) {
  if (!s.items || !s.items->slice || !s.items->spans || !s.analysis) return std::nullopt;
  ItemCache *cache = s.items->cache.get();
  std::map<ItemCache::Key, ItemCache::Entry> previous;
  if (cache) {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto f = cache->features.find(feature);
    if (f != cache->features.end() && f->second.variant == variant) previous = f->second.entries;
  }
  std::map<ItemCache::Key, ItemCache::Entry> now;
  std::vector<ItemEntries> out;
  out.reserve(s.items->spans->size());
  for (const ItemFacts::Span &sp : *s.items->spans) {
    checkpoint();
    int64_t first = s.lines.position(sp.begin).line;
    int64_t end = sp.end >= s.text->size() ? INT64_MAX : s.lines.position(sp.end).line;
    ItemCache::Key key{sp.identity.get(), sp.typedBy.get()};
    ItemCache::Entry e;
    if (auto it = previous.find(key); it != previous.end()) {
      e = it->second;
    } else {
      Snapshot item = sliceOf(s, sp.begin, sp.begin);
      json got = compute(item);
      auto entries = std::make_shared<json>(json::array());
      for (json &x : got) {
        int64_t line = lineOf(x);
        if (line < first || line >= end) continue; // another item's (a called fn's symbol)
        shift(x, -first);
        entries->push_back(std::move(x));
      }
      e = {sp.identity, sp.typedBy, std::move(entries)};
    }
    out.push_back({first, e.entries});
    now.emplace(key, std::move(e));
  }
  if (cache) {
    std::lock_guard<std::mutex> lock(cache->mu);
    auto &f = cache->features[feature];
    f.variant = variant;
    f.entries = std::move(now);
  }
  return out;
}

std::optional<json> perItem(const Snapshot &s, const std::string &feature, const std::string &variant,
                            const std::function<json(const Snapshot &item)> &compute,
                            const std::function<int64_t(const json &entry)> &lineOf,
                            const std::function<void(json &entry, int64_t lines)> &shift) {
  auto items = perItemEntries(s, feature, variant, compute, lineOf, shift);
  if (!items) return std::nullopt;
  json out = json::array();
  for (const ItemEntries &it : *items)
    for (const json &e : *it.entries) {
      checkpoint(1);
      json x = e;
      shift(x, it.line);
      out.push_back(std::move(x));
    }
  return out;
}

} // namespace ph::lsp
