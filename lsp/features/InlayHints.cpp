//===- InlayHints.cpp - textDocument/inlayHint ----------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

json inlayHint(const Snapshot &s, const json &params) {
  json out = json::array();
  if (!s.analysis) return out;
  uint32_t from = 0, to = UINT32_MAX;
  if (params.contains("range")) {
    Range r = rangeFromJson(params["range"]);
    from = s.lines.offset(r.start);
    to = s.lines.offset(r.end);
  }
  // The items in the range only, unless the whole analysis is built already (issue 21:
  // an editor asks for the visible lines' hints after every edit).
  std::vector<TypeHint> fromItems;
  bool perItem = s.items && s.items->typeHints && !s.analysis.built();
  if (perItem) fromItems = s.items->typeHints(from, to);
  const std::vector<TypeHint> &hints = perItem ? fromItems : s.analysis->typeHints;
  for (const TypeHint &h : hints) {
    checkpoint(1);
    if ((!perItem && h.nameRange.file != s.analysis->mainFile) || h.nameRange.end < from || h.nameRange.begin > to)
      continue;
    // InlayHintKind.Type = 1; the label already starts with `: `.
    out.push_back({{"position", toJson(s.lines.position(h.nameRange.end))}, {"label", h.label}, {"kind", 1}});
  }
  return out;
}

} // namespace ph::lsp
