//===- InlayHints.cpp - textDocument/inlayHint ----------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

json inlayHint(const Snapshot &s, const json &params) {
  json out = json::array();
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  uint32_t from = 0, to = UINT32_MAX;
  if (params.contains("range")) {
    Range r = rangeFromJson(params["range"]);
    from = s.lines.offset(r.start);
    to = s.lines.offset(r.end);
  }
  for (const TypeHint &h : a.typeHints) {
    checkpoint(1);
    if (h.nameRange.file != a.mainFile || h.nameRange.end < from || h.nameRange.begin > to) continue;
    // InlayHintKind.Type = 1; the label already starts with `: `.
    out.push_back({{"position", toJson(s.lines.position(h.nameRange.end))}, {"label", h.label}, {"kind", 1}});
  }
  return out;
}

} // namespace ph::lsp
