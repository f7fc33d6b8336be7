//===- ServerClient.h - An in-process client of Server for the tests -*- C++ -*-===//
//
// Messages go straight into Server::handle and come back through the send
// function; stand-in `ph` drivers are small shell scripts, so the command paths
// do not depend on the backend.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Server.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

namespace ph::lsp::testing {

using namespace std::chrono_literals;
namespace fs = std::filesystem;

class Client {
public:
  static ServerOptions fast() {
    ServerOptions o;
    o.debounce = 5ms;
    return o;
  }
  explicit Client(ServerOptions o = fast()) {
    o.stdDir = PH_STD_DIR_FOR_TESTS;
    o.detectGpu = false;
    server_ = std::make_unique<Server>(
        [this](std::string body) {
          std::lock_guard<std::mutex> lock(mu_);
          received_.push_back(json::parse(body));
          cv_.notify_all();
        },
        o);
  }
  ~Client() { server_.reset(); }

  void send(const json &msg) { server_->handle({msg.dump(), {}}); }
  void notify(const std::string &method, json params) {
    send({{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
  }
  /// The waits' limits only tell a hung server: far above what an idle machine needs,
  /// since CI runs the suite under ASan (about 10x slower) on 2 loaded cores.
  static constexpr std::chrono::milliseconds kHung = 120s;
  json request(const std::string &method, json params, std::chrono::milliseconds timeout = kHung) {
    int id = nextId_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; }, timeout);
  }
  int sendRequest(const std::string &method, json params) {
    int id = nextId_++;
    send({{"jsonrpc", "2.0"}, {"id", id}, {"method", method}, {"params", std::move(params)}});
    return id;
  }
  json waitFor(std::function<bool(const json &)> pred, std::chrono::milliseconds timeout = kHung) {
    std::unique_lock<std::mutex> lock(mu_);
    json found;
    cv_.wait_for(lock, timeout, [&] {
      for (size_t i = 0; i < received_.size(); ++i)
        if (pred(received_[i])) {
          found = received_[i];
          received_.erase(received_.begin() + static_cast<long>(i));
          return true;
        }
      return false;
    });
    return found;
  }
  json diagnosticsFor(const std::string &uri, int64_t version) {
    return waitFor([&](const json &m) {
      return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri &&
             m["params"].value("version", -1) == version;
    });
  }
  void initialize(json caps = json::object(), json initOptions = nullptr, json workspaceFolders = nullptr) {
    json p = {{"processId", nullptr}, {"rootUri", nullptr}, {"capabilities", caps}};
    if (!initOptions.is_null()) p["initializationOptions"] = initOptions;
    if (!workspaceFolders.is_null()) p["workspaceFolders"] = workspaceFolders;
    ASSERT_TRUE(request("initialize", p).contains("result"));
    notify("initialized", json::object());
  }
  Server &server() { return *server_; }

private:
  std::unique_ptr<Server> server_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<json> received_;
  int nextId_ = 1;
};

inline const char *kFile = "file:///tmp/ph-lsp-server-test/k.ph";

inline const char *kKernel = "kernel k(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {\n"
                      "  let t = ctx.block.x * 8\n"
                      "  Y[t :+ 8, :] = X[t :+ 8, :]\n"
                      "}\n";

inline json open(Client &c, const std::string &text, const char *uri = kFile) {
  c.notify("textDocument/didOpen", {{"textDocument", {{"uri", uri}, {"languageId", "ph"}, {"version", 1}, {"text", text}}}});
  return c.diagnosticsFor(uri, 1);
}

/// A stand-in `ph` driver: a shell script with this body.
inline std::string fakeDriver(const std::string &name, const std::string &body) {
  fs::path dir = fs::temp_directory_path() / ("ph-lsp-fake-" + std::to_string(getpid()));
  fs::create_directories(dir);
  fs::path p = dir / name;
  std::ofstream(p) << "#!/bin/sh\n" << body << "\n";
  chmod(p.c_str(), 0755);
  return p.string();
}

} // namespace ph::lsp::testing
