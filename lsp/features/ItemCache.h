//===- ItemCache.h - What full-document features derived from each item -*- C++ -*-===//
//
// One per document (Server.cpp keeps it beside the document's IncrementalAnalyzer),
// shared by the versions' snapshots; used by perItemEntries (Items.cpp) only. An
// entry holds its item's identity, so the address in its key is never reused while
// the entry lives.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Protocol.h"

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace ph::lsp {

struct ItemCache {
  using Key = std::pair<const void *, const void *>;
  struct Entry {
    std::shared_ptr<const void> identity, typedBy;
    std::shared_ptr<const json> entries; // counted from the item's first line
  };
  struct Feature {
    std::string variant;
    std::map<Key, Entry> entries; // the items of the version asked last
  };
  std::mutex mu;
  std::map<std::string, Feature> features;
};

} // namespace ph::lsp
