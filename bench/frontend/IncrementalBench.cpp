//===- IncrementalBench.cpp - The editor's analysis of a 5,040-line file ---===//
//
// The language server's work without the protocol: IncrementalAnalyzer (ph/Incremental.h)
// on the file of bench/lsp/lsp_bench.py's scale batch (63 renamed copies of
// examples/mha.ph's kernels, 5,040 lines; with --fn, a `fn` every kernel calls). Times,
// in CPU of the process (every thread) and wall clock, the median and worst of RUNS:
//   first      a fresh analyzer's first update without allConfigs (the first diagnostics)
//   rest       the update with allConfigs that follows it (every configuration)
//   edit/comment, edit/token
//              a comment line inserted and removed inside one kernel (the fn file: inside
//              the fn), or a literal changed and back, each stage until complete
// Usage: bench_incremental [--fn] [--first] [--threads N] [--first-threads N] [--no-inline-cache] [RUNS]
// (perf record and callgrind work on it as it is; --threads: IncrementalAnalyzer::maxThreads, 8 by default;
// --first-threads: its firstThreads, for the first update only; --first runs the first diagnostics only, the
// stage to profile for a cold open; --no-inline-cache: cacheInlining off, for A/B)
//
//===----------------------------------------------------------------------===//
#include "ph/Incremental.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ph;
using Clock = std::chrono::steady_clock;

static double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static std::string read(const std::string &p) {
  std::ifstream in(std::string(PH_SOURCE_DIR) + "/" + p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

static std::string replaceAll(std::string s, const std::string &from, const std::string &to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos; pos += to.size()) s.replace(pos, from.size(), to);
  return s;
}

/// lsp_bench.py's mha_copies().
static std::string mhaCopies(bool withFn) {
  std::string base = read("examples/mha.ph"), out;
  if (withFn)
    out += "/// The last step of every kernel (the bench edits this body).\nfn finish(acc, l) {\n  acc = acc * l\n}\n";
  for (int n = 0; n < 63; ++n) {
    std::string t = base;
    for (const char *k : {"mha_causal_bf16", "mha_causal_f16", "mha_bf16", "mha_f16"})
      t = replaceAll(t, std::string("kernel ") + k + "(", std::string("kernel ") + k + "_" + std::to_string(n) + "(");
    if (withFn) t = replaceAll(t, "  O[b, h, row :+ BR, :] = acc\n", "  finish(acc, 1.0)\n  O[b, h, row :+ BR, :] = acc\n");
    out += t;
  }
  return out;
}

struct Stat {
  std::vector<double> cpu, wall;
  void add(double c, double w) { cpu.push_back(c), wall.push_back(w); }
  static double at(std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5))];
  }
  void print(const char *what) const {
    std::printf("  %-34s CPU p50 %7.2f ms  max %7.2f ms   wall p50 %7.2f ms  max %7.2f ms\n", what, at(cpu, 0.5),
                at(cpu, 1.0), at(wall, 0.5), at(wall, 1.0));
  }
};

int main(int argc, char **argv) {
  bool withFn = false, firstOnly = false, inlineCache = true;
  int runs = 10;
  unsigned threads = 8, firstThreads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--fn")) withFn = true;
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::max(1, std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--first")) firstOnly = true;
    else if (!std::strcmp(argv[i], "--no-inline-cache")) inlineCache = false;
    else if (!std::strcmp(argv[i], "--first-threads") && i + 1 < argc) firstThreads = std::max(1, std::atoi(argv[++i]));
    else runs = std::max(1, std::atoi(argv[i]));
  }
  auto prelude = Prelude::load(std::string(PH_SOURCE_DIR) + "/std");
  const std::string text = mhaCopies(withFn);
  auto timed = [](Stat &s, auto &&fn) {
    double c = cpuMs();
    auto t = Clock::now();
    auto r = fn();
    s.add(cpuMs() - c, std::chrono::duration<double, std::milli>(Clock::now() - t).count());
    return r;
  };
  // The edits: the line where lsp_bench.py edits (the 127th `let h = ctx.block.y`, or the
  // fn's body line), a comment inserted there, or its literal changed.
  size_t at = 0;
  if (withFn) {
    at = text.find("  acc = acc * l\n");
  } else {
    for (int k = 0; k <= 126; ++k) at = text.find("  let h = ctx.block.y\n", k ? at + 1 : 0);
  }
  const std::string commented = text.substr(0, at) + "  // edit\n" + text.substr(at);
  std::string token = text;
  if (withFn) token.replace(at, 16, "  acc = acc * 2\n");
  else token.replace(text.find("= 0.0", at), 5, "= 1.0");

  Stat first, rest, editStages[2], editAll[2];
  size_t diags = 0, items = 0, variants = 0, hits = 0, misses = 0;
  for (int r = 0; r < runs; ++r) {
    double c0 = cpuMs();
    auto t0 = Clock::now();
    IncrementalAnalyzer an(prelude);
    an.maxThreads = threads;
    an.cacheInlining = inlineCache;
    an.firstThreads = firstThreads;
    auto res = an.update(std::make_shared<SourceFile>("bench.ph", text), {}, false);
    first.add(cpuMs() - c0, std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
    diags = res.diagnostics->diagnostics.size();
    items = an.stats().items;
    variants = an.stats().variants;
    hits = an.stats().inlineHits;
    misses = an.stats().inlineMisses;
    if (firstOnly) continue;
    if (!res.complete)
      timed(rest, [&] { return an.update(std::make_shared<SourceFile>("bench.ph", text), {}, true).complete; });
    for (int kind = 0; kind < 2; ++kind) {
      const std::string &edited = kind == 0 ? commented : token;
      for (const std::string *t : {&edited, &text}) {
        auto file = std::make_shared<SourceFile>("bench.ph", *t);
        double c = cpuMs();
        auto w = Clock::now();
        auto e = timed(editStages[kind], [&] { return an.update(file, {}, false); });
        bool stale = e.staleItems;
        for (bool done = e.complete; !done;) {
          auto n = an.update(file, {}, !stale);
          stale = n.staleItems;
          done = n.complete;
        }
        editAll[kind].add(cpuMs() - c, std::chrono::duration<double, std::milli>(Clock::now() - w).count());
      }
    }
  }
  std::printf("incremental bench: %s, %zu bytes, %zu items, %zu configurations in the first stage, %zu diagnostics, "
              "%d runs; std inlined in the first stage: %zu calls replayed, %zu elaborated%s\n",
              withFn ? "63 x mha.ph + fn" : "63 x mha.ph", text.size(), items, variants, diags, runs, hits, misses,
              inlineCache ? "" : " (--no-inline-cache)");
  first.print("first diagnostics (fresh analyzer)");
  if (firstOnly) return 0;
  rest.print("then every configuration");
  editStages[0].print("comment edit: first stage");
  editAll[0].print("comment edit: until complete");
  editStages[1].print("token edit: first stage");
  editAll[1].print("token edit: until complete");
  return 0;
}
