//===- VariantCompiler.cpp - Cache lookups, a worker pool, results in order ---===//
#include "VariantCompiler.h"

#ifdef PH_HAVE_BACKEND
#include "ph/Cache/VariantKey.h"
#include "ph/Runtime/Manifest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <sched.h>
#include <thread>
#include <unordered_set>

namespace ph::driver {

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Diagnostics of a successful compile sit on the kernel's own range (W0501,
/// W0502); only such results are cached, and the range is re-attached from
/// the kernel being built (its byte offsets move when other kernels are edited).
bool diagnosticsAtKernel(const VariantResult &r, const kir::Kernel &k) {
  for (const Diagnostic &d : r.bin.diagnostics) {
    if (!(d.range == k.loc) || !d.fixes.empty()) return false;
    for (const DiagNote &n : d.notes)
      if (!(n.range == k.loc)) return false;
  }
  return true;
}

constexpr char kSep = '\0';

std::string encodeDiagnostic(const Diagnostic &d) {
  std::string s = std::string(d.code()) + kSep + std::to_string(int(d.severity)) + kSep + d.message;
  for (const DiagNote &n : d.notes) s += kSep + n.message;
  return s;
}

bool decodeDiagnostic(const std::string &s, const kir::Kernel &k, Diagnostic &d) {
  std::vector<std::string> fields(1);
  for (char c : s) {
    if (c == kSep) fields.emplace_back();
    else fields.back() += c;
  }
  if (fields.size() < 3) return false;
  d.kind = diagKindFromCode(fields[0]);
  if (d.kind == DiagKind::Count) return false;
  d.severity = Severity(std::atoi(fields[1].c_str()));
  d.range = k.loc;
  d.message = fields[2];
  for (size_t i = 3; i < fields.size(); ++i) d.notes.push_back({k.loc, fields[i]});
  return true;
}

/// ptxas's cubins in the build cache, by the PTX (and ptxas, its arguments, the arch).
class StorePtxasCache : public backend::PtxasCache {
public:
  explicit StorePtxasCache(const cache::Store &store) : store(store) {}
  bool find(const std::string &what, std::vector<uint8_t> &cubin, std::string &log) const override {
    cache::Entry e;
    if (!store.get(cache::contentKey("ptxas", what), e)) return false;
    const std::string *c = e.find("cubin"), *l = e.find("ptxas-log");
    if (!c || !l) return false;
    cubin.assign(c->begin(), c->end());
    log = *l;
    return true;
  }
  void keep(const std::string &what, const std::vector<uint8_t> &cubin, const std::string &log) const override {
    cache::Entry e;
    e.parts.emplace_back("cubin", std::string(cubin.begin(), cubin.end()));
    e.parts.emplace_back("ptxas-log", log);
    std::string err = store.put(cache::contentKey("ptxas", what), e);
    std::lock_guard<std::mutex> lock(mu);
    if (!err.empty() && error.empty()) error = err;
  }
  std::string firstError() const {
    std::lock_guard<std::mutex> lock(mu);
    return error;
  }

private:
  const cache::Store &store;
  mutable std::mutex mu;
  mutable std::string error;
};

/// A kernel's code size per thread, roughly: the elements of every tile it computes (a
/// dot's by its depth too), over its threads. Only compared between the variants of
/// one build, to start the large ones early (see dispatchOrder).
double sizeEstimate(const kir::Kernel &k) {
  std::unordered_set<const kir::Expr *> seen;
  double elements = 0;
  std::vector<const kir::Expr *> todo;
  auto expr = [&](const kir::ExprPtr &e) {
    if (e) todo.push_back(e.get());
  };
  auto slices = [&](const std::vector<kir::Slice> &ss) {
    for (const kir::Slice &s : ss) expr(s.start);
  };
  std::vector<const kir::Stmt *> stmts;
  for (const kir::StmtPtr &s : k.body) stmts.push_back(s.get());
  while (!stmts.empty()) {
    const kir::Stmt *s = stmts.back();
    stmts.pop_back();
    for (const kir::ExprPtr *e : {&s->value, &s->lo, &s->hi, &s->step}) expr(*e);
    slices(s->slices);
    for (const kir::StmtPtr &b : s->body) stmts.push_back(b.get());
    for (const kir::StmtPtr &b : s->elseBody) stmts.push_back(b.get());
  }
  while (!todo.empty()) {
    const kir::Expr *e = todo.back();
    todo.pop_back();
    if (!seen.insert(e).second) continue;
    double n = double(e->type.numElements());
    // A dot of [M,K] x [K,N]: its M*N results, K steps each (in 16-deep MMA steps or FMAs).
    if (e->kind == kir::ExprKind::Dot && !e->operands.empty() && e->operands[0]->type.shape.size() == 2)
      n *= std::max<int64_t>(1, e->operands[0]->type.shape[1] / 16);
    elements += n;
    for (const kir::ExprPtr &o : e->operands) expr(o);
    slices(e->slices);
  }
  return elements / std::max(1, k.threads);
}

} // namespace

