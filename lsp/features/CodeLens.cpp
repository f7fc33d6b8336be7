//===- CodeLens.cpp - textDocument/codeLens over each kernel --------------===//
//
// Two lens lines per kernel, so neither is pushed out of view by the other:
// the actions ("▶ Run on CPU", "Benchmark", "Compile", "Show MLIR") above the
// kernel's first decorator, named after where Run will execute; the facts
// (grid, threads, configurations) and, on a lens of their own, the last
// build's figures above the `kernel` line. A kernel without decorators has
// both on one line, the figures still a lens of their own.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

json codeLens(const Snapshot &s, const json &, const FeatureOptions &o) {
  json out = json::array();
  if (!s.analysis) return out;
  for (const KernelSummary &k : s.analysis->kernels) {
    json nameRange = toJson(s.lines.range(k.nameRange.begin, k.nameRange.end));
    Position top = s.lines.position(std::min(k.declRange.begin, k.nameRange.begin));
    json actionRange = toJson(Range{top, top});
    json args = json::array({{{"uri", s.uri}, {"kernel", k.name}}});
    auto lens = [&](const json &range, const std::string &title, const char *command, json arguments) {
      json c = {{"title", title}, {"command", command}};
      if (!arguments.is_null()) c["arguments"] = std::move(arguments);
      out.push_back({{"range", range}, {"command", std::move(c)}});
    };
    lens(actionRange, "▶ Run on " + o.runTarget, "ph.run", args);
    json benchArgs = args;
    benchArgs[0]["bench"] = true;
    lens(actionRange, "Benchmark", "ph.run", benchArgs);
    lens(actionRange, "Compile", "ph.compile", args);
    json irArgs = args;
    irArgs[0]["stage"] = "tile";
    lens(actionRange, "Show MLIR", "ph.showIR", irArgs);
    // Information lenses: the empty command makes clients show them as text.
    std::string info = "grid " + k.grid + " · " + std::to_string(k.threads) + " threads";
    if (k.configs.size() > 1) info += " · " + std::to_string(k.configs.size()) + " configs";
    lens(nameRange, info, "", nullptr);
    if (auto it = o.compileFigures.find(k.name); it != o.compileFigures.end() && !it->second.empty())
      lens(nameRange, it->second, "", nullptr);
  }
  return out;
}

} // namespace ph::lsp
