//===- ServerBudgetTest.cpp - A request's work is bounded (issue 20) -------===//
//
// Through the protocol: a feature request stops between the items it walks when
// the client cancels it, answers RequestFailed at its deadline or when its result
// would be too large, and the server answers other requests meanwhile. Nothing
// here depends on timing: a probe at the feature's interruption points (the
// server's test hook) holds the request where the test wants it until the event
// the test waits for (the cancel, the deadline) has happened.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

using namespace ph::lsp;
using namespace ph::lsp::testing;
using namespace std::chrono_literals;

namespace {

constexpr const char *kTokens = "textDocument/semanticTokens/full";

/// Holds the first interruption point of each semantic tokens request until the
/// request must stop (cancelled, past its deadline), and counts the points.
struct Hold {
  std::atomic<int> points{0};
  std::promise<void> entered;
  std::atomic<bool> signalled{false};
  ServerOptions options() {
    ServerOptions o = Client::fast();
    o.checkpointProbe = [this](const std::string &method, const RequestBudget &b) {
      if (method != kTokens) return;
      if (points++ > 0) return;
      if (!signalled.exchange(true)) entered.set_value();
      while (!b.stopped()) std::this_thread::sleep_for(1ms); // the event, not a time limit
    };
    return o;
  }
};

json hoverAt(Client &c, int line, int character) {
  return c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", line}, {"character", character}}}});
}

/// Hover reads the item under the cursor (issue 21); completion reads the whole analysis.
void buildWhole(Client &c) {
  json r = c.request("textDocument/completion", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 1}, {"character", 7}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  ASSERT_TRUE(c.server().scheduler().latest(kFile)->analysis.built());
}

json tokensParams() { return {{"textDocument", {{"uri", kFile}}}}; }

TEST(ServerBudget, CancelStopsAFeatureBetweenItemsAndOtherRequestsAreAnswered) {
  Hold hold;
  Client c(hold.options());
  c.initialize();
  open(c, kKernel);
  ASSERT_TRUE(hoverAt(c, 1, 7)["result"].is_object());
  buildWhole(c); // the whole analysis is built: the tokens' first point is in the feature
  int id = c.sendRequest(kTokens, tokensParams());
  hold.entered.get_future().wait(); // the request is inside the feature, at its first token
  // Meanwhile the server answers other requests of the same document.
  json h = hoverAt(c, 2, 3);
  ASSERT_TRUE(h.contains("result")) << h;
  EXPECT_TRUE(h["result"].is_object()) << h;
  c.notify("$/cancelRequest", {{"id", id}});
  json r = c.waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; });
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32800) << r;
  // It stopped at the interruption point after the cancel: one point of the dozens
  // a full answer walks (each token is one).
  EXPECT_EQ(hold.points.load(), 1);
  hold.points = 1000; // the next request runs freely
  json full = c.request(kTokens, tokensParams());
  ASSERT_TRUE(full.contains("result")) << full;
  EXPECT_GT(full["result"]["data"].size() / 5, 20u);
}

TEST(ServerBudget, PastItsDeadlineARequestIsAnsweredRequestFailedAndStops) {
  Hold hold;
  {
    Client c(hold.options());
    c.initialize();
    open(c, kKernel);
    ASSERT_TRUE(hoverAt(c, 1, 7)["result"].is_object());
    buildWhole(c);
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"ph", {{"requestTimeoutMs", 1}}}}}});
    int id = c.sendRequest(kTokens, tokensParams());
    // The probe holds the request until its deadline has passed; the watchdog answers.
    json r = c.waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; });
    ASSERT_TRUE(r.contains("error")) << r;
    EXPECT_EQ(r["error"]["code"], -32803) << r;
    EXPECT_NE(r["error"]["message"].get<std::string>().find("longer than 1 ms"), std::string::npos) << r;
    c.notify("workspace/didChangeConfiguration", {{"settings", {{"ph", {{"requestTimeoutMs", 600000}}}}}});
    json h = hoverAt(c, 2, 3); // the server goes on answering
    EXPECT_TRUE(h["result"].is_object()) << h;
  } // the server is gone: its request workers have finished
  // The held request did not walk on after its deadline: it stopped at the point that
  // held it (1), or never started the feature when the deadline came first (0).
  EXPECT_LE(hold.points.load(), 1);
}

TEST(ServerBudget, AResultOverTheCapIsRequestFailed) {
  ServerOptions o = Client::fast();
  o.maxResultItems = 5;
  Client c(o);
  c.initialize();
  open(c, kKernel);
  json r = c.request(kTokens, tokensParams());
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32803) << r;
  EXPECT_NE(r["error"]["message"].get<std::string>().find("more than 5 elements"), std::string::npos) << r;
  json h = hoverAt(c, 2, 3); // a small answer still comes
  EXPECT_TRUE(h["result"].is_object()) << h;
}

TEST(ServerBudget, BuildingTheAnalysisIsInterruptedAndTheNextRequestBuildsIt) {
  // The first request builds the whole analysis; cancelled while at it, it stops
  // there (the probe sees the build's interruption point first), and the next
  // request builds it afresh and answers.
  Hold hold;
  Client c(hold.options());
  c.initialize();
  open(c, kKernel);
  int id = c.sendRequest(kTokens, tokensParams());
  hold.entered.get_future().wait();
  c.notify("$/cancelRequest", {{"id", id}});
  json r = c.waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; });
  EXPECT_EQ(r["error"]["code"], -32800) << r;
  json h = hoverAt(c, 2, 3);
  EXPECT_TRUE(h["result"].is_object()) << h;
  hold.points = 1000;
  json full = c.request(kTokens, tokensParams());
  EXPECT_GT(full["result"]["data"].size() / 5, 20u) << full;
}

TEST(Watchdog, RunsAtTheTimeUnlessCancelled) {
  Watchdog w;
  std::promise<void> fired;
  std::atomic<int> cancelledRan{0};
  uint64_t a = w.at(Watchdog::Clock::now() + 600s, [&] { ++cancelledRan; });
  w.at(Watchdog::Clock::now(), [&] { fired.set_value(); });
  fired.get_future().wait();
  w.cancel(a);
  EXPECT_EQ(w.pending(), 0u);
  EXPECT_EQ(cancelledRan.load(), 0);
}

} // namespace
