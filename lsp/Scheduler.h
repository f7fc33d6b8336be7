//===- Scheduler.h - Document versions, debounced analysis, workers -*- C++ -*-===//
//
// The scheduler (clangd's TUScheduler, much smaller) owns the open documents.
// An edit replaces a document's text and restarts its debounce timer; when the
// timer fires, the document is analysed on a worker (one analysis at a time
// per document, on its strand) and, if no newer edit arrived meanwhile, the
// fresh snapshot is announced (diagnostics are published from it). An edit
// that lands during an analysis makes that result stale: it is never
// published. Requests wait for a snapshot at least as new as the document was
// when they arrived, and ask for it at once rather than after the debounce.
// Analyses run on a small thread pool, requests on another (a long analysis of
// one document never holds up the requests of the others), never on the I/O thread.
//
// An analysis may come in two parts (the incremental analyzer's): what diagnostics
// are published from, at once, and the whole analysis, built on first use by a
// feature (LazyAnalysis). It may also leave work for later (`rest`: the autotune
// configurations past the first of a large first analysis): that runs next on the
// document's strand, is dropped by a newer edit, and publishes the same version again.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Budget.h"
#include "TextDocument.h"

#include <atomic>
#include <chrono>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace ph {
struct Analysis;
}

namespace ph::lsp {

/// What features may read item by item without the whole analysis (Features.h
/// defines it; the scheduler only carries it).
struct ItemFacts;

/// A snapshot's analysis: given, or built once on first use (from any thread).
/// Reads like a shared_ptr<const Analysis>. Building it is an interruption point of
/// the request that asks (Budget.h): a request cancelled or past its deadline
/// stops the build, throws Interrupted, and the next request to ask builds it.
class LazyAnalysis {
public:
  using Stop = std::function<bool()>;
  LazyAnalysis() = default;
  LazyAnalysis(std::nullptr_t) {}
  LazyAnalysis(std::shared_ptr<const Analysis> a) {
    if (!a) return;
    state_ = std::make_shared<State>();
    state_->value = std::move(a);
    state_->built = true;
  }
  static LazyAnalysis deferred(std::function<std::shared_ptr<const Analysis>()> make) {
    return interruptible([make = std::move(make)](const Stop &) { return make(); });
  }
  /// `make` polls its argument and returns null when it stopped early.
  static LazyAnalysis interruptible(std::function<std::shared_ptr<const Analysis>(const Stop &)> make) {
    LazyAnalysis l;
    l.state_ = std::make_shared<State>();
    l.state_->make = std::move(make);
    return l;
  }
  explicit operator bool() const { return state_ != nullptr; }
  std::shared_ptr<const Analysis> shared() const {
    if (!state_) return nullptr;
    if (state_->built.load(std::memory_order_acquire)) return state_->value;
    std::lock_guard<std::mutex> lock(state_->mu);
    if (!state_->built.load(std::memory_order_relaxed)) {
      std::shared_ptr<const Analysis> v;
      if (state_->make) {
        v = state_->make([] { return interruptRequested(); });
        if (!v) checkpoint(); // stopped early: throws Interrupted for the request that asked
      }
      state_->value = std::move(v);
      state_->make = nullptr;
      state_->built.store(true, std::memory_order_release);
    }
    return state_->value;
  }
  const Analysis *get() const { return shared().get(); }
  const Analysis &operator*() const { return *get(); }
  const Analysis *operator->() const { return get(); }
  /// Built already (no feature has to wait for it).
  bool built() const { return !state_ || state_->built.load(std::memory_order_acquire); }

private:
  struct State {
    std::mutex mu;
    std::atomic<bool> built{false};
    std::function<std::shared_ptr<const Analysis>(const Stop &)> make;
    std::shared_ptr<const Analysis> value;
  };
  std::shared_ptr<State> state_;
};

/// One analysed version of one document: immutable, shared by every feature.
struct Snapshot {
  std::string uri, path;
  int64_t version = 0;
  std::shared_ptr<const std::string> text;
  LazyAnalysis analysis;                    // null if the analyser threw
  std::shared_ptr<const ItemFacts> items;   // null: read `analysis`
  LineIndex lines;                          // over *text
  std::chrono::steady_clock::time_point editTime; // when this version arrived
  std::chrono::steady_clock::duration analysisTime{};

