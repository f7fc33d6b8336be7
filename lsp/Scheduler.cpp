//===- Scheduler.cpp - Debounced analysis on a thread pool ----------------===//
#include "Scheduler.h"
#include "Protocol.h"

// Boost 1.74's asio uses std::exchange without including <utility> under C++20.
#include <utility>
#include <boost/asio.hpp>

#include <condition_variable>

namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

namespace ph::lsp {

struct Scheduler::Doc {
  Doc(asio::thread_pool &pool, std::string uri)
      : uri(std::move(uri)), path(uriToPath(this->uri)), strand(asio::make_strand(pool)), timer(strand) {}
  std::string uri, path;
  asio::strand<asio::thread_pool::executor_type> strand; // one analysis at a time per document
  asio::steady_timer timer;                               // the debounce
  // Guarded by Impl::mu.
  std::shared_ptr<const std::string> text;
  int64_t version = 0;
  Clock::time_point editTime;
  std::shared_ptr<const Snapshot> latest;
  bool closed = false;
  bool pending = false; // an analysis is scheduled or running for `version`
  bool completing = false; // the rest of `latest`'s analysis is queued (AnalysisResult::rest)
  struct Waiter {
    int64_t minVersion;
    SnapshotFn action;
  };
  std::vector<Waiter> waiters;
};

struct Scheduler::Impl {
  Impl(AnalyzeFn a, Options o, SnapshotFn f)
      : analyze(std::move(a)), options(o), onFresh(std::move(f)), pool(std::max(1u, o.threads)),
        requests(std::max(1u, o.requestThreads)), jobs(std::max(1u, o.jobThreads)) {}
  AnalyzeFn analyze;
  Options options;
  SnapshotFn onFresh;
  asio::thread_pool pool;     // analyses (one strand per document)
  asio::thread_pool requests; // feature requests: a long analysis never holds them up
  asio::thread_pool jobs;
  mutable std::mutex mu;
  std::condition_variable idle;
  std::map<std::string, std::shared_ptr<Doc>, std::less<>> docs;
  size_t analyses = 0;
  size_t cancelledAnalyses = 0; // stopped early because a newer edit arrived
  size_t pendingCount = 0;
  size_t publishing = 0; // fresh snapshots being announced: idle waits for them too
};

Scheduler::Scheduler(AnalyzeFn analyze, Options options, SnapshotFn onFresh)
    : impl_(std::make_unique<Impl>(std::move(analyze), options, std::move(onFresh))) {}

Scheduler::~Scheduler() {
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    for (auto &[uri, doc] : impl_->docs) {
      doc->closed = true;
      doc->timer.cancel();
    }
  }
  impl_->pool.stop();
  impl_->pool.join();
  impl_->requests.join(); // requests in flight stop at their next interruption point (cancelled)
  impl_->jobs.join(); // jobs finish: their subprocesses are killed by cancellation first
}

void Scheduler::setDebounce(std::chrono::milliseconds d) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  impl_->options.debounce = d;
}

size_t Scheduler::analysesRun() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->analyses;
}

size_t Scheduler::analysesCancelled() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  return impl_->cancelledAnalyses;
}

// Called with impl_->mu held.
void Scheduler::schedule(const std::shared_ptr<Doc> &doc, std::chrono::milliseconds delay) {
  if (!doc->pending) {
    doc->pending = true;
    ++impl_->pendingCount;
  }
  if (delay.count() == 0) {
    // Cancelling the timer drops a debounce still running for this document;
    // the analysis posted here covers its version.
    doc->timer.cancel();
    asio::post(doc->strand, [this, doc] { analyze(doc); });
    return;
  }
  doc->timer.expires_after(delay); // also cancels the previous wait: the stale work
  doc->timer.async_wait([this, doc](boost::system::error_code ec) {
    if (!ec) analyze(doc);
  });
}

