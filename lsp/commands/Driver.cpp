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

json parseJsonOutput(const std::string &out) {
  json j = json::parse(out, nullptr, false);
  if (!j.is_discarded()) return j;
  size_t pos = out.rfind("\n{");
  if (pos != std::string::npos) {
    j = json::parse(out.substr(pos + 1), nullptr, false);
    if (!j.is_discarded()) return j;
  }
  return nullptr;
}

void renameCopy(ProcessResult &r, const std::string &copy, const std::string &userFile) {
  if (copy.empty() || copy == userFile) return;
  for (std::string *s : {&r.out, &r.err})
    for (size_t p = s->find(copy); p != std::string::npos; p = s->find(copy, p + userFile.size()))
      s->replace(p, copy.size(), userFile);
}

std::string argvForLog(const std::vector<std::string> &argv) {
  std::string s;
  for (const auto &a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

namespace {

std::string numberText(const json &v) {
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
    return buf;
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

} // namespace

/// One line for window/showMessage out of `ph run --json`'s result.
std::string runSummary(const std::string &kernel, const std::string &target, const json &r) {
  std::string s = kernel + " on " + target;
  if (!r.is_object()) return s + ": done";
  auto pick = [&](std::initializer_list<const char *> keys) -> const json * {
    for (const char *k : keys)
      if (r.contains(k) && !r[k].is_null()) return &r[k];
    return nullptr;
  };
  if (const json *d = pick({"device"})) {
    if (d->is_object() && d->contains("name"))
      s += " (" + numberText((*d)["name"]) + (d->contains("arch") ? ", " + numberText((*d)["arch"]) : "") + ")";
    else if (d->is_string())
      s += " (" + d->get<std::string>() + ")";
  }
  std::vector<std::string> parts;
  if (const json *t = pick({"time_ms", "timeMs", "median_ms", "ms"})) parts.push_back(numberText(*t) + " ms");
  if (const json *t = pick({"tflops", "TFLOPs", "tflops_per_s"})) parts.push_back(numberText(*t) + " TFLOP/s");
  if (const json *t = pick({"gbps", "GBps", "gb_per_s"})) parts.push_back(numberText(*t) + " GB/s");
  if (const json *c = pick({"config", "configuration"})) parts.push_back(c->is_string() ? c->get<std::string>() : c->dump());
  if (const json *e = pick({"max_error", "maxError", "error", "rel_error"})) parts.push_back("error " + numberText(*e));
  if (const json *ok = pick({"check", "passed"})) {
    const json &v = ok->is_object() ? ok->value("passed", json()) : *ok;
    if (v.is_boolean()) parts.push_back(std::string("check ") + (v.get<bool>() ? "passed" : "FAILED"));
  }
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : ": ") + parts[i];
  return s;
}

} // namespace ph::lsp::driver
