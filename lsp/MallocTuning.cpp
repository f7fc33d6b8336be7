//===- MallocTuning.cpp - glibc malloc tunables ph-lsp runs under ---------===//
#include "MallocTuning.h"

#include <cstring>

namespace ph::lsp {

std::optional<std::string> tunedMallocTunables(const char *existing, unsigned count) {
  if (count == 0) return std::nullopt;
  std::string value = existing ? existing : "";
  // Tunables are `name=value` pairs separated by `:`.
  size_t at = 0;
  while (at <= value.size()) {
    size_t end = value.find(':', at);
    if (end == std::string::npos) end = value.size();
    std::string_view pair(value.data() + at, end - at);
    if (pair.substr(0, pair.find('=')) == "glibc.malloc.tcache_count") return std::nullopt;
    at = end + 1;
  }
  if (!value.empty()) value += ':';
  return value + "glibc.malloc.tcache_count=" + std::to_string(count);
}

} // namespace ph::lsp
