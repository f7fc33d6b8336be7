//===- SchedulerTest.cpp - Debounce, staleness, waiting requests ----------===//
#include "Scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <future>
#include <thread>
#include <vector>

// The scheduler only carries Analysis pointers: a stand-in (the two-stage tests count
// "diagnostics" to tell the parts apart).
namespace ph {
struct Analysis {
  std::vector<int> diagnostics;
};
} // namespace ph

using namespace ph::lsp;
using namespace std::chrono_literals;

namespace {

struct Recorder {
  std::mutex mu;
  std::vector<std::pair<std::string, int64_t>> fresh;    // uri, version published
  std::vector<std::string> analysedTexts;
  std::atomic<int> analyses{0};
  std::chrono::milliseconds analysisDelay{0};
  bool cancellable = false;   // the analysis of "v1" polls `stale` until it turns true, then stops
  std::atomic<int> stopped{0};
  // Events instead of delays: each analysis says it started; with `gateV1`, the analysis
  // of the text "v1" then waits until the test releases it.
  bool gateV1 = false;
  std::mutex gmu;
  std::condition_variable gcv;
  int started = 0;
  bool released = false;
  void waitStarted(int n) {
    std::unique_lock<std::mutex> lock(gmu);
    gcv.wait(lock, [&] { return started >= n; });
  }
  void release() {
    std::lock_guard<std::mutex> lock(gmu);
    released = true;
    gcv.notify_all();
  }
};

std::unique_ptr<Scheduler> make(Recorder &r, std::chrono::milliseconds debounce) {
  return std::make_unique<Scheduler>(
      [&r](const std::string &, std::shared_ptr<const std::string> text, const std::function<bool()> &stale) {
        {
          std::unique_lock<std::mutex> lock(r.gmu);
          ++r.started;
          r.gcv.notify_all();
          if (r.gateV1 && *text == "v1") r.gcv.wait(lock, [&] { return r.released; });
        }
        if (r.cancellable && *text == "v1") {
          // Work in slices until a newer edit makes this analysis stale (the event).
          while (!stale()) std::this_thread::sleep_for(1ms);
          ++r.stopped;
          return std::shared_ptr<const ph::Analysis>(std::make_shared<ph::Analysis>());
        }
        if (r.analysisDelay.count()) std::this_thread::sleep_for(r.analysisDelay);
        ++r.analyses;
        std::lock_guard<std::mutex> lock(r.mu);
        r.analysedTexts.push_back(*text);
        return std::shared_ptr<const ph::Analysis>(std::make_shared<const ph::Analysis>());
      },
      Scheduler::Options{debounce, 2},
      [&r](std::shared_ptr<const Snapshot> s) {
        std::lock_guard<std::mutex> lock(r.mu);
        r.fresh.emplace_back(s->uri, s->version);
      });
}

TEST(Scheduler, BurstOfEditsIsAnalysedOnce) {
  Recorder r;
  auto s = make(r, 600s); // no burst outlasts it, however loaded the machine; the request skips it
  for (int v = 1; v <= 20; ++v) s->update("file:///a.ph", "v" + std::to_string(v), v);
  std::promise<void> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot>) { got.set_value(); });
  got.get_future().wait();
  s->waitIdle();
  EXPECT_EQ(r.analyses.load(), 1);
  ASSERT_EQ(r.fresh.size(), 1u);
  EXPECT_EQ(r.fresh[0].second, 20);
  EXPECT_EQ(r.analysedTexts[0], "v20");
}

TEST(Scheduler, DebounceDelaysAnalysis) {
  Recorder r;
  auto s = make(r, 200ms);
  auto t0 = std::chrono::steady_clock::now();
  s->update("file:///a.ph", "x", 1);
  s->waitIdle();
  EXPECT_GE(std::chrono::steady_clock::now() - t0, 190ms);
}

TEST(Scheduler, StaleResultIsNotPublished) {
  Recorder r;
  r.gateV1 = true;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  r.waitStarted(1); // v1's analysis is running (held)
  s->update("file:///a.ph", "v2", 2);
  r.release();
  s->waitIdle();
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.fresh.size(), 1u);
  EXPECT_EQ(r.fresh[0].second, 2);
}

TEST(Scheduler, RequestWaitsForCurrentVersionWithoutDebounce) {
  Recorder r;
  auto s = make(r, 3600s); // a debounce the request must not wait for
  s->update("file:///a.ph", "v1", 1);
  std::promise<int64_t> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap ? snap->version : -1); });
  auto f = got.get_future();
  ASSERT_EQ(f.wait_for(120s), std::future_status::ready); // far less than the debounce
  EXPECT_EQ(f.get(), 1);
}

TEST(Scheduler, RequestAfterEditSeesTheEdit) {
  Recorder r;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  s->waitIdle();
  s->update("file:///a.ph", "v2", 2);
  std::promise<std::string> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(*snap->text); });
  EXPECT_EQ(got.get_future().get(), "v2");
}

TEST(Scheduler, UnknownDocumentGivesNull) {
  Recorder r;
  auto s = make(r, 0ms);
  std::promise<bool> got;
  s->withSnapshot("file:///nope.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap == nullptr); });
  EXPECT_TRUE(got.get_future().get());
}

TEST(Scheduler, CloseReleasesWaiters) {
  Recorder r;
  r.gateV1 = true;
  auto s = make(r, 0ms);
  std::shared_ptr<void> releaseAtEnd(nullptr, [&](void *) { r.release(); }); // before `s` goes
  s->update("file:///a.ph", "v1", 1);
  r.waitStarted(1); // v1's analysis is running (held)
  s->update("file:///a.ph", "v2", 2);
  std::promise<bool> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap == nullptr); });
  s->close("file:///a.ph");
  auto f = got.get_future();
  ASSERT_EQ(f.wait_for(120s), std::future_status::ready); // released by the close, not by an analysis
  EXPECT_TRUE(f.get());
  EXPECT_TRUE(s->documents().empty());
}

