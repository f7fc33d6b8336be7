//===- JsonRpcTest.cpp - Dispatch, error paths and cancellation -----------===//
#include "JsonRpc.h"

#include <gtest/gtest.h>

#include <future>
#include <thread>

using namespace ph::lsp;

namespace {

struct Harness {
  std::mutex mu;
  std::vector<json> sent;
  Endpoint ep{[this](std::string body) {
    std::lock_guard<std::mutex> lock(mu);
    sent.push_back(json::parse(body));
  }};
  json last() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.empty() ? json() : sent.back();
  }
  size_t count() {
    std::lock_guard<std::mutex> lock(mu);
    return sent.size();
  }
};

int errorCode(const json &m) { return m.at("error").at("code").get<int>(); }

TEST(JsonRpc, RequestGetsResult) {
  Harness h;
  h.ep.onRequest("echo", [](const json &p, Reply r) { r(p); });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":7,"method":"echo","params":{"x":1}})");
  EXPECT_EQ(h.last(), json::parse(R"({"jsonrpc":"2.0","id":7,"result":{"x":1}})"));
}

TEST(JsonRpc, StringIdsAreEchoed) {
  Harness h;
  h.ep.onRequest("m", [](const json &, Reply r) { r(nullptr); });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":"abc","method":"m"})");
  EXPECT_EQ(h.last()["id"], "abc");
}

TEST(JsonRpc, MalformedJsonIsParseErrorAndCarriesOn) {
  Harness h;
  h.ep.onRequest("m", [](const json &, Reply r) { r(1); });
  h.ep.handleBody("{not json");
  EXPECT_EQ(errorCode(h.last()), -32700);
  EXPECT_TRUE(h.last()["id"].is_null());
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_EQ(h.last()["result"], 1);
}

TEST(JsonRpc, FramingErrorIsParseError) {
  Harness h;
  h.ep.handle({"", "missing Content-Length header"});
  EXPECT_EQ(errorCode(h.last()), -32700);
}

TEST(JsonRpc, InvalidRequests) {
  Harness h;
  for (const char *bad : {"[]", "42", R"({"jsonrpc":"2.0","id":1})", R"({"jsonrpc":"2.0","id":1,"method":5})",
                          R"({"jsonrpc":"1.0","id":1,"method":"m"})", R"({"jsonrpc":"2.0","id":{"o":1},"method":"m"})",
                          R"({"jsonrpc":"2.0","id":1,"method":"m","params":3})"}) {
    size_t before = h.count();
    h.ep.handleBody(bad);
    ASSERT_EQ(h.count(), before + 1) << bad;
    EXPECT_EQ(errorCode(h.last()), -32600) << bad;
  }
}

TEST(JsonRpc, UnknownMethodIsMethodNotFound) {
  Harness h;
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":3,"method":"no/such"})");
  EXPECT_EQ(errorCode(h.last()), -32601);
  EXPECT_EQ(h.last()["id"], 3);
}

TEST(JsonRpc, UnknownNotificationIsIgnored) {
  Harness h;
  h.ep.handleBody(R"({"jsonrpc":"2.0","method":"no/such"})");
  h.ep.handleBody(R"({"jsonrpc":"2.0","method":"$/setTrace","params":{}})");
  EXPECT_EQ(h.count(), 0u);
}

TEST(JsonRpc, BadParamsAreInvalidParams) {
  Harness h;
  h.ep.onRequest("m", [](const json &p, Reply r) { r(p.at("missing").get<int>()); });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m","params":{}})");
  EXPECT_EQ(errorCode(h.last()), -32602);
}

TEST(JsonRpc, OnlyTheFirstAnswerIsSent) {
  Harness h;
  h.ep.onRequest("m", [](const json &, Reply r) {
    r(1);
    r(2);
    r.error(ErrorCode::InternalError, "late");
  });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_EQ(h.count(), 1u);
  EXPECT_EQ(h.last()["result"], 1);
}

TEST(JsonRpc, DroppedReplyAnswersInternalError) {
  Harness h;
  h.ep.onRequest("m", [](const json &, Reply) {});
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_EQ(errorCode(h.last()), -32603);
}

TEST(JsonRpc, CancelRequestReachesAWorker) {
  Harness h;
  std::promise<void> started;
  std::thread worker;
  h.ep.onRequest("slow", [&](const json &, Reply r) {
    worker = std::thread([r, &started] {
      started.set_value();
      while (!r.cancelled()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
      r.replyIfCancelled();
    });
  });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":9,"method":"slow"})");
  started.get_future().wait();
  EXPECT_EQ(h.ep.inFlight(), 1u);
  h.ep.handleBody(R"({"jsonrpc":"2.0","method":"$/cancelRequest","params":{"id":9}})");
  worker.join();
  EXPECT_EQ(errorCode(h.last()), -32800);
  EXPECT_EQ(h.ep.inFlight(), 0u);
}

TEST(JsonRpc, CancelCallbackRuns) {
  auto c = std::make_shared<CancelState>();
  int calls = 0;
  c->onCancel([&] { ++calls; });
  c->cancel();
  c->cancel();
  EXPECT_EQ(calls, 1);
  c->onCancel([&] { ++calls; }); // already cancelled: runs at once
  EXPECT_EQ(calls, 2);
}

TEST(JsonRpc, GateRefusesBeforeDispatch) {
  Harness h;
  bool ran = false;
  h.ep.onRequest("m", [&](const json &, Reply r) { ran = true; r(nullptr); });
  h.ep.setRequestGate([](const std::string &) { return std::optional<RpcError>(RpcError{ErrorCode::ServerNotInitialized, "no", nullptr}); });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_FALSE(ran);
  EXPECT_EQ(errorCode(h.last()), -32002);
}

TEST(JsonRpc, ServerToClientCallGetsItsResponse) {
  Harness h;
  json got;
  h.ep.call("window/workDoneProgress/create", {{"token", "t"}}, [&](const json &r, std::optional<RpcError> e) {
    EXPECT_FALSE(e);
    got = r;
  });
  json req = h.last();
  EXPECT_EQ(req["method"], "window/workDoneProgress/create");
  h.ep.handleBody(json({{"jsonrpc", "2.0"}, {"id", req["id"]}, {"result", "ok"}}).dump());
  EXPECT_EQ(got, "ok");
}

TEST(JsonRpc, InvalidUtf8InAResultDoesNotThrow) {
  Harness h;
  h.ep.onRequest("m", [](const json &, Reply r) { r(std::string("bad \xFF byte")); });
  h.ep.handleBody(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_TRUE(h.last()["result"].is_string());
}

} // namespace
