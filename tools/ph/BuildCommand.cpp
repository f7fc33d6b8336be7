//===- BuildCommand.cpp - `ph build`: cubins + manifest.json ---------------===//
//
// ph build FILE [--kernel K] [--target sm_90|sm_80] [-o DIR] [--config BR=64,...]
//          [-j N] [--no-cache] [--time] [--time-passes] [--json [--progress]]
//
// Compiles every kernel (or K) for every autotune configuration with the SIMT
// GPU target, writes one cubin per variant and manifest.json (signature, grid
// formula, block, shared memory, ptxas's registers and spills, the source) to
// DIR (default `ph-build`), which `ph-run DIR` runs on a machine with a GPU.
// The variants compile in parallel and come from the build cache when their
// kir is unchanged (VariantCompiler.h, docs/compile.md).
// With --json, stdout is one ph-output document (docs/output.md) instead of text:
// the diagnostics, and per variant its resources, occupancy and tile placements.
// With --progress too, stdout is JSON Lines: a `plan` event, one `variant` event
// per variant as it is done (in build order), then the document on one line.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "DriverUtil.h"

#include "ph/Analysis.h"
#ifdef PH_HAVE_BACKEND
#include "VariantCompiler.h"
#include "ph/Backend/GpuTarget.h"
#include "ph/Backend/SkippedConfiguration.h"
#include "ph/Cache/Store.h"
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Report.h"
#endif

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <iterator>
#include <optional>
#include <set>

namespace ph::driver {

static const char *buildUsage =
    "usage: ph build FILE [--kernel K] [--target sm_90|sm_80] [-o DIR] [--config BR=64,...]\n"
    "                [-j N] [--no-cache] [--time] [--time-passes] [--json [--progress]]\n"
    "\n"
    "Compiles each kernel and autotune configuration to a cubin (TileGPU: tensor-core or SIMT\n"
    "policy, PTX from LLVM's NVPTX backend, cubin from ptxas) and writes DIR/manifest.json.\n"
    "The default target is the GPU present, else sm_90; the default DIR is `ph-build`.\n"
    "Run the result with `ph-run DIR`. Exit status: 0 built, 1 errors, 2 bad usage.\n"
    "\n"
    "  -j N           compile N variants at a time (default: every core); output is the same\n"
    "  --no-cache     compile every variant; read and write no cache entry\n"
    "  --time         per variant, where the time went (stderr)\n"
    "  --time-passes  per variant, MLIR's pass timing report (stderr)\n"
    "  --json         stdout is one ph-output document (docs/output.md): diagnostics, and per\n"
    "                 variant registers, shared memory, spills, occupancy, where each tile lives\n"
    "  --progress     with --json: stdout is JSON Lines, one ph-event per variant as it is\n"
    "                 done, then the document on the last line (docs/output.md)\n"
    "\n"
    "Compiled variants are cached in $XDG_CACHE_HOME/ph (default ~/.cache/ph; PH_CACHE_DIR\n"
    "overrides), at most PH_CACHE_MAX_SIZE bytes (default 1G); `ph cache clear` empties it.\n";

static bool parseConfig(const std::string &text, std::vector<std::pair<std::string, int64_t>> &out) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos), eq = text.find('=', pos);
    if (eq == std::string::npos || (comma != std::string::npos && eq > comma)) return false;
    std::string end = text.substr(eq + 1, comma == std::string::npos ? std::string::npos : comma - eq - 1);
    char *stop = nullptr;
    long long v = std::strtoll(end.c_str(), &stop, 10);
    if (end.empty() || *stop) return false;
    out.emplace_back(text.substr(pos, eq - pos), v);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return true;
}

