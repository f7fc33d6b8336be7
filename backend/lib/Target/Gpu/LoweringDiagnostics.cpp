//===- LoweringDiagnostics.cpp - GPU lowering failures as registry diagnostics --===//
#include "LoweringDiagnostics.h"

#include "ph/Source.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Visitors.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstdlib>

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

void kernelNotes(Diagnostic &d, const kir::Kernel &k) {
  if (!(d.range == k.loc)) d.notes.push_back({k.loc, "in kernel `" + k.name + "`"});
  if (!k.configName().empty()) d.notes.push_back({k.loc, "in configuration " + k.configName()});
}

} // namespace

Diagnostic loweringDiagnostic(DiagKind kind, const LoweringDiag &ld, const kir::Kernel &k,
                              const SourceManager *sources) {
  Diagnostic d = make(kind, rangeOf(ld.at, sources).value_or(k.loc), {ld.message});
  for (auto &[at, msg] : ld.notes)
    // MLIR's "see current operation: %6 = tile.dot ..." is IR, for a compiler developer.
    if (msg.rfind("see current operation", 0) != 0) d.notes.push_back({rangeOf(at, sources).value_or(d.range), msg});
  kernelNotes(d, k);
  return d;
}

std::vector<PtxasError> ptxasErrors(const std::string &log) {
  // `ptxas error   : Entry function 'k' uses too much shared data (0x493e0 bytes, 0xc000 max)`,
  // `ptxas /tmp/.../k.ptx, line 12; error   : Unknown modifier '.bogus'`; `fatal` ends a run
  // that had errors, or is the only line when ptxas could not start on the PTX at all.
  std::vector<PtxasError> errors;
  std::string fatal;
  size_t pos = 0;
  while (pos < log.size()) {
    size_t eol = log.find('\n', pos);
    std::string line = log.substr(pos, eol == std::string::npos ? std::string::npos : eol - pos);
    pos = eol == std::string::npos ? log.size() : eol + 1;
    size_t at = line.find("error   : ");
    if (at == std::string::npos) {
      if (size_t f = line.find("fatal   : "); f != std::string::npos && fatal.empty()) fatal = line.substr(f + 10);
      continue;
    }
    PtxasError e{0, line.substr(at + 10)};
    // The PTX's line, when ptxas names one; the file is ph's scratch copy, whose name is not the user's.
    if (size_t l = line.rfind(", line ", at); l != std::string::npos) e.ptxLine = std::atoi(line.c_str() + l + 7);
    errors.push_back(std::move(e));
  }
  if (errors.empty()) errors.push_back({0, fatal.empty() ? "it failed without a message" : fatal});
  return errors;
}

Diagnostic ptxasDiagnostic(const std::string &log, const std::string &ptx, const std::string &arch,
                           const kir::Kernel &k) {
  std::vector<PtxasError> errors = ptxasErrors(log);
  std::string first = errors.front().message;
  if (errors.size() > 1) first += " (and " + std::to_string(errors.size() - 1) + " more)";
  Diagnostic d = make(DiagKind::PtxasFailed, k.loc, {k.name, arch, first});
  // PTX has no `.loc` (ph emits no debug lines), so every error is at the kernel; a note per
  // error keeps ptxas's words and the PTX line it names, quoted from the PTX it was given.
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= ptx.size();) {
    size_t eol = ptx.find('\n', pos);
    if (eol == std::string::npos) eol = ptx.size();
    lines.push_back(ptx.substr(pos, eol - pos));
    pos = eol + 1;
  }
  for (const PtxasError &e : errors) {
    std::string said = "ptxas";
    if (e.ptxLine > 0) {
      said += ", line " + std::to_string(e.ptxLine) + " of the PTX";
      if (size_t(e.ptxLine) <= lines.size()) {
        std::string text = lines[size_t(e.ptxLine) - 1];
        size_t b = text.find_first_not_of(" \t"), t = text.find_last_not_of(" \t\r");
        if (b != std::string::npos) said += " (`" + text.substr(b, t - b + 1) + "`)";
      }
    }
    d.notes.push_back({k.loc, said + ": " + e.message});
  }
  if (std::any_of(errors.begin(), errors.end(), [](const PtxasError &e) { return e.ptxLine > 0; }))
    d.notes.push_back({k.loc, "`ph emit --stage ptx --target " + arch + " --kernel " + k.name +
                                  (k.configName().empty() ? "" : " --config " + k.configName()) +
                                  "` prints that PTX, with the same line numbers"});
  kernelNotes(d, k);
  return d;
}

} // namespace ph::backend
