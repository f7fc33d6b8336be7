//===- CacheCommand.cpp - `ph cache`: where the build cache is, clearing it ---===//
//
// ph cache [info]   the folder, its entries and size, and the bound
// ph cache clear    removes every entry
// ph cache dir      prints the folder (for scripts)
//
//===----------------------------------------------------------------------===//
#include "Commands.h"

#ifdef PH_HAVE_BACKEND
#include "ph/Cache/Store.h"
#endif

#include <cstdio>

namespace ph::driver {

static const char *cacheUsage =
    "usage: ph cache [info|clear|dir]\n"
    "\n"
    "`ph build` keeps compiled variants in $XDG_CACHE_HOME/ph (default ~/.cache/ph; PH_CACHE_DIR\n"
    "overrides) and removes the least recently used ones beyond PH_CACHE_MAX_SIZE bytes\n"
    "(default 1G; K, M, G suffixes). `info` shows the folder, entries and size; `clear` empties\n"
    "it; `dir` prints the folder. Exit status: 0 done, 1 errors, 2 bad usage.\n";

int cacheCommand(const Args &args) {
  std::string what = args.empty() ? "info" : args[0];
  if (what == "--help" || what == "-h") {
    std::fputs(cacheUsage, stdout);
    return 0;
  }
  if (args.size() > 1 || (what != "info" && what != "clear" && what != "dir")) {
    std::fputs(cacheUsage, stderr);
    return 2;
  }
#ifndef PH_HAVE_BACKEND
  std::fprintf(stderr, "ph cache: this `ph` was built without the MLIR backend, which has no cache\n");
  return 1;
#else
  std::string dir = cache::Store::defaultDir(), sizeErr;
  if (dir.empty()) {
    std::fprintf(stderr, "ph cache: no cache folder (set XDG_CACHE_HOME, HOME or PH_CACHE_DIR)\n");
    return 1;
  }
  uint64_t bound = cache::Store::defaultMaxBytes(sizeErr);
  if (!sizeErr.empty()) std::fprintf(stderr, "ph cache: warning: %s\n", sizeErr.c_str());
  cache::Store store(dir, bound);
  if (what == "dir") {
    std::printf("%s\n", dir.c_str());
    return 0;
  }
  if (what == "clear") {
    cache::Stats before = store.stats();
    if (std::string e = store.clear(); !e.empty()) {
      std::fprintf(stderr, "ph cache: %s\n", e.c_str());
      return 1;
    }
    std::printf("removed %llu entries (%.1f MiB) from %s\n", (unsigned long long)before.entries,
                double(before.bytes) / (1 << 20), dir.c_str());
    return 0;
  }
  cache::Stats s = store.stats();
  std::printf("folder   %s\nentries  %llu\nsize     %.1f MiB of at most %.1f MiB\n", dir.c_str(),
              (unsigned long long)s.entries, double(s.bytes) / (1 << 20), double(bound) / (1 << 20));
  return 0;
#endif
}

} // namespace ph::driver
