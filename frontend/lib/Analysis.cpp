//===- Analysis.cpp - Lex, parse and check one file against the prelude ----===//
#include "ph/Analysis.h"

#include "CheckerState.h"
#include "ph/Lexer.h"
#include "ph/Limits.h"
#include "ph/Parser.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>
#include <sstream>

namespace ph {

bool Analysis::hasErrors() const {
  return std::any_of(diagnostics.begin(), diagnostics.end(),
                     [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

const Occurrence *Analysis::occurrenceAt(FileId file, uint32_t offset) const {
  const Occurrence *best = nullptr;
  for (const Occurrence &o : occurrences)
    if (o.range.file == file && o.range.touches(offset))
      if (!best || o.range.end - o.range.begin < best->range.end - best->range.begin) best = &o;
  return best;
}

const ExprFact *Analysis::exprAt(FileId file, uint32_t offset) const {
  const ExprFact *best = nullptr;
  for (const ExprFact &f : exprFacts)
    if (f.range.file == file && f.range.touches(offset))
      if (!best || f.range.end - f.range.begin < best->range.end - best->range.begin) best = &f;
  return best;
}

std::vector<std::shared_ptr<const kir::Kernel>> Analysis::kernelVariants(const std::string &name) const {
  std::vector<std::shared_ptr<const kir::Kernel>> out;
  for (auto &k : specialised)
    if (k->name == name) out.push_back(k);
  return out;
}

std::string Prelude::defaultDir() {
  if (const char *env = std::getenv("PH_STD_DIR"); env && *env) return env;
  // Next to an installed binary (bin/../share/ph/std), else the source tree's.
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto shared = exe.parent_path().parent_path() / "share" / "ph" / "std";
    if (std::filesystem::exists(shared / "attention.ph", ec)) return shared.string();
  }
#ifdef PH_STD_DIR
  return PH_STD_DIR;
#else
  return "std";
#endif
}

std::shared_ptr<const Prelude> Prelude::load(const std::string &dirIn) {
  std::string dir = dirIn.empty() ? defaultDir() : dirIn;
  auto p = std::make_shared<Prelude>();
  std::error_code ec;
  std::vector<std::filesystem::path> paths;
  for (auto &entry : std::filesystem::directory_iterator(dir, ec))
    if (entry.path().extension() == ".ph") paths.push_back(entry.path());
  std::sort(paths.begin(), paths.end());
  for (auto &path : paths) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    p->files.push_back(std::make_shared<SourceFile>(std::filesystem::absolute(path).lexically_normal().string(), ss.str()));
  }
  return p;
}

static bool samePath(const std::string &a, const std::string &b) {
  std::error_code ec;
  if (a == b) return true;
  auto ca = std::filesystem::weakly_canonical(a, ec);
  if (ec) return false;
  auto cb = std::filesystem::weakly_canonical(b, ec);
  return !ec && ca == cb;
}

namespace check {

std::vector<Diagnostic> finishDiagnostics(std::vector<Diagnostic> diags) {
  std::stable_sort(diags.begin(), diags.end(), [](const Diagnostic &a, const Diagnostic &b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  });
  // The same finding reached twice (by the resolver and the elaborator, or once
  // per autotune configuration or call site) is reported once.
  std::set<std::tuple<DiagKind, FileId, uint32_t, uint32_t, std::string>> seen;
  std::vector<Diagnostic> out;
  for (auto &d : diags)
    if (seen.insert({d.kind, d.range.file, d.range.begin, d.range.end, d.message}).second) out.push_back(std::move(d));
  return out;
}

} // namespace check

std::shared_ptr<const Analysis> analyze(std::shared_ptr<const SourceFile> file, std::shared_ptr<const Prelude> prelude,
                                        const AnalyzeOptions &options) {
  auto A = std::make_shared<Analysis>();
  DiagnosticSink diags;
  // The prelude, except the file being analysed when it is itself a std file.
  if (prelude)
    for (auto &f : prelude->files)
      if (!samePath(f->path(), file->path())) A->sources.add(f);
  A->mainFile = A->sources.add(file);
  if (auto big = limits::oversizedSource(file->path(), file->text().size(), A->mainFile)) { // E0602
    A->diagnostics.push_back(std::move(*big));
    return A;
  }
  for (FileId id = 0; id < A->sources.size(); ++id) {
    DiagnosticSink fileDiags;
    auto tokens = lex(A->sources.file(id), id, fileDiags);
    auto module = parse(tokens, id, fileDiags);
    if (id == A->mainFile) A->tokens = tokens;
    A->modules.push_back(std::shared_ptr<const ast::Module>(std::move(module)));
    diags.countDropped(fileDiags.dropped(), fileDiags.droppedErrors());
    for (auto &d : fileDiags.take()) diags.add(std::move(d));
  }
  check::State st(*A, diags, options);
  check::resolve(st);
  check::elaborate(st);
  if (st.cancelled()) {
    A->cancelled = true;
    A->specialised.clear();
    return A;
  }
  // Tokens point into the source text, which the analysis keeps alive.
  A->diagnostics = check::finishDiagnostics(diags.take());
  limits::capDiagnostics(A->diagnostics, A->mainFile, diags.dropped(), diags.droppedErrors()); // W0601
  auto byPos = [](const auto &a, const auto &b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  };
  std::stable_sort(A->occurrences.begin(), A->occurrences.end(), byPos);
  std::stable_sort(A->exprFacts.begin(), A->exprFacts.end(), byPos);
  // Inlay hints: the type of each `let`/`var` written without one, in the main file.
  for (auto &[stmt, sym] : st.stmtSymbol.own()) {
    if (stmt->kind != ast::StmtKind::Let || stmt->type || stmt->name.range.file != A->mainFile) continue;
    const Symbol &s = A->symbols[sym];
    if (!s.typeSymbolic.empty()) A->typeHints.push_back({stmt->name.range, ": " + s.typeSymbolic});
  }
  std::sort(A->typeHints.begin(), A->typeHints.end(),
            [](const TypeHint &a, const TypeHint &b) { return a.nameRange.begin < b.nameRange.begin; });
  if (A->hasErrors()) A->specialised.clear();
  return A;
}

} // namespace ph
