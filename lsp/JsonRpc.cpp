//===- JsonRpc.cpp - JSON-RPC 2.0 dispatch --------------------------------===//
#include "JsonRpc.h"

#include <vector>

namespace ph::lsp {

void CancelState::onCancel(std::function<void()> fn) {
  bool now;
  {
    std::lock_guard<std::mutex> lock(mu_);
    now = cancelled();
    if (!now) callback_ = std::move(fn);
  }
  if (now && fn) fn();
}

void CancelState::cancel() {
  std::function<void()> fn;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (cancelled_.exchange(true)) return;
    fn = std::move(callback_);
  }
  if (fn) fn();
}

json errorToJson(const RpcError &e) {
  json j = {{"code", static_cast<int>(e.code)}, {"message", e.message}};
  if (!e.data.is_null()) j["data"] = e.data;
  return j;
}

//===----------------------------------------------------------------------===//
// Reply
//===----------------------------------------------------------------------===//

struct Reply::State {
  Endpoint *endpoint = nullptr;
  std::weak_ptr<bool> alive; // the endpoint may be gone when a late worker replies
  json id;
  std::string method;
  std::shared_ptr<CancelState> cancel = std::make_shared<CancelState>();
  std::atomic<bool> answered{false};

  void answer(json result, std::optional<RpcError> err) {
    if (answered.exchange(true)) return;
    if (alive.lock()) endpoint->sendResponse(id, method, std::move(result), std::move(err));
  }
  ~State() {
    if (!answered.load())
      answer(nullptr, RpcError{ErrorCode::InternalError, "the server dropped request `" + method + "` without an answer", nullptr});
  }
};

void Reply::operator()(json result) const {
  if (state_) state_->answer(std::move(result), std::nullopt);
}
void Reply::raw(std::string resultJson) const {
  if (!state_ || state_->answered.exchange(true)) return;
  if (state_->alive.lock()) state_->endpoint->sendResponseText(state_->id, std::move(resultJson));
}
void Reply::error(RpcError e) const {
  if (state_) state_->answer(nullptr, std::move(e));
}
bool Reply::cancelled() const { return state_ && state_->cancel->cancelled(); }
bool Reply::replyIfCancelled() const {
  if (!cancelled()) return false;
  error(ErrorCode::RequestCancelled, "request cancelled");
  return true;
}
const std::shared_ptr<CancelState> &Reply::cancelState() const {
  static const std::shared_ptr<CancelState> none;
  return state_ ? state_->cancel : none;
}
const json &Reply::id() const {
  static const json none;
  return state_ ? state_->id : none;
}
const std::string &Reply::method() const {
  static const std::string none;
  return state_ ? state_->method : none;
}

//===----------------------------------------------------------------------===//
// Endpoint
//===----------------------------------------------------------------------===//

Endpoint::Endpoint(SendFn send) : send_(std::move(send)) {}
Endpoint::~Endpoint() { *alive_ = false; }

void Endpoint::onRequest(std::string method, RequestHandler handler) { requests_[std::move(method)] = std::move(handler); }
void Endpoint::onNotification(std::string method, NotificationHandler handler) {
  notifications_[std::move(method)] = std::move(handler);
}
void Endpoint::setRequestGate(std::function<std::optional<RpcError>(const std::string &)> gate) {
  requestGate_ = std::move(gate);
}
void Endpoint::setNotificationGate(std::function<bool(const std::string &)> gate) { notificationGate_ = std::move(gate); }

size_t Endpoint::inFlight() const {
  std::lock_guard<std::mutex> lock(mu_);
  return inFlight_.size();
}

void Endpoint::cancelAll() {
  std::vector<std::shared_ptr<CancelState>> states;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &[id, st] : inFlight_) states.push_back(st);
  }
  for (auto &st : states) st->cancel();
}

