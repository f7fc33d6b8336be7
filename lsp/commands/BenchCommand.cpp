//===- BenchCommand.cpp - ph.run with `bench: true`: every autotune variant timed -===//
//
// On a GPU: `ph bench FILE --kernel K --json` (and `--target T` unless auto), the
// editor's "Benchmark Kernel". On the CPU target (no GPU, or asked for): `ph run
// --target cpu --config C --check --json` once per autotune configuration, the
// results gathered as `variants`, so the editors print the same table. The no-GPU
// offer, progress and the result's summary are run's (RunCommand.cpp).
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include "ph/Analysis.h"

#include <filesystem>

namespace ph::lsp {

void Server::benchKernel(const json &args, const Reply &reply, const json &token, const std::string &kernel,
                         const std::string &target, const std::shared_ptr<const Snapshot> &snap) {
  if (target == "cpu" || target == "interp") {
    benchOnCpu(args, reply, token, kernel, target, snap);
    return;
  }
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "bench", file, "--kernel", kernel, "--json"};
  if (target != "auto") argv.insert(argv.end(), {"--target", target});
  json meta = appendLaunchArgs(argv, args, settings(), snap.get(), kernel);
  driver::appendSourceName(argv, file, meta.value("userFile", std::string()));
  launchDriver(argv, kernel, target, /*bench=*/true, tempDir, reply, token, meta, snap);
}

void Server::benchOnCpu(const json &args, const Reply &reply, const json &token, const std::string &kernel,
                        const std::string &target, const std::shared_ptr<const Snapshot> &snap) {
  std::vector<std::string> configs;
  if (snap && snap->analysis)
    for (const KernelSummary &k : snap->analysis->kernels)
      if (k.name == kernel) configs = k.configs;
  if (configs.empty()) configs.push_back(""); // no @autotune: one run
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> launch;
  json meta = appendLaunchArgs(launch, args, settings(), snap.get(), kernel);
  auto cancel = reply.cancelState() ? reply.cancelState() : std::make_shared<CancelState>();
  auto progress = beginProgress("Benchmarking " + kernel + " (" + target + ")", token, cancel);
  json variants = json::array();
  std::vector<rt::report::Run> runs;
  std::string failure;
  for (size_t i = 0; i < configs.size() && failure.empty(); ++i) {
    if (progress) progress->report("configuration " + std::to_string(i + 1) + " of " + std::to_string(configs.size()));
    std::vector<std::string> argv = {driverPath(), "run", file, "--kernel", kernel, "--target", target, "--check", "--json"};
    if (!configs[i].empty()) argv.insert(argv.end(), {"--config", configs[i]});
    argv.insert(argv.end(), launch.begin(), launch.end());
    driver::appendSourceName(argv, file, meta.value("userFile", std::string()));
    if (endpoint_.log) endpoint_.log("bench: " + driver::argvForLog(argv));
    ProcessResult r = runProcess(argv, "", cancel);
    if (r.cancelled) break;
    if (!r.started) {
      failure = r.error + " (set `ph.path`)";
      continue;
    }
    rt::report::Document doc;
    bool read = driver::readDocument(r, "run", doc).empty();
    if (read && doc.runResult) {
      runs.push_back(*doc.runResult);
      variants.push_back(json::parse(doc.run.dump())); // the run's own keys
      if (!doc.ok) failure = driver::runSummary(kernel, target, *doc.runResult); // the check failed
    } else {
      failure = "ph run " + kernel + (configs[i].empty() ? "" : " [" + configs[i] + "]") + " failed: " +
                (doc.diagnostics.empty() && doc.error.empty() ? driver::firstLines(r.err, 3) : driver::firstError(doc, r));
    }
  }
  if (!tempDir.empty()) std::filesystem::remove_all(tempDir);
  if (progress) progress->end(cancel->cancelled() ? "cancelled" : failure.empty() ? "done" : "failed");
  if (cancel->cancelled()) {
    reply.error(ErrorCode::RequestCancelled, "ph.run cancelled");
    return;
  }
  if (variants.empty()) throw RpcError{ErrorCode::RequestFailed, failure, nullptr};
  json result = {{"ok", failure.empty()}, {"kernel", kernel}, {"target", target}, {"result", {{"variants", variants}}}};
  for (const char *k : {"defaultSizes", "note", "requestedTarget"})
    if (meta.contains(k)) result[k] = meta[k];
  // The fastest configuration speaks for the benchmark.
  const rt::report::Run *best = &runs[0];
  for (const rt::report::Run &run : runs)
    if (run.timeMs < best->timeMs) best = &run;
  result["summary"] = failure.empty() ? driver::runSummary(kernel, target, *best) + " (fastest of " + std::to_string(runs.size()) + ")"
                                      : failure;
  if (!failure.empty()) result["stderr"] = failure;
  reply(std::move(result));
}

} // namespace ph::lsp