void Scheduler::update(const std::string &uri, std::string text, int64_t version) {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto &doc = impl_->docs[uri];
  if (!doc) doc = std::make_shared<Doc>(impl_->pool, uri);
  doc->text = std::make_shared<const std::string>(std::move(text));
  doc->version = version;
  doc->editTime = Clock::now();
  schedule(doc, doc->waiters.empty() ? impl_->options.debounce : std::chrono::milliseconds(0));
}

void Scheduler::close(const std::string &uri) {
  std::vector<Doc::Waiter> waiters;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    auto it = impl_->docs.find(uri);
    if (it == impl_->docs.end()) return;
    auto doc = it->second;
    impl_->docs.erase(it);
    doc->closed = true;
    doc->timer.cancel();
    if (doc->pending) {
      doc->pending = false;
      --impl_->pendingCount;
    }
    waiters.swap(doc->waiters);
  }
  impl_->idle.notify_all();
  for (auto &w : waiters)
    asio::post(impl_->requests, [a = std::move(w.action)] { a(nullptr); });
}

std::shared_ptr<const std::string> Scheduler::text(const std::string &uri, int64_t *version) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->docs.find(uri);
  if (it == impl_->docs.end()) return nullptr;
  if (version) *version = it->second->version;
  return it->second->text;
}

std::vector<std::string> Scheduler::documents() const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  std::vector<std::string> out;
  for (auto &[uri, doc] : impl_->docs) out.push_back(uri);
  return out;
}

std::shared_ptr<const Snapshot> Scheduler::latest(const std::string &uri) const {
  std::lock_guard<std::mutex> lock(impl_->mu);
  auto it = impl_->docs.find(uri);
  return it == impl_->docs.end() ? nullptr : it->second->latest;
}

void Scheduler::withSnapshot(const std::string &uri, SnapshotFn action) {
  std::unique_lock<std::mutex> lock(impl_->mu);
  auto it = impl_->docs.find(uri);
  if (it == impl_->docs.end()) {
    lock.unlock();
    asio::post(impl_->requests, [a = std::move(action)] { a(nullptr); });
    return;
  }
  auto doc = it->second;
  if (doc->latest && doc->latest->version >= doc->version) {
    auto snap = doc->latest;
    lock.unlock();
    asio::post(impl_->requests, [a = std::move(action), snap] { a(snap); });
    return;
  }
  doc->waiters.push_back({doc->version, std::move(action)});
  // Someone is waiting: skip the rest of the debounce.
  schedule(doc, std::chrono::milliseconds(0));
}

void Scheduler::analyze(const std::shared_ptr<Doc> &doc) {
  std::shared_ptr<const std::string> text;
  int64_t version;
  Clock::time_point editTime;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    if (doc->closed) return;
    if (doc->latest && doc->latest->version == doc->version) {
      // Already analysed (a second post for the same version).
      if (doc->pending && !doc->completing) {
        doc->pending = false;
        --impl_->pendingCount;
      }
      impl_->idle.notify_all();
      return;
    }
    text = doc->text;
    version = doc->version;
    editTime = doc->editTime;
  }
  auto snap = std::make_shared<Snapshot>(doc->uri, doc->path, version, text);
  snap->editTime = editTime;
  auto t0 = Clock::now();
  auto stale = [this, doc, version] {
    std::lock_guard<std::mutex> lock(impl_->mu);
    return doc->closed || doc->version != version;
  };
  AnalysisResult result;
  try {
    result = impl_->analyze(doc->path, text, stale);
  } catch (...) {
    // The analyser must never take the server down; features see no analysis.
    result = AnalysisResult();
  }
  snap->analysisTime = Clock::now() - t0;
  if (stale()) {
    // A newer edit arrived mid-analysis (which may have stopped early, partial):
    // the newer version's analysis, already scheduled on this document's strand,
    // publishes and serves the waiters; this one is dropped.
    std::lock_guard<std::mutex> lock(impl_->mu);
    ++impl_->cancelledAnalyses;
    impl_->idle.notify_all();
    return;
  }
  finish(doc, std::move(snap), std::move(result));
}

