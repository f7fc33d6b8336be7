//===- SignatureHelp.cpp - textDocument/signatureHelp ---------------------===//
#include "Features.h"
#include "Signatures.h"

#include "ph/Analysis.h"

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
  if (signature.empty()) {
    const BuiltinDoc *bd = findBuiltinDoc(callee);
    if (!bd || bd->isDecorator) return nullptr;
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
  return {{"signatures", json::array({sig})}, {"activeSignature", 0}, {"activeParameter", active}};
}

} // namespace ph::lsp
