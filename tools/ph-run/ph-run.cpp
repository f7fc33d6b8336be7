//===- ph-run.cpp - Run, check and benchmark a folder made by `ph build` ---===//
//
// Links no MLIR: a GPU machine without the compiler runs what was built
// elsewhere. The frontend is linked (it is small) so that --check can run the
// fp64 interpreter and --bench can count FLOPs from the kernel's IR, both from
// the source text the manifest carries.
//
//===----------------------------------------------------------------------===//
#include "ph/Analysis.h"
#include "ph/Runtime/Tool.h"
#include "ph/Runtime/Tuning.h"

#include <algorithm>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace ph;
using namespace ph::rt;

static const char *usage =
    "usage: ph-run DIR [options]     run a kernel of a folder made by `ph build`\n"
    "       ph-run --info [--json]   describe the GPU (or say why there is none)\n"
    "       ph-run --batch FILE      run each line of FILE (`DIR [options]`, separated by spaces)\n"
    "                                in this process, one CUDA context for all; after each one\n"
    "                                `@@ph-run-batch N EXIT` on stdout and on stderr\n"
    "\n"
    "options:\n"
    "  --tune              --bench, then record the fastest configuration for this kernel, device and\n"
    "                      shape (--size, --in shapes, --config) in DIR/tuning.json; a later run of the\n"
    "                      same shape without --tune or --bench runs that configuration (docs/running.md)\n";

static int runOne(const std::vector<std::string> &args);

/// `--batch FILE`: many runs in one process. Creating a CUDA context costs a good part of a
/// second and the driver serialises it between processes, so thousands of short runs (the
/// differential tests' GPU mode, tests/differential/gpu.py) spend most of their time there.
/// A job that fails (a kernel fault leaves the context unusable) does not stop the batch;
/// the caller reruns failed jobs alone to tell their own failure from an inherited one.
static int runBatch(const std::string &file) {
  std::ifstream in(file);
  if (!in) {
    std::fprintf(stderr, "ph-run: error: cannot read `%s`\n", file.c_str());
    return 2;
  }
  std::string line;
  int n = 0, failed = 0;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> args;
    for (std::string w; words >> w;) args.push_back(w);
    if (args.empty()) continue;
    int rc = runOne(args);
    failed += rc != 0;
    std::fflush(stdout);
    std::fprintf(stdout, "@@ph-run-batch %d %d\n", n, rc);
    std::fflush(stdout);
    std::fprintf(stderr, "@@ph-run-batch %d %d\n", n, rc);
    std::fflush(stderr);
    ++n;
  }
  return failed ? 1 : 0;
}

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%s%s\nexit codes: 0 ok, 1 error or a failed check, 2 usage, %d no GPU\n", usage,
                  kToolOptionsHelp, kExitNoGpu);
      return 0;
    }
  if (args.size() == 2 && args[0] == "--batch") return runBatch(args[1]);
  return runOne(args);
}