int buildCommand(const Args &args) {
  std::string file, kernel, target, outDir = "ph-build", stdDir;
  std::vector<std::pair<std::string, int64_t>> config;
  unsigned jobs = 0;
  bool noCache = false, time = false, timePasses = false, json = false, progress = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto next = [&](std::string &v) {
      if (i + 1 >= args.size()) return false;
      v = args[++i];
      return true;
    };
    std::string v;
    if (a == "--help" || a == "-h") {
      std::fputs(buildUsage, stdout);
      return 0;
    } else if (a == "--kernel" || a == "--target" || a == "-o" || a == "--std" || a == "--config") {
      if (!next(v)) {
        std::fprintf(stderr, "ph build: `%s` needs a value\n", a.c_str());
        return 2;
      }
      if (a == "--kernel") kernel = v;
      else if (a == "--target") target = v;
      else if (a == "-o") outDir = v;
      else if (a == "--std") stdDir = v;
      else if (!parseConfig(v, config)) {
        std::fprintf(stderr, "ph build: `--config` expects NAME=VALUE[,NAME=VALUE...], found `%s`\n", v.c_str());
        return 2;
      }
    } else if (a == "-j" || a == "--jobs" || (a.size() > 2 && a.rfind("-j", 0) == 0)) {
      if (a.size() > 2 && a[1] == 'j') v = a.substr(2);
      else if (!next(v)) {
        std::fprintf(stderr, "ph build: `%s` needs a value\n", a.c_str());
        return 2;
      }
      char *stop = nullptr;
      long n = std::strtol(v.c_str(), &stop, 10);
      if (v.empty() || *stop || n < 1 || n > 1024) {
        std::fprintf(stderr, "ph build: `-j` expects a number of jobs from 1 to 1024, found `%s`\n", v.c_str());
        return 2;
      }
      jobs = unsigned(n);
    } else if (a == "--json") {
      json = true;
    } else if (a == "--progress") {
      progress = true;
    } else if (a == "--no-cache") {
      noCache = true;
    } else if (a == "--time") {
      time = true;
    } else if (a == "--time-passes") {
      timePasses = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ph build: unknown option `%s`\n%s", a.c_str(), buildUsage);
      return 2;
    } else if (file.empty()) file = a;
    else {
      std::fprintf(stderr, "ph build: one file at a time (also got `%s`)\n", a.c_str());
      return 2;
    }
  }
  if (file.empty()) {
    std::fputs(buildUsage, stderr);
    return 2;
  }
  if (progress && !json) {
    std::fprintf(stderr, "ph build: `--progress` writes JSON events; it goes with `--json`\n");
    return 2;
  }
#ifndef PH_HAVE_BACKEND
  std::fprintf(stderr, "ph build: this `ph` was built without the MLIR backend (-DPH_ENABLE_MLIR=ON)\n");
  return 1;
