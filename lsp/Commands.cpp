//===- Commands.cpp - workspace/executeCommand: routing, progress, GPU status -===//
//
// Each command starts the `ph` driver as a subprocess with an argument vector
// (never a shell) on a worker thread, reports $/progress while it runs, and
// is cancelled (the child killed) by $/cancelRequest or by the editor's
// progress cancel button. A stage the driver does not have yet is reported
// as a clear RequestFailed error with the driver's own words.
// One file per command in lsp/commands/ (run, bench, compile, show IR, compile
// on save), over the driver client in lsp/commands/Driver.h; this file routes
// to them and holds what they share.
//
//===----------------------------------------------------------------------===//
#include "Progress.h"
#include "Server.h"
#include "Subprocess.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace ph::lsp {

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

std::shared_ptr<Server::Progress> Server::beginProgress(const std::string &title, const json &clientToken,
                                                        const std::shared_ptr<CancelState> &cancel, bool percentages) {
  auto p = std::make_shared<Progress>();
  p->server = this;
  p->title = title;
  p->percentages = percentages;
  bool create = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (clientToken.is_string() || clientToken.is_number_integer()) {
      p->token = clientToken;
    } else if (clientProgress_) {
      p->token = "ph-progress-" + std::to_string(nextToken_++);
      create = true;
    } else {
      return nullptr; // the client shows no progress
    }
    progressTokens_[p->token.dump()] = cancel;
  }
  if (create)
    endpoint_.call("window/workDoneProgress/create", {{"token", p->token}},
                   [p](const json &, std::optional<RpcError>) { p->onReady(); });
  else
    p->onReady();
  return p;
}

//===----------------------------------------------------------------------===//
// Server commands
//===----------------------------------------------------------------------===//

void Server::requireReadable(const std::string &command, const std::string &uri) {
  std::string path = filePathOfUri(uri);
  if (path.empty())
    throw RpcError{ErrorCode::InvalidParams, "`" + command + "` takes a file: URI, not `" + uri.substr(0, 200) + "`", nullptr};
  if (scheduler_->text(uri)) return; // open in the editor: the server holds its text
  std::string why = workspace_.refuse(path);
  if (!why.empty())
    throw RpcError{ErrorCode::InvalidParams,
                   "`" + command + "` reads only documents open in the editor or files inside the workspace folders: " + why,
                   nullptr};
}

std::string Server::fileForDriver(const std::string &uri, std::string &tempDir) {
  std::string path = filePathOfUri(uri);
  auto text = scheduler_->text(uri);
  std::string why = workspace_.refuse(path);
  if (!text) {
    if (!why.empty())
      throw RpcError{ErrorCode::InvalidParams, "reads only documents open in the editor or files inside the workspace folders: " + why, nullptr};
    return path;
  }
  // An open document's file is read only to see that it holds the editor's text
  // (then the driver's messages name the user's file): only a regular file, and
  // only when it has the text's size, so an open `file:///dev/zero` is never read.
  std::error_code ec;
  if (!path.empty() && std::filesystem::is_regular_file(path, ec)) {
    if (std::filesystem::file_size(path, ec) == text->size() && !ec) {
      std::ifstream f(path, std::ios::binary);
      std::string disk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
      if (f.good() || f.eof())
        if (disk == *text) return path;
    }
  }
  // Unsaved edits, or a document that is no regular file: the driver reads a copy
  // (under the same base name), and the command passes the user's path as
  // `--source-name` (driver::appendSourceName), so everything it says names that path.
  char tmpl[] = "/tmp/ph-lsp-XXXXXX";
  if (!mkdtemp(tmpl)) throw RpcError{ErrorCode::RequestFailed, "cannot make a temporary folder for the unsaved text", nullptr};
  tempDir = tmpl;
  std::string name = fs::path(path.empty() ? std::string("untitled.ph") : path).filename().string();
  if (name.empty() || name == "." || name == "..") name = "untitled.ph";
  std::string copy = tempDir + "/" + name;
  std::ofstream(copy, std::ios::binary) << *text;
  return copy;
}

std::string Server::resolveKernel(const json &args, const std::shared_ptr<const Snapshot> &snap) {
  if (args.contains("kernel") && args["kernel"].is_string()) return args["kernel"];
  if (!snap || !snap->analysis) return "";
  uint32_t off = 0;
  if (args.contains("position")) off = snap->lines.offset(positionFromJson(args["position"]));
  return kernelAt(*snap, off);
}

