//===- RunCommand.cpp - ph.run: one checked run of a kernel ---------------===//
//
// `ph run FILE --kernel K --target T --check --json`: compile, autotune, check
// against the interpreter. Without a GPU (target auto or gpu) it says so at
// once and offers the CPU target or the interpreter. What run and bench share
// (the offer, the launch arguments, starting the driver and reading its
// result) lives here; BenchCommand.cpp only builds bench's arguments.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include <filesystem>

namespace ph::lsp {

void Server::runKernel(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = requireKernel(args, snap);
  Settings st = settings();
  std::string target = args.value("target", st.target);
  if (offerWithoutGpu(args, kernel, target, reply)) return;
  // `bench: true` (the editor's "Benchmark Kernel") times every autotune variant.
  if (args.value("bench", false) || args.value("benchmark", false)) {
    benchKernel(args, reply, token, kernel, target);
    return;
  }
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "run", file, "--kernel", kernel, "--target", target, "--check", "--json"};
  appendLaunchArgs(argv, args, st);
  launchDriver(argv, kernel, target, /*bench=*/false, tempDir, reply, token);
}

bool Server::offerWithoutGpu(const json &args, const std::string &kernel, const std::string &target, const Reply &reply) {
  GpuInfo gpu;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!gpu_) gpu_ = detectGpu();
    gpu = *gpu_;
  }
  if ((target == "auto" || target == "gpu") && !gpu.available) {
    // Say so at once and offer the CPU target instead of failing after a compile.
    json cpuArgs = args;
    cpuArgs["target"] = "cpu";
    cpuArgs["kernel"] = kernel;
    std::string msg = "No GPU to run `" + kernel + "` on (" + gpu.reason + "). Run it on the CPU target instead?";
    reply({{"ok", false},
           {"kernel", kernel},
           {"error", "no GPU: " + gpu.reason},
           {"offer", {{"title", "Run on CPU"}, {"command", "ph.run"}, {"arguments", json::array({cpuArgs})}}}});
    bool ask;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ask = clientShowMessageRequest_;
    }
    if (ask)
      endpoint_.call("window/showMessageRequest",
                     {{"type", 2}, {"message", msg}, {"actions", {{{"title", "Run on CPU"}}, {{"title", "Run in the interpreter"}}}}},
                     [this, cpuArgs](const json &result, std::optional<RpcError> err) {
                       if (err || !result.is_object()) return;
                       json a = cpuArgs;
                       if (result.value("title", "") == "Run in the interpreter") a["target"] = "interp";
                       else if (result.value("title", "") != "Run on CPU") return;
                       scheduler_->runJob([this, a] {
                         Reply none; // the answer goes to the user through showMessage only
                         try {
                           runKernel(a, none, json(), nullptr);
                         } catch (const RpcError &e) {
                           endpoint_.notify("window/showMessage", {{"type", 1}, {"message", e.message}});
                         } catch (...) {
                         }
                       });
                     });
    else
      endpoint_.notify("window/showMessage", {{"type", 2}, {"message", msg}});
    return true;
  }
  return false;
}

void Server::appendLaunchArgs(std::vector<std::string> &argv, const json &args, const Settings &st) {
  std::map<std::string, int64_t> sizes = st.sizes;
  if (args.contains("sizes") && args["sizes"].is_object())
    for (auto &[k, v] : args["sizes"].items())
      if (v.is_number_integer()) sizes[k] = v.get<int64_t>();
  for (auto &[k, v] : sizes) argv.insert(argv.end(), {"--size", k + "=" + std::to_string(v)});
  if (args.contains("args") && args["args"].is_object())
    for (auto &[k, v] : args["args"].items()) argv.insert(argv.end(), {"--arg", k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())});
}

void Server::launchDriver(const std::vector<std::string> &argv, const std::string &kernel, const std::string &target,
                          bool bench, const std::string &tempDir, const Reply &reply, const json &token) {
  auto cancel = reply.cancelState();
  if (!cancel) {
    // A run the user started from a message: cancelled only when the server exits.
    cancel = std::make_shared<CancelState>();
    std::lock_guard<std::mutex> lock(mu_);
    builds_["run:" + kernel] = cancel;
  }
  auto progress = beginProgress((bench ? "Benchmarking " : "Running ") + kernel + " (" + target + ")", token, cancel);
  if (progress) progress->report(bench ? "every autotune variant" : "compile, autotune, check against the interpreter, benchmark");
  if (endpoint_.log) endpoint_.log("run: " + driver::argvForLog(argv));
  ProcessResult r = runProcess(argv, "", cancel);
  if (!tempDir.empty()) std::filesystem::remove_all(tempDir);
  if (progress) progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? "done" : "failed");
  if (r.cancelled) {
    reply.error(ErrorCode::RequestCancelled, "ph.run cancelled");
    return;
  }
  if (!r.started) throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
  if (driver::stageMissing(r)) {
    RpcError e = driver::driverError(bench ? "`ph bench`" : "`ph run`", r);
    endpoint_.notify("window/showMessage", {{"type", 1}, {"message", e.message}});
    reply.error(e);
    return;
  }
  json parsed = driver::parseJsonOutput(r.out);
  json result = {{"ok", r.exitCode == 0}, {"kernel", kernel}, {"target", target}, {"exitCode", r.exitCode}, {"result", parsed}};
  if (parsed.is_null()) result["stdout"] = r.out;
  if (!r.err.empty()) result["stderr"] = r.err;
  std::string summary = r.exitCode == 0 ? driver::runSummary(kernel, target, parsed) : "ph run " + kernel + " failed: " + driver::firstLines(r.err, 3);
  result["summary"] = summary;
  endpoint_.notify("window/showMessage", {{"type", r.exitCode == 0 ? 3 : 1}, {"message", summary}});
  reply(std::move(result));
}

} // namespace ph::lsp
