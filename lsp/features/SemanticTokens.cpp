//===- SemanticTokens.cpp - textDocument/semanticTokens/full --------------===//
//
// Classifies the lexer's tokens with the analysis's occurrences: what a name
// refers to (kernel, std function, builtin, parameter, let or var, size)
// is what a TextMate grammar cannot know.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

#include <algorithm>

namespace ph::lsp {

namespace {
enum TokType { TKeyword, TFunction, TParameter, TVariable, TNumber, TComment, TDecorator, TType, TTypeParameter, TProperty, TOperator };
enum TokMod { MDeclaration = 1, MReadonly = 2, MDefaultLibrary = 4 };
} // namespace

json semanticTokensLegend() {
  return {{"tokenTypes", {"keyword", "function", "parameter", "variable", "number", "comment", "decorator", "type",
                          "typeParameter", "property", "operator"}},
          {"tokenModifiers", {"declaration", "readonly", "defaultLibrary"}}};
}

namespace {

/// The classified tokens of the snapshot's analysis, each [line, character, length,
/// type, modifiers] in document lines, in order.
json classify(const Snapshot &s) {
  json out = json::array();
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  bool afterAt = false, afterDot = false;
  // The main file's occurrences, walked with the tokens (both in file order): asking
  // occurrenceAt per token was a scan per token, minutes on a 56,000-line file.
  auto occ = std::lower_bound(a.occurrences.begin(), a.occurrences.end(), a.mainFile,
                              [](const Occurrence &o, FileId f) { return o.range.file < f; });
  auto occEnd = std::upper_bound(occ, a.occurrences.end(), a.mainFile,
                                 [](FileId f, const Occurrence &o) { return f < o.range.file; });
  auto occurrenceAt = [&](uint32_t offset) -> const Occurrence * {
    // The innermost occurrence touching `offset` (Analysis::occurrenceAt's rule); names
    // do not nest, so those are the few that begin at or just before it.
    while (occ != occEnd && occ->range.end < offset) ++occ;
    const Occurrence *best = nullptr;
    for (auto o = occ; o != occEnd && o->range.begin <= offset; ++o)
      if (o->range.touches(offset) && (!best || o->range.end - o->range.begin < best->range.end - best->range.begin))
        best = &*o;
    return best;
  };
  for (const Token &t : a.tokens) {
    checkpoint(1); // a token may add 5 numbers
    if (t.range.file != a.mainFile || t.range.end <= t.range.begin) continue;
    int type = -1, mods = 0;
    switch (t.kind) {
    case Tok::KwKernel: case Tok::KwFn: case Tok::KwLet: case Tok::KwVar: case Tok::KwFor: case Tok::KwIn: case Tok::KwIf: case Tok::KwElse:
      type = TKeyword;
      break;
    case Tok::KwTensor: case Tok::KwTile: type = TType; break;
    case Tok::IntLit: case Tok::FloatLit: type = TNumber; break;
    case Tok::DocComment: type = TComment; break;
    case Tok::At: type = TDecorator; break;
    case Tok::Ident: {
      if (afterAt) { type = TDecorator; break; }
      if (t.text == "f16" || t.text == "bf16" || t.text == "f32" || t.text == "i32") { type = TType; break; }
      if (afterDot) { type = TProperty; break; }
      if (t.text == "ctx") { type = TVariable; mods = MDefaultLibrary | MReadonly; break; }
      const Occurrence *occ = occurrenceAt(t.range.begin);
      if (!occ || occ->range.begin != t.range.begin || occ->symbol >= a.symbols.size()) {
        if (findBuiltinDoc(t.text)) { type = TFunction; mods = MDefaultLibrary; }
        else type = TVariable;
        break;
      }
      const Symbol &sym = a.symbols[occ->symbol];
      if (occ->isDefinition) mods |= MDeclaration;
      switch (sym.kind) {
      case SymbolKind::Kernel: type = TFunction; break;
      case SymbolKind::Function: type = TFunction; if (sym.def.file != a.mainFile) mods |= MDefaultLibrary; break;
      case SymbolKind::Builtin: type = TFunction; mods |= MDefaultLibrary; break;
      case SymbolKind::Decorator: type = TDecorator; break;
      case SymbolKind::Parameter: type = TParameter; break;
      case SymbolKind::Local: type = TVariable; if (sym.isLet) mods |= MReadonly; break;
      case SymbolKind::LoopVar: type = TVariable; mods |= MReadonly; break;
      case SymbolKind::SizeSymbol: type = TTypeParameter; break;
      case SymbolKind::AutotuneParam: type = TTypeParameter; mods |= MReadonly; break;
      }
      break;
    }
    default: break;
    }
    afterAt = t.kind == Tok::At;
    afterDot = t.kind == Tok::Dot;
    if (type < 0) continue;
    Position p = s.lines.position(t.range.begin);
    Position e = s.lines.position(t.range.end);
    if (e.line != p.line) continue; // tokens never span lines; be safe
    out.push_back({p.line, p.character, e.character - p.character, type, mods});
  }
  return out;
}

/// LSP's relative encoding: each token's line from the previous one's, its character
/// from the previous one's on the same line.
struct Encoder {
  std::vector<uint32_t> data;
  uint32_t prevLine = 0, prevChar = 0;
  void add(uint32_t line, uint32_t ch, uint32_t len, uint32_t type, uint32_t mods) {
    data.insert(data.end(), {line - prevLine, line == prevLine ? ch - prevChar : ch, len, type, mods});
    prevLine = line;
    prevChar = ch;
  }
};

} // namespace

json semanticTokens(const Snapshot &s, const json &) {
  Encoder enc;
  // Item by item (issue 21): after an edit only the items it reached are classified again.
  auto items = perItemEntries(
      s, "semanticTokens", "", classify, [](const json &t) { return t[0].get<int64_t>(); },
      [](json &t, int64_t lines) { t[0] = t[0].get<int64_t>() + lines; });
  if (items) {
    for (const ItemEntries &it : *items)
      for (const json &t : *it.entries) {
        checkpoint(1);
        enc.add(static_cast<uint32_t>(t[0].get<int64_t>() + it.line), t[1], t[2], t[3], t[4]);
      }
    return {{"data", enc.data}};
  }
  for (const json &t : classify(s)) enc.add(t[0], t[1], t[2], t[3], t[4]);
  return {{"data", enc.data}};
}

} // namespace ph::lsp
