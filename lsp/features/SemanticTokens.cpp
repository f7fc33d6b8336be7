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
#include <charconv>

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

/// The classified tokens of the snapshot's analysis, each (line, character, length,
/// type, modifiers) in document lines, in order.
using EmitToken = std::function<void(uint32_t line, uint32_t ch, uint32_t len, uint32_t type, uint32_t mods)>;
void classify(const Snapshot &s, const EmitToken &emit) {
  if (!s.analysis) return;
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
    checkpoint(); // Encoder::add counts the tokens it writes
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
      if (Elem el; parseElem(t.text, el)) { type = TType; break; }
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
    emit(p.line, p.character, e.character - p.character, type, mods);
  }
}

/// LSP's relative encoding, written as the answer's text: each token's line from the
/// previous one's, its character from the previous one's on the same line.
class Encoder {
public:
  Encoder() { text_ = "{\"data\":["; }
  void add(uint32_t line, uint32_t ch, uint32_t len, uint32_t type, uint32_t mods) {
    checkpoint(1);
    for (uint32_t v : {line - prevLine_, line == prevLine_ ? ch - prevChar_ : ch, len, type, mods}) {
      if (any_) text_.push_back(',');
      any_ = true;
      char buf[16];
      auto r = std::to_chars(buf, buf + sizeof buf, v);
      text_.append(buf, r.ptr);
    }
    prevLine_ = line;
    prevChar_ = ch;
  }
  JsonText finish() {
    text_ += "]}";
    return {std::move(text_)};
  }

private:
  std::string text_;
  uint32_t prevLine_ = 0, prevChar_ = 0;
  bool any_ = false;
};

} // namespace

JsonText semanticTokensText(const Snapshot &s, const json &) {
  Encoder enc;
  // Item by item (issue 21), each on its slice; else the whole analysis, built already.
  bool items = eachItemEntry(
      s, "semanticTokens", "",
      [](const Snapshot &item, const EmitEntry &emit) {
        classify(item, [&](uint32_t line, uint32_t ch, uint32_t len, uint32_t type, uint32_t mods) {
          emit(json::array({line, ch, len, type, mods}));
        });
      },
      [](const json &t) { return t[0].get<int64_t>(); },
      [](json &t, int64_t lines) { t[0] = t[0].get<int64_t>() + lines; },
      [&](json t) { enc.add(t[0], t[1], t[2], t[3], t[4]); });
  if (!items)
    classify(s, [&](uint32_t line, uint32_t ch, uint32_t len, uint32_t type, uint32_t mods) { enc.add(line, ch, len, type, mods); });
  return enc.finish();
}

json semanticTokens(const Snapshot &s, const json &params) { return json::parse(semanticTokensText(s, params).text); }

} // namespace ph::lsp
