//===- SignatureHelp.cpp - textDocument/signatureHelp ---------------------===//
#include "Features.h"
#include "Signatures.h"

#include "ph/Analysis.h"

#include <cctype>

namespace ph::lsp {

json signatureHelp(const Snapshot &s, const json &params) {
  std::string callee;
  unsigned arg = 0;
  if (!callAt(*s.text, offsetOf(s, params), callee, arg)) return nullptr;
  std::string signature, doc;
  if (s.analysis) {
    for (const Symbol &sym : s.analysis->symbols)
      if (sym.kind == SymbolKind::Function && sym.name == callee) {
        signature = sym.signature;
        doc = sym.doc;
        break;
      }
  }
  bool decorator = false;
  if (signature.empty()) {
    const BuiltinDoc *bd = findBuiltinDoc(callee);
    if (!bd) return nullptr;
    if (bd->isDecorator) {
      // `@autotune(` and `@launch(`: only right after the `@name`.
      std::string_view text = *s.text;
      size_t open = text.rfind(callee + "(", offsetOf(s, params));
      if (open == std::string_view::npos || open == 0 || text[open - 1] != '@') return nullptr;
      decorator = true;
    }
    signature = bd->signature;
    doc = bd->doc;
  }
  std::vector<std::string> ps = signatureParams(signature);
  json parameters = json::array();
  // Labels as [start, end) offsets into the signature, so the client can bold
  // the active one even when two parameters share a spelling.
  size_t from = signature.find('(');
  for (const std::string &p : ps) {
    size_t at = signature.find(p, from == std::string::npos ? 0 : from);
    if (at == std::string::npos) {
      parameters.push_back({{"label", p}});
      continue;
    }
    parameters.push_back({{"label", json::array({utf16Length(std::string_view(signature).substr(0, at)),
                                                 utf16Length(std::string_view(signature).substr(0, at + p.size()))})}});
    from = at + p.size();
  }
  json sig = {{"label", signature}, {"parameters", parameters}};
  if (!doc.empty()) sig["documentation"] = {{"kind", "markdown"}, {"value", doc}};
  unsigned active = ps.empty() ? 0 : std::min<unsigned>(arg, static_cast<unsigned>(ps.size()) - 1);
  if (decorator && callee == "autotune") {
    // `P in [v, ...]` for a list, `where CONDITION` for a condition, whichever argument it is.
    std::string_view text = std::string_view(*s.text).substr(0, offsetOf(s, params));
    size_t b = text.size();
    for (int depth = 0; b > 0; --b) {
      char c = text[b - 1];
      if (c == ']' || c == ')') ++depth;
      else if ((c == '[' || c == '(') && depth-- == 0) break;
      else if (c == ',' && depth == 0) break;
    }
    std::string_view cur = std::string_view(*s.text).substr(b); // the argument, past the cursor too
    while (!cur.empty() && std::isspace(static_cast<unsigned char>(cur.front()))) cur.remove_prefix(1);
    bool where = cur.substr(0, 5) == "where" && (cur.size() == 5 || !std::isalnum(static_cast<unsigned char>(cur[5])));
    active = where ? static_cast<unsigned>(ps.size()) - 1 : 0;
  }
  return {{"signatures", json::array({sig})}, {"activeSignature", 0}, {"activeParameter", active}};
}

} // namespace ph::lsp
