//===- JsonRpc.h - JSON-RPC 2.0 dispatch, replies and cancellation -*- C++ -*-===//
//
// The endpoint turns message bodies into handler calls and handler results
// into responses. It owns the protocol's error paths: malformed JSON gets a
// ParseError, a message that is not a request, notification or response gets
// InvalidRequest, an unknown method MethodNotFound, and a handler that throws
// on bad parameters InvalidParams; the endpoint carries on after each.
// A Reply may travel to another thread and be answered there, once.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Protocol.h"
#include "Transport.h"

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

namespace ph::lsp {

/// Set by `$/cancelRequest` (or a progress cancel); polled by long work.
class CancelState {
public:
  bool cancelled() const { return cancelled_.load(std::memory_order_acquire); }
  /// Runs `fn` at cancellation (at once if already cancelled). One callback.
  void onCancel(std::function<void()> fn);
  void cancel();

private:
  std::atomic<bool> cancelled_{false};
  std::mutex mu_;
  std::function<void()> callback_;
};

class Endpoint;

/// The answer to one request. Copyable; the first answer wins, later ones are
/// dropped. If every copy dies unanswered, an InternalError is sent so the
/// client never waits forever.
class Reply {
public:
  Reply() = default;
  void operator()(json result) const;
  /// Answers with a result already written as JSON text (a large answer, e.g. the
  /// semantic tokens of a big file, whose DOM would cost several times its text).
  void raw(std::string resultJson) const;
  void error(RpcError e) const;
  void error(ErrorCode code, std::string message) const { error(RpcError{code, std::move(message), nullptr}); }
  /// Answers RequestCancelled if the request was cancelled; returns whether it did.
  bool replyIfCancelled() const;
  bool cancelled() const;
  const std::shared_ptr<CancelState> &cancelState() const;
  const json &id() const;
  const std::string &method() const;

private:
  friend class Endpoint;
  struct State;
  std::shared_ptr<State> state_;
};

class Endpoint {
public:
  using RequestHandler = std::function<void(const json &params, Reply reply)>;
  using NotificationHandler = std::function<void(const json &params)>;
  using SendFn = std::function<void(std::string body)>;

  explicit Endpoint(SendFn send);
  ~Endpoint();

  void onRequest(std::string method, RequestHandler handler);
  void onNotification(std::string method, NotificationHandler handler);
  /// Checked before any request handler: a returned error is sent instead
  /// (the server uses it for ServerNotInitialized and requests after shutdown).
  void setRequestGate(std::function<std::optional<RpcError>(const std::string &method)> gate);
  /// Called for every notification before its handler; returns false to drop it.
  void setNotificationGate(std::function<bool(const std::string &method)> gate);

  /// Handles one incoming body (or framing error). Runs on the I/O thread.
  void handle(const Transport::Incoming &in);
  void handleBody(const std::string &body) { handle({body, {}}); }

  /// Server-to-client messages. Thread-safe.
  void notify(const std::string &method, json params);
  using ResponseHandler = std::function<void(const json &result, std::optional<RpcError> error)>;
  void call(const std::string &method, json params, ResponseHandler onResponse = nullptr);

  /// Requests received and not answered yet (for tests and shutdown).
  size_t inFlight() const;
  /// Cancels every request in flight (at exit, so workers stop their subprocesses).
  void cancelAll();

  /// For the log: optional sink for one line per problem.
  std::function<void(const std::string &)> log;

private:
  friend class Reply;
  void sendResponse(const json &id, const std::string &method, json result, std::optional<RpcError> err);
  void sendResponseText(const json &id, std::string resultJson);
  void sendError(const json &id, RpcError err);
  void dispatchRequest(const json &msg);
  void dispatchNotification(const json &msg);
  void dispatchResponse(const json &msg);

  SendFn send_;
  std::map<std::string, RequestHandler, std::less<>> requests_;
  std::map<std::string, NotificationHandler, std::less<>> notifications_;
  std::function<std::optional<RpcError>(const std::string &)> requestGate_;
  std::function<bool(const std::string &)> notificationGate_;

  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<CancelState>> inFlight_; // key: id.dump()
  std::unordered_map<int64_t, ResponseHandler> pendingCalls_;
  int64_t nextCallId_ = 1;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

json errorToJson(const RpcError &e);

} // namespace ph::lsp
