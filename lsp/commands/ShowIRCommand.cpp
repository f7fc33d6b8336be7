//===- ShowIRCommand.cpp - ph.showIR: one stage of a kernel's lowering ---------===//
//
// `ph emit --stage S --debug-info --json` (SASS: `ph build --json` and cuobjdump
// of the cubins its document lists), with a map from each IR line to the `.ph`
// line it came from, built from the document's `lines` (the MLIR printer's
// record of each located op's line), never by re-reading locations in the text.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include "ph/Analysis.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>

namespace fs = std::filesystem;

namespace ph::lsp {

namespace {

/// The `fn` whose declaration holds 1-based `line` of the file at `path`, or UINT32_MAX.
uint32_t fnAt(const Analysis &a, const std::string &path, int line) {
  std::string name = fs::path(path).filename().string();
  for (uint32_t i = 0; i < a.symbols.size(); ++i) {
    const Symbol &s = a.symbols[i];
    if (s.kind != SymbolKind::Function || s.declRange.end == 0) continue;
    const SourceFile &f = a.sources.file(s.declRange.file);
    if (f.path() != path && fs::path(f.path()).filename().string() != name) continue;
    if (static_cast<int>(f.lineCol(s.declRange.begin).line) <= line && line <= static_cast<int>(f.lineCol(s.declRange.end).line))
      return i;
  }
  return UINT32_MAX;
}

/// The 0-based lines of the user's file that call `fn`, directly or through other `fn`s
/// (the README's kernel calls `attention`, which calls `online_softmax`).
void userCallLines(const Analysis &a, uint32_t fn, std::set<uint32_t> &out, int depth = 0) {
  if (fn == UINT32_MAX || depth > 8) return;
  for (const Occurrence &o : a.occurrences) {
    if (o.symbol != fn || o.isDefinition) continue;
    const SourceFile &f = a.sources.file(o.range.file);
    if (o.range.file == a.mainFile) out.insert(f.lineCol(o.range.begin).line - 1);
    else userCallLines(a, fnAt(a, f.path(), static_cast<int>(f.lineCol(o.range.begin).line)), out, depth + 1);
  }
}

} // namespace

void Server::showIR(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = requireKernel(args, snap);
  std::string stage = args.value("stage", "tile");
  static const std::set<std::string> stages = {"kir", "tile", "cpu", "gpu", "llvm", "ptx", "sass"};
  if (!stages.count(stage))
    throw RpcError{ErrorCode::InvalidParams, "unknown stage `" + stage + "`: use kir, tile, cpu, gpu, llvm, ptx or sass", nullptr};
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  auto cancel = reply.cancelState() ? reply.cancelState() : std::make_shared<CancelState>();
  auto progress = beginProgress("Showing " + stage + " of " + kernel, token, cancel);
  auto finish = [&](const char *msg) {
    if (progress) progress->end(msg);
    if (!tempDir.empty()) fs::remove_all(tempDir);
  };
  std::string text;
  std::vector<rt::report::IrLine> lines; // the emitted ops' lines (none for SASS, PTX, LLVM IR)
  if (stage == "sass") {
    std::string cuobjdump = findProgram("cuobjdump");
    if (cuobjdump.empty() && fs::exists("/usr/local/cuda/bin/cuobjdump")) cuobjdump = "/usr/local/cuda/bin/cuobjdump";
    if (cuobjdump.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "SASS needs `cuobjdump` (CUDA Toolkit), which is not on PATH", nullptr};
    }
    char tmpl[] = "/tmp/ph-lsp-sass-XXXXXX";
    std::string outDir = mkdtemp(tmpl) ? tmpl : "/tmp";
    std::vector<std::string> buildArgv = {driverPath(), "build", file, "--kernel", kernel, "-o", outDir, "--json"};
    driver::appendSourceName(buildArgv, file, uriToPath(args["uri"].get<std::string>()));
    ProcessResult b = runProcess(buildArgv, "", cancel);
    rt::report::Document doc;
    std::string why = b.started ? driver::readBuild(b, doc) : b.error;
    if (b.exitCode != 0 || !b.started || !why.empty() || !doc.ok) {
      fs::remove_all(outDir);
      finish("failed");
      if (b.cancelled) { reply.error(ErrorCode::RequestCancelled, "ph.showIR cancelled"); return; }
      if (!b.started) throw RpcError{ErrorCode::RequestFailed, b.error, nullptr};
      throw why.empty() ? driver::buildError(doc, b) : driver::driverError("`ph build`", b);
    }
    // The cubins the document lists, one per configuration.
    for (const rt::report::Variant &v : doc.variants) {
      ProcessResult d = runProcess({cuobjdump, "-sass", (fs::path(outDir) / v.cubin).string()}, "", cancel);
      text += "// " + v.cubin + "\n" + d.out;
    }
    fs::remove_all(outDir);
    if (text.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "`ph build` wrote no cubin for `" + kernel + "`", nullptr};
    }
  } else {
    // --debug-info makes the MLIR stages print their locations, which map IR lines to .ph lines.
    std::vector<std::string> argv = {driverPath(), "emit", file, "--kernel", kernel, "--stage", stage, "--json"};
    if (stage != "kir") argv.push_back("--debug-info");
    if (args.contains("config") && args["config"].is_string()) argv.insert(argv.end(), {"--config", args["config"].get<std::string>()});
    driver::appendSourceName(argv, file, uriToPath(args["uri"].get<std::string>()));
    ProcessResult r = runProcess(argv, "", cancel);
    if (r.cancelled) {
      finish("cancelled");
      reply.error(ErrorCode::RequestCancelled, "ph.showIR cancelled");
      return;
    }
    if (!r.started) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
    }
    // The stage's text comes in `ph emit --json`'s document (docs/output.md), beside
    // the diagnostics that explain a failure.
    rt::report::Document doc;
    std::string why = driver::readDocument(r, "emit", doc);
    if (r.exitCode != 0 || !why.empty() || !doc.ok) {
      finish("failed");
      // The document's first error (or its `error`: a stage this `ph` lacks says so there).
      ProcessResult said = r;
      if (why.empty()) said.err = driver::firstError(doc, r) + (r.err.empty() ? "" : "\n" + r.err);
      throw driver::driverError("`ph emit --stage " + stage + "`", said);
    }
    text = doc.text;
    lines = std::move(doc.lines);
  }
  finish("done");
  // Two shapes of one mapping: `sourceLines` has one entry per IR line (a 0-based
  // .ph line or null), `map` lists the mapped lines as {irLine, sourceLine} pairs.
  json pairs = driver::irLineMap(lines, file);
  // The frontend inlines `fn` calls without call-site locations: an IR line from a std
  // function maps to the line of the user's file that calls it.
  if (snap && snap->analysis) {
    const Analysis &a = *snap->analysis;
    // Calls in another kernel of the file are not this IR's.
    const SourceFile &main = a.sources.file(a.mainFile);
    std::vector<std::pair<uint32_t, uint32_t>> others; // 0-based line ranges of the other kernels
    for (const KernelSummary &k : a.kernels)
      if (k.name != kernel && k.declRange.file == a.mainFile)
        others.push_back({main.lineCol(k.declRange.begin).line - 1, main.lineCol(k.declRange.end).line - 1});
    auto inOther = [&](uint32_t line) {
      return std::any_of(others.begin(), others.end(), [&](auto &r) { return r.first <= line && line <= r.second; });
    };
    std::map<std::pair<std::string, int>, std::vector<uint32_t>> memo;
    // A fn called on several lines is inlined once per call, the copies in the order of
    // the calls. A copy repeats the locations of the copy before it, so a location seen
    // again (not on the line right after: one expression can print several ops) starts
    // the next copy. Per set of call lines: the copy now, and the locations it has shown.
    struct Copies {
      size_t copy = 0;
      std::set<std::string> seen;
      std::string last;
      std::vector<std::pair<size_t, size_t>> lines; // {irLine, copy}
    };
    std::map<std::vector<uint32_t>, Copies> groups;
    std::string base = fs::path(file).filename().string();
    for (const rt::report::IrLine &l : lines) {
      if (l.irLine < 1 || l.range.start.line < 1 || fs::path(l.range.file).filename().string() == base) continue;
      auto key = std::make_pair(l.range.file, l.range.start.line);
      auto it = memo.find(key);
      if (it == memo.end()) {
        std::set<uint32_t> callLines;
        userCallLines(a, fnAt(a, key.first, key.second), callLines);
        std::vector<uint32_t> mine;
        for (uint32_t c : callLines)
          if (!inOther(c)) mine.push_back(c);
        it = memo.emplace(key, std::move(mine)).first;
      }
      if (it->second.empty()) continue;
      Copies &g = groups[it->second];
      // The op's whole range tells one source expression from another.
      std::string loc = l.range.file + ":" + std::to_string(l.range.start.line) + ":" + std::to_string(l.range.start.col) +
                        "-" + std::to_string(l.range.end.line) + ":" + std::to_string(l.range.end.col);
      // Constants can be hoisted and shared between copies: they say nothing about where a copy starts.
      if (l.op != "arith.constant") {
        if (g.seen.count(loc) && loc != g.last) {
          ++g.copy;
          g.seen.clear();
        }
        g.seen.insert(loc);
        g.last = loc;
      }
      g.lines.push_back({size_t(l.irLine - 1), g.copy});
    }
    for (const auto &[calls, g] : groups) {
      // More copies than calls: the stage moved or duplicated ops (pipelining); the copies
      // cannot be told apart, and every line shows the first call.
      bool byCopy = g.copy < calls.size();
      for (const auto &[irLine, copy] : g.lines)
        pairs.push_back({{"irLine", irLine}, {"sourceLine", calls[byCopy ? copy : 0]}});
    }
  }
  size_t irLines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  json perLine = json::array();
  for (size_t i = 0; i < irLines; ++i) perLine.push_back(nullptr);
  for (const json &p : pairs) perLine[p["irLine"].get<size_t>()] = p["sourceLine"];
  reply({{"kernel", kernel}, {"stage", stage}, {"text", text}, {"sourceUri", args["uri"]}, {"sourceLines", perLine}, {"map", pairs}});
}

} // namespace ph::lsp
