//===- IdleCores.cpp - How many threads a first analysis takes now ---------===//
#include "IdleCores.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>
#include <thread>

namespace ph::lsp {

std::optional<unsigned> runnableTasks(std::string_view line) {
  // Three load averages, then `running/total`.
  size_t at = 0;
  for (int field = 0; field < 3; ++field) {
    at = line.find(' ', at);
    if (at == std::string_view::npos) return std::nullopt;
    ++at;
  }
  unsigned n = 0;
  auto [end, ec] = std::from_chars(line.data() + at, line.data() + line.size(), n);
  if (ec != std::errc() || end == line.data() + line.size() || *end != '/') return std::nullopt;
  return n;
}

unsigned threadsForIdleCores(unsigned most, unsigned hardware, unsigned runnable) {
  unsigned idle = hardware > runnable ? hardware - runnable : 0;
  return std::max(1u, std::min(most, 1 + idle));
}

unsigned threadsForIdleCoresNow(unsigned most) {
  if (most <= 1) return 1;
  std::ifstream in("/proc/loadavg");
  std::string line;
  if (!std::getline(in, line)) return 1;
  auto runnable = runnableTasks(line);
  if (!runnable) return 1;
  return threadsForIdleCores(most, std::max(1u, std::thread::hardware_concurrency()), std::max(1u, *runnable));
}

} // namespace ph::lsp