std::vector<size_t> dispatchOrder(const std::vector<const kir::Kernel *> &kernels, const std::vector<size_t> &misses) {
  std::vector<size_t> order = misses;
  if (order.size() < 3) return order;
  std::vector<double> size(kernels.size(), 0);
  for (size_t i : misses) size[i] = sizeEstimate(*kernels[i]);
  std::stable_sort(order.begin() + 1, order.end(), [&](size_t a, size_t b) { return size[a] > size[b]; });
  return order;
}

unsigned availableCores() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0)
    if (int n = CPU_COUNT(&set); n > 0) return unsigned(n);
  unsigned n = std::thread::hardware_concurrency();
  return n ? n : 1;
}

cache::Entry toCacheEntry(const VariantResult &r, const std::string &target) {
  rt::Manifest one;
  one.target = target;
  one.kernels.push_back(r.bin.meta);
  cache::Entry e;
  e.parts.emplace_back("manifest", rt::toJson(one));
  e.parts.emplace_back("cubin", std::string(r.bin.cubin.begin(), r.bin.cubin.end()));
  e.parts.emplace_back("ptx", r.bin.ptx);
  for (const Diagnostic &d : r.bin.diagnostics) e.parts.emplace_back("diagnostic", encodeDiagnostic(d));
  return e;
}

bool fromCacheEntry(const cache::Entry &e, const kir::Kernel &k, VariantResult &r) {
  const std::string *json = e.find("manifest"), *cubin = e.find("cubin"), *ptx = e.find("ptx");
  if (!json || !cubin || !ptx) return false;
  rt::Manifest one;
  if (!rt::fromJson(*json, one).empty() || one.kernels.size() != 1) return false;
  r = VariantResult();
  r.bin.meta = std::move(one.kernels[0]);
  // The signature and file name follow from the kernel itself (and are part of its key);
  // the launch's threads from the lowering (a producer warpgroup adds 128).
  int threads = r.bin.meta.sig.threads;
  r.bin.meta.sig = rt::signatureOf(k);
  r.bin.meta.sig.threads = threads;
  r.bin.meta.cubin = rt::variantFileName(k, "cubin");
  r.bin.cubin.assign(cubin->begin(), cubin->end());
  r.bin.ptx = *ptx;
  for (const auto &[name, bytes] : e.parts) {
    if (name != "diagnostic") continue;
    Diagnostic d;
    if (!decodeDiagnostic(bytes, k, d)) return false;
    r.bin.diagnostics.push_back(std::move(d));
  }
  r.ok = r.cached = true;
  return true;
}

