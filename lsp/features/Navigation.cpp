//===- Navigation.cpp - definition, references, highlights, rename --------===//
//
// All four read the analysis's occurrence table: every use and definition of
// every symbol, in the document and in the std files it reaches.
//
//===----------------------------------------------------------------------===//
#include "Features.h"
#include "JsonRpc.h"

#include "ph/Analysis.h"

#include <cctype>

namespace ph::lsp {

namespace {

const Occurrence *symbolAt(const Snapshot &s, const json &params) {
  if (!s.analysis) return nullptr;
  const Analysis &a = *s.analysis;
  const Occurrence *occ = a.occurrenceAt(a.mainFile, offsetOf(s, params));
  return occ && occ->symbol < a.symbols.size() ? occ : nullptr;
}

bool hasDefinition(const Symbol &sym) { return sym.def.end > sym.def.begin; }

bool isKeyword(std::string_view n) {
  for (const char *k : {"kernel", "fn", "let", "var", "for", "in", "if", "else", "tensor", "tile", "ctx"})
    if (n == k) return true;
  Elem e;
  return parseElem(n, e);
}

bool isIdentifier(std::string_view n) {
  if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_')) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

/// The item under the cursor's slice (issue 21): where a symbol defined in it is used.
Snapshot itemAt(const Snapshot &s, const json &params) {
  uint32_t at = offsetOf(s, params);
  return sliceOf(s, at, at);
}

/// Symbols whose every occurrence is inside the item that defines them: locals,
/// parameters, loop variables, sizes and autotune parameters of the document.
bool itemLocal(const Analysis &a, const Symbol &sym) {
  switch (sym.kind) {
  case SymbolKind::Kernel:
  case SymbolKind::Function:
  case SymbolKind::Builtin:
  case SymbolKind::Decorator: return false;
  default: return sym.def.file == a.mainFile;
  }
}

/// The item's slice when the symbol under the cursor is local to it, else the snapshot.
Snapshot forSymbolAt(const Snapshot &s, const json &params) {
  if (!s.items || !s.items->slice || !s.analysis || s.analysis.built()) return s;
  Snapshot item = itemAt(s, params);
  const Occurrence *occ = symbolAt(item, params);
  if (occ && itemLocal(*item.analysis, item.analysis->symbols[occ->symbol])) return item;
  return s;
}

} // namespace

json definition(const Snapshot &whole, const json &params) {
  const Snapshot s = itemAt(whole, params);
  const Occurrence *occ = symbolAt(s, params);
  if (!occ) return nullptr;
  const Symbol &sym = s.analysis->symbols[occ->symbol];
  if (!hasDefinition(sym)) return nullptr;
  return json::array({location(s, sym.def)});
}

json references(const Snapshot &whole, const json &params) {
  const Snapshot s = forSymbolAt(whole, params);
  const Occurrence *occ = symbolAt(s, params);
  if (!occ) return nullptr;
  bool withDecl = params.value("context", json::object()).value("includeDeclaration", true);
  json out = json::array();
  for (const Occurrence &o : s.analysis->occurrences) {
    checkpoint();
    if (o.symbol == occ->symbol && (withDecl || !o.isDefinition)) {
      checkpoint(1);
      out.push_back(location(s, o.range));
    }
  }
  return out;
}

json documentHighlight(const Snapshot &whole, const json &params) {
  const Snapshot s = forSymbolAt(whole, params);
  const Occurrence *occ = symbolAt(s, params);
  if (!occ) return nullptr;
  const Analysis &a = *s.analysis;
  json out = json::array();
  for (const Occurrence &o : a.occurrences) {
    checkpoint();
    if (o.symbol != occ->symbol || o.range.file != a.mainFile) continue;
    checkpoint(1);
    // DocumentHighlightKind: Text 1, Read 2, Write 3.
    out.push_back({{"range", toJson(s.lines.range(o.range.begin, o.range.end))}, {"kind", o.isWrite || o.isDefinition ? 3 : 2}});
  }
  return out;
}

/// The symbol under the cursor if it may be renamed: a local, loop variable or
/// parameter defined in this document (std code is not the user's to rename).
static const Occurrence *renameable(const Snapshot &s, const json &params, std::string *why) {
  const Occurrence *occ = symbolAt(s, params);
  if (!occ) {
    *why = "there is no symbol here to rename";
    return nullptr;
  }
  const Symbol &sym = s.analysis->symbols[occ->symbol];
  bool local = sym.kind == SymbolKind::Local || sym.kind == SymbolKind::LoopVar || sym.kind == SymbolKind::Parameter;
  if (!local) {
    *why = "only local variables and parameters can be renamed; `" + sym.name + "` is not one";
    return nullptr;
  }
  if (sym.def.file != s.analysis->mainFile) {
    *why = "`" + sym.name + "` is defined in another file";
    return nullptr;
  }
  return occ;
}

json prepareRename(const Snapshot &s, const json &params) {
  std::string why;
  const Occurrence *occ = renameable(s, params, &why);
  if (!occ) return nullptr;
  return {{"range", toJson(s.lines.range(occ->range.begin, occ->range.end))},
          {"placeholder", s.analysis->symbols[occ->symbol].name}};
}

json rename(const Snapshot &s, const json &params) {
  std::string why;
  const Occurrence *occ = renameable(s, params, &why);
  if (!occ) throw RpcError{ErrorCode::RequestFailed, why, nullptr};
  std::string newName = params.at("newName").get<std::string>();
  if (!isIdentifier(newName) || isKeyword(newName) || findBuiltinDoc(newName))
    throw RpcError{ErrorCode::InvalidParams, "`" + newName + "` is not a valid name for a variable", nullptr};
  const Analysis &a = *s.analysis;
  json edits = json::array();
  for (const Occurrence &o : a.occurrences)
    if (checkpoint(), o.symbol == occ->symbol && o.range.file == a.mainFile)
      edits.push_back({{"range", toJson(s.lines.range(o.range.begin, o.range.end))}, {"newText", newName}});
  return {{"changes", {{s.uri, edits}}}};
}

} // namespace ph::lsp
