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

#include "ph/Analysis.h"
#include "ph/Interpreter.h"
#include "ph/Launch.h"
#include "ph/Npy.h"
#include "ph/Runtime/Report.h"
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
#include <optional>
#include <sstream>

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
    "output (relative error 1e-5 for f32, 3e-3 for f16/bf16); exit status 1 on failure.\n"
    "--target auto picks gpu when it is built and a GPU is present, else cpu.\n";

struct Options {
  std::string file, kernel, target = "auto";
  std::vector<std::pair<std::string, int64_t>> sizes, config;
  std::vector<std::pair<std::string, double>> args;
  std::vector<std::pair<std::string, std::string>> ins, outs;
  uint64_t seed = 0;
  bool check = false, json = false;
};

int usageError(const std::string &msg) {
  std::fprintf(stderr, "ph run: %s\n\n%s", msg.c_str(), usage);
  return 2;
}

bool splitPair(const std::string &s, std::string &name, std::string &value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    return false;
  name = s.substr(0, eq);
  value = s.substr(eq + 1);
  return true;
}

bool parseInt(const std::string &s, int64_t &out) {
  try {
    size_t used;
    long long v = std::stoll(s, &used, 0);
    if (used != s.size())
      return false;
    out = v;
    return true;
  } catch (...) {
    return false;
  }
}

bool parseDouble(const std::string &s, double &out) {
  try {
    size_t used;
    out = std::stod(s, &used);
    return used == s.size();
  } catch (...) {
    return false;
  }
}

/// Returns "" or a usage error.
std::string parseArgs(const driver::Args &args, Options &o) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool hasValue = false;
    if (a.rfind("--", 0) == 0) {
      size_t eq = a.find('=');
      // `--size=N=4096` and `--size N=4096` both work.
      if (eq != std::string::npos) {
        value = a.substr(eq + 1);
        a = a.substr(0, eq);
        hasValue = true;
      }
    }
    auto next = [&]() -> std::optional<std::string> {
      if (hasValue)
        return value;
      if (i + 1 >= args.size())
        return std::nullopt;
      return args[++i];
    };
    auto need = [&](std::string &out) -> bool {
      auto v = next();
      if (!v)
        return false;
      out = *v;
      return true;
    };
    std::string v, name, val;
    if (a == "--kernel" || a == "-k") {
      if (!need(o.kernel))
        return "`--kernel` needs a name";
    } else if (a == "--target") {
      if (!need(o.target))
        return "`--target` needs auto, gpu, cpu or interp";
      if (o.target != "auto" && o.target != "gpu" && o.target != "cpu" && o.target != "interp")
        return "unknown target `" + o.target + "` (expected auto, gpu, cpu or interp)";
    } else if (a == "--size") {
      int64_t n;
      if (!need(v) || !splitPair(v, name, val) || !parseInt(val, n))
        return "`--size` takes NAME=INTEGER, found `" + v + "`";
      o.sizes.push_back({name, n});
    } else if (a == "--config") {
      if (!need(v))
        return "`--config` takes NAME=VALUE[,NAME=VALUE...]";
      std::stringstream ss(v);
      std::string item;
      while (std::getline(ss, item, ',')) {
        int64_t n;
        if (!splitPair(item, name, val) || !parseInt(val, n))
          return "`--config` takes NAME=INTEGER[,NAME=INTEGER...], found `" + item + "`";
        o.config.push_back({name, n});
      }
    } else if (a == "--arg") {
      double d;
      if (!need(v) || !splitPair(v, name, val) || !parseDouble(val, d))
        return "`--arg` takes NAME=NUMBER, found `" + v + "`";
      o.args.push_back({name, d});
    } else if (a == "--in" || a == "--out") {
      if (!need(v) || !splitPair(v, name, val))
        return "`" + a + "` takes NAME=FILE.npy, found `" + v + "`";
      (a == "--in" ? o.ins : o.outs).push_back({name, val});
    } else if (a == "--seed") {
      int64_t s;
      if (!need(v) || !parseInt(v, s))
        return "`--seed` takes an integer, found `" + v + "`";
      o.seed = static_cast<uint64_t>(s);
    } else if (a == "--check") {
      o.check = true;
    } else if (a == "--json") {
      o.json = true;
    } else if (a.rfind("-", 0) == 0 && a.size() > 1) {
      return "unknown option `" + a + "`";
    } else if (o.file.empty()) {
      o.file = a;
    } else {
      return "more than one file given (`" + o.file + "` and `" + a + "`)";
    }
  }
  if (o.file.empty())
    return "no file given";
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

