//===- CodeActions.cpp - textDocument/codeAction: quick fixes -------------===//
//
// A quick fix for every fix the frontend attached to a diagnostic in the
// requested range (`dot_t` for `dot` against a [BC, D] key tile, a misspelt
// builtin, a missing `tile<f32>` declaration). The edits are the frontend's.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

json codeAction(const Snapshot &s, const json &params, const FeatureOptions &o) {
  json out = json::array();
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  Range r = rangeFromJson(params.at("range"));
  uint32_t from = s.lines.offset(r.start), to = s.lines.offset(r.end);
  json only = params.value("context", json::object()).value("only", json());
  if (only.is_array()) {
    bool wantsQuickfix = false;
    for (const json &k : only)
      if (k.is_string() && (k == "quickfix" || std::string_view(k.get_ref<const std::string &>()).substr(0, 8) == "quickfix"))
        wantsQuickfix = true;
    if (!wantsQuickfix) return out;
  }
  for (const Diagnostic &d : a.diagnostics) {
    if (d.fixes.empty() || d.range.file != a.mainFile) continue;
    if (d.range.end < from || d.range.begin > to) continue;
    json diag = toLsp(s, d, o);
    for (const DiagFix &fix : d.fixes) {
      json edits = json::array();
      for (const TextEdit &e : fix.edits) {
        if (e.range.file != a.mainFile) continue;
        edits.push_back({{"range", toJson(s.lines.range(e.range.begin, e.range.end))}, {"newText", e.text}});
      }
      if (edits.empty()) continue;
      out.push_back({{"title", fix.title},
                     {"kind", "quickfix"},
                     {"diagnostics", json::array({diag})},
                     {"isPreferred", d.fixes.size() == 1},
                     {"edit", {{"changes", {{s.uri, edits}}}}}});
    }
  }
  return out;
}

} // namespace ph::lsp
