//===- BuildReport.cpp - What a `ph build` says about each kernel ---------===//
//
// Figures for the lens and hover (registers, shared memory, spills, occupancy,
// where the tiles live) and the driver's diagnostics, read from a build's
// output and its manifest.json.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "Protocol.h"
#include "TextDocument.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace ph::lsp::driver {

namespace {

/// Blocks per SM and what limits them (registers, shared memory or threads),
/// for an sm_80/sm_90-class SM.
std::string occupancyText(const Figures &f, const std::string &arch) {
  int warps = (f.threads + 31) / 32;
  int64_t smemPerSm = arch == "sm_80" ? 167936 : 233472;
  int byThreads = 2048 / std::max(1, f.threads);
  int byRegs = 1 << 30;
  if (f.registers > 0) {
    int perWarp = ((f.registers * 32 + 255) / 256) * 256;
    byRegs = 65536 / std::max(1, perWarp * warps);
  }
  int bySmem = f.smem > 0 ? static_cast<int>(smemPerSm / f.smem) : 1 << 30;
  int blocks = std::min({byThreads, byRegs, bySmem, 32});
  const char *limiter = blocks == byRegs ? "regs" : blocks == bySmem ? "smem" : blocks == byThreads ? "threads" : "blocks";
  int pct = static_cast<int>(std::lround(100.0 * blocks * warps / 64.0));
  return std::to_string(blocks) + " blocks/SM (" + std::to_string(pct) + "%, " + limiter + ")";
}

/// Reads ptxas's `-v` report: "Compiling entry function 'K'", "N bytes spill
/// stores", "Used R registers, ... S bytes smem".
std::map<std::string, Figures> parsePtxasReport(const std::string &text) {
  std::map<std::string, Figures> out;
  static const std::regex entry(R"(Compiling entry function '([A-Za-z_][A-Za-z0-9_]*)')");
  static const std::regex props(R"(Function properties for ([A-Za-z_][A-Za-z0-9_]*))");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex spill(R"((\d+) bytes spill stores)");
  // `ph build`'s own summary line: `K [D=64,...]: sm_90, 48 registers, 54400 B shared memory, 0 B spilled -> ...`
  static const std::regex summary(R"(^([A-Za-z_][A-Za-z0-9_]*) \[[^\]]*\]: [a-z_0-9]+, (\d+) registers, (\d+) B shared memory, (\d+) B spilled)");
  static const std::regex tiles(R"(B spilled, (tensorcore: [^>]*) -> )");
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, summary)) {
      if (!out.count(m[1])) { // the first variant speaks for the kernel
        Figures &f = out[m[1]];
        f.registers = std::stoi(m[2]);
        f.smem = std::stoll(m[3]);
        f.spill = std::stoll(m[4]);
        if (std::smatch t; std::regex_search(line, t, tiles)) f.tiles = t[1];
      }
      current.clear();
      continue;
    }
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) current = m[1];
    if (current.empty()) continue;
    if (std::regex_search(line, m, used)) out[current].registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem)) out[current].smem = std::stoll(m[1]);
    if (std::regex_search(line, m, spill)) out[current].spill = std::stoll(m[1]);
  }
  return out;
}

/// Kernel figures from manifest.json (keys as `ph build` writes them).
void readManifest(const fs::path &dir, std::map<std::string, Figures> &out) {
  std::ifstream f(dir / "manifest.json");
  if (!f) return;
  json m = json::parse(f, nullptr, false);
  if (m.is_discarded()) return;
  json kernels = m.value("kernels", json::array());
  if (kernels.is_object()) {
    json arr = json::array();
    for (auto &[k, v] : kernels.items()) {
      json e = v;
      if (e.is_object() && !e.contains("name")) e["name"] = k;
      arr.push_back(e);
    }
    kernels = arr;
  }
  if (!kernels.is_array()) return;
  std::set<std::string> seen;
  for (const json &k : kernels) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) continue;
    // One entry per autotune variant: the first speaks for the kernel.
    if (!seen.insert(k["name"].get<std::string>()).second) continue;
    Figures &fig = out[k["name"].get<std::string>()];
    auto num = [&](std::initializer_list<const char *> keys, int64_t &dst) {
      for (const char *key : keys)
        if (k.contains(key) && k[key].is_number_integer()) {
          dst = k[key].get<int64_t>();
          return;
        }
    };
    int64_t regs = fig.registers, threads = fig.threads;
    num({"registers", "regs"}, regs);
    num({"sharedBytes", "shared_bytes", "smem", "sharedMemory"}, fig.smem);
    if (k.contains("dynamicShared") || k.contains("staticShared"))
      fig.smem = k.value("dynamicShared", int64_t(0)) + k.value("staticShared", int64_t(0));
    num({"spillStores", "spillBytes", "spill_bytes", "spills"}, fig.spill);
    num({"threads", "blockSize", "block"}, threads);
    fig.registers = static_cast<int>(regs);
    fig.threads = static_cast<int>(threads);
    // The tensor-core lowering's first note is its summary (docs/tensorcore.md).
    json notes = k.value("notes", json::array());
    if (k.value("unit", std::string()) == "tensorcore" && notes.is_array() && !notes.empty() && notes[0].is_string() &&
        notes[0].get<std::string>().rfind("tensorcore: ", 0) == 0)
      fig.tiles = notes[0].get<std::string>();
    else if (k.value("tensorcore", false) == true && k.value("unit", std::string()) == "simt")
      fig.tiles = "SIMT: tiles in shared memory";
  }
}

} // namespace

