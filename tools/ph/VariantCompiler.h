//===- VariantCompiler.h - Compile many variants: in parallel, cached -*- C++ -*-===//
//
// `ph build` hands every (kernel, configuration) it builds to compileVariants,
// which looks each one up in the build cache (ph/Cache), compiles the misses
// on a pool of worker threads (each compile has its own MLIR context; the first
// variant first, then the largest), stores them, and hands the results back in
// the order given, each as soon as it and every one before it is ready. The order, the files and the manifest do not
// depend on the number of workers or on which results came from the cache.
//
//===----------------------------------------------------------------------===//
#pragma once

#ifdef PH_HAVE_BACKEND
#include "ph/Backend/GpuTarget.h"
#include "ph/Cache/Store.h"

#include <functional>
#include <string>
#include <vector>

namespace ph::driver {

struct VariantResult {
  bool ok = false;
  bool cached = false;  // read from the cache, not compiled
  std::string err;      // when !ok and no diagnostic says why
  backend::GpuBinary bin;
  double ms = 0;        // wall time of this variant's compile (or cache read)
  bool ptxasCached = false; // compiled, but its cubin came from the cache (same PTX)
};

struct VariantOptions {
  backend::GpuOptions gpu;
  /// Worker threads; 0: one per core this process may run on.
  unsigned jobs = 0;
  /// Null: compile everything, store nothing (`--no-cache`).
  const cache::Store *cache = nullptr;
  /// Called once the cache was looked up, before anything compiles, with how
  /// many of the variants it holds (`ph build --progress`'s plan event).
  std::function<void(size_t cached)> planned;
};

/// Cores this process may run on (its CPU affinity), at least 1.
unsigned availableCores();

/// Compiles `kernels` for `opts.gpu.arch`; calls `done(i, result)` on the
/// calling thread for i = 0, 1, ... in order, each as soon as it is ready.
/// Cache write failures are reported once through `warn`.
void compileVariants(const std::vector<const kir::Kernel *> &kernels, const VariantOptions &opts,
                     const std::function<void(size_t, VariantResult &)> &done,
                     const std::function<void(const std::string &)> &warn);

/// The order in which a pool of workers starts `misses` (indices into `kernels`): the
/// first one first, then the rest from the largest to the smallest by an estimate of
/// their code size (ties in the order given).
std::vector<size_t> dispatchOrder(const std::vector<const kir::Kernel *> &kernels, const std::vector<size_t> &misses);

/// The cache entry of a compiled variant and back (exposed for tests).
cache::Entry toCacheEntry(const VariantResult &r, const std::string &target);
/// False when the entry is not one this compiler wrote (then it is a miss).
bool fromCacheEntry(const cache::Entry &e, const kir::Kernel &k, VariantResult &r);

} // namespace ph::driver
#endif
