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

#include <cstdio>
#include <cstring>
#include <iostream>

using namespace ph;
using namespace ph::rt;

static const char *usage =
    "usage: ph-run DIR [options]     run a kernel of a folder made by `ph build`\n"
    "       ph-run --info [--json]   describe the GPU (or say why there is none)\n"
    "\n"
    "options:\n";

int main(int argc, char **argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const std::string &a : args)
    if (a == "--help" || a == "-h") {
      std::printf("%s%s\nexit codes: 0 ok, 1 error or a failed check, 2 usage, %d no GPU\n", usage,
                  kToolOptionsHelp, kExitNoGpu);
      return 0;
    }
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
  return runOrBench(chosen, opt, analysis ? &analysis->sources : nullptr);
}
