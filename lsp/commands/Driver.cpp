//===- Driver.cpp - Starting `ph` and reading what it says ----------------===//
#include "Driver.h"

#include <cstdio>
#include <sstream>

namespace ph::lsp::driver {

fs::path outputFolder(const std::string &setting, const std::string &root, const std::string &path,
                      std::string &error) {
  std::error_code ec;
  fs::path base = root.empty() ? fs::path(path).parent_path() : fs::path(root);
  fs::path out = (base / fs::path(setting)).lexically_normal();
  fs::path realBase = fs::weakly_canonical(base, ec);
  if (ec) realBase = base.lexically_normal();
  fs::path realOut = fs::weakly_canonical(out, ec);
  if (ec) realOut = out;
  auto inside = [](const fs::path &p, const fs::path &b) {
    fs::path rel = p.lexically_relative(b);
    return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
  };
  if (setting.empty() || !inside(out, base.lexically_normal()) || !inside(realOut, realBase)) {
    error = "the output folder `" + setting + "` is outside " + (root.empty() ? "the file's folder" : "the workspace") +
            " `" + base.string() + "`; refused (set `ph.outputDir` to a folder inside it)";
    return {};
  }
  return out;
}

/// The driver prints "not built yet" for a command whose backend has not landed.
bool stageMissing(const ProcessResult &r) {
  return r.exitCode != 0 && (r.err.find("not built yet") != std::string::npos ||
                             r.err.find("not available") != std::string::npos ||
                             r.err.find("built without") != std::string::npos ||
                             r.err.find("unknown command") != std::string::npos);
}

std::string firstLines(const std::string &s, size_t maxLines) {
  std::istringstream in(s);
  std::string line, out;
  for (size_t n = 0; n < maxLines && std::getline(in, line); ++n) out += (n ? "\n" : "") + line;
  return out;
}

RpcError driverError(const std::string &what, const ProcessResult &r) {
  std::string said = firstLines(r.err.empty() ? r.out : r.err);
  if (stageMissing(r))
    return {ErrorCode::RequestFailed, what + " is not available in this build of `ph` yet: " + said, nullptr};
  return {ErrorCode::RequestFailed, what + " failed (exit " + std::to_string(r.exitCode) + "): " + said,
          json{{"exitCode", r.exitCode}, {"stdout", r.out}, {"stderr", r.err}}};
}

void appendSourceName(std::vector<std::string> &argv, const std::string &file, const std::string &userFile) {
  if (file.empty() || userFile.empty() || file == userFile) return;
  argv.insert(argv.end(), {"--source-name", userFile});
}

json irLineMap(const std::vector<rt::report::IrLine> &lines, const std::string &phFile) {
  std::string base = fs::path(phFile).filename().string();
  json out = json::array();
  for (const rt::report::IrLine &l : lines)
    if (l.irLine > 0 && l.range.start.line > 0 && fs::path(l.range.file).filename().string() == base)
      out.push_back({{"irLine", l.irLine - 1}, {"sourceLine", l.range.start.line - 1}});
  return out;
}

std::string argvForLog(const std::vector<std::string> &argv) {
  std::string s;
  for (const auto &a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

std::string readDocument(const ProcessResult &r, const std::string &command, rt::report::Document &doc) {
  std::string why = rt::report::fromJsonLines(r.out, doc); // `ph build --progress` writes events first
  if (!why.empty()) return "`ph " + command + " --json` wrote no ph-output document (" + why + ")";
  if (doc.command != command) return "`ph " + command + " --json` wrote a `" + doc.command + "` document";
  return "";
}

namespace {

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

} // namespace

std::string runSummary(const std::string &kernel, const std::string &target, const rt::report::Run &r) {
  std::string s = kernel + " on " + target + (r.device.empty() ? "" : " (" + r.device + ")") + ": " +
                  (r.timeMs >= 0 ? number(r.timeMs) + " ms" : std::string("ran"));
  if (!r.config.empty()) s += ", " + r.config;
  if (r.check) s += std::string(", check ") + (r.check->passed ? "passed" : "FAILED");
  return s;
}

std::string runSummary(const std::string &kernel, const std::string &target, const rt::report::Document &doc) {
  if (doc.runResult) return runSummary(kernel, target, *doc.runResult);
  if (!doc.benchResult || doc.benchResult->rows.empty()) return kernel + " on " + target + ": done";
  // A benchmark: its fastest configuration speaks for it.
  const rt::report::Bench &b = *doc.benchResult;
  const rt::BenchRow *best = &b.rows[0];
  for (const rt::BenchRow &row : b.rows)
    if (row.config == b.best) best = &row;
  std::string s = kernel + " on " + target;
  if (!b.device.name.empty()) s += " (" + b.device.name + (b.device.arch.empty() ? "" : ", " + b.device.arch) + ")";
  s += ": " + number(best->ms) + " ms";
  if (best->tflops > 0) s += ", " + number(best->tflops) + " TFLOP/s";
  if (best->gbps > 0) s += ", " + number(best->gbps) + " GB/s";
  if (!best->config.empty()) s += ", " + best->config;
  if (!best->check.empty() && best->check != "-") s += ", check " + best->check;
  if (b.rows.size() > 1) s += " (fastest of " + std::to_string(b.rows.size()) + ")";
  return s;
}

} // namespace ph::lsp::driver
