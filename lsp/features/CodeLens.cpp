//===- CodeLens.cpp - textDocument/codeLens over each kernel --------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

json codeLens(const Snapshot &s, const json &, const FeatureOptions &o) {
  json out = json::array();
  if (!s.analysis) return out;
  for (const KernelSummary &k : s.analysis->kernels) {
    json range = toJson(s.lines.range(k.nameRange.begin, k.nameRange.end));
    json args = json::array({{{"uri", s.uri}, {"kernel", k.name}}});
    auto lens = [&](const std::string &title, const char *command, json arguments) {
      out.push_back({{"range", range}, {"command", {{"title", title}, {"command", command}, {"arguments", arguments}}}});
    };
    lens("▶ Run on GPU", "ph.run", args);
    lens("Compile", "ph.compile", args);
    json irArgs = args;
    irArgs[0]["stage"] = "tile";
    lens("Show MLIR", "ph.showIR", irArgs);
    // An information lens: the empty command makes clients show it as text.
    std::string info = "grid " + k.grid + " · " + std::to_string(k.threads) + " threads";
    if (k.configs.size() > 1) info += " · " + std::to_string(k.configs.size()) + " configs";
    auto it = o.compileFigures.find(k.name);
    if (it != o.compileFigures.end()) info += " · " + it->second;
    out.push_back({{"range", range}, {"command", {{"title", info}, {"command", ""}}}});
  }
  return out;
}

} // namespace ph::lsp