std::string Server::requireKernel(const json &args, const std::shared_ptr<const Snapshot> &snap) {
  std::string kernel = resolveKernel(args, snap);
  if (kernel.empty()) throw RpcError{ErrorCode::InvalidParams, "no kernel here: pass `kernel` or a `position` inside one", nullptr};
  return kernel;
}

void Server::sendGpuStatus() {
  GpuInfo g;
  bool renamed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    const std::string before = runLabelLocked();
    if (!gpu_) gpu_ = detectGpu();
    g = *gpu_;
    // Lenses answered before the probe say "GPU" for `auto`; with none found they say "CPU".
    renamed = runLabelLocked() != before;
  }
  json status = {{"gpu", g.available ? json{{"name", g.name}, {"arch", g.arch}} : json(nullptr)},
                 {"message", g.available ? "ph run uses " + g.name + " (" + g.arch + ")"
                                         : "no GPU: " + g.reason + "; ph run can use the CPU target"}};
  if (!g.available) status["reason"] = g.reason;
  endpoint_.notify("ph/status", status);
  if (renamed) refreshLenses();
}

/// Why the command's arguments are of the wrong type, or "" (issue 20: a number as
/// `kernel` or `target`, a negative line, were taken or failed as InternalError).
static std::string wrongArgument(const json &args) {
  for (const char *k : {"kernel", "target", "stage", "noGpu"})
    if (args.contains(k) && !args[k].is_string()) return std::string("`") + k + "` must be a string";
  for (const char *k : {"bench", "benchmark"})
    if (args.contains(k) && !args[k].is_boolean()) return std::string("`") + k + "` must be true or false";
  if (args.contains("position")) {
    const json &p = args["position"];
    auto ok = [&](const char *k) { return p.is_object() && p.contains(k) && p[k].is_number_integer() && p[k].get<int64_t>() >= 0; };
    if (!ok("line") || !ok("character")) return "`position` must be {line, character} with integers >= 0";
  }
  return "";
}

void Server::executeCommand(const json &params, Reply reply) {
  if (!params.is_object() || !params.contains("command") || !params["command"].is_string()) {
    reply.error(ErrorCode::InvalidParams, "workspace/executeCommand takes a `command` name");
    return;
  }
  std::string command = params["command"].get<std::string>();
  json args = json::object();
  if (params.contains("arguments") && params["arguments"].is_array() && !params["arguments"].empty() &&
      params["arguments"][0].is_object())
    args = params["arguments"][0];
  json token = params.value("workDoneToken", json());
  if (command == "ph.gpuStatus") {
    scheduler_->runJob([this, reply] {
      sendGpuStatus();
      std::lock_guard<std::mutex> lock(mu_);
      reply({{"available", gpu_->available}, {"name", gpu_->name}, {"arch", gpu_->arch}, {"reason", gpu_->reason}});
    });
    return;
  }
  if (command != "ph.run" && command != "ph.compile" && command != "ph.showIR") {
    reply.error(ErrorCode::InvalidParams, "unknown command `" + command + "`");
    return;
  }
  if (!args.contains("uri") || !args["uri"].is_string()) {
    reply.error(ErrorCode::InvalidParams, "`" + command + "` takes an object argument with `uri` (and `kernel` or `position`)");
    return;
  }
  if (std::string why = wrongArgument(args); !why.empty()) {
    reply.error(ErrorCode::InvalidParams, "invalid arguments to `" + command + "`: " + why);
    return;
  }
  try {
    requireReadable(command, args["uri"].get<std::string>());
  } catch (const RpcError &e) {
    if (endpoint_.log) endpoint_.log("refused: " + e.message);
    reply.error(e);
    return;
  }
  // The kernel under the cursor needs the current analysis; the driver then
  // runs on the job pool, away from the analysis and request workers.
  auto job = [this, command, args, reply, token](std::shared_ptr<const Snapshot> snap) {
    scheduler_->runJob([this, command, args, reply, token, snap] {
      if (reply.replyIfCancelled()) return;
      try {
        if (command == "ph.run") runKernel(args, reply, token, snap);
        else if (command == "ph.compile") compileKernel(args, reply, token, snap);
        else showIR(args, reply, token, snap);
      } catch (const RpcError &e) {
        reply.error(e);
      } catch (const json::exception &e) { // wrong-typed arguments, `position.line: -1`
        reply.error(ErrorCode::InvalidParams, "invalid arguments to `" + command + "`: " + e.what());
      } catch (const std::exception &e) {
        reply.error(ErrorCode::InternalError, e.what());
      }
    });
  };
  scheduler_->withSnapshot(args["uri"].get<std::string>(), job);
}

} // namespace ph::lsp
