//===- TestUtil.h - Helpers for frontend tests ------------------*- C++ -*-===//
#pragma once

#include "ph/Analysis.h"

#include <fstream>
#include <sstream>
#include <string>

namespace ph::test {

inline std::string readSource(const std::string &relPath) {
  std::ifstream in(std::string(PH_SOURCE_DIR) + "/" + relPath, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::shared_ptr<const Prelude> prelude() {
  static auto p = Prelude::load(std::string(PH_SOURCE_DIR) + "/std");
  return p;
}

inline std::shared_ptr<const Analysis> analyzeText(const std::string &text, const std::string &path = "test.ph",
                                                   AnalyzeOptions opts = {}) {
  return analyze(std::make_shared<SourceFile>(path, text), prelude(), opts);
}

/// `line:col` (1-based) of a diagnostic's primary range.
inline std::string where(const Analysis &a, const Diagnostic &d) {
  LineCol lc = a.sources.file(d.range.file).lineCol(d.range.begin);
  return std::to_string(lc.line) + ":" + std::to_string(lc.col);
}

inline const char *kExamples[] = {"examples/flash_attention.ph", "examples/flash_attention_manual.ph",
                                  "examples/causal_attention.ph", "examples/rotary.ph", "examples/rotary_pairs.ph",
                                  "std/attention.ph"};

} // namespace ph::test