/// Bytes as "512 B" or "47.2 KiB".
static std::string bytesText(int64_t b) {
  if (b < 1024) return std::to_string(b) + " B";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
  return buf;
}

/// "tensorcore: 20 tiles in registers, 3 in shared memory" -> "tc: 20 tiles in regs, 3 in smem".
static std::string shortTiles(std::string t) {
  auto replace = [&](const std::string &from, const std::string &to) {
    for (size_t p = t.find(from); p != std::string::npos; p = t.find(from, p + to.size())) t.replace(p, from.size(), to);
  };
  replace("tensorcore: ", "tc: ");
  replace("registers", "regs");
  replace("shared memory", "smem");
  return t;
}

std::string figuresText(const Figures &f, const std::string &arch) {
  // Short: it is a lens line of its own and a column of the compile table.
  std::vector<std::string> parts;
  if (f.registers >= 0) parts.push_back(std::to_string(f.registers) + " regs");
  if (f.smem >= 0) parts.push_back(bytesText(f.smem) + " smem");
  if (f.spill > 0) parts.push_back(bytesText(f.spill) + " spilled");
  if (f.registers >= 0 || f.smem >= 0) parts.push_back(occupancyText(f, arch));
  if (!f.tiles.empty()) parts.push_back(shortTiles(f.tiles));
  std::string s;
  for (const auto &p : parts) s += (s.empty() ? "" : " · ") + p;
  return s;
}

FiguresByKernel readFigures(const std::string &output, const fs::path &dir) {
  FiguresByKernel figures = parsePtxasReport(output);
  readManifest(dir, figures);
  return figures;
}

/// The tensor-core lowering's notes of each kernel's first variant, `tile `T` at
/// FILE:LINE:COL: WHERE`, as "`T` in WHERE" by canonical FILE and LINE.
void readPlacements(const fs::path &dir, Placements &out) {
  std::ifstream f(dir / "manifest.json");
  if (!f) return;
  json m = json::parse(f, nullptr, false);
  if (m.is_discarded() || !m.contains("kernels") || !m["kernels"].is_array()) return;
  static const std::regex note(R"(^tile `([^`]*)` at (.*):(\d+):\d+: (.*)$)");
  std::set<std::string> seen;
  std::map<std::string, std::map<uint32_t, std::vector<std::string>>> found;
  for (const json &k : m["kernels"]) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string() || !k.contains("notes")) continue;
    if (!seen.insert(k["name"].get<std::string>()).second || !k["notes"].is_array()) continue;
    for (const json &n : k["notes"]) {
      std::smatch sm;
      std::string text = n.is_string() ? n.get<std::string>() : std::string();
      if (!std::regex_match(text, sm, note)) continue;
      std::error_code ec;
      std::string file = fs::weakly_canonical(sm[2].str(), ec).string();
      if (ec) file = sm[2].str();
      std::vector<std::string> &at = found[file][static_cast<uint32_t>(std::stoul(sm[3].str()))];
      std::string item = "`" + sm[1].str() + "` in " + sm[4].str();
      if (std::find(at.begin(), at.end(), item) == at.end()) at.push_back(item);
    }
  }
  // A file's placements come from its latest compile only.
  for (auto &[file, lines] : found) out[file] = std::move(lines);
}

/// Lines `file:line:col: severity[code]: message` the driver printed about `path`.
json parseDiagnostics(const std::string &text, const std::string &path, const std::string &docText) {
  json out = json::array();
  static const std::regex re(R"(^(.*):(\d+):(\d+): (error|warning)\[([A-Z]\d+)\]: (.*)$)");
  LineIndex index(docText);
  std::istringstream in(text);
  std::string line;
  std::string base = fs::path(path).filename().string();
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, re)) continue;
    if (fs::path(m[1].str()).filename().string() != base) continue;
    uint32_t l = static_cast<uint32_t>(std::stoul(m[2])) - 1, c = static_cast<uint32_t>(std::stoul(m[3])) - 1;
    // The driver counts columns in bytes, as the frontend does.
    uint32_t lineStart = index.offset({l, 0});
    Position p = index.position(lineStart + c);
    out.push_back({{"range", toJson(Range{p, p})},
                   {"severity", m[4] == "error" ? 1 : 2},
                   {"code", m[5].str()},
                   {"source", "ph build"},
                   {"message", m[6].str()}});
  }
  return out;
}

/// Maps each line of printed IR to the `.ph` line it came from: MLIR

} // namespace ph::lsp::driver
