//===- Util.cpp - Locations, URIs and offsets shared by the features ------===//
#include "Features.h"

#include "ph/Analysis.h"

#include <filesystem>

namespace ph::lsp {

std::string uriOf(const Snapshot &s, const SourceFile &file, bool isMain) {
  if (isMain) return s.uri;
  std::error_code ec;
  auto abs = std::filesystem::absolute(file.path(), ec);
  return pathToUri(ec ? file.path() : abs.lexically_normal().string());
}

json location(const Snapshot &s, const SourceRange &r) {
  const Analysis &a = *s.analysis;
  bool isMain = r.file == a.mainFile;
  const SourceFile &f = a.sources.file(r.file);
  Range range;
  if (isMain) {
    range = s.lines.range(r.begin, r.end);
  } else {
    LineIndex index(f.text());
    range = index.range(r.begin, r.end);
  }
  return {{"uri", uriOf(s, f, isMain)}, {"range", toJson(range)}};
}

uint32_t offsetOf(const Snapshot &s, const json &params) {
  return s.lines.offset(positionFromJson(params.at("position")));
}

std::string kernelAt(const Snapshot &s, uint32_t offset) {
  if (!s.analysis) return "";
  const auto &ks = s.analysis->kernels;
  for (const auto &k : ks)
    if (k.declRange.touches(offset)) return k.name;
  return ks.size() == 1 ? ks.front().name : "";
}

std::string threadsText(const KernelSummary &k, bool markdown) {
  if (k.threadsParam.empty() || k.threadCounts.empty()) return std::to_string(k.threads);
  std::string out = markdown ? "`" + k.threadsParam + "`" : k.threadsParam;
  out += " = ";
  for (size_t i = 0; i < k.threadCounts.size(); ++i) out += (i ? ", " : "") + std::to_string(k.threadCounts[i]);
  return out;
}

} // namespace ph::lsp