TargetResult runCpu(const kir::Kernel &k, const LaunchArgs &args, const Analysis &) {
  TargetResult r;
#ifdef PH_HAVE_BACKEND
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<backend::CpuKernel> compiled = backend::compileForCpu(k, r.error);
  r.compileMs = msSince(t0);
  if (!compiled) {
    if (r.error.empty())
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
  Options o;
  if (std::string err = parseArgs(args, o); !err.empty())
    return usageError(err);

  std::string text, readErr;
  if (!limits::readRegularFile(o.file, limits::kMaxSourceBytes, text, readErr)) {
    std::fprintf(stderr, "ph run: %s\n", readErr.c_str());
    return 1;
  }
  auto t0 = std::chrono::steady_clock::now();
  AnalyzeOptions aopt;
  aopt.configFilter = o.config;
  std::shared_ptr<const Analysis> a =
      analyze(std::make_shared<SourceFile>(o.file, std::move(text)), Prelude::load(), aopt);
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
    std::string why = "`" + o.file + "` has " + std::to_string(errors) + " error(s); nothing was run";
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
      std::fprintf(stderr, "ph run: `%s` has %s; choose one with `--kernel`\n", o.file.c_str(),
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
    std::fprintf(stderr, "ph run: no kernel named `%s` in `%s` (its kernels: %s)\n", o.kernel.c_str(),
                 o.file.c_str(), kernelList.empty() ? "none" : kernelList.c_str());
    return 1;
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
    std::fprintf(stderr, "ph run: no configuration of `%s` matches `--config %s` (its autotune space: %s)\n",
                 o.kernel.c_str(), cfg.c_str(),
                 summary->autotuneSpace.empty() ? "none" : summary->autotuneSpace.c_str());
    return 1;
  }
  const kir::Kernel &k = *kernel;

  // Inputs: read and check each against its declaration before anything runs.
  LaunchRequest req;
  req.seed = o.seed;
  for (const auto &[name, value] : o.sizes)
    req.sizes[name] = value;
  for (const auto &[name, value] : o.args)
    req.scalars[name] = value;
  for (const auto &[name, path] : o.ins) {
    const kir::TensorParam *param = nullptr;
    for (const auto &t : k.tensors)
      if (t.name == name)
        param = &t;
    if (!param) {
      std::string list;
      for (const auto &t : k.tensors)
        list += (list.empty() ? "`" : ", `") + t.name + "`";
      std::fprintf(stderr, "ph run: `--in %s=%s`: kernel `%s` has no tensor parameter `%s` (its tensors: %s)\n",
                   name.c_str(), path.c_str(), k.name.c_str(), name.c_str(), list.c_str());
      return 1;
    }
    HostTensor t;
    std::string err = npy::read(path, t);
    if (err.empty())
      err = npy::fitToParam(t, k, *param, path);
    if (!err.empty()) {
      std::fprintf(stderr, "ph run: %s\n", err.c_str());
      return 1;
    }
    req.inputs[name] = std::move(t);
  }
  for (const auto &[name, path] : o.outs) {
    bool found = false;
    for (const auto &t : k.tensors)
      found |= t.name == name;
    if (!found) {
      std::fprintf(stderr, "ph run: `--out %s=%s`: kernel `%s` has no tensor parameter `%s`\n", name.c_str(),
                   path.c_str(), k.name.c_str(), name.c_str());
      return 1;
    }
  }

  std::vector<HostTensor> storage;
  LaunchArgs launch;
  if (std::string err = bindLaunch(k, req, storage, launch); !err.empty()) {
    std::fprintf(stderr, "ph run: %s\n", err.c_str());
    return 1;
  }

  // The target.
  std::string targetName = o.target;
  if (targetName == "auto")
    targetName = gpuUnavailable().empty() ? "gpu" : cpuUnavailable().empty() ? "cpu" : "interp";
  const Target *target = findTarget(targetName);
  if (std::string why = target->unavailable(); !why.empty()) {
    std::fprintf(stderr, "ph run: %s\n", why.c_str());
    return 1;
  }

  // --check needs the inputs as they were before the kernel wrote into them.
  std::vector<HostTensor> refStorage;
  if (o.check)
    refStorage = storage;

  TargetResult result = target->run(k, launch, *a);
  if (!result.error.empty()) {
    std::fprintf(stderr, "ph run: %s\n", result.error.c_str());
    return 1;
  }

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
      std::fprintf(stderr, "ph run: --check: the reference interpreter failed: %s\n", ref.error.c_str());
      return 1;
    }
    for (size_t i = 0; i < k.tensors.size(); ++i)
      if (k.tensors[i].written) {
        comparisons.push_back({k.tensors[i].name, storage[i].elem, compareOutputs(storage[i], refStorage[i])});
        checkPassed &= comparisons.back().c.passed;
      }
  }

  for (const auto &[name, path] : o.outs) {
    for (size_t i = 0; i < k.tensors.size(); ++i)
      if (k.tensors[i].name == name) {
        if (std::string err = npy::write(path, storage[i]); !err.empty()) {
          std::fprintf(stderr, "ph run: %s\n", err.c_str());
          return 1;
        }
      }
  }

  std::string config = k.configName();
  if (o.json) {
    json j;
    j["kernel"] = k.name;
    j["config"] = config;
    j["target"] = targetName;
    j["grid"] = {launch.grid[0], launch.grid[1], launch.grid[2]};
    j["threads"] = k.threads;
    json sizes = json::object();
    for (size_t i = 0; i < k.sizes.size(); ++i)
      sizes[k.sizes[i].name] = launch.sizes[i];
    j["sizes"] = sizes;
    json scalars = json::object();
    for (size_t i = 0; i < k.scalars.size(); ++i)
      scalars[k.scalars[i].name] = launch.scalars[i];
    j["scalars"] = scalars;
    j["seed"] = o.seed;
    j["analyze_ms"] = analyzeMs;
    j["compile_ms"] = result.compileMs;
    j["time_ms"] = result.runMs;
    json outs = json::array();
    for (const auto &[name, path] : o.outs)
      outs.push_back({{"name", name}, {"file", path}});
    j["outputs"] = outs;
    if (o.check) {
      json cs = json::array();
      for (const Comparison &cmp : comparisons)
        cs.push_back({{"name", cmp.name},
                      {"dtype", elemName(cmp.elem)},
                      {"max_abs_err", cmp.c.maxAbs},
                      {"rel_err", cmp.c.relErr},
                      {"tolerance", cmp.c.tolerance},
                      {"nan_count", cmp.c.nanCount},
                      {"agreed_non_finite", cmp.c.agreedNonFinite},
                      {"passed", cmp.c.passed}});
      j["check"] = {{"passed", checkPassed}, {"reference", "interp"}, {"reference_ms", refMs}, {"outputs", cs}};
    }
    // The ph-output envelope (docs/output.md) in front of the result's keys.
    nlohmann::ordered_json doc = nlohmann::ordered_json::parse(j.dump());
    rt::report::addEnvelope(doc, "run", checkPassed, diagnostics);
    std::cout << doc.dump() << "\n";
  } else {
    std::string sizes, scalars;
    for (size_t i = 0; i < k.sizes.size(); ++i)
      sizes += (i ? ", " : "") + k.sizes[i].name + "=" + std::to_string(launch.sizes[i]);
    for (size_t i = 0; i < k.scalars.size(); ++i)
      scalars += (i ? ", " : "") + k.scalars[i].name + "=" + fmt(launch.scalars[i], "%.6g");
    std::printf("kernel   %s%s\n", k.name.c_str(), config.empty() ? "" : (" [" + config + "]").c_str());
    std::printf("target   %s\n", targetName.c_str());
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
    for (const auto &[name, path] : o.outs)
      std::printf("wrote    %s -> %s\n", name.c_str(), path.c_str());
  }
  return checkPassed ? 0 : 1;
}
