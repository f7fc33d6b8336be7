//===- Progress.h - $/progress of one long command --------------*- C++ -*-===//
//
// A command's begin/report/end notifications. A token the server creates is
// used only after the client acknowledged window/workDoneProgress/create; an
// end that comes first waits for that.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Server.h"

#include <mutex>
#include <optional>
#include <string>

namespace ph::lsp {

struct Server::Progress {
  Server *server = nullptr;
  json token;
  std::string title;
  std::mutex mu;
  bool ready = false, ended = false;
  std::optional<std::string> pendingEnd;

  void sendBegin() {
    server->endpoint_.notify("$/progress", {{"token", token},
                                            {"value", {{"kind", "begin"}, {"title", title}, {"cancellable", true}}}});
  }
  void sendEnd(const std::string &msg) {
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", {{"kind", "end"}, {"message", msg}}}});
    std::lock_guard<std::mutex> lock(server->mu_);
    server->progressTokens_.erase(token.dump());
  }
  void onReady() {
    std::optional<std::string> end;
    {
      std::lock_guard<std::mutex> lock(mu);
      ready = true;
      sendBegin();
      end = pendingEnd;
    }
    if (end) sendEnd(*end);
  }
  void report(const std::string &msg) {
    std::lock_guard<std::mutex> lock(mu);
    if (!ready || ended) return;
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", {{"kind", "report"}, {"message", msg}}}});
  }
  void end(const std::string &msg) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (ended) return;
      ended = true;
      if (!ready) {
        pendingEnd = msg; // the client has not acknowledged the token yet
        return;
      }
    }
    sendEnd(msg);
  }
};

} // namespace ph::lsp
