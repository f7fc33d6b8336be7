//===- Completion.cpp - textDocument/completion ---------------------------===//
//
// The context comes from the text before the cursor (the analysis may lag a
// keystroke behind and the line being typed rarely parses): after `@` the
// decorators, after `ctx.` `block`, after `ctx.block.` the axes; otherwise the
// names visible at the cursor (locals in scope, parameters, sizes and autotune
// constants of the enclosing kernel), builtins, std and file functions (with
// argument snippets), keywords and element types.
//
//===----------------------------------------------------------------------===//
#include "Features.h"
#include "Signatures.h"

#include "ph/Analysis.h"

#include <cctype>
#include <set>

namespace ph::lsp {

namespace {

// CompletionItemKind values.
enum { KText = 1, KFunction = 3, KField = 5, KVariable = 6, KModule = 9, KProperty = 10, KKeyword = 14,
       KSnippet = 15, KConstant = 21, KStruct = 22, KTypeParameter = 25 };

bool identChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

struct Collector {
  json items = json::array();
  std::set<std::string> seen;
  std::string prefix;

  bool matches(const std::string &label) const {
    if (prefix.empty()) return true;
    // Case-insensitive prefix; the client does its own fuzzy filtering.
    if (label.size() < prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
      if (std::tolower(static_cast<unsigned char>(label[i])) != std::tolower(static_cast<unsigned char>(prefix[i])))
        return false;
    return true;
  }
  json *add(const std::string &label, int kind, const std::string &detail, const std::string &sortPrefix) {
    if (!matches(label) || !seen.insert(label).second) return nullptr;
    json item = {{"label", label}, {"kind", kind}, {"sortText", sortPrefix + label}};
    if (!detail.empty()) item["detail"] = detail;
    items.push_back(std::move(item));
    return &items.back();
  }
};

std::string snippetFor(const std::string &name, const std::vector<std::string> &params) {
  std::string out = name + "(";
  for (size_t i = 0; i < params.size(); ++i) {
    std::string p = params[i];
    if (auto colon = p.find(':'); colon != std::string::npos) p = p.substr(0, colon);
    while (!p.empty() && p.back() == ' ') p.pop_back();
    for (char &c : p)
      if (c == '}' || c == '$' || c == '\\') c = '_';
    out += (i ? ", " : "") + std::string("${") + std::to_string(i + 1) + ":" + p + "}";
  }
  return out + ")$0";
}

void addCall(Collector &c, const std::string &name, const std::string &signature, const std::string &doc, int kind,
             const std::string &sort, const FeatureOptions &o) {
  json *item = c.add(name, kind, signature, sort);
  if (!item) return;
  if (!doc.empty()) (*item)["documentation"] = {{"kind", o.markdown ? "markdown" : "plaintext"}, {"value", doc}};
  if (o.snippets) {
    (*item)["insertText"] = snippetFor(name, signatureParams(signature));
    (*item)["insertTextFormat"] = 2;
  }
}

/// Whether `at` is an argument of `@autotune(...)` (not inside one of its lists).
bool inAutotuneParens(std::string_view text, size_t at) {
  int depth = 0;
  size_t limit = at > 2000 ? at - 2000 : 0;
  for (size_t i = at; i-- > limit;) {
    char c = text[i];
    if (c == ')' || c == ']') ++depth;
    else if (c == '[') {
      if (depth-- == 0) return false;
    } else if (c == '(') {
      if (depth-- > 0) continue;
      size_t end = i;
      while (end > 0 && text[end - 1] == ' ') --end;
      return end >= 9 && text.substr(end - 9, 9) == "@autotune";
    } else if (c == '{' || c == '}') {
      return false;
    }
  }
  return false;
}

} // namespace

json completion(const Snapshot &s, const json &params, const FeatureOptions &o) {
  std::string_view text = *s.text;
  uint32_t off = offsetOf(s, params);
  size_t b = off;
  while (b > 0 && identChar(text[b - 1])) --b;
  Collector c;
  c.prefix = std::string(text.substr(b, off - b));
  char before = b > 0 ? text[b - 1] : '\0';

  auto result = [&] { return json{{"isIncomplete", false}, {"items", c.items}}; };

  if (before == '@') {
    for (const BuiltinDoc &d : allBuiltinDocs())
      if (d.isDecorator) {
        json *item = c.add(d.name, KProperty, d.signature, "0");
        if (item) (*item)["documentation"] = {{"kind", "markdown"}, {"value", d.doc}};
      }
    return result();
  }
  if (before == '.') {
    size_t e = b - 1, q = e;
    while (q > 0 && (identChar(text[q - 1]) || text[q - 1] == '.')) --q;
    std::string_view base = text.substr(q, e - q);
    if (base == "ctx") {
      if (json *i = c.add("block", KField, "the CTA's index in the grid", "0"))
        (*i)["documentation"] = {{"kind", "markdown"}, {"value", "`ctx.block.x`, `.y`, `.z`: this CTA's index along each grid axis."}};
    } else if (base == "ctx.block") {
      c.add("x", KField, "i32: the CTA's index along grid axis x", "0");
      c.add("y", KField, "i32: the CTA's index along grid axis y", "0");
      c.add("z", KField, "i32: the CTA's index along grid axis z", "0");
    }
    return result();
  }

  if (s.analysis) {
    const Analysis &a = *s.analysis;
    // The declaration around the cursor, for its parameters and sizes.
    uint32_t container = UINT32_MAX;
    for (uint32_t i = 0; i < a.symbols.size(); ++i) {
      checkpoint();
      const Symbol &sym = a.symbols[i];
      if ((sym.kind == SymbolKind::Kernel || sym.kind == SymbolKind::Function) && sym.def.file == a.mainFile &&
          sym.declRange.touches(off))
        container = i;
    }
    for (const Symbol &sym : a.symbols) {
      checkpoint(1);
      bool inMain = sym.def.file == a.mainFile;
      switch (sym.kind) {
      case SymbolKind::Local:
      case SymbolKind::LoopVar:
        if (inMain && sym.scope.file == a.mainFile && sym.scope.touches(off) && sym.def.begin < off)
          c.add(sym.name, KVariable, sym.typeSymbolic, "0");
        break;
      case SymbolKind::Parameter:
        if (inMain && sym.container == container && container != UINT32_MAX) c.add(sym.name, KVariable, sym.typeSymbolic, "0");
        break;
      case SymbolKind::SizeSymbol:
      case SymbolKind::AutotuneParam:
        if (sym.container == container && container != UINT32_MAX)
          c.add(sym.name, sym.kind == SymbolKind::SizeSymbol ? KTypeParameter : KConstant,
                sym.kind == SymbolKind::SizeSymbol ? "size" : "autotune constant", "1");
        break;
      case SymbolKind::Function:
        addCall(c, sym.name, sym.signature, sym.doc, KFunction, "2", o);
        break;
      default: break;
      }
    }
  }
  if (inAutotuneParens(text, b)) {
    // `@autotune(D in [64, 128], where ...)`: the condition keyword first.
    if (json *item = c.add("where", KKeyword, "where CONDITION: keep the configurations where it holds", "0"))
      (*item)["documentation"] = {{"kind", "markdown"},
                                  {"value", "`@autotune(D in [64, 128], BC in [32, 64], where D * BC == 4096)` keeps "
                                            "only the configurations where the condition holds."}};
  }
  for (const BuiltinDoc &d : allBuiltinDocs())
    if (!d.isDecorator) addCall(c, d.name, d.signature, d.doc, KFunction, "3", o);
  c.add("ctx", KModule, "the launch context: `ctx.block.x`, `.y`, `.z`", "4");
  for (const char *kw : {"let", "var", "for", "in", "if", "else", "kernel", "fn", "tile", "tensor", "range"})
    c.add(kw, KKeyword, "", "5");
  for (Elem e : namedElems())
    if (json *item = c.add(elemName(e), KStruct, isFp8(e) ? "element type (tensors only)" : "element type", "5"))
      (*item)["documentation"] = {{"kind", "markdown"}, {"value", elemDoc(e)}};
  return result();
}

} // namespace ph::lsp
