//===- FrontendBench.cpp - Lex + parse + check of a 20,000-line file -------===//
//
// Generates a file of kernels and functions (copies of the seed's kernels
// under fresh names, each calling its own copy of the std functions), then
// times lex, parse and the whole analysis. Reports the median of the runs
// and lines per second. Usage: bench_frontend [LINES] [RUNS]
//
//===----------------------------------------------------------------------===//
#include "ph/Analysis.h"
#include "ph/Lexer.h"
#include "ph/Parser.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <ctime>

/// CPU time of this thread: the figure that does not depend on what else the machine runs.
static double cpuMs() {
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

using namespace ph;
using Clock = std::chrono::steady_clock;

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

static double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  size_t targetLines = argc > 1 ? std::stoul(argv[1]) : 20000;
  int runs = argc > 2 ? std::stoi(argv[2]) : 9;
  std::vector<std::string> templates = {read("examples/flash_attention_manual.ph"), read("examples/causal_attention.ph"),
                                        read("examples/rotary.ph"), read("std/attention.ph")};
  std::string text;
  size_t lines = 0;
  for (int copy = 0; lines < targetLines; ++copy) {
    std::string suffix = "_" + std::to_string(copy);
    for (const std::string &t : templates) {
      std::string s = t;
      for (const char *name : {"flash_attention_manual", "causal_attention", "rotary", "online_softmax", "rope_pairs",
                               "attention(", "rope("}) {
        std::string n = name;
        bool call = n.back() == '(';
        if (call) n.pop_back();
        s = replaceAll(s, n + (call ? "(" : ""), n + suffix + (call ? "(" : ""));
      }
      text += s + "\n";
      lines += std::count(s.begin(), s.end(), '\n') + 1;
    }
  }
  auto prelude = Prelude::load(std::string(PH_SOURCE_DIR) + "/std");
  auto file = std::make_shared<SourceFile>("generated.ph", text);
  std::vector<double> lexMs, parseMs, totalMs, totalCpuMs, checkCpuMs;
  AnalyzeOptions checkOnly;
  checkOnly.editorFacts = false;
  checkOnly.specialise = false;
  size_t diags = 0, kernels = 0;
  for (int r = 0; r < runs; ++r) {
    DiagnosticSink sink;
    auto t0 = Clock::now();
    auto toks = lex(*file, 0, sink);
    auto t1 = Clock::now();
    auto mod = parse(toks, 0, sink);
    auto t2 = Clock::now();
    double c2 = cpuMs();
    auto a = analyze(file, prelude);
    auto t3 = Clock::now();
    totalCpuMs.push_back(cpuMs() - c2);
    double c3 = cpuMs();
    auto checked = analyze(file, prelude, checkOnly);
    checkCpuMs.push_back(cpuMs() - c3);
    lexMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    parseMs.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
    totalMs.push_back(std::chrono::duration<double, std::milli>(t3 - t2).count());
    diags = a->diagnostics.size();
    kernels = a->specialised.size();
  }
  double total = median(totalMs);
  std::printf("frontend bench: %zu lines, %zu bytes, %zu kernels specialised, %zu diagnostics\n", lines, text.size(),
              kernels, diags);
  std::printf("  lex            %8.2f ms (median of %d)\n", median(lexMs), runs);
  std::printf("  parse          %8.2f ms\n", median(parseMs));
  std::printf("  analyze (all)  %8.2f ms wall, %.2f ms CPU   %.0f lines/s (CPU)   target: under 50 ms\n", total,
              median(totalCpuMs), lines / (median(totalCpuMs) / 1000.0));
  std::printf("  check only     %8.2f ms CPU (what `ph check` does: no editor facts, no kir kept)\n",
              median(checkCpuMs));
  return diags == 0 ? 0 : 1;
}
