//===- SchedulerTest.cpp - Debounce, staleness, waiting requests ----------===//
#include "Scheduler.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

// The scheduler only carries Analysis pointers; these tests never make one.
namespace ph {
struct Analysis {};
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
  bool cancellable = false;   // the analysis polls `stale` and stops early
  std::atomic<int> stopped{0};
};

std::unique_ptr<Scheduler> make(Recorder &r, std::chrono::milliseconds debounce) {
  return std::make_unique<Scheduler>(
      [&r](const std::string &, std::shared_ptr<const std::string> text, const std::function<bool()> &stale) {
        if (r.cancellable) {
          // Work in slices, stopping as soon as a newer edit makes this analysis stale.
          for (int i = 0; i < 100; ++i) {
            if (stale()) {
              ++r.stopped;
              return std::shared_ptr<const ph::Analysis>(std::make_shared<ph::Analysis>());
            }
            std::this_thread::sleep_for(5ms);
          }
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
  auto s = make(r, 30ms);
  for (int v = 1; v <= 20; ++v) s->update("file:///a.ph", "v" + std::to_string(v), v);
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
  r.analysisDelay = 100ms;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  std::this_thread::sleep_for(30ms); // v1's analysis is running
  s->update("file:///a.ph", "v2", 2);
  s->waitIdle();
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.fresh.size(), 1u);
  EXPECT_EQ(r.fresh[0].second, 2);
}

TEST(Scheduler, RequestWaitsForCurrentVersionWithoutDebounce) {
  Recorder r;
  auto s = make(r, 5000ms); // a debounce the request must not wait for
  s->update("file:///a.ph", "v1", 1);
  std::promise<int64_t> got;
  auto t0 = std::chrono::steady_clock::now();
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap ? snap->version : -1); });
  auto f = got.get_future();
  ASSERT_EQ(f.wait_for(2s), std::future_status::ready);
  EXPECT_EQ(f.get(), 1);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 1s);
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
  r.analysisDelay = 200ms;
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  std::this_thread::sleep_for(20ms);
  s->update("file:///a.ph", "v2", 2);
  std::promise<bool> got;
  s->withSnapshot("file:///a.ph", [&](std::shared_ptr<const Snapshot> snap) { got.set_value(snap == nullptr); });
  s->close("file:///a.ph");
  auto f = got.get_future();
  ASSERT_EQ(f.wait_for(2s), std::future_status::ready);
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
  r.cancellable = true; // each analysis takes 500 ms unless cancelled
  auto s = make(r, 0ms);
  s->update("file:///a.ph", "v1", 1);
  std::this_thread::sleep_for(50ms); // v1's analysis is running
  s->update("file:///a.ph", "v2", 2);
  s->waitIdle();
  EXPECT_EQ(r.stopped.load(), 1);
  EXPECT_EQ(s->analysesCancelled(), 1u);
  std::lock_guard<std::mutex> lock(r.mu);
  ASSERT_EQ(r.fresh.size(), 1u); // only v2 is published
  EXPECT_EQ(r.fresh[0].second, 2);
}
