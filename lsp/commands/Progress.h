//===- Progress.h - $/progress of one long command --------------*- C++ -*-===//
//
// A command's begin/report/end notifications. A token the server creates is
// used only after the client acknowledged window/workDoneProgress/create; a
// report or an end that comes first waits for that (of reports, the latest:
// each says where the job is now).
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
  bool percentages = false; // begin says 0%, so the client shows the reports' percentages
  std::optional<std::string> pendingReport, pendingEnd;
  int pendingPercentage = -1;

  void sendBegin() {
    json value = {{"kind", "begin"}, {"title", title}, {"cancellable", true}};
    if (percentages) value["percentage"] = 0;
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", value}});
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
      if (pendingReport && !pendingEnd) sendReport(*pendingReport, pendingPercentage);
      end = pendingEnd;
    }
    if (end) sendEnd(*end);
  }
  void sendReport(const std::string &msg, int percentage) {
    json value = {{"kind", "report"}, {"message", msg}};
    if (percentage >= 0) value["percentage"] = percentage;
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", value}});
  }
  /// `percentage` 0..100, or -1 for none.
  void report(const std::string &msg, int percentage = -1) {
    std::lock_guard<std::mutex> lock(mu);
    if (ended) return;
    if (!ready) {
      pendingReport = msg; // sent with `begin`, once the client has the token
      pendingPercentage = percentage;
    } else {
      sendReport(msg, percentage);
    }
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
