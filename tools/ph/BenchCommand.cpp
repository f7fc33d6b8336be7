//===- BenchCommand.cpp - `ph bench`: build, check and time in one process --===//
//
// ph bench FILE [--kernel K] --size N=4096 ... [--target sm_90] [--json]
//
// Compiles every autotune configuration of the kernel for the GPU present,
// then does what `ph-run DIR --bench` does with the result (the same code,
// ph/Runtime/Tool.h): warm-up, median of CUDA-event timed launches over fresh
// random input sets, results checked against the fp64 interpreter where the
// launch is small enough (or against --ref files), a table with ms, TFLOP/s or
// GB/s, % of the device's peak, registers and shared memory, best marked.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "DriverUtil.h"

#include "ph/Analysis.h"
#ifdef PH_HAVE_BACKEND
#include "ph/Backend/GpuTarget.h"
#include "ph/Backend/SkippedConfiguration.h"
#include "ph/Runtime/Tool.h"
#endif

#include <cstdio>
#include <iostream>

namespace ph::driver {

#ifdef PH_HAVE_BACKEND
namespace {

/// A bench that stopped for a reason that is not a diagnostic (no GPU, an
/// unreadable file, a kernel that did not compile without saying where): with
/// --json the document's `error` beside the diagnostics so far (docs/output.md),
/// so a reader always gets a document; else the words on stderr.
int benchFailed(const rt::ToolOptions &opt, const std::string &msg, int code = 1) {
  if (!opt.json) {
    std::fprintf(stderr, "ph bench: %s\n", msg.c_str());
    return code;
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  if (!msg.empty()) j["error"] = msg; // none when the diagnostics say it
  rt::report::addEnvelope(j, "bench", false, opt.diagnostics);
  std::cout << j.dump(2) << "\n";
  return code;
}

} // namespace
#endif

int benchCommand(const Args &args) {
#ifndef PH_HAVE_BACKEND
  std::fprintf(stderr, "ph bench: this `ph` was built without the MLIR backend (-DPH_ENABLE_MLIR=ON)\n");
  return 1;
#else
  rt::ToolOptions opt;
  std::vector<std::string> rest;
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::printf("usage: ph bench FILE [--target sm_90|sm_80] [--std DIR] [options]\n\noptions:\n%s"
                  "\nExit status: 0 ok, 1 errors or a failed check, 2 bad usage, %d no GPU.\n",
                  rt::kToolOptionsHelp, rt::kExitNoGpu);
      return 0;
    }
  if (std::string e = rt::parseToolOptions(args, opt, rest, rt::kPhBenchOptions); !e.empty()) {
    std::fprintf(stderr, "ph bench: %s\n", e.c_str());
    return 2;
  }
  opt.bench = true;
  std::string file, target = opt.target, stdDir;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--std" && i + 1 < rest.size()) {
      stdDir = rest[i + 1];
      ++i;
    } else if (!rest[i].empty() && rest[i][0] == '-') {
      std::fprintf(stderr, "ph bench: unknown option `%s`\n", rest[i].c_str());
      return 2;
    } else if (file.empty()) file = rest[i];
    else {
      std::fprintf(stderr, "ph bench: one file at a time\n");
      return 2;
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "usage: ph bench FILE [--kernel K] [--size N=...] [options] (see --help)\n");
    return 2;
  }
  if (std::string e = rt::readInputs(opt); !e.empty()) return benchFailed(opt, e);
  // The file first: an unreadable or oversized file (E0602, E0603) and a program with errors
  // are the user's to fix on any machine, GPU or not.
  std::string text, err;
  if (!readFile(file, text, err)) return benchFailed(opt, err);
  AnalyzeOptions ao;
  ao.configFilter = opt.config;
  auto analysis = analyze(std::make_shared<SourceFile>(reportedName(file), text), Prelude::load(stdDir), ao);
  for (const Diagnostic &d : analysis->diagnostics) {
    std::cerr << renderDiagnostic(d, analysis->sources);
    if (opt.json) opt.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
  }
  if (analysis->hasErrors()) {
    if (opt.json) return benchFailed(opt, "`" + reportedName(file) + "` has errors; nothing was run");
    return 1;
  }
  // No GPU: with --json a document that says so, not silence.
  rt::Cuda &cu = rt::Cuda::get();
  if (!cu.available()) return benchFailed(opt, cu.whyUnavailable(), rt::kExitNoGpu);
  if (opt.kernel.empty()) {
    if (analysis->kernels.size() != 1) {
      std::fprintf(stderr, "ph bench: `%s` has %zu kernels; choose one with --kernel\n", reportedName(file).c_str(),
                   analysis->kernels.size());
      return 2;
    }
    opt.kernel = analysis->kernels[0].name;
  }
  backend::GpuOptions go;
  go.arch = target;
  go.sources = &analysis->sources;
  std::vector<rt::Variant> variants;
  std::vector<Diagnostic> skippedErrors;
  for (const auto &k : analysis->kernelVariants(opt.kernel)) {
    backend::GpuBinary bin;
    bool ok = backend::compileForGpu(*k, go, bin, err);
    // Left out, as `ph build` leaves it (W0503); E0501 if no configuration fits.
    bool skip = !ok && backend::leaveOutConfiguration(*k, bin, target.empty() ? backend::defaultGpuArch() : target,
                                                      skippedErrors);
    for (const Diagnostic &d : bin.diagnostics) {
      if (d.severity == Severity::Error || !opt.json) std::cerr << renderDiagnostic(d, analysis->sources);
      if (opt.json) opt.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
    }
    if (skip) continue;
    if (!ok) {
      bool said = false;
      for (const Diagnostic &d : bin.diagnostics) said |= d.severity == Severity::Error;
      if (opt.json) return benchFailed(opt, said ? "" : "[" + k->configName() + "] " + err);
      if (bin.diagnostics.empty()) std::fprintf(stderr, "ph bench: [%s] %s\n", k->configName().c_str(), err.c_str());
      return 1;
    }
    variants.push_back({std::move(bin.meta), std::move(bin.cubin), k});
  }
  if (variants.empty() && !skippedErrors.empty()) {
    for (const Diagnostic &d : skippedErrors) {
      std::cerr << renderDiagnostic(d, analysis->sources);
      if (opt.json) opt.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
    }
    return opt.json ? benchFailed(opt, "") : 1;
  }
  if (variants.empty()) return benchFailed(opt, "no kernel `" + opt.kernel + "` in `" + reportedName(file) + "`");
  std::vector<const rt::Variant *> chosen;
  for (const rt::Variant &v : variants) chosen.push_back(&v);
  return rt::runOrBench(chosen, opt, &analysis->sources);
#endif
}

} // namespace ph::driver
