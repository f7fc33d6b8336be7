//===- Store.h - A content-addressed, size-bounded cache on disk -*- C++ -*-===//
//
// `ph build` keeps each compiled variant (cubin, PTX, manifest entry) here
// under a key that hashes everything the result depends on (VariantKey.h).
// One file per entry, written to a temporary name and renamed into place, so
// concurrent builds never see half an entry; a hit refreshes the entry's
// modification time, and eviction removes the least recently used entries
// once the folder outgrows its bound. No MLIR, no LLVM: plain files.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace ph::cache {

/// What one entry holds: named byte strings (the caller's format).
struct Entry {
  std::vector<std::pair<std::string, std::string>> parts;
  /// The part called `name`, or null.
  const std::string *find(const std::string &name) const;
};

struct Stats {
  uint64_t entries = 0;
  uint64_t bytes = 0;
};

/// 1 GiB: a few thousand variants (a tensor-core variant is 100-400 KB of cubin and PTX).
constexpr uint64_t kDefaultMaxBytes = uint64_t(1) << 30;

class Store {
public:
  /// `dir` is the cache's root (DefaultDir()); entries live under `dir/v1/`.
  Store(std::string dir, uint64_t maxBytes);

  /// PH_CACHE_DIR, else $XDG_CACHE_HOME/ph, else $HOME/.cache/ph; "" when none is set.
  static std::string defaultDir();
  /// PH_CACHE_MAX_SIZE (bytes, or with a K/M/G suffix), else kDefaultMaxBytes.
  /// Sets `err` and returns the default for a value it cannot read.
  static uint64_t defaultMaxBytes(std::string &err);
  /// "512M" -> 536870912; false for anything else.
  static bool parseSize(const std::string &text, uint64_t &out);

  const std::string &dir() const { return dir_; }
  uint64_t maxBytes() const { return maxBytes_; }

  /// Reads the entry `key` (hex). A missing, unreadable or damaged entry is a
  /// miss (a damaged one is removed). A hit marks the entry as just used.
  bool get(const std::string &key, Entry &out) const;
  /// Writes the entry `key` atomically; returns "" or why not (the build
  /// goes on without caching).
  std::string put(const std::string &key, const Entry &e) const;
  /// Removes least recently used entries until the total is within the bound
  /// (and temporary files that a killed build left over an hour ago). Returns
  /// the number of entries removed.
  uint64_t evict() const;
  /// Removes every entry; returns "" or why not.
  std::string clear() const;
  Stats stats() const;

private:
  std::string entryPath(const std::string &key) const;
  std::string dir_;
  uint64_t maxBytes_;
};

} // namespace ph::cache