  Snapshot(std::string uri, std::string path, int64_t version, std::shared_ptr<const std::string> text)
      : uri(std::move(uri)), path(std::move(path)), version(version), text(std::move(text)), lines(*this->text) {}
};

/// What an analysis gives the scheduler (AnalyzeFn).
struct AnalysisResult {
  LazyAnalysis analysis;                      // for the features
  std::shared_ptr<const Analysis> published;  // diagnostics are published from it; null: `analysis`
  std::shared_ptr<const ItemFacts> items;     // per-item reads for some features (may be null)
  /// Work left for later (the other autotune configurations): run next, unless stale.
  std::function<AnalysisResult(const std::function<bool()> &stale)> rest;
  AnalysisResult() = default;
  AnalysisResult(std::shared_ptr<const Analysis> a) : analysis(std::move(a)) {}
  AnalysisResult(LazyAnalysis a) : analysis(std::move(a)) {}
};

class Scheduler {
public:
  /// `stale` turns true once a newer version of the document arrives; the
  /// analysis may poll it and stop early (returning an Analysis marked cancelled).
  using AnalyzeFn = std::function<AnalysisResult(
      const std::string &path, std::shared_ptr<const std::string> text, const std::function<bool()> &stale)>;
  using SnapshotFn = std::function<void(std::shared_ptr<const Snapshot>)>;
  struct Options {
    std::chrono::milliseconds debounce{25};
    unsigned threads = 2;        // analyses
    unsigned jobThreads = 2;
    unsigned requestThreads = 2; // feature requests (withSnapshot's actions)
  };

  /// `onFresh` runs on a worker for each snapshot of a document's latest version.
  Scheduler(AnalyzeFn analyze, Options options, SnapshotFn onFresh);
  ~Scheduler();
  Scheduler(const Scheduler &) = delete;
  Scheduler &operator=(const Scheduler &) = delete;

  /// didOpen / didChange: the document's new full text.
  void update(const std::string &uri, std::string text, int64_t version);
  /// didClose. Requests waiting on it get a null snapshot.
  void close(const std::string &uri);
  /// The current text and version (not necessarily analysed yet).
  std::shared_ptr<const std::string> text(const std::string &uri, int64_t *version = nullptr) const;
  std::vector<std::string> documents() const;

  /// Runs `action` on a request worker with a snapshot at least as new as the
  /// document's current version, or with null when the document is not open.
  void withSnapshot(const std::string &uri, SnapshotFn action);
  /// The newest snapshot already made (possibly stale), without waiting.
  std::shared_ptr<const Snapshot> latest(const std::string &uri) const;
  /// Re-analyses every open document (after a configuration change).
  void invalidateAll();
  /// Runs `fn` on a worker.
  void run(std::function<void()> fn);
  /// Runs a long job (a driver subprocess) on a separate pool, so commands
  /// and builds never hold up analyses and requests.
  void runJob(std::function<void()> fn);
  /// Waits until no analysis is pending and every fresh snapshot has been
  /// announced (tests and benchmarks).
  void waitIdle();

  void setDebounce(std::chrono::milliseconds d);
  size_t analysesRun() const;
  /// Analyses stopped early by a newer edit (never published).
  size_t analysesCancelled() const;

private:
  struct Doc;
  struct Impl;
  void schedule(const std::shared_ptr<Doc> &doc, std::chrono::milliseconds delay);
  void analyze(const std::shared_ptr<Doc> &doc);
  /// Installs and announces a snapshot of the document's current version.
  void finish(const std::shared_ptr<Doc> &doc, std::shared_ptr<Snapshot> snap, AnalysisResult result);
  std::unique_ptr<Impl> impl_;
};

} // namespace ph::lsp