static int runOne(const std::vector<std::string> &args) {
  ToolOptions opt;
  std::vector<std::string> rest;
  if (std::string e = parseToolOptions(args, opt, rest, kPhRunOptions); !e.empty()) {
    std::fprintf(stderr, "ph-run: error: %s\n", e.c_str());
    return 2;
  }
  if (std::string e = readInputs(opt); !e.empty()) {
    std::fprintf(stderr, "ph-run: error: %s\n", e.c_str());
    return 1;
  }
  if (opt.info) return printDeviceInfo(opt.json);
  // --tune is ph-run's own: the build folder is where its record goes.
  bool tune = std::find(rest.begin(), rest.end(), "--tune") != rest.end();
  rest.erase(std::remove(rest.begin(), rest.end(), "--tune"), rest.end());
  if (tune) opt.bench = true;
  for (const std::string &a : rest)
    if (a.size() > 1 && a[0] == '-') {
      std::fprintf(stderr, "ph-run: error: unknown option `%s`\n%s%s", a.c_str(), usage, kToolOptionsHelp);
      return 2;
    }
  if (rest.size() != 1) {
    if (rest.size() > 1) std::fprintf(stderr, "ph-run: error: unexpected `%s`\n", rest.back().c_str());
    std::fprintf(stderr, "%s%s", usage, kToolOptionsHelp);
    return 2;
  }
  const std::string dir = rest[0];
  Manifest m;
  if (std::string e = readManifest(dir, m); !e.empty()) {
    std::fprintf(stderr, "ph-run: error: %s\n", e.c_str());
    return 1;
  }
  if (opt.kernel.empty()) {
    std::vector<std::string> names = m.kernelNames();
    if (names.size() != 1) {
      std::fprintf(stderr, "ph-run: error: `%s` holds %zu kernels; choose one with --kernel:", dir.c_str(),
                   names.size());
      for (const std::string &n : names) std::fprintf(stderr, " %s", n.c_str());
      std::fprintf(stderr, "\n");
      return 2;
    }
    opt.kernel = names[0];
  }
  if (m.find(opt.kernel).empty()) {
    std::fprintf(stderr, "ph-run: error: no kernel `%s` in `%s`\n", opt.kernel.c_str(), dir.c_str());
    return 2;
  }

  // The checked kernels, re-derived from the source the manifest carries.
  std::shared_ptr<const Analysis> analysis;
  if (!m.source.text.empty()) {
    auto prelude = std::make_shared<Prelude>();
    for (const SourceText &s : m.prelude) prelude->files.push_back(std::make_shared<SourceFile>(s.path, s.text));
    AnalyzeOptions ao;
    ao.configFilter = opt.config;
    analysis = analyze(std::make_shared<SourceFile>(m.source.path, m.source.text), prelude, ao);
    if (analysis->hasErrors()) {
      std::fprintf(stderr, "ph-run: warning: the manifest's source no longer checks; running without the "
                           "interpreter and FLOP counts\n");
      analysis.reset();
    }
  }

  std::vector<Variant> all;
  for (const ManifestKernel *mk : m.find(opt.kernel)) {
    Variant v;
    v.meta = *mk;
    if (analysis)
      for (const auto &k : analysis->kernelVariants(mk->sig.name))
        if (k->config == mk->sig.config) v.kernel = k;
    all.push_back(std::move(v));
  }
  std::vector<const Variant *> chosen = selectVariants(all, opt);
  for (const Variant *v : chosen)
    if (std::string e = readFile(dir + "/" + v->meta.cubin, const_cast<Variant *>(v)->cubin); !e.empty()) {
      std::fprintf(stderr, "ph-run: error: %s\n", e.c_str());
      return 1;
    }
  // The record goes into the build folder: a folder ph-run cannot write is refused before the bench.
  if (tune && access(dir.c_str(), W_OK) != 0) {
    std::fprintf(stderr, "ph-run: error: --tune records into `%s`, which this process cannot write\n",
                 tuningPath(dir).c_str());
    return 1;
  }
  // A configuration tuned for this shape runs first (a single run takes the first).
  Cuda &cu = Cuda::get();
  bool gpu = !chosen.empty() && cu.available();
  TuningKey key = tuningKeyOf(opt.kernel, gpu ? cu.device().name : "", opt);
  if (gpu && !tune && !opt.bench) {
    std::vector<TuningRecord> tuning;
    if (std::string e = readTuning(tuningPath(dir), tuning); !e.empty())
      std::fprintf(stderr, "ph-run: warning: %s; not using it\n", e.c_str());
    else if (std::string said = preferTuned(chosen, tuning, key, tuningPath(dir)); !said.empty())
      std::fprintf(stderr, "ph-run: %s\n", said.c_str());
  }
  BenchPick best;
  int rc = runOrBench(chosen, opt, analysis ? &analysis->sources : nullptr, tune ? &best : nullptr);
  // Recorded only when every configuration ran and agreed (exit 0), and there was a choice.
  if (!tune || rc != 0) return rc;
  if (best.timed < 2) {
    std::fprintf(stderr, "ph-run: note: %d configuration%s for this shape: nothing to tune\n", best.timed,
                 best.timed == 1 ? "" : "s");
    return rc;
  }
  std::string note;
  if (std::string e = recordTuning(tuningPath(dir), {key, best.config, best.ms}, note); !e.empty()) {
    std::fprintf(stderr, "ph-run: error: %s\n", e.c_str());
    return 1;
  }
  if (!note.empty()) std::fprintf(stderr, "ph-run: warning: %s\n", note.c_str());
  std::fprintf(stderr, "ph-run: tuned: [%s] (%.4f ms%s) for this shape on %s -> %s\n", best.config.c_str(), best.ms,
               best.checked ? "" : ", unchecked: too large for the interpreter", key.device.c_str(),
               tuningPath(dir).c_str());
  return 0;
}
