//===- RunCommand.cpp - ph.run: one checked run of a kernel ---------------===//
//
// `ph run FILE --kernel K --target T --check --json`: compile, autotune, check
// against the interpreter. Without a GPU (target auto or gpu) it says so at
// once and offers the CPU target (`noGpu: "cpu"` in the arguments takes it
// without asking). Sizes the settings leave unbound take defaults derived
// from the kernel (defaultSizes below), named in the result's `defaultSizes`. What run and bench share
// (the offer, the launch arguments, starting the driver and reading its
// result) lives here; BenchCommand.cpp only builds bench's arguments.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include "ph/Analysis.h"

#include <filesystem>
#include <numeric>
#include <set>

namespace ph::lsp {

namespace {

/// A default for each size of `kernel` that `bound` leaves out: the smallest multiple
/// of every `@aligned` promise on it and of every autotune constant that is at least
/// 1024 (so each configuration's tiles divide it and the CPU target runs it in
/// seconds). Empty when the analysis has no specialised kernels (it has errors).
std::map<std::string, int64_t> defaultSizes(const std::vector<std::shared_ptr<const kir::Kernel>> &variants,
                                           const std::map<std::string, int64_t> &bound) {
  std::map<std::string, int64_t> out;
  std::map<std::string, int64_t> step;
  for (const auto &k : variants) {
    int64_t consts = 1;
    for (const auto &[name, value] : k->config)
      if (value > 0 && value <= 4096) consts = std::lcm(consts, value);
    for (const kir::SizeSym &s : k->sizes) {
      int64_t &st = step.try_emplace(s.name, 1).first->second;
      st = std::lcm(st, std::lcm(consts, std::max<int64_t>(1, s.alignedTo)));
    }
  }
  for (const auto &[name, st] : step)
    if (!bound.count(name)) out[name] = ((1024 + st - 1) / st) * st;
  return out;
}

} // namespace

void Server::runKernel(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = requireKernel(args, snap);
  Settings st = settings();
  std::string target = args.value("target", st.target);
  if (offerWithoutGpu(args, kernel, target, reply)) return;
  // `bench: true` (the editor's "Benchmark Kernel") times every autotune variant.
  if (args.value("bench", false) || args.value("benchmark", false)) {
    benchKernel(args, reply, token, kernel, target, snap);
    return;
  }
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "run", file, "--kernel", kernel, "--target", target, "--check", "--json"};
  json meta = appendLaunchArgs(argv, args, st, snap.get(), kernel);
  driver::appendSourceName(argv, file, meta.value("userFile", std::string()));
  launchDriver(argv, kernel, target, /*bench=*/false, tempDir, reply, token, meta, snap);
}

bool Server::offerWithoutGpu(json &args, const std::string &kernel, std::string &target, const Reply &reply) {
  GpuInfo gpu;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!gpu_) gpu_ = detectGpu();
    gpu = *gpu_;
  }
  if ((target != "auto" && target != "gpu") || gpu.available) return false;
  bool bench = args.value("bench", false) || args.value("benchmark", false);
  std::string noGpu = args.value("noGpu", std::string());
  if (noGpu == "cpu") {
    // The user said so once ("Always on CPU"): the CPU target, with a note in the results.
    args["note"] = "no GPU (" + gpu.reason + "): ran on the CPU target";
    args["requestedTarget"] = target;
    target = "cpu";
    return false;
  }
  // Say so at once and offer the CPU target instead of failing after a compile.
  json cpuArgs = args;
  cpuArgs["target"] = "cpu";
  cpuArgs["kernel"] = kernel;
  std::string what = bench ? "benchmark" : "run";
  std::string msg = "No GPU to " + what + " `" + kernel + "` on (" + gpu.reason + "). " + (bench ? "Benchmark" : "Run") +
                    " it on the CPU target instead?";
  reply({{"ok", false},
         {"kernel", kernel},
         {"error", "no GPU: " + gpu.reason},
         {"offer", {{"title", bench ? "Benchmark on CPU" : "Run on CPU"}, {"command", "ph.run"}, {"arguments", json::array({cpuArgs})}}}});
  // `noGpu: "ask"`: the client asks with the offer in the result (one question, its own
  // results view); otherwise (older clients) the server asks.
  if (noGpu == "ask") return true;
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

json Server::appendLaunchArgs(std::vector<std::string> &argv, const json &args, const Settings &st, const Snapshot *snap,
                              const std::string &kernel) {
  // `ph.sizes` is one setting for every file: a size this kernel does not have is left out
  // (`ph run` refuses it). Sizes the command names are passed as given.
  // The specialised kernels: the incremental analysis of the editor keeps none, so a whole
  // analysis of the text (what `ph run` does first anyway) when it has none.
  std::vector<std::shared_ptr<const kir::Kernel>> variants;
  if (snap && snap->analysis) variants = snap->analysis->kernelVariants(kernel);
  if (variants.empty() && snap && snap->text)
    if (auto full = analyze(std::make_shared<SourceFile>(snap->path, *snap->text), prelude_))
      variants = full->kernelVariants(kernel);
  std::set<std::string> known;
  for (const auto &k : variants)
    for (const kir::SizeSym &s : k->sizes) known.insert(s.name);
  std::map<std::string, int64_t> sizes;
  for (const auto &[k, v] : st.sizes)
    if (known.empty() || known.count(k)) sizes[k] = v;
  if (args.contains("sizes") && args["sizes"].is_object())
    for (auto &[k, v] : args["sizes"].items())
      if (v.is_number_integer()) sizes[k] = v.get<int64_t>();
  json meta = json::object();
  json defaulted = json::array();
  for (auto &[k, v] : defaultSizes(variants, sizes)) {
    sizes[k] = v;
    defaulted.push_back(k);
  }
  if (!defaulted.empty()) meta["defaultSizes"] = defaulted;
  for (const char *k : {"note", "requestedTarget"})
    if (args.contains(k)) meta[k] = args[k];
  for (auto &[k, v] : sizes) argv.insert(argv.end(), {"--size", k + "=" + std::to_string(v)});
  if (args.contains("args") && args["args"].is_object())
    for (auto &[k, v] : args["args"].items()) argv.insert(argv.end(), {"--arg", k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())});
  if (args.contains("uri") && args["uri"].is_string()) meta["userFile"] = uriToPath(args["uri"].get<std::string>());
  return meta;
}