void compileVariants(const std::vector<const kir::Kernel *> &kernels, const VariantOptions &opts,
                     const std::function<void(size_t, VariantResult &)> &done,
                     const std::function<void(const std::string &)> &warn) {
  const size_t n = kernels.size();
  std::vector<VariantResult> results(n);
  std::vector<std::string> keys(n);
  std::vector<char> ready(n, 0);
  std::vector<size_t> misses;
  const std::string &target = opts.gpu.arch;

  // Lookups first, on this thread: a hit costs a file read, far less than a thread.
  if (opts.cache) {
    std::string toolchain = cache::compilerIdentity() + "; " + backend::gpuToolchainIdentity(target);
    for (size_t i = 0; i < n; ++i) {
      auto t0 = Clock::now();
      keys[i] = cache::variantKey(*kernels[i], opts.gpu.sources, target, toolchain);
      cache::Entry e;
      if (opts.cache->get(keys[i], e) && fromCacheEntry(e, *kernels[i], results[i])) {
        results[i].ms = msSince(t0);
        results[i].bin.phases.push_back({"cache", results[i].ms});
        ready[i] = 1;
      } else {
        misses.push_back(i);
      }
    }
  } else {
    for (size_t i = 0; i < n; ++i) misses.push_back(i);
  }

  if (opts.planned) opts.planned(n - misses.size());

  // A variant whose key is new may still have PTX ptxas has seen (its kernel only moved).
  std::optional<StorePtxasCache> ptxasCache;
  backend::GpuOptions gpu = opts.gpu;
  if (opts.cache) gpu.ptxasCache = &ptxasCache.emplace(*opts.cache);

  unsigned jobs = opts.jobs ? opts.jobs : availableCores();
  size_t workers = std::min<size_t>(jobs, misses.size());
  // One worker compiles in the file's order; a pool starts the first miss first (the
  // first configuration's figures come soon), then the largest variants: a large one
  // started last would run alone at the end while the other cores idle.
  std::vector<size_t> order = workers > 1 ? dispatchOrder(kernels, misses) : misses;

  std::mutex mu;
  std::condition_variable cv;
  std::atomic<size_t> next{0};
  std::string cacheError;
  size_t delivered = 0;
  // Hands on every result that is ready and has all before it handed on (this thread only).
  auto deliverReady = [&] {
    while (delivered < n) {
      {
        std::lock_guard<std::mutex> lock(mu);
        if (!ready[delivered]) return;
      }
      done(delivered, results[delivered]);
      results[delivered] = VariantResult(); // the caller has written it out; free the cubin
      ++delivered;
    }
  };
  auto work = [&](bool deliver) {
    for (size_t m; (m = next.fetch_add(1)) < order.size();) {
      size_t i = order[m];
      VariantResult r;
      auto t0 = Clock::now();
      r.ok = backend::compileForGpu(*kernels[i], gpu, r.bin, r.err);
      r.ms = msSince(t0);
      for (const backend::PhaseTime &p : r.bin.phases)
        if (p.name == "ptxas-cached") r.ptxasCached = true;
      if (opts.cache && r.ok && diagnosticsAtKernel(r, *kernels[i])) {
        std::string e = opts.cache->put(keys[i], toCacheEntry(r, target));
        if (!e.empty()) {
          std::lock_guard<std::mutex> lock(mu);
          if (cacheError.empty()) cacheError = e;
        }
      }
      {
        std::lock_guard<std::mutex> lock(mu);
        results[i] = std::move(r);
        ready[i] = 1;
        cv.notify_all();
      }
      if (deliver) deliverReady();
    }
  };
  std::vector<std::thread> pool;
  // With one worker, compile on this thread (-j 1 is the plain sequential build), handing
  // each result on as soon as it is done, as the pool's results are.
  for (size_t w = 0; workers > 1 && w < workers; ++w) pool.emplace_back(work, false);
  if (workers <= 1) {
    deliverReady();
    work(true);
  }

  while (delivered < n) {
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return ready[delivered] != 0; });
    }
    deliverReady();
  }
  for (std::thread &t : pool) t.join();
  if (cacheError.empty() && ptxasCache) cacheError = ptxasCache->firstError();
  if (!cacheError.empty()) warn("not cached: " + cacheError);
}

} // namespace ph::driver
#endif
