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

json documentSymbol(const Snapshot &s, const json &) {
  json out = json::array();
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  auto rangeOf = [&](SourceRange r) { return toJson(s.lines.range(r.begin, r.end)); };
  for (uint32_t i = 0; i < a.symbols.size(); ++i) {
    const Symbol &sym = a.symbols[i];
    if ((sym.kind != SymbolKind::Kernel && sym.kind != SymbolKind::Function) || sym.def.file != a.mainFile) continue;
    if (sym.def.end <= sym.def.begin) continue;
    SourceRange whole = sym.declRange.end > sym.declRange.begin ? sym.declRange : sym.def;
    json children = json::array();
    for (const Symbol &c : a.symbols) {
      if (c.container != i || c.def.file != a.mainFile || c.def.end <= c.def.begin) continue;
      json child = {{"name", c.name}, {"kind", lspKind(c.kind)}, {"range", rangeOf(c.def)}, {"selectionRange", rangeOf(c.def)}};
      if (!c.typeSymbolic.empty()) child["detail"] = c.typeSymbolic;
      children.push_back(std::move(child));
    }
    json item = {{"name", sym.name},
                 {"kind", lspKind(sym.kind)},
                 {"detail", sym.kind == SymbolKind::Kernel ? "kernel" : "fn"},
                 {"range", rangeOf(whole)},
                 {"selectionRange", rangeOf(sym.def)},
                 {"children", children}};
    out.push_back(std::move(item));
  }
  return out;
}

} // namespace ph::lsp
