//===- CompileBench.cpp - How long flash attention takes to compile --------===//
//
// ph_bench_compile [FILE] [--kernel K] [--runs N]
//
// Times, from the source text each time (nothing cached but the prelude's
// text), the stages a user waits for: analysis (lex, parse, check, inline,
// specialise), text -> tile dialect (analysis + kir -> MLIR, printed), and
// text -> CPU machine code (analysis + tile -> loops -> LLVM -> ORC JIT).
// Prints the first (cold) run and the median of the rest. Targets: tile
// under 20 ms, CPU machine code under 200 ms.
//
//===----------------------------------------------------------------------===//
#include "ph/Analysis.h"
#include "ph/Backend/CpuTarget.h"
#include "ph/Backend/Emit.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

using namespace ph;

namespace {

double ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct Timing {
  double cold = 0, median = 0, min = 0;
};

Timing measure(int runs, const std::function<bool()> &fn) {
  std::vector<double> t;
  for (int i = 0; i < runs; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    if (!fn())
      return {-1, -1, -1};
    t.push_back(ms(t0));
  }
  Timing r;
  r.cold = t[0];
  std::vector<double> warm(t.begin() + (t.size() > 1), t.end());
  std::sort(warm.begin(), warm.end());
  r.median = warm[warm.size() / 2];
  r.min = warm[0];
  return r;
}

} // namespace

int main(int argc, char **argv) {
  std::string path = std::string(PH_SOURCE_DIR) + "/examples/flash_attention.ph";
  std::string kernel = "flash_attention";
  int runs = 11;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--kernel") && i + 1 < argc)
      kernel = argv[++i];
    else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
      runs = std::max(2, std::atoi(argv[++i]));
    else
      path = argv[i];
  }
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "ph_bench_compile: cannot read `%s`\n", path.c_str());
    return 1;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  auto prelude = Prelude::load(std::string(PH_SOURCE_DIR) + "/std");

  std::string err;
  auto analyzeKernel = [&]() -> std::shared_ptr<const kir::Kernel> {
    auto a = analyze(std::make_shared<SourceFile>(path, text), prelude);
    auto v = a->kernelVariants(kernel);
    if (a->hasErrors() || v.empty()) {
      err = "no kernel `" + kernel + "` (or the file has errors)";
      return nullptr;
    }
    return v.front();
  };

  Timing analysis = measure(runs, [&] { return analyzeKernel() != nullptr; });
  Timing tile = measure(runs, [&] {
    auto k = analyzeKernel();
    return k && !backend::emitStage(*k, backend::Stage::Tile, err).empty();
  });
  Timing cpu = measure(runs, [&] {
    auto k = analyzeKernel();
    return k && backend::compileForCpu(*k, err) != nullptr;
  });
  if (analysis.cold < 0 || tile.cold < 0 || cpu.cold < 0) {
    std::fprintf(stderr, "ph_bench_compile: %s\n", err.c_str());
    return 1;
  }
  std::printf("%s, kernel %s, %d runs (median and min of the warm runs)\n", path.c_str(),
              kernel.c_str(), runs);
  std::printf("%-34s %9s %9s %9s %9s\n", "stage", "cold ms", "median", "min", "target");
  std::printf("%-34s %9.2f %9.2f %9.2f %9s\n", "text -> checked kir", analysis.cold,
              analysis.median, analysis.min, "");
  std::printf("%-34s %9.2f %9.2f %9.2f %9s\n", "text -> tile dialect (printed)", tile.cold,
              tile.median, tile.min, "20");
  std::printf("%-34s %9.2f %9.2f %9.2f %9s\n", "text -> CPU machine code (JIT)", cpu.cold,
              cpu.median, cpu.min, "200");
  return 0;
}