void Scheduler::finish(const std::shared_ptr<Doc> &doc, std::shared_ptr<Snapshot> snap, AnalysisResult result) {
  int64_t version = snap->version;
  snap->analysis = result.analysis;
  snap->items = result.items;
  bool more = static_cast<bool>(result.rest);
  std::vector<Doc::Waiter> ready;
  std::shared_ptr<const Snapshot> previous; // freed after publishing, off the critical path
  bool current;
  {
    std::lock_guard<std::mutex> lock(impl_->mu);
    ++impl_->analyses;
    if (doc->closed) return;
    if (!doc->latest || doc->latest->version <= version) {
      previous = std::move(doc->latest);
      doc->latest = snap;
    }
    current = version == doc->version;
    auto &ws = doc->waiters;
    for (size_t i = 0; i < ws.size();) {
      if (ws[i].minVersion <= version) {
        ready.push_back(std::move(ws[i]));
        ws.erase(ws.begin() + static_cast<long>(i));
      } else {
        ++i;
      }
    }
    doc->completing = current && more;
    if (current && doc->pending && !more) {
      doc->pending = false;
      --impl_->pendingCount;
    }
    if (current) ++impl_->publishing;
  }
  std::shared_ptr<const Snapshot> shared = snap;
  for (auto &w : ready)
    asio::post(impl_->requests, [a = std::move(w.action), shared] { a(shared); });
  if (current) {
    if (impl_->onFresh) {
      if (result.published) {
        // Diagnostics come from the cheap part; the whole analysis waits for a feature.
        auto pub = std::make_shared<Snapshot>(*snap);
        pub->analysis = LazyAnalysis(result.published);
        impl_->onFresh(pub);
      } else {
        impl_->onFresh(shared);
      }
    }
    std::lock_guard<std::mutex> lock(impl_->mu);
    --impl_->publishing;
  }
  impl_->idle.notify_all();
  if (!current || !more) return;
  // The rest (other autotune configurations) next on the strand, unless an edit comes first.
  asio::post(doc->strand, [this, doc, snap, rest = std::move(result.rest)] {
    int64_t version = snap->version;
    auto stale = [this, doc, version] {
      std::lock_guard<std::mutex> lock(impl_->mu);
      return doc->closed || doc->version != version;
    };
    auto dropped = [&] {
      std::lock_guard<std::mutex> lock(impl_->mu);
      ++impl_->cancelledAnalyses;
      // The newer version's analysis owns `pending`, and `completing` too once its first part
      // has finished (then `latest` is its snapshot): clearing it here let a second post of the
      // newer version end `pending` before its own rest was published (CI, ASan run,
      // Scheduler.TheWholeAnalysisIsBuiltOnceWhenARequestNeedsIt).
      if (!doc->latest || doc->latest->version == version) doc->completing = false;
      impl_->idle.notify_all();
    };
    if (stale()) return dropped();
    auto t0 = Clock::now();
    AnalysisResult r;
    try {
      r = rest(stale);
    } catch (...) {
      r = AnalysisResult();
    }
    if (stale()) return dropped();
    auto next = std::make_shared<Snapshot>(snap->uri, snap->path, snap->version, snap->text);
    next->editTime = snap->editTime;
    next->analysisTime = snap->analysisTime + (Clock::now() - t0);
    finish(doc, std::move(next), std::move(r));
  });
}

void Scheduler::invalidateAll() {
  std::lock_guard<std::mutex> lock(impl_->mu);
  for (auto &[uri, doc] : impl_->docs) {
    doc->latest = nullptr;
    schedule(doc, impl_->options.debounce);
  }
}

void Scheduler::run(std::function<void()> fn) { asio::post(impl_->pool, std::move(fn)); }

void Scheduler::runJob(std::function<void()> fn) { asio::post(impl_->jobs, std::move(fn)); }

void Scheduler::waitIdle() {
  std::unique_lock<std::mutex> lock(impl_->mu);
  impl_->idle.wait(lock, [&] { return impl_->pendingCount == 0 && impl_->publishing == 0; });
}

} // namespace ph::lsp