void Endpoint::sendError(const json &id, RpcError err) {
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"error", errorToJson(err)}};
  send_(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Endpoint::sendResponse(const json &id, const std::string &method, json result, std::optional<RpcError> err) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    inFlight_.erase(id.dump());
  }
  if (err) {
    if (log) log("request " + method + " " + id.dump() + " failed: " + err->message);
    sendError(id, std::move(*err));
    return;
  }
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}};
  // `replace` keeps one invalid UTF-8 byte in a document from killing the reply.
  send_(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Endpoint::sendResponseText(const json &id, std::string resultJson) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    inFlight_.erase(id.dump());
  }
  // The members in the order json::dump writes them (sorted), so both paths send alike.
  std::string msg = "{\"id\":" + id.dump() + ",\"jsonrpc\":\"2.0\",\"result\":";
  msg.reserve(msg.size() + resultJson.size() + 1);
  msg += resultJson;
  resultJson = std::string(); // one copy of a large answer at a time
  msg += '}';
  send_(std::move(msg));
}

void Endpoint::notify(const std::string &method, json params) {
  json msg = {{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}};
  send_(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

void Endpoint::call(const std::string &method, json params, ResponseHandler onResponse) {
  int64_t id;
  {
    std::lock_guard<std::mutex> lock(mu_);
    id = nextCallId_++;
    if (onResponse) pendingCalls_[id] = std::move(onResponse);
  }
  json msg = {{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}};
  send_(msg.dump(-1, ' ', false, json::error_handler_t::replace));
}

static bool validId(const json &id) { return id.is_string() || id.is_number_integer() || id.is_number_unsigned(); }

/// LSP messages nest a few levels; anything deeper than this is refused.
static constexpr int maxJsonDepth = 512;

/// Whether `body` opens more than `limit` arrays/objects at once (strings skipped).
static bool nestedDeeperThan(std::string_view body, int limit) {
  int depth = 0;
  bool inString = false;
  for (size_t i = 0; i < body.size(); ++i) {
    char ch = body[i];
    if (inString) {
      if (ch == '\\') ++i;
      else if (ch == '"') inString = false;
    } else if (ch == '"') {
      inString = true;
    } else if (ch == '[' || ch == '{') {
      if (++depth > limit) return true;
    } else if (ch == ']' || ch == '}') {
      --depth;
    }
  }
  return false;
}

void Endpoint::handle(const Transport::Incoming &in) {
  if (!in.framingError.empty()) {
    sendError(nullptr, {ErrorCode::ParseError, "bad message header: " + in.framingError, nullptr});
    return;
  }
  // nlohmann parses iteratively but copies recursively: params nested 100000
  // deep overflowed the stack when a handler copied them (a reliability test).
  if (nestedDeeperThan(in.body, maxJsonDepth)) {
    sendError(nullptr, {ErrorCode::ParseError,
                        "message nested more than " + std::to_string(maxJsonDepth) + " levels deep", nullptr});
    return;
  }
  json msg = json::parse(in.body, nullptr, /*allow_exceptions=*/false);
  if (msg.is_discarded()) {
    sendError(nullptr, {ErrorCode::ParseError, "message is not valid JSON", nullptr});
    return;
  }
  if (!msg.is_object()) {
    sendError(nullptr, {ErrorCode::InvalidRequest,
                        msg.is_array() ? "batch messages are not supported" : "a message must be a JSON object", nullptr});
    return;
  }
  json id = msg.contains("id") ? msg["id"] : json();
  bool hasId = msg.contains("id");
  auto method = msg.find("method");
  if (hasId && !validId(id)) {
    sendError(nullptr, {ErrorCode::InvalidRequest, "`id` must be a string or an integer", nullptr});
    return;
  }
  if (msg.value("jsonrpc", json()) != "2.0") {
    sendError(hasId ? id : json(), {ErrorCode::InvalidRequest, "`jsonrpc` must be \"2.0\"", nullptr});
    return;
  }
  if (method == msg.end()) {
    if (hasId && (msg.contains("result") || msg.contains("error"))) {
      dispatchResponse(msg);
      return;
    }
    sendError(hasId ? id : json(), {ErrorCode::InvalidRequest, "a message needs `method` (or `result`/`error` in a response)", nullptr});
    return;
  }
  if (!method->is_string()) {
    sendError(hasId ? id : json(), {ErrorCode::InvalidRequest, "`method` must be a string", nullptr});
    return;
  }
  // A null `params` is read as absent: some clients send it for `shutdown`.
  if (msg.contains("params") && !msg["params"].is_null() && !msg["params"].is_object() && !msg["params"].is_array()) {
    if (hasId) sendError(id, {ErrorCode::InvalidRequest, "`params` must be an object or an array", nullptr});
    return;
  }
  if (hasId)
    dispatchRequest(msg);
  else
    dispatchNotification(msg);
}

void Endpoint::dispatchRequest(const json &msg) {
  const json &id = msg["id"];
  std::string method = msg["method"].get<std::string>();
  if (requestGate_) {
    if (auto err = requestGate_(method)) {
      sendError(id, std::move(*err));
      return;
    }
  }
  auto it = requests_.find(method);
  if (it == requests_.end()) {
    sendError(id, {ErrorCode::MethodNotFound, "method not found: " + method, nullptr});
    return;
  }
  Reply reply;
  reply.state_ = std::make_shared<Reply::State>();
  reply.state_->endpoint = this;
  reply.state_->alive = alive_;
  reply.state_->id = id;
  reply.state_->method = method;
  {
    std::lock_guard<std::mutex> lock(mu_);
    inFlight_[id.dump()] = reply.state_->cancel;
  }
  static const json empty = json::object();
  const json &params = msg.contains("params") && !msg["params"].is_null() ? msg["params"] : empty;
  try {
    it->second(params, reply);
  } catch (const json::exception &e) {
    reply.error(ErrorCode::InvalidParams, std::string("invalid params for `") + method + "`: " + e.what());
  } catch (const std::exception &e) {
    reply.error(ErrorCode::InternalError, std::string("internal error in `") + method + "`: " + e.what());
  }
}

void Endpoint::dispatchNotification(const json &msg) {
  std::string method = msg["method"].get<std::string>();
  static const json empty = json::object();
  const json &params = msg.contains("params") && !msg["params"].is_null() ? msg["params"] : empty;
  if (method == "$/cancelRequest") {
    if (!params.is_object() || !params.contains("id")) return;
    std::shared_ptr<CancelState> state;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = inFlight_.find(params["id"].dump());
      if (it != inFlight_.end()) state = it->second;
    }
    if (state) state->cancel();
    return;
  }
  if (notificationGate_ && !notificationGate_(method)) return;
  auto it = notifications_.find(method);
  if (it == notifications_.end()) {
    // Notifications have no answer; unknown ones (and every `$/` one) are ignored.
    if (log && method.rfind("$/", 0) != 0) log("ignored notification " + method);
    return;
  }
  try {
    it->second(params);
  } catch (const std::exception &e) {
    if (log) log("notification " + method + " failed: " + e.what());
  }
}

void Endpoint::dispatchResponse(const json &msg) {
  const json &id = msg["id"];
  if (!id.is_number_integer()) return;
  ResponseHandler handler;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pendingCalls_.find(id.get<int64_t>());
    if (it == pendingCalls_.end()) return;
    handler = std::move(it->second);
    pendingCalls_.erase(it);
  }
  if (msg.contains("error")) {
    const json &e = msg["error"];
    RpcError err{static_cast<ErrorCode>(e.value("code", -32603)), e.value("message", std::string()), e.value("data", json())};
    handler(nullptr, err);
  } else {
    handler(msg["result"], std::nullopt);
  }
}

} // namespace ph::lsp
