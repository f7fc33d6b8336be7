//===- IrLineMap.cpp - Which `.ph` line each line of printed IR came from ---===//
#include "Driver.h"

#include <map>
#include <regex>
#include <sstream>

namespace ph::lsp::driver {

/// Maps each line of printed IR to the `.ph` line it came from: MLIR
/// `loc("f.ph":L:C)` (inline or through `#locN` aliases), LLVM `!dbg` with
/// DILocation, PTX `.loc F L C`. Only locations in `phFile` count.
json irLineMap(const std::string &ir, const std::string &phFile) {
  std::string base = fs::path(phFile).filename().string();
  static const std::regex mlirAlias(R"(^#(loc\d*) = loc\((?:callsite\(.* at )?\"([^\"]*)\":(\d+):)");
  static const std::regex mlirInline(R"(loc\(\"([^\"]*)\":(\d+):)");
  static const std::regex mlirRef(R"(loc\((#loc\d*)\))");
  static const std::regex llvmDef(R"(^!(\d+) = (?:distinct )?!DILocation\(line: (\d+))");
  static const std::regex llvmUse(R"(!dbg !(\d+))");
  static const std::regex ptxFile(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
  static const std::regex ptxLoc(R"(^\s*\.loc\s+(\d+)\s+(\d+))");
  auto sameFile = [&](const std::string &f) { return fs::path(f).filename().string() == base; };

  std::vector<std::string> lines;
  {
    std::istringstream in(ir);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::map<std::string, int> aliases, dbg;
  std::map<std::string, bool> ptxFiles;
  for (const auto &l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, mlirAlias) && sameFile(m[2])) aliases["#" + m[1].str()] = std::stoi(m[3]);
    if (std::regex_search(l, m, llvmDef)) dbg[m[1]] = std::stoi(m[2]);
    if (std::regex_search(l, m, ptxFile)) ptxFiles[m[1]] = sameFile(m[2]);
  }
  json out = json::array(); // [{irLine, sourceLine}] pairs
  int ptxLine = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &l = lines[i];
    std::smatch m;
    int src = -1;
    if (std::regex_search(l, m, ptxLoc)) {
      ptxLine = ptxFiles[m[1]] ? std::stoi(m[2]) : -1;
      continue;
    }
    if (l.rfind("#loc", 0) == 0) continue; // the alias table itself
    if (std::regex_search(l, m, mlirInline) && sameFile(m[1])) src = std::stoi(m[2]);
    else if (std::regex_search(l, m, mlirRef) && aliases.count(m[1])) src = aliases[m[1]];
    else if (std::regex_search(l, m, llvmUse) && dbg.count(m[1])) src = dbg[m[1]];
    else if (ptxLine > 0 && !l.empty() && l.find_first_not_of(" \t") != std::string::npos && l.find("//") != 0)
      src = ptxLine;
    if (src > 0) out.push_back({{"irLine", i}, {"sourceLine", src - 1}}); // both 0-based
  }
  return out;
}

json irForeignLines(const std::string &ir, const std::string &phFile) {
  std::string base = fs::path(phFile).filename().string();
  static const std::regex alias(R"(^#(loc\d*) = loc\((.*)\)\s*$)");
  static const std::regex fileLine(R"(^\"([^\"]*)\":(\d+):)");
  static const std::regex inlineLoc(R"(loc\((\"[^\"]*\":\d+:[^)]*)\))");
  static const std::regex ref(R"(loc\((#loc\d*)\))");
  static const std::regex constant(R"(= arith\.constant )");
  std::vector<std::string> lines;
  {
    std::istringstream in(ir);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::map<std::string, std::string> aliases; // #locN -> its location's text
  for (const auto &l : lines)
    if (std::smatch m; std::regex_search(l, m, alias)) aliases["#" + m[1].str()] = m[2].str();
  json out = json::array();
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &l = lines[i];
    if (l.rfind("#loc", 0) == 0) continue;
    std::smatch m;
    std::string loc;
    if (std::regex_search(l, m, inlineLoc)) loc = m[1].str();
    else if (std::regex_search(l, m, ref) && aliases.count(m[1])) loc = aliases[m[1]];
    std::smatch f;
    if (loc.empty() || !std::regex_search(loc, f, fileLine)) continue;
    if (fs::path(f[1].str()).filename().string() == base) continue;
    // `loc` tells one source expression from another (line and columns): a copy of an
    // inlined `fn` repeats the locations of the copy before it. Constants can be hoisted
    // and shared between copies, so they say nothing about where a copy starts.
    out.push_back({{"irLine", i}, {"file", f[1].str()}, {"line", std::stoi(f[2])}, {"loc", loc},
                   {"constant", std::regex_search(l, constant)}});
  }
  return out;
}

} // namespace ph::lsp::driver
