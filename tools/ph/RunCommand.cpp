//===- RunCommand.cpp - `ph run`: run one kernel on a target --------------===//
//
// ph run FILE --kernel K [--target auto|gpu|cpu|interp] [--size N=4096]...
//        [--arg scale=0.125] [--in Q=q.npy]... [--out O=o.npy]... [--seed S]
//        [--check] [--json] [--config BR=64,BC=32]
//
// Analyses the file (refusing one with errors), picks the kernel's first
// autotune variant (or the one --config names), binds the launch from the
// inputs and flags, runs it on a target, optionally re-runs the fp64
// interpreter on the same inputs to compare, and writes outputs as .npy.
// Each target is one small function (see `targets` below).
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "DriverUtil.h"

#include "ph/Analysis.h"
#include "ph/Interpreter.h"
#include "ph/Launch.h"
#include "ph/Npy.h"
#include "ph/Runtime/Report.h"
#include "ph/Runtime/Tool.h"
#ifdef PH_HAVE_BACKEND
#include "ph/Backend/CpuTarget.h"
#if __has_include("ph/Backend/GpuTarget.h")
#include "ph/Backend/GpuTarget.h"
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/GpuRun.h"
#define PH_HAVE_GPU_TARGET 1
#endif
#endif

#include <nlohmann/json.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>

using namespace ph;
using json = nlohmann::json;

