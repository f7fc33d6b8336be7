//===- CodeLens.cpp - textDocument/codeLens over each kernel --------------===//
//
// Up to three lens lines per kernel, so none is pushed out of view by another:
// the actions ("▶ Run on CPU", "Benchmark", "Compile", "Show MLIR") above the
// kernel's first decorator, named after where Run will execute; the facts
// (grid, threads, configurations) above its last decorator; the last build's
// figures above the `kernel` line. With fewer decorator lines they share a
// line (VS Code joins the lenses of one line with " | "), each still a lens.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

#include <map>

namespace ph::lsp {

namespace {

void lensesOf(const Snapshot &s, const FeatureOptions &o, const EmitEntry &emit) {
  if (!s.analysis) return;
  // The main file's kernel declarations by name, once (a scan per kernel was quadratic).
  std::map<std::string_view, const ast::Decl *> decls;
  for (const auto &m : s.analysis->modules)
    if (m && m->file == s.analysis->mainFile)
      for (const auto &d : m->decls)
        if (d && d->isKernel && !d->decorators.empty()) decls[d->name.name] = d.get();
  for (const KernelSummary &k : s.analysis->kernels) {
    checkpoint(6);
    json nameRange = toJson(s.lines.range(k.nameRange.begin, k.nameRange.end));
    Position top = s.lines.position(std::min(k.declRange.begin, k.nameRange.begin));
    // The last decorator's line, when it is not the first's.
    json infoRange = nameRange;
    if (auto d = decls.find(k.name); d != decls.end() && k.nameRange.file == s.analysis->mainFile) {
      Position last = s.lines.position(d->second->decorators.back().range.begin);
      if (last.line != top.line) infoRange = toJson(Range{last, last});
    }
    json args = json::array({{{"uri", s.uri}, {"kernel", k.name}}});
    auto lens = [&](const json &range, const std::string &title, const char *command, json arguments) {
      json c = {{"title", title}, {"command", command}};
      if (!arguments.is_null()) c["arguments"] = std::move(arguments);
      emit({{"range", range}, {"command", std::move(c)}});
    };
    // One column more per action: Neovim orders a line's lenses by their start column with
    // an unstable sort, and showed "Run | Compile | Benchmark" when all four started at 0.
    auto at = [&](uint32_t i) {
      Position p{top.line, top.character + i};
      return toJson(Range{p, p});
    };
    lens(at(0), "▶ Run on " + o.runTarget, "ph.run", args);
    json benchArgs = args;
    benchArgs[0]["bench"] = true;
    lens(at(1), "Benchmark", "ph.run", benchArgs);
    lens(at(2), "Compile", "ph.compile", args);
    json irArgs = args;
    irArgs[0]["stage"] = "tile";
    lens(at(3), "Show MLIR", "ph.showIR", irArgs);
    // Information lenses: the empty command makes clients show them as text.
    std::string info = "grid " + k.grid + " · " + threadsText(k, false) + " threads";
    if (k.configs.size() > 1) info += " · " + std::to_string(k.configs.size()) + " configs";
    lens(infoRange, info, "", nullptr);
    if (auto it = o.compileFigures.find(k.name); it != o.compileFigures.end() && !it->second.empty())
      lens(nameRange, it->second, "", nullptr);
  }
}

} // namespace

JsonText codeLensText(const Snapshot &s, const json &, const FeatureOptions &o) {
  JsonArrayWriter out;
  auto sink = [&](json l) { out.add(l); };
  // Item by item (issue 21); the options that shape a lens are part of the cache's key.
  std::string variant = o.runTarget;
  for (const auto &[k, v] : o.compileFigures) variant += "\n" + k + "\t" + v;
  if (!eachItemEntry(
          s, "codeLens", variant, [&](const Snapshot &item, const EmitEntry &emit) { lensesOf(item, o, emit); },
          [](const json &l) { return l["range"]["start"]["line"].get<int64_t>(); },
          [](json &l, int64_t lines) { shiftRange(l["range"], lines); }, sink))
    lensesOf(s, o, sink);
  return out.finish();
}

json codeLens(const Snapshot &s, const json &params, const FeatureOptions &o) {
  return json::parse(codeLensText(s, params, o).text);
}

} // namespace ph::lsp
