//===- LoweringDiagnostics.cpp - Lowering failures as registry diagnostics --===//
#include "LoweringDiagnostics.h"

#include "ph/Source.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Visitors.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>

using namespace mlir;

namespace ph::backend {

rt::SourceSpan spanOf(Location loc) {
  rt::SourceSpan out;
  loc->walk([&](Location l) {
    if (auto r = dyn_cast<FileLineColRange>(l)) {
      out = {r.getFilename().str(), int(r.getStartLine()), int(r.getStartColumn()), int(r.getEndLine()),
             int(r.getEndColumn())};
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return out;
}

namespace {

std::string where(const rt::SourceSpan &s) {
  return s.file.empty() ? "" : s.file + ":" + std::to_string(s.line) + ":" + std::to_string(s.col) + ": ";
}

} // namespace

LoweringCapture::LoweringCapture(MLIRContext *ctx, std::vector<LoweringDiag> &out, std::string *text)
    : handler(ctx, [&out, text](mlir::Diagnostic &d) {
        if (d.getSeverity() != DiagnosticSeverity::Error && d.getSeverity() != DiagnosticSeverity::Warning)
          return success(); // remarks: not the user's business
        LoweringDiag ld;
        ld.error = d.getSeverity() == DiagnosticSeverity::Error;
        ld.message = d.str();
        ld.at = spanOf(d.getLocation());
        for (mlir::Diagnostic &n : d.getNotes()) ld.notes.emplace_back(spanOf(n.getLocation()), n.str());
        if (text && ld.error) {
          llvm::raw_string_ostream os(*text);
          if (!text->empty() && text->back() != '\n') os << "\n";
          os << where(ld.at) << ld.message;
          for (auto &[at, msg] : ld.notes) os << "\n  note: " << msg;
        }
        out.push_back(std::move(ld));
        return success();
      }) {}

std::optional<SourceRange> rangeOf(const rt::SourceSpan &s, const SourceManager *sources) {
  if (!sources || s.file.empty() || s.line < 1 || s.col < 1) return std::nullopt;
  for (FileId id = 0; id < sources->size(); ++id) {
    const SourceFile &f = sources->file(id);
    if (f.path() != s.file) continue;
    auto offset = [&](int line, int col) {
      uint32_t start = f.lineStart(uint32_t(line - 1));
      uint32_t next = uint32_t(line) < f.lineCount() ? f.lineStart(uint32_t(line)) : uint32_t(f.text().size());
      return std::min(start + uint32_t(col - 1), std::max(start, next));
    };
    uint32_t begin = offset(s.line, s.col);
    uint32_t end = s.endLine >= s.line && s.endCol >= 1 ? offset(s.endLine, s.endCol) : begin;
    return SourceRange{id, begin, std::max(end, begin + 1)};
  }
  return std::nullopt;
}

const LoweringDiag *firstLocated(const std::vector<LoweringDiag> &diags, const SourceManager *sources, bool warnings) {
  for (bool wantError : {true, false}) {
    if (!wantError && !warnings) break;
    for (const LoweringDiag &d : diags)
      if (d.error == wantError && rangeOf(d.at, sources)) return &d;
  }
  return nullptr;
}

namespace {

Diagnostic make(DiagKind kind, SourceRange range, std::vector<std::string> args) {
  Diagnostic d;
  d.kind = kind;
  d.severity = diagInfo(kind).severity;
  d.range = range;
  d.message = formatDiag(kind, args);
  return d;
}

} // namespace

void addKernelNotes(Diagnostic &d, const kir::Kernel &k) {
  if (!(d.range == k.loc)) d.notes.push_back({k.loc, "in kernel `" + k.name + "`"});
  if (!k.configName().empty()) d.notes.push_back({k.loc, "in configuration " + k.configName()});
}

std::string errorText(const std::vector<LoweringDiag> &diags) {
  std::string out;
  for (const LoweringDiag &d : diags) {
    if (!d.error) continue;
    if (!out.empty()) out += "\n";
    out += d.message;
    for (auto &[at, msg] : d.notes) out += "\n  note: " + msg;
  }
  return out;
}

Diagnostic kernelDiagnostic(DiagKind kind, const std::string &text, const std::string &source, const kir::Kernel &k,
                            const std::string &headline) {
  std::string first = text.substr(0, text.find('\n'));
  Diagnostic d = make(kind, k.loc, {headline + first});
  addKernelNotes(d, k);
  d.notes.push_back({k.loc, source + ": " + text});
  return d;
}

Diagnostic loweringDiagnostic(DiagKind kind, const LoweringDiag &ld, const kir::Kernel &k,
                              const SourceManager *sources) {
  Diagnostic d = make(kind, rangeOf(ld.at, sources).value_or(k.loc), {ld.message});
  for (auto &[at, msg] : ld.notes)
    // MLIR's "see current operation: %6 = tile.dot ..." is IR, for a compiler developer.
    if (msg.rfind("see current operation", 0) != 0) d.notes.push_back({rangeOf(at, sources).value_or(d.range), msg});
  addKernelNotes(d, k);
  return d;
}

} // namespace ph::backend