namespace {

/// --json: the diagnostics go into the document; else they are printed on stderr.
std::vector<rt::report::Diag> diagnostics;
std::vector<rt::report::Diag> *jsonDiagnostics = nullptr;

void report(const Diagnostic &d, const SourceManager &sm) {
  if (jsonDiagnostics) jsonDiagnostics->push_back(rt::report::fromDiagnostic(d, sm));
  else std::cerr << renderDiagnostic(d, sm);
}

const char *usage =
    "usage: ph run FILE [--kernel K] [--target auto|gpu|cpu|interp] [--size N=4096]...\n"
    "              [--arg scale=0.125]... [--in Q=q.npy]... [--out O=o.npy]... [--seed S]\n"
    "              [--check] [--json] [--config BR=64,BC=32]\n"
    "\n"
    "Runs one kernel. Inputs not given with --in are drawn uniformly from [-1, 1) with the\n"
    "seed (default 0); outputs start as NaN. Sizes come from the --in arrays' shapes or\n"
    "--size. --check re-runs the fp64 interpreter on the same inputs and compares every\n"
    "output (relative error 1e-4 for f32, 3e-3 for f16, 1e-2 for bf16: ph::compareOutputs, as\n"
    "ph-run and ph bench); exit status 1 on failure. `--size=N=4096` works as `--size N=4096`.\n"
    "--target auto picks gpu when it is built and a GPU is present, else cpu.\n";

int usageError(const std::string &msg) {
  std::fprintf(stderr, "ph run: %s\n\n%s", msg.c_str(), usage);
  return 2;
}

/// A run that stopped for a reason that is not a diagnostic (no GPU, a bad input
/// file, no such kernel): with --json the document's `error`, beside the
/// diagnostics so far (docs/output.md), so a reader always gets a document;
/// else the words on stderr.
int runFailed(bool json, const std::string &msg) {
  if (!json) {
    std::fprintf(stderr, "ph run: %s\n", msg.c_str());
    return 1;
  }
  nlohmann::ordered_json j = {{"error", msg}};
  rt::report::addEnvelope(j, "run", false, diagnostics);
  std::cout << j.dump() << "\n";
  return 1;
}

/// rt::parseToolOptions (the parser of ph bench and ph-run too), then the file and
/// the target. Returns "" or a usage error.
std::string parseArgs(const driver::Args &args, rt::ToolOptions &o, std::string &file) {
  std::vector<std::string> rest;
  if (std::string e = rt::parseToolOptions(args, o, rest, rt::kPhRunCommandOptions); !e.empty()) return e;
  if (o.target.empty()) o.target = "auto";
  if (o.target != "auto" && o.target != "gpu" && o.target != "cpu" && o.target != "interp")
    return "unknown target `" + o.target + "` (expected auto, gpu, cpu or interp)";
  for (const std::string &a : rest) {
    if (a.rfind("-", 0) == 0 && a.size() > 1) return "unknown option `" + a + "`";
    if (!file.empty()) return "more than one file given (`" + file + "` and `" + a + "`)";
    file = a;
  }
  if (file.empty()) return "no file given";
  return "";
}

//===----------------------------------------------------------------------===//
// Targets: each is one function from a kernel and its bound launch to a result.
//===----------------------------------------------------------------------===//

struct TargetResult {
  std::string error;
  double compileMs = 0, runMs = 0;
};

double msSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

TargetResult runInterp(const kir::Kernel &k, const LaunchArgs &args, const Analysis &a) {
  TargetResult r;
  InterpOptions opt;
  opt.sources = &a.sources;
  auto t0 = std::chrono::steady_clock::now();
  r.error = interpret(k, args, opt);
  r.runMs = msSince(t0);
  return r;
}

/// "" when the CPU target is built into this binary, else why not.
std::string cpuUnavailable() {
#ifdef PH_HAVE_BACKEND
  return "";
#else
  return "the CPU target is not built into this `ph` (configure with -DPH_ENABLE_MLIR=ON)";
#endif
}

TargetResult runCpu(const kir::Kernel &k, const LaunchArgs &args, const Analysis &a) {
  TargetResult r;
#ifdef PH_HAVE_BACKEND
  auto t0 = std::chrono::steady_clock::now();
  // A lowering failure at an op is E0506 there, as the GPU target's are E0503/E0504.
  std::vector<Diagnostic> lowering;
  std::unique_ptr<backend::CpuKernel> compiled = backend::compileForCpu(k, r.error, &a.sources, &lowering);
  r.compileMs = msSince(t0);
  for (const Diagnostic &d : lowering) report(d, a.sources);
  if (!compiled) {
    // The diagnostic says where and why; MLIR's text of it would say it again.
    if (r.error.empty() || !lowering.empty())
      r.error = "the CPU target failed to compile `" + k.name + "`";
    return r;
  }
  t0 = std::chrono::steady_clock::now();
  r.error = compiled->launch(args);
  r.runMs = msSince(t0);
#else
  r.error = cpuUnavailable();
#endif
  return r;
}

/// "" when the GPU target can run here, else why not.
std::string gpuUnavailable() {
#ifdef PH_HAVE_GPU_TARGET
  rt::Cuda &cu = rt::Cuda::get();
  return cu.available() ? "" : cu.whyUnavailable();
#else
  return "the GPU target is not built into this `ph` (configure with -DPH_ENABLE_MLIR=ON)";
#endif
}

TargetResult runGpu(const kir::Kernel &k, const LaunchArgs &args, const Analysis &a) {
  TargetResult r;
#ifdef PH_HAVE_GPU_TARGET
  // backend/include/ph/Backend/GpuTarget.h: SIMT lowering, PTX, ptxas; then the runtime.
  backend::GpuOptions go;
  go.sources = &a.sources;
  backend::GpuBinary bin;
  auto t0 = std::chrono::steady_clock::now();
  bool ok = backend::compileForGpu(k, go, bin, r.error);
  r.compileMs = msSince(t0);
  for (const Diagnostic &d : bin.diagnostics) report(d, a.sources);
  if (!ok) return r;
  t0 = std::chrono::steady_clock::now();
  r.error = rt::runCubin(bin.meta, bin.cubin, args);
  r.runMs = msSince(t0);
#else
  r.error = gpuUnavailable();
#endif
  return r;
}

struct Target {
  const char *name;
  std::string (*unavailable)();
  TargetResult (*run)(const kir::Kernel &, const LaunchArgs &, const Analysis &);
};

std::string interpAvailable() { return ""; }

const Target targets[] = {
    {"gpu", gpuUnavailable, runGpu},
    {"cpu", cpuUnavailable, runCpu},
    {"interp", interpAvailable, runInterp},
};

const Target *findTarget(const std::string &name) {
  for (const Target &t : targets)
    if (name == t.name)
      return &t;
  return nullptr;
}

//===----------------------------------------------------------------------===//
// Checking against the interpreter
//===----------------------------------------------------------------------===//

struct Comparison {
  std::string name;
  Elem elem;
  OutputComparison c;
};

std::string fmt(double v, const char *f = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string gridText(const int64_t g[3]) {
  return "(" + std::to_string(g[0]) + ", " + std::to_string(g[1]) + ", " + std::to_string(g[2]) + ")";
}

} // namespace

int ph::driver::runCommand(const Args &args) {
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
  rt::ToolOptions o;
  std::string file;
  if (std::string err = parseArgs(args, o, file); !err.empty())
    return usageError(err);

  std::string text, readErr;
  if (!driver::readFile(file, text, readErr))
    return runFailed(o.json, readErr);
  auto t0 = std::chrono::steady_clock::now();
  AnalyzeOptions aopt;
  aopt.configFilter = o.config;
  std::shared_ptr<const Analysis> a =
      analyze(std::make_shared<SourceFile>(driver::reportedName(file), std::move(text)), Prelude::load(), aopt);
  double analyzeMs = msSince(t0);
  jsonDiagnostics = o.json ? &diagnostics : nullptr;
  if (o.json) // warnings too: the document has every diagnostic
    for (const Diagnostic &d : a->diagnostics) report(d, a->sources);
  if (a->hasErrors()) {
    size_t errors = 0;
    for (const Diagnostic &d : a->diagnostics) {
      if (!o.json) report(d, a->sources);
      errors += d.severity == Severity::Error;
    }
    std::string why = "`" + driver::reportedName(file) + "` has " + std::to_string(errors) + " error(s); nothing was run";
    if (o.json) {
      nlohmann::ordered_json j = {{"error", why}};
      rt::report::addEnvelope(j, "run", false, diagnostics);
      std::cout << j.dump() << "\n";
    } else {
      std::fprintf(stderr, "ph run: %s\n", why.c_str());
    }
    return 1;
  }

  // The kernel: --kernel, or the only one in the file.
  std::vector<std::string> names;
  for (const KernelSummary &ks : a->kernels)
    names.push_back(ks.name);
  std::string kernelList;
  for (const std::string &n : names)
    kernelList += (kernelList.empty() ? "`" : ", `") + n + "`";
  if (o.kernel.empty()) {
    if (names.size() != 1) {
      std::fprintf(stderr, "ph run: `%s` has %s; choose one with `--kernel`\n", driver::reportedName(file).c_str(),
                   names.empty() ? "no kernel" : ("kernels " + kernelList).c_str());
      return names.empty() ? 1 : 2;
    }
    o.kernel = names[0];
  }
  const KernelSummary *summary = nullptr;
  for (const KernelSummary &ks : a->kernels)
    if (ks.name == o.kernel)
      summary = &ks;
  if (!summary) {
    return runFailed(o.json, "no kernel named `" + o.kernel + "` in `" + driver::reportedName(file) + "` (its kernels: " +
                                 (kernelList.empty() ? "none" : kernelList) + ")");
  }
  std::shared_ptr<const kir::Kernel> kernel;
  for (const auto &v : a->kernelVariants(o.kernel)) {
    bool match = true;
    for (const auto &[name, value] : o.config) {
      bool found = false;
      for (const auto &c : v->config)
        if (c.first == name) {
          found = true;
          match &= c.second == value;
        }
      match &= found;
    }
    if (match) {
      kernel = v;
      break;
    }
  }
  if (!kernel) {
    std::string cfg;
    for (const auto &[name, value] : o.config)
      cfg += (cfg.empty() ? "" : ",") + name + "=" + std::to_string(value);
    return runFailed(o.json, "no configuration of `" + o.kernel + "` matches `--config " + cfg +
                                 "` (its autotune space: " +
                                 (summary->autotuneSpace.empty() ? "none" : summary->autotuneSpace) + ")");
  }
  const kir::Kernel &k = *kernel;

  // Inputs: read and check each against its declaration before anything runs.
  LaunchRequest req = o.request;
  for (const auto &[name, path] : o.inPaths) {
    const kir::TensorParam *param = nullptr;
    for (const auto &t : k.tensors)
      if (t.name == name)
        param = &t;
    if (!param) {
      std::string list;
      for (const auto &t : k.tensors)
        list += (list.empty() ? "`" : ", `") + t.name + "`";
      return runFailed(o.json, "`--in " + name + "=" + path + "`: kernel `" + k.name +
                                   "` has no tensor parameter `" + name + "` (its tensors: " + list + ")");
    }
    HostTensor t;
    std::string err = npy::read(path, t);
    if (err.empty())
      err = npy::fitToParam(t, k, *param, path);
    if (!err.empty())
      return runFailed(o.json, err);
    req.inputs[name] = std::move(t);
  }
  for (const auto &[name, path] : o.outPaths) {
    bool found = false;
    for (const auto &t : k.tensors)
      found |= t.name == name;
    if (!found) {
      return runFailed(o.json, "`--out " + name + "=" + path + "`: kernel `" + k.name +
                                   "` has no tensor parameter `" + name + "`");
    }
  }

  std::vector<HostTensor> storage;
  LaunchArgs launch;
  if (std::string err = bindLaunch(k, req, storage, launch); !err.empty())
    return runFailed(o.json, err);

  // The target.
  std::string targetName = o.target;
  if (targetName == "auto")
    targetName = gpuUnavailable().empty() ? "gpu" : cpuUnavailable().empty() ? "cpu" : "interp";
  const Target *target = findTarget(targetName);
  // No GPU (or no target built in): with --json a document that says so, not silence.
  if (std::string why = target->unavailable(); !why.empty())
    return runFailed(o.json, why);

  // --check needs the inputs as they were before the kernel wrote into them.
  std::vector<HostTensor> refStorage;
  if (o.check)
    refStorage = storage;

  TargetResult result = target->run(k, launch, *a);
  if (!result.error.empty())
    return runFailed(o.json, result.error);

  std::vector<Comparison> comparisons;
  bool checkPassed = true;
  double refMs = 0;
  if (o.check) {
    LaunchArgs refArgs = launch;
    for (size_t i = 0; i < refStorage.size(); ++i)
      refArgs.tensors[i] = &refStorage[i];
    TargetResult ref = runInterp(k, refArgs, *a);
    refMs = ref.runMs;
    if (!ref.error.empty()) {
      return runFailed(o.json, "--check: the reference interpreter failed: " + ref.error);
    }
    for (size_t i = 0; i < k.tensors.size(); ++i)
      if (k.tensors[i].written) {
        comparisons.push_back({k.tensors[i].name, storage[i].elem, compareOutputs(storage[i], refStorage[i])});
        checkPassed &= comparisons.back().c.passed;
      }
  }

  for (const auto &[name, path] : o.outPaths) {
    for (size_t i = 0; i < k.tensors.size(); ++i)
      if (k.tensors[i].name == name) {
        if (std::string err = npy::write(path, storage[i]); !err.empty())
          return runFailed(o.json, err);
      }
  }

  std::string config = k.configName();
  if (o.json) {
    // One ph-output document (docs/output.md), written by the runtime's writer.
    rt::report::Run run;
    run.kernel = k.name;
    run.config = config;
    run.target = targetName;
    run.grid = {launch.grid[0], launch.grid[1], launch.grid[2]};
    run.threads = k.threads;
    for (size_t i = 0; i < k.sizes.size(); ++i) run.sizes.emplace_back(k.sizes[i].name, launch.sizes[i]);
    for (size_t i = 0; i < k.scalars.size(); ++i) run.scalars.emplace_back(k.scalars[i].name, launch.scalars[i]);
    run.seed = o.request.seed;
    run.analyzeMs = analyzeMs;
    run.compileMs = result.compileMs;
    run.timeMs = result.runMs;
    run.outputs.assign(o.outPaths.begin(), o.outPaths.end());
    // Where a GPU run ran: an editor's results name the device (docs/editors.md).
    if (targetName == "gpu") run.device = rt::Cuda::get().device().name;
    if (o.check) {
      rt::report::Check ck{checkPassed, "interp", refMs, {}};
      for (const Comparison &cmp : comparisons) ck.outputs.push_back(rt::report::outputCheck(cmp.name, cmp.c, cmp.elem, "interp"));
      run.check = std::move(ck);
    }
    rt::report::Document doc;
    doc.command = "run";
    doc.ok = checkPassed;
    doc.diagnostics = diagnostics;
    doc.runResult = std::move(run);
    std::cout << rt::report::toJson(doc).dump() << "\n";
  } else {
    std::string sizes, scalars;
    for (size_t i = 0; i < k.sizes.size(); ++i)
      sizes += (i ? ", " : "") + k.sizes[i].name + "=" + std::to_string(launch.sizes[i]);
    for (size_t i = 0; i < k.scalars.size(); ++i)
      scalars += (i ? ", " : "") + k.scalars[i].name + "=" + fmt(launch.scalars[i], "%.6g");
    std::printf("kernel   %s%s\n", k.name.c_str(), config.empty() ? "" : (" [" + config + "]").c_str());
    std::printf("target   %s\n", targetName.c_str());
    if (targetName == "gpu") std::printf("device   %s\n", rt::Cuda::get().device().name.c_str());
    std::printf("grid     %s x %d threads\n", gridText(launch.grid).c_str(), k.threads);
    if (!sizes.empty())
      std::printf("sizes    %s\n", sizes.c_str());
    if (!scalars.empty())
      std::printf("args     %s\n", scalars.c_str());
    if (result.compileMs > 0)
      std::printf("compile  %.3f ms\n", result.compileMs);
    std::printf("time     %.3f ms\n", result.runMs);
    for (const Comparison &cmp : comparisons) {
      const OutputComparison &c = cmp.c;
      std::string extra;
      if (c.nanCount)
        extra += ", " + std::to_string(c.nanCount) + " NaN or infinite in one only";
      if (c.agreedNonFinite)
        extra += ", " + std::to_string(c.agreedNonFinite) + " NaN or infinite in both (agree)";
      std::printf("check    %s: max abs err %s, rel err %s (tolerance %s for %s)%s %s\n", cmp.name.c_str(),
                  fmt(c.maxAbs).c_str(), fmt(c.relErr).c_str(), fmt(c.tolerance, "%g").c_str(),
                  elemName(cmp.elem), extra.c_str(), c.passed ? "ok" : "FAILED");
    }
    if (o.check && targetName == "interp")
      std::printf("note     --check with --target interp compares the interpreter with itself\n");
    for (const auto &[name, path] : o.outPaths)
      std::printf("wrote    %s -> %s\n", name.c_str(), path.c_str());
  }
  return checkPassed ? 0 : 1;
}
