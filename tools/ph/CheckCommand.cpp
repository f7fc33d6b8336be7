//===- CheckCommand.cpp - `ph check FILE...` -------------------------------===//
//
// Prints each file's diagnostics as `file:line:col: error[E0301]: message`
// with the source line and a caret underline (or, with --json, the same data
// as JSON: the shape ph-lsp publishes). Exits 1 when any file has an error.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "DriverUtil.h"

#include "ph/Analysis.h"
#include "ph/Limits.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

namespace ph::driver {

static nlohmann::json rangeJson(const SourceManager &sm, SourceRange r) {
  const SourceFile &f = sm.file(r.file);
  LineCol b = f.lineCol(r.begin), e = f.lineCol(r.end);
  return {{"file", f.path()},
          {"start", {{"line", b.line}, {"col", b.col}, {"offset", r.begin}}},
          {"end", {{"line", e.line}, {"col", e.col}, {"offset", r.end}}}};
}

nlohmann::json diagnosticJson(const Diagnostic &d, const SourceManager &sm) {
  nlohmann::json j = {{"code", d.code()},
                      {"name", diagInfo(d.kind).name},
                      {"severity", d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note"},
                      {"message", d.message},
                      {"range", rangeJson(sm, d.range)}};
  j["notes"] = nlohmann::json::array();
  for (auto &n : d.notes) j["notes"].push_back({{"message", n.message}, {"range", rangeJson(sm, n.range)}});
  j["fixes"] = nlohmann::json::array();
  for (auto &f : d.fixes) {
    nlohmann::json edits = nlohmann::json::array();
    for (auto &e : f.edits) edits.push_back({{"range", rangeJson(sm, e.range)}, {"text", e.text}});
    j["fixes"].push_back({{"title", f.title}, {"edits", edits}});
  }
  return j;
}

int checkCommand(const Args &args) {
  bool json = false, dumpKir = false;
  std::vector<std::string> files;
  std::string stdDir;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    if (a == "--json") json = true;
    else if (a == "--dump-kir") dumpKir = true;
    else if (a == "--std" && i + 1 < args.size()) stdDir = args[++i];
    else if (a == "--help" || a == "-h") {
      std::puts("usage: ph check FILE... [--json] [--std DIR] [--dump-kir]\n\n"
                "Lexes, parses and checks each file against the standard library (std/*.ph) and prints\n"
                "its diagnostics. Exit status: 0 clean (warnings allowed), 1 errors, 2 bad usage.\n"
                "--dump-kir prints each kernel as specialised for each autotune configuration.");
      return 0;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ph check: unknown option `%s`\n", a.c_str());
      return 2;
    } else files.push_back(a);
  }
  if (files.empty()) {
    std::fprintf(stderr, "ph check: no input files\n");
    return 2;
  }
  if (!sourceNameOption().empty() && files.size() > 1) {
    std::fprintf(stderr, "ph check: `--source-name` names one input file, and %zu were given\n", files.size());
    return 2;
  }
  auto prelude = Prelude::load(stdDir);
  bool anyError = false;
  nlohmann::json out = nlohmann::json::array();
  for (const std::string &path : files) {
    std::string text, err;
    DiagKind why = DiagKind::Count;
    if (!readFile(path, text, err, &why)) {
      anyError = true;
      if (why == DiagKind::Count) {
        std::fprintf(stderr, "ph check: %s\n", err.c_str());
        continue;
      }
      // E0602 / E0603: a diagnostic on the file itself (there is no text to point into).
      if (json) {
        nlohmann::json pos = {{"line", 1}, {"col", 1}, {"offset", 0}};
        out.push_back({{"file", reportedName(path)},
                       {"diagnostics",
                        {{{"code", diagInfo(why).code},
                          {"name", diagInfo(why).name},
                          {"severity", "error"},
                          {"message", err},
                          {"range", {{"file", reportedName(path)}, {"start", pos}, {"end", pos}}},
                          {"notes", nlohmann::json::array()},
                          {"fixes", nlohmann::json::array()}}}}});
      } else {
        std::cout << reportedName(path) << ": error[" << diagInfo(why).code << "]: " << err << "\n";
      }
      continue;
    }
    AnalyzeOptions opts;
    opts.editorFacts = false;
    opts.specialise = dumpKir;
    auto analysis = analyze(std::make_shared<SourceFile>(reportedName(path), std::move(text)), prelude, opts);
    if (analysis->hasErrors()) anyError = true;
    if (json) {
      nlohmann::json fileJson = {{"file", reportedName(path)}, {"diagnostics", nlohmann::json::array()}};
      for (auto &d : analysis->diagnostics) fileJson["diagnostics"].push_back(diagnosticJson(d, analysis->sources));
      out.push_back(fileJson);
    } else {
      for (auto &d : analysis->diagnostics) std::cout << renderDiagnostic(d, analysis->sources);
      if (dumpKir)
        for (auto &k : analysis->specialised) std::cout << kir::print(*k) << "\n";
    }
  }
  if (json) std::cout << out.dump(2) << "\n";
  return anyError ? 1 : 0;
}

} // namespace ph::driver