void Server::launchDriver(const std::vector<std::string> &argv, const std::string &kernel, const std::string &target,
                          bool bench, const std::string &tempDir, const Reply &reply, const json &token, const json &meta,
                          const std::shared_ptr<const Snapshot> &snap) {
  auto cancel = reply.cancelState();
  bool toClient = cancel != nullptr; // a request of the client, which shows the result itself
  if (!cancel) {
    // A run the user started from a message: cancelled only when the server exits.
    cancel = std::make_shared<CancelState>();
    std::lock_guard<std::mutex> lock(mu_);
    builds_["run:" + kernel] = cancel;
  }
  std::string command = bench ? "ph bench" : "ph run";
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
    RpcError e = driver::driverError("`" + command + "`", r);
    if (!toClient) endpoint_.notify("window/showMessage", {{"type", 1}, {"message", e.message}});
    reply.error(e);
    return;
  }
  // The driver's document, read as typed data; the reply passes on the result's own keys
  // (the envelope is not a column of the editors' tables).
  rt::report::Document doc;
  std::string why = driver::readDocument(r, bench ? "bench" : "run", doc);
  bool ok = why.empty() && r.exitCode == 0 && doc.ok;
  // Where it ran: `auto` is what the driver resolved (`gpu`, `cpu`), named in `target` as after
  // the no-GPU offer, with `requestedTarget` what was asked; `device` the GPU it ran on.
  std::string ran = target, device;
  if (why.empty() && !bench && doc.runResult) {
    if (!doc.runResult->target.empty()) ran = doc.runResult->target;
    device = doc.runResult->device;
  } else if (why.empty() && bench && doc.benchResult && !doc.benchResult->device.name.empty()) {
    ran = "gpu";
    device = doc.benchResult->device.name;
  }
  json result = {{"ok", ok}, {"kernel", kernel}, {"target", ran}, {"exitCode", r.exitCode},
                 {"result", why.empty() ? json::parse((bench ? doc.bench : doc.run).dump()) : json(nullptr)}};
  if (!device.empty()) result["device"] = device;
  if (ran != target) result["requestedTarget"] = target;
  for (const char *k : {"defaultSizes", "note", "requestedTarget"})
    if (meta.contains(k)) result[k] = meta[k];
  if (!why.empty()) { // no document: what the driver printed, for people
    result["stdout"] = r.out;
  }
  // The document's diagnostics with their ranges and notes (relatedInformation), as compile
  // on save shows a build's: a lowering failure (E0504, E0506) reaches the editor
  // intact, never only as the summary's text.
  json diags = json::array();
  if (why.empty() && snap && snap->analysis)
    diags = driver::diagnosticsOf(doc, *snap, featureOptions(), meta.value("userFile", snap->path), command);
  result["diagnostics"] = diags;
  publishRunErrors(snap, diags);
  if (!r.err.empty()) result["stderr"] = r.err;
  std::string summary;
  if (ok) summary = driver::runSummary(kernel, ran, doc);
  else if (why.empty() && (doc.runResult || doc.benchResult)) summary = driver::runSummary(kernel, ran, doc); // the check failed
  else
    summary = command + " " + kernel + " failed: " +
              (why.empty() ? driver::firstError(doc, r) : why + (r.err.empty() ? "" : ": " + driver::firstLines(r.err, 3)));
  result["summary"] = summary;
  // One message per run: the client that asked shows the result (and a failure) itself.
  if (!toClient) endpoint_.notify("window/showMessage", {{"type", r.exitCode == 0 ? 3 : 1}, {"message", summary}});
  reply(std::move(result));
}

void Server::publishRunErrors(const std::shared_ptr<const Snapshot> &snap, const json &diags) {
  if (!snap) return;
  json errors = json::array();
  for (const json &d : diags)
    if (d.value("severity", 0) == 1) errors.push_back(d);
  if (errors.empty()) return;
  auto latest = scheduler_->latest(snap->uri);
  if (!latest || latest->version != snap->version) return; // not open, or edited since: stale
  {
    // Beside the last build's, for the version that ran (an edit drops both: Server::publish).
    std::lock_guard<std::mutex> lock(mu_);
    json &b = backendDiags_[snap->uri];
    if (!b.is_object() || b.value("version", int64_t(-1)) != snap->version) b = {{"version", snap->version}, {"diagnostics", json::array()}};
    for (json &e : errors) {
      bool seen = false;
      for (const json &d : b["diagnostics"])
        seen = seen || (d.value("code", "") == e.value("code", "") && d["range"] == e["range"] && d["message"] == e["message"]);
      if (!seen) b["diagnostics"].push_back(std::move(e));
    }
  }
  publish(latest);
}

} // namespace ph::lsp
