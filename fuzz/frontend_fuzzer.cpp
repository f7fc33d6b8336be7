//===- frontend_fuzzer.cpp - Bytes to lex + parse + check ------------------===//
//
// Any bytes must come back as an Analysis with well-formed diagnostics: no
// crash, no hang, no sanitizer report, no range outside the text.
//
//===----------------------------------------------------------------------===//
#include "ph/Analysis.h"

#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static auto prelude = ph::Prelude::load();
  auto file = std::make_shared<ph::SourceFile>("fuzz.ph", std::string(reinterpret_cast<const char *>(data), size));
  auto a = ph::analyze(file, prelude);
  for (const ph::Diagnostic &d : a->diagnostics) {
    const std::string &t = a->sources.file(d.range.file).text();
    if (d.range.begin > d.range.end || d.range.end > t.size()) std::abort();
    (void)ph::renderDiagnostic(d, a->sources);
  }
  return 0;
}