TEST(Scheduler, DocumentsAreIndependent) {
  Recorder r;
  auto s = make(r, 10ms);
  for (int i = 0; i < 10; ++i) s->update("file:///f" + std::to_string(i) + ".ph", "x", 1);
  s->waitIdle();
  EXPECT_EQ(r.analyses.load(), 10);
  EXPECT_EQ(s->documents().size(), 10u);
}

TEST(Scheduler, InvalidateAllReanalyses) {
  Recorder r;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "x", 1);
  s->waitIdle();
  s->invalidateAll();
  s->waitIdle();
  EXPECT_EQ(r.analyses.load(), 2);
}

TEST(Scheduler, SnapshotPositionsUseItsText) {
  Recorder r;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "é\nx", 1);
  std::promise<Position> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap->lines.position(3)); });
  EXPECT_EQ(got.get_future().get(), (Position{1, 0}));
}

} // namespace

TEST(Scheduler, ANewerEditCancelsTheRunningAnalysis) {
  Recorder r;
  r.cancellable = true; // v1's analysis runs until a newer edit makes it stale
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  r.waitStarted(1); // v1's analysis is running
  s->update("file:///a.ph", "v2", 2);
  s->waitIdle();
  EXPECT_EQ(r.stopped.load(), 1);
  EXPECT_EQ(s->analysesCancelled(), 1u);
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.fresh.size(), 1u); // only v2 is published
  EXPECT_EQ(r.fresh[0].second, 2);
}

namespace {

/// An analysis in two parts (as the incremental analyzer's first configurations, then
/// the rest): the first is published from `published`, the whole analysis is built
/// when a request first needs it, and the rest publishes the same version again.
struct TwoStage {
  std::mutex mu;
  std::vector<std::pair<int64_t, size_t>> fresh; // version, diagnostics published
  std::atomic<int> built{0}, rests{0};
  // The rest of the analysis of this text runs until a newer version makes it
  // stale (an event, not a delay: on a loaded CI machine any delay may pass
  // before the test's next step).
  std::string holdRestOf;
};

std::unique_ptr<Scheduler> makeTwoStage(TwoStage &t) {
  auto withDiags = [](size_t n) {
    auto a = std::make_shared<ph::Analysis>();
    a->diagnostics.resize(n);
    return std::shared_ptr<const ph::Analysis>(a);
  };
  return std::make_unique<Scheduler>(
      [&t, withDiags](const std::string &, std::shared_ptr<const std::string> text, const std::function<bool()> &) {
        AnalysisResult r(LazyAnalysis::deferred([&t, withDiags] {
          ++t.built;
          return withDiags(1);
        }));
        r.published = withDiags(1);
        bool hold = *text == t.holdRestOf;
        r.rest = [&t, withDiags, hold](const std::function<bool()> &stale) {
          // Bounded, so that a scheduler that never marks it stale fails the test instead of hanging it.
          auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
          while (hold && !stale() && std::chrono::steady_clock::now() < until)
            std::this_thread::sleep_for(std::chrono::milliseconds(1));
          ++t.rests;
          return AnalysisResult(withDiags(2));
        };
        return r;
      },
      Scheduler::Options{0ms, 2},
      [&t](std::shared_ptr<const Snapshot> s) {
        std::lock_guard<std::mutex> lock(t.mu);
        t.fresh.emplace_back(s->version, s->analysis->diagnostics.size());
      });
}

} // namespace

TEST(Scheduler, TheRestOfAnAnalysisPublishesTheSameVersionAgain) {
  TwoStage t;
  auto s = makeTwoStage(t);
  s->update("file:///a.ph", "v1", 1);
  s->waitIdle(); // waits for the rest too
  std::lock_guard<std::mutex> lock(t.mu);
  ASSERT_EQ(t.fresh.size(), 2u);
  EXPECT_EQ(t.fresh[0], (std::pair<int64_t, size_t>{1, 1}));
  EXPECT_EQ(t.fresh[1], (std::pair<int64_t, size_t>{1, 2}));
  EXPECT_EQ(t.built.load(), 0); // publishing never built the whole analysis
  EXPECT_EQ(s->latest("file:///a.ph")->analysis->diagnostics.size(), 2u);
}

TEST(Scheduler, TheWholeAnalysisIsBuiltOnceWhenARequestNeedsIt) {
  TwoStage t;
  t.holdRestOf = "v1";
  auto s = makeTwoStage(t);
  s->update("file:///a.ph", "v1", 1);
  std::promise<size_t> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) {
    snap->analysis.get();
    got.set_value(snap->analysis->diagnostics.size());
  });
  EXPECT_EQ(got.get_future().get(), 1u); // the first part's snapshot, built on demand
  EXPECT_EQ(t.built.load(), 1);
  s->update("file:///a.ph", "v2", 2); // drops v1's rest
  s->waitIdle();
  std::lock_guard<std::mutex> lock(t.mu);
  for (auto &[v, n] : t.fresh) EXPECT_FALSE(v == 1 && n == 2) << "v1's rest was published after v2 arrived";
  EXPECT_EQ(t.fresh.back(), (std::pair<int64_t, size_t>{2, 2}));
}
