//===- Folding.cpp - textDocument/foldingRange ----------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

namespace {

void addBlock(const Snapshot &s, json &out, SourceRange r, const char *kind = nullptr) {
  if (r.end <= r.begin) return;
  Position b = s.lines.position(r.begin), e = s.lines.position(r.end > 0 ? r.end - 1 : 0);
  // Keep the closing brace's line visible, as editors do for C-like code.
  uint32_t endLine = kind ? e.line : (e.line > 0 ? e.line - 1 : 0);
  if (endLine <= b.line) return;
  json f = {{"startLine", b.line}, {"endLine", endLine}};
  if (kind) f["kind"] = kind;
  out.push_back(std::move(f));
}

void walk(const Snapshot &s, json &out, const std::vector<ast::StmtPtr> &body) {
  for (const auto &st : body) {
    checkpoint(1);
    if (!st) continue;
    if (st->kind == ast::StmtKind::For || st->kind == ast::StmtKind::Block) {
      addBlock(s, out, st->bodyRange);
      walk(s, out, st->body);
    }
    if (st->kind == ast::StmtKind::If) {
      addBlock(s, out, st->bodyRange);
      walk(s, out, st->body);
      if (st->hasElse && !(st->elseBody.size() == 1 && st->elseBody[0]->kind == ast::StmtKind::If &&
                           st->elseBody[0]->range.begin == st->elseRange.begin))
        addBlock(s, out, st->elseRange);
      walk(s, out, st->elseBody);
    }
  }
}

json foldingOf(const Snapshot &s) {
  json out = json::array();
  if (!s.analysis) return out;
  const Analysis &a = *s.analysis;
  if (a.mainFile >= a.modules.size() || !a.modules[a.mainFile]) return out;
  for (const auto &d : a.modules[a.mainFile]->decls) {
    checkpoint(2);
    if (!d) continue;
    addBlock(s, out, d->docRange, "comment");
    addBlock(s, out, d->bodyRange);
    walk(s, out, d->body);
  }
  return out;
}

} // namespace

json foldingRange(const Snapshot &s, const json &) {
  if (auto out = perItem(
          s, "foldingRange", "", foldingOf, [](const json &f) { return f["startLine"].get<int64_t>(); },
          [](json &f, int64_t lines) {
            f["startLine"] = f["startLine"].get<int64_t>() + lines;
            f["endLine"] = f["endLine"].get<int64_t>() + lines;
          }))
    return *out;
  return foldingOf(s);
}

} // namespace ph::lsp
