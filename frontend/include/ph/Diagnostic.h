//===- Diagnostic.h - Diagnostics as data ------------------------*- C++ -*-===//
//
// A diagnostic is a kind from Diagnostics.def (stable name and code), a primary
// range, notes with their own ranges, and optional fixes (text edits). Both
// `ph check` and `ph-lsp` render the same values.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Source.h"

#include <initializer_list>
#include <string>
#include <vector>

namespace ph {

enum class Severity { Error, Warning, Note };

enum class DiagKind : uint16_t {
#define DIAG(Name, Code, Sev, Format) Name,
#include "ph/Diagnostics.def"
#undef DIAG
  Count
};

struct DiagInfo {
  const char *name;
  const char *code;
  Severity severity;
  const char *format;
};
const DiagInfo &diagInfo(DiagKind kind);
/// Looks a kind up by its code ("E0301"); returns DiagKind::Count when unknown.
DiagKind diagKindFromCode(std::string_view code);

struct DiagNote {
  SourceRange range;
  std::string message;
};

/// A replacement of the text in `range` by `text`.
struct TextEdit {
  SourceRange range;
  std::string text;
};

struct DiagFix {
  std::string title; // e.g. "use `dot_t`"
  std::vector<TextEdit> edits;
};

struct Diagnostic {
  DiagKind kind = DiagKind::Count;
  Severity severity = Severity::Error;
  SourceRange range;
  std::string message;
  std::vector<DiagNote> notes;
  std::vector<DiagFix> fixes;

  const char *code() const { return diagInfo(kind).code; }
};

/// Formats the kind's message with its arguments.
std::string formatDiag(DiagKind kind, const std::vector<std::string> &args);

/// Collects diagnostics, dropping exact duplicates (the same kind, range and
/// message reported again, e.g. once per autotune configuration).
class DiagnosticSink {
public:
  Diagnostic &report(DiagKind kind, SourceRange range, std::vector<std::string> args = {});
  void add(Diagnostic d);
  const std::vector<Diagnostic> &all() const { return diags_; }
  std::vector<Diagnostic> take() { return std::move(diags_); }
  size_t errorCount() const;
  /// Sorts by file, then position (stable for equal positions).
  void sort();
  /// Past limits::kMaxStoredDiagnostics a sink only counts what it is given
  /// (a 4 MB file of bad bytes must not hold millions of diagnostics).
  size_t dropped() const { return dropped_; }
  size_t droppedErrors() const { return droppedErrors_; }
  void countDropped(size_t n, size_t errors) {
    dropped_ += n;
    droppedErrors_ += errors;
  }

private:
  bool full(Severity s);
  std::vector<Diagnostic> diags_;
  size_t dropped_ = 0, droppedErrors_ = 0;
  Diagnostic scratch_; // what report() hands out for a dropped diagnostic
};

/// Renders `file:line:col: error[E0301]: message`, the source line with a caret
/// underline, and indented notes, as `ph check` prints it.
std::string renderDiagnostic(const Diagnostic &d, const SourceManager &sm, bool color = false);

} // namespace ph
