//===- Diagnostic.cpp - The diagnostic registry and its rendering ----------===//
#include "ph/Diagnostic.h"

#include "ph/Limits.h"

#include <algorithm>

namespace ph {

static const DiagInfo kInfos[] = {
#define DIAG(Name, Code, Sev, Format) {#Name, Code, Severity::Sev, Format},
#include "ph/Diagnostics.def"
#undef DIAG
};

const DiagInfo &diagInfo(DiagKind kind) { return kInfos[static_cast<size_t>(kind)]; }

DiagKind diagKindFromCode(std::string_view code) {
  for (size_t i = 0; i < static_cast<size_t>(DiagKind::Count); ++i)
    if (code == kInfos[i].code) return static_cast<DiagKind>(i);
  return DiagKind::Count;
}

std::string formatDiag(DiagKind kind, const std::vector<std::string> &args) {
  std::string out;
  const char *f = diagInfo(kind).format;
  for (const char *p = f; *p; ++p) {
    if (*p == '{' && p[1] >= '0' && p[1] <= '9' && p[2] == '}') {
      size_t i = p[1] - '0';
      if (i < args.size()) out += args[i];
      p += 2;
      continue;
    }
    out += *p;
  }
  return out;
}

bool DiagnosticSink::full(Severity s) {
  if (diags_.size() < limits::kMaxStoredDiagnostics) return false;
  ++dropped_;
  droppedErrors_ += s == Severity::Error;
  return true;
}

Diagnostic &DiagnosticSink::report(DiagKind kind, SourceRange range, std::vector<std::string> args) {
  if (full(diagInfo(kind).severity)) {
    scratch_ = Diagnostic{};
    return scratch_;
  }
  Diagnostic d;
  d.kind = kind;
  d.severity = diagInfo(kind).severity;
  d.range = range;
  d.message = formatDiag(kind, args);
  diags_.push_back(std::move(d));
  return diags_.back();
}

void DiagnosticSink::add(Diagnostic d) {
  if (!full(d.severity)) diags_.push_back(std::move(d));
}

size_t DiagnosticSink::errorCount() const {
  return std::count_if(diags_.begin(), diags_.end(), [](const Diagnostic &d) { return d.severity == Severity::Error; });
}

void DiagnosticSink::sort() {
  std::stable_sort(diags_.begin(), diags_.end(), [](const Diagnostic &a, const Diagnostic &b) {
    if (a.range.file != b.range.file) return a.range.file < b.range.file;
    return a.range.begin < b.range.begin;
  });
}

static const char *severityName(Severity s) {
  switch (s) {
  case Severity::Error: return "error";
  case Severity::Warning: return "warning";
  case Severity::Note: return "note";
  }
  return "error";
}

/// `path:line:col: ` followed by the source line and a caret underline. A line
/// longer than limits::kQuoteWidth is quoted around the column only, with `...`
/// where it is cut (a 40 000-character line must not be printed per diagnostic).
static void renderAt(std::string &out, const SourceManager &sm, SourceRange r, const std::string &head,
                     const std::string &indent) {
  const SourceFile &f = sm.file(r.file);
  LineCol lc = f.lineCol(r.begin);
  out += indent + f.path() + ":" + std::to_string(lc.line) + ":" + std::to_string(lc.col) + ": " + head + "\n";
  std::string_view line = f.lineText(lc.line - 1);
  size_t col0 = std::min<size_t>(lc.col - 1, line.size());
  size_t from = 0, to = line.size();
  if (line.size() > limits::kQuoteWidth) {
    from = col0 > limits::kQuoteWidth / 2 ? col0 - limits::kQuoteWidth / 2 : 0;
    while (from > 0 && (static_cast<unsigned char>(line[from]) & 0xC0) == 0x80) --from; // a UTF-8 boundary
    to = std::min(line.size(), from + limits::kQuoteWidth);
    while (to < line.size() && (static_cast<unsigned char>(line[to]) & 0xC0) == 0x80) ++to;
  }
  std::string prefix = from > 0 ? "..." : "", suffix = to < line.size() ? "..." : "";
  out += indent + "  " + prefix + std::string(line.substr(from, to - from)) + suffix + "\n";
  uint32_t lineBegin = f.lineStart(lc.line - 1);
  uint32_t shownEnd = lineBegin + static_cast<uint32_t>(to);
  uint32_t end = std::min(std::max(r.end, r.begin + 1), std::max(shownEnd, r.begin + 1));
  std::string caret(prefix.size() + (lc.col - 1 - from), ' ');
  for (size_t i = from; i < lc.col - 1 && i < line.size(); ++i)
    if (line[i] == '\t') caret[prefix.size() + i - from] = '\t';
  caret += '^';
  for (uint32_t i = r.begin + 1; i < end; ++i) caret += '~';
  out += indent + "  " + caret + "\n";
}

std::string renderDiagnostic(const Diagnostic &d, const SourceManager &sm, bool color) {
  std::string out;
  std::string head = std::string(severityName(d.severity)) + "[" + d.code() + "]: " + d.message;
  renderAt(out, sm, d.range, head, "");
  for (const DiagNote &n : d.notes) renderAt(out, sm, n.range, std::string("note: ") + n.message, "  ");
  for (const DiagFix &fix : d.fixes) out += "  help: " + fix.title + "\n";
  return out;
}

} // namespace ph