#else
  if (target == "cpu") {
    std::fprintf(stderr, "ph build: the CPU target runs in process (`ph run --target cpu`); `ph build` "
                         "writes GPU binaries (--target sm_90|sm_80)\n");
    return 2;
  }
  if (target.empty()) target = backend::defaultGpuArch();
  if (!backend::isSupportedGpuArch(target)) {
    std::fprintf(stderr, "ph build: unknown target `%s` (expected sm_90 or sm_80)\n", target.c_str());
    return 2;
  }
  auto started = std::chrono::steady_clock::now();
  // --json: everything the build says goes into one document on stdout.
  rt::report::Document doc;
  doc.command = "build";
  doc.file = reportedName(file);
  doc.target = target;
  doc.device = rt::limitsForArch(target);
  doc.outputDir = outDir;
  auto fail = [&](const std::string &why) {
    if (!json) {
      if (!why.empty()) std::fprintf(stderr, "ph build: %s\n", why.c_str());
      return 1;
    }
    if (doc.error.empty()) doc.error = why;
    std::cout << rt::report::toJson(doc).dump(progress ? -1 : 2) << "\n";
    return 1;
  };
  std::string text, err;
  if (!readFile(file, text, err)) return fail(err);
  auto prelude = Prelude::load(stdDir);
  AnalyzeOptions ao;
  ao.configFilter = config;
  auto analysis = analyze(std::make_shared<SourceFile>(reportedName(file), text), prelude, ao);
  auto report = [&](const Diagnostic &d) {
    if (json) doc.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
    else std::cerr << renderDiagnostic(d, analysis->sources);
  };
  for (const Diagnostic &d : analysis->diagnostics) report(d);
  if (analysis->hasErrors()) return fail("");
  if (!kernel.empty() && analysis->kernelVariants(kernel).empty())
    return fail("no kernel `" + kernel + "` in `" + reportedName(file) + "`");
  std::error_code ec;
  std::filesystem::create_directories(outDir, ec);
  if (ec) return fail("cannot create `" + outDir + "`: " + ec.message());
  rt::Manifest m;
  m.target = target;
  m.compiler = "ph 0.1.0";
  m.source = {reportedName(file), text};
  for (const auto &f : prelude->files) m.prelude.push_back({f->path(), f->text()});

  std::vector<const kir::Kernel *> variants;
  for (const auto &k : analysis->specialised)
    if (kernel.empty() || k->name == kernel) variants.push_back(k.get());
  VariantOptions vo;
  vo.gpu.arch = target;
  vo.gpu.sources = &analysis->sources;
  vo.gpu.timePasses = timePasses;
  vo.jobs = jobs;
  std::optional<cache::Store> store;
  if (!noCache) {
    std::string dir = cache::Store::defaultDir(), sizeErr;
    uint64_t bound = cache::Store::defaultMaxBytes(sizeErr);
    if (!sizeErr.empty()) std::fprintf(stderr, "ph build: warning: %s\n", sizeErr.c_str());
    if (!dir.empty()) store.emplace(dir, bound);
    else std::fprintf(stderr, "ph build: warning: no cache (set XDG_CACHE_HOME, HOME or PH_CACHE_DIR)\n");
  }
  vo.cache = store ? &*store : nullptr;
  // --progress: each event is one line, flushed, so a reader sees it as it happens.
  auto emit = [](const rt::report::Event &e) { std::cout << rt::report::toJson(e).dump() << "\n" << std::flush; };
  if (progress)
    vo.planned = [&](size_t hits) {
      rt::report::Event e;
      e.event = "plan";
      e.of = int(variants.size());
      e.cached = int(hits);
      emit(e);
    };

  bool failed = false, writeFailed = false;
  size_t cached = 0, compiled = 0, ptxasCached = 0, skippedCount = 0;
  // Configurations left out because they do not fit the target (W0503), with their E0501s,
  // which become the build's errors for a kernel none of whose configurations got further;
  // kernels in the order they come.
  std::vector<std::pair<std::string, std::vector<Diagnostic>>> skipped;
  std::set<std::string> notOnlySkipped;
  auto written = [&](size_t i, VariantResult &r) {
    const kir::Kernel &k = *variants[i];
    backend::GpuBinary &bin = r.bin;
    std::vector<Diagnostic> errors;
    bool skip = !r.ok && backend::leaveOutConfiguration(k, bin, target, errors);
    if (skip) {
      auto it = std::find_if(skipped.begin(), skipped.end(), [&](const auto &e) { return e.first == k.name; });
      if (it == skipped.end()) it = skipped.insert(skipped.end(), {k.name, {}});
      std::move(errors.begin(), errors.end(), std::back_inserter(it->second));
    }
    if (!skip) notOnlySkipped.insert(k.name);
    for (const Diagnostic &d : bin.diagnostics) report(d);
    rt::report::Event event;
    if (progress) {
      event.event = "variant";
      event.of = int(variants.size());
      event.index = int(i);
      event.ok = r.ok;
      event.fromCache = r.cached;
      event.skipped = skip;
      event.ms = r.ms;
      event.kernel = k.name;
      event.configName = k.configName();
      for (const Diagnostic &d : bin.diagnostics) event.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
    }
    // Every variant has its event, whatever way it ends (the figures only when written).
    struct Emit {
      bool on;
      rt::report::Event &e;
      const decltype(emit) &f;
      ~Emit() {
        if (on) f(e);
      }
    } emitOnReturn{progress, event, emit};
    if (time) {
      // CPU milliseconds per step (wall in parentheses when a loaded machine made it differ).
      std::string line = k.name + " [" + k.configName() + "]:";
      double ours = 0, oursWall = 0;
      for (const backend::PhaseTime &p : bin.phases) {
        char buf[96];
        std::snprintf(buf, sizeof buf, "%s %s %.1f", line.back() == ':' ? "" : ",", p.name.c_str(), p.cpuMs);
        line += buf;
        if (p.ms > 1.5 * p.cpuMs + 1) {
          std::snprintf(buf, sizeof buf, " (wall %.1f)", p.ms);
          line += buf;
        }
        if (p.name != "ptxas" && p.name != "cache" && p.name != "ptxas-cached") ours += p.cpuMs, oursWall += p.ms;
      }
      char tail[96];
      std::snprintf(tail, sizeof tail, "; ours %.1f ms CPU, %.1f wall; variant %.1f ms wall", ours, oursWall, r.ms);
      std::fprintf(stderr, "time: %s%s\n", line.c_str(), r.cached ? "" : tail);
    }
    if (timePasses && !bin.passTiming.empty())
      std::fprintf(stderr, "passes: %s [%s]\n%s", k.name.c_str(), k.configName().c_str(), bin.passTiming.c_str());
    if (skip) {
      ++skippedCount;
      return;
    }
    if (!r.ok) {
      if (bin.diagnostics.empty() || bin.diagnostics.back().severity != Severity::Error) {
        // A lowering failure without a diagnostic of its own: E0502 on the kernel, with
        // or without --json (a registry diagnostic, as `ph check` prints one).
        Diagnostic d;
        d.kind = DiagKind::BackendError;
        d.severity = Severity::Error;
        d.range = k.loc;
        d.message = formatDiag(DiagKind::BackendError, {r.err});
        if (!k.configName().empty()) d.notes.push_back({k.loc, "in configuration " + k.configName()});
        report(d);
        if (progress) event.diagnostics.push_back(rt::report::fromDiagnostic(d, analysis->sources));
      }
      failed = true;
      return;
    }
    ++(r.cached ? cached : compiled);
    if (r.ptxasCached) ++ptxasCached;
    if (writeFailed) return;
    std::string path = outDir + "/" + bin.meta.cubin;
    if (std::string e = rt::writeFile(path, bin.cubin.data(), bin.cubin.size()); !e.empty()) {
      if (json) doc.error = e;
      else std::fprintf(stderr, "ph build: %s\n", e.c_str());
      writeFailed = true;
      return;
    }
    rt::writeFile(outDir + "/" + rt::variantFileName(k, "ptx"), bin.ptx.data(), bin.ptx.size());
    // Under the tensor-core lowering, where the tiles live (the manifest's notes list each).
    std::string unit;
    if (bin.meta.unit == "tensorcore" && !bin.meta.notes.empty()) unit = ", " + bin.meta.notes[0];
    if (json) {
      doc.variants.push_back(rt::report::fromManifest(bin.meta, *doc.device));
      if (progress) event.variant = doc.variants.back();
    } else {
      std::printf("%s [%s]: %s, %d registers, %d B shared memory, %d B spilled%s -> %s%s\n", k.name.c_str(),
                  k.configName().c_str(), target.c_str(), bin.meta.ptxas.registers, bin.meta.dynamicShared,
                  bin.meta.ptxas.spillStores + bin.meta.ptxas.spillLoads, unit.c_str(), path.c_str(),
                  r.cached ? " (cached)" : "");
      // Figures as they arrive (an editor reads them through a pipe).
      std::fflush(stdout);
    }
    m.kernels.push_back(std::move(bin.meta));
  };
  compileVariants(variants, vo, written,
                  [](const std::string &w) { std::fprintf(stderr, "ph build: warning: %s\n", w.c_str()); });
  if (store && compiled) store->evict();
  for (auto &[name, errors] : skipped) {
    if (notOnlySkipped.count(name)) continue;
    for (const Diagnostic &d : errors) report(d);
    failed = true;
  }
  if (writeFailed || failed) return fail(doc.error);
  if (std::string e = rt::writeManifest(outDir, m); !e.empty()) return fail(e);
  if (json) {
    doc.ok = true;
    std::cout << rt::report::toJson(doc).dump(progress ? -1 : 2) << "\n";
    return 0;
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // A compiled variant whose PTX ptxas had seen (its kernel moved) took the cubin from the cache.
  std::string reused = ptxasCached ? ", ptxas skipped for " + std::to_string(ptxasCached) + " (same PTX)" : "";
  std::string left = skippedCount ? ", " + std::to_string(skippedCount) + " left out (W0503)" : "";
  std::printf("wrote %s/manifest.json (%zu variant(s)): %zu compiled, %zu cached%s%s, %.2f s\n", outDir.c_str(),
              m.kernels.size(), compiled, cached, reused.c_str(), left.c_str(), secs);
  return 0;
#endif
}

} // namespace ph::driver
