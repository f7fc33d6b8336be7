//===- Limits.cpp - The checks behind ph/Limits.h ---------------------------===//
#include "ph/Limits.h"
#include "ph/ThreadStack.h"

#include <pthread.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace ph::limits {

bool setThreadStack() {
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return false;
  bool ok = pthread_attr_setstacksize(&attr, kThreadStackBytes) == 0 && pthread_setattr_default_np(&attr) == 0;
  pthread_attr_destroy(&attr);
  return ok;
}

uint64_t configCount(const std::vector<size_t> &sizes) {
  uint64_t n = 1;
  for (size_t s : sizes) {
    if (s == 0) return 0;
    if (n > UINT64_MAX / s) return UINT64_MAX;
    n *= s;
  }
  return n;
}

std::string groupDigits(uint64_t v) {
  std::string d = std::to_string(v), out;
  for (size_t i = 0; i < d.size(); ++i) {
    if (i && (d.size() - i) % 3 == 0) out += ',';
    out += d[i];
  }
  return out;
}

static const char *fileKind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISFIFO(m)) return "a pipe";
  if (S_ISSOCK(m)) return "a socket";
  return "not a plain file";
}

bool readRegularFile(const std::string &path, uint64_t maxBytes, std::string &out, std::string &err, DiagKind *kind,
                     const std::string &reportAs) {
  if (kind) *kind = DiagKind::Count;
  const std::string &name = reportAs.empty() ? path : reportAs;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    err = "cannot read `" + name + "`: " + std::strerror(errno);
    return false;
  }
  // /dev/zero, a FIFO or /proc/self/... would be read until memory runs out (or forever).
  if (!S_ISREG(st.st_mode)) {
    if (kind) *kind = DiagKind::NotARegularFile;
    err = formatDiag(DiagKind::NotARegularFile, {name, fileKind(st.st_mode)});
    return false;
  }
  if (static_cast<uint64_t>(st.st_size) > maxBytes) {
    if (kind) *kind = DiagKind::FileTooLarge;
    err = formatDiag(DiagKind::FileTooLarge, {name, groupDigits(st.st_size), groupDigits(maxBytes)});
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = "cannot read `" + name + "`";
    return false;
  }
  // Read at most maxBytes + 1, whatever the size said (the file may grow meanwhile).
  out.assign(static_cast<size_t>(st.st_size), '\0');
  in.read(out.data(), static_cast<std::streamsize>(out.size()));
  out.resize(static_cast<size_t>(in.gcount()));
  char extra[4096];
  while (in.read(extra, sizeof extra), in.gcount() > 0) {
    if (out.size() + static_cast<size_t>(in.gcount()) > maxBytes) {
      if (kind) *kind = DiagKind::FileTooLarge;
      err = formatDiag(DiagKind::FileTooLarge, {name, "more than " + groupDigits(maxBytes), groupDigits(maxBytes)});
      return false;
    }
    out.append(extra, static_cast<size_t>(in.gcount()));
  }
  return true;
}

std::optional<Diagnostic> oversizedSource(const std::string &path, size_t bytes, FileId file) {
  if (bytes <= kMaxSourceBytes) return std::nullopt;
  Diagnostic d;
  d.kind = DiagKind::FileTooLarge;
  d.severity = diagInfo(d.kind).severity;
  d.range = {file, 0, 0};
  d.message = formatDiag(d.kind, {path, groupDigits(bytes), groupDigits(kMaxSourceBytes)});
  return d;
}

void capDiagnostics(std::vector<Diagnostic> &diags, FileId mainFile, size_t alsoDropped, size_t alsoDroppedErrors) {
  size_t dropped = alsoDropped, droppedErrors = alsoDroppedErrors;
  if (diags.size() > kMaxDiagnostics) {
    auto isError = [](const Diagnostic &d) { return d.severity == Severity::Error; };
    // A file with errors keeps one among those shown (else it would pass `ph check`).
    auto firstError = std::find_if(diags.begin(), diags.end(), isError);
    if (firstError != diags.end() && firstError - diags.begin() >= static_cast<std::ptrdiff_t>(kMaxDiagnostics))
      std::swap(diags[kMaxDiagnostics - 1], *firstError);
    for (size_t i = kMaxDiagnostics; i < diags.size(); ++i) {
      ++dropped;
      droppedErrors += isError(diags[i]);
    }
    diags.resize(kMaxDiagnostics);
  }
  if (!dropped) return;
  Diagnostic d;
  d.kind = DiagKind::TooManyDiagnostics;
  d.severity = diagInfo(d.kind).severity;
  // At the last diagnostic shown, in the main file: where reading stopped.
  d.range = {mainFile, 0, 0};
  for (auto it = diags.rbegin(); it != diags.rend(); ++it)
    if (it->range.file == mainFile) {
      d.range = it->range;
      break;
    }
  d.message = formatDiag(d.kind, {std::to_string(kMaxDiagnostics), groupDigits(dropped), groupDigits(droppedErrors)});
  diags.push_back(std::move(d));
}

} // namespace ph::limits
