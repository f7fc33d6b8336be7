//===- PtxasDiagnostics.cpp - ptxas failures as registry diagnostics (E0505) --===//
#include "PtxasDiagnostics.h"

#include "Target/LoweringDiagnostics.h"

#include <algorithm>
#include <cstdlib>

namespace ph::backend {

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
  Diagnostic d;
  d.kind = DiagKind::PtxasFailed;
  d.severity = diagInfo(d.kind).severity;
  d.range = k.loc;
  d.message = formatDiag(d.kind, {k.name, arch, first});
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
  addKernelNotes(d, k);
  return d;
}

} // namespace ph::backend
