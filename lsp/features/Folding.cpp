//===- Folding.cpp - textDocument/foldingRange ----------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

namespace ph::lsp {

namespace {

void addBlock(const Snapshot &s, const EmitEntry &out, SourceRange r, const char *kind = nullptr) {
  if (r.end <= r.begin) return;
  Position b = s.lines.position(r.begin), e = s.lines.position(r.end > 0 ? r.end - 1 : 0);
  // Keep the closing brace's line visible, as editors do for C-like code.
  uint32_t endLine = kind ? e.line : (e.line > 0 ? e.line - 1 : 0);
  if (endLine <= b.line) return;
  json f = {{"startLine", b.line}, {"endLine", endLine}};
  if (kind) f["kind"] = kind;
  out(std::move(f));
}

void walk(const Snapshot &s, const EmitEntry &out, const std::vector<ast::StmtPtr> &body) {
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

void foldingOf(const Snapshot &s, const EmitEntry &out) {
  if (!s.analysis) return;
  const Analysis &a = *s.analysis;
  if (a.mainFile >= a.modules.size() || !a.modules[a.mainFile]) return;
  for (const auto &d : a.modules[a.mainFile]->decls) {
    checkpoint(2);
    if (!d) continue;
    addBlock(s, out, d->docRange, "comment");
    addBlock(s, out, d->bodyRange);
    walk(s, out, d->body);
  }
}

} // namespace

JsonText foldingRangeText(const Snapshot &s, const json &) {
  JsonArrayWriter out;
  auto sink = [&](json f) { out.add(f); };
  if (!eachItemEntry(
          s, "foldingRange", "", foldingOf, [](const json &f) { return f["startLine"].get<int64_t>(); },
          [](json &f, int64_t lines) {
            f["startLine"] = f["startLine"].get<int64_t>() + lines;
            f["endLine"] = f["endLine"].get<int64_t>() + lines;
          },
          sink))
    foldingOf(s, sink);
  return out.finish();
}

json foldingRange(const Snapshot &s, const json &params) { return json::parse(foldingRangeText(s, params).text); }

} // namespace ph::lsp
