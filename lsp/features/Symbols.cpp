//===- Symbols.cpp - textDocument/documentSymbol --------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

// LSP SymbolKind values.
static int lspKind(SymbolKind k) {
  switch (k) {
  case SymbolKind::Kernel:
  case SymbolKind::Function: return 12;      // Function
  case SymbolKind::Parameter: return 13;     // Variable
  case SymbolKind::Local: return 13;         // Variable
  case SymbolKind::LoopVar: return 13;
  case SymbolKind::SizeSymbol: return 26;    // TypeParameter
  case SymbolKind::AutotuneParam: return 14; // Constant
  default: return 13;
  }
}

namespace {

void symbolsOf(const Snapshot &s, const EmitEntry &emit) {
  if (!s.analysis) return;
  const Analysis &a = *s.analysis;
  auto rangeOf = [&](SourceRange r) { return toJson(s.lines.range(r.begin, r.end)); };
  // Children by container in one pass (a scan per declaration was quadratic: 4,000
  // kernels of a giant file times their 130,000 symbols).
  std::vector<std::vector<uint32_t>> childrenOf(a.symbols.size());
  for (uint32_t i = 0; i < a.symbols.size(); ++i) {
    checkpoint();
    const Symbol &c = a.symbols[i];
    if (c.container < a.symbols.size() && c.def.file == a.mainFile && c.def.end > c.def.begin)
      childrenOf[c.container].push_back(i);
  }
  for (uint32_t i = 0; i < a.symbols.size(); ++i) {
    checkpoint();
    const Symbol &sym = a.symbols[i];
    if ((sym.kind != SymbolKind::Kernel && sym.kind != SymbolKind::Function) || sym.def.file != a.mainFile) continue;
    if (sym.def.end <= sym.def.begin) continue;
    SourceRange whole = sym.declRange.end > sym.declRange.begin ? sym.declRange : sym.def;
    json children = json::array();
    for (uint32_t ci : childrenOf[i]) {
      const Symbol &c = a.symbols[ci];
      checkpoint(1);
      json child = {{"name", c.name}, {"kind", lspKind(c.kind)}, {"range", rangeOf(c.def)}, {"selectionRange", rangeOf(c.def)}};
      if (!c.typeSymbolic.empty()) child["detail"] = c.typeSymbolic;
      children.push_back(std::move(child));
    }
    json item = {{"name", sym.name},
                 {"kind", lspKind(sym.kind)},
                 {"detail", sym.kind == SymbolKind::Kernel ? "kernel" : "fn"},
                 {"range", rangeOf(whole)},
                 {"selectionRange", rangeOf(sym.def)},
                 {"children", std::move(children)}};
    emit(std::move(item));
  }
}

void shiftSymbol(json &sym, int64_t lines) {
  shiftRange(sym["range"], lines);
  shiftRange(sym["selectionRange"], lines);
  if (sym.contains("children"))
    for (json &c : sym["children"]) shiftSymbol(c, lines);
}

} // namespace

JsonText documentSymbolText(const Snapshot &s, const json &) {
  JsonArrayWriter out;
  auto sink = [&](json sym) {
    checkpoint(1);
    out.add(sym);
  };
  // Item by item (issue 21); an item's kernel or fn is listed under its name's line.
  if (!eachItemEntry(
          s, "documentSymbol", "", symbolsOf,
          [](const json &sym) { return sym["selectionRange"]["start"]["line"].get<int64_t>(); }, shiftSymbol, sink))
    symbolsOf(s, sink);
  return out.finish();
}

json documentSymbol(const Snapshot &s, const json &params) { return json::parse(documentSymbolText(s, params).text); }

} // namespace ph::lsp
