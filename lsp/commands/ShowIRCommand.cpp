//===- ShowIRCommand.cpp - ph.showIR: one stage of a kernel's lowering ---------===//
//
// `ph emit --stage S --debug-info` (SASS: `ph build` and cuobjdump), with a
// map from each IR line to the `.ph` line it came from.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <set>

namespace fs = std::filesystem;

namespace ph::lsp {

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
  if (stage == "sass") {
    std::string cuobjdump = findProgram("cuobjdump");
    if (cuobjdump.empty() && fs::exists("/usr/local/cuda/bin/cuobjdump")) cuobjdump = "/usr/local/cuda/bin/cuobjdump";
    if (cuobjdump.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "SASS needs `cuobjdump` (CUDA Toolkit), which is not on PATH", nullptr};
    }
    char tmpl[] = "/tmp/ph-lsp-sass-XXXXXX";
    std::string outDir = mkdtemp(tmpl) ? tmpl : "/tmp";
    ProcessResult b = runProcess({driverPath(), "build", file, "--kernel", kernel, "-o", outDir}, "", cancel);
    if (b.exitCode != 0 || !b.started) {
      fs::remove_all(outDir);
      finish("failed");
      if (b.cancelled) { reply.error(ErrorCode::RequestCancelled, "ph.showIR cancelled"); return; }
      throw b.started ? driver::driverError("`ph build`", b) : RpcError{ErrorCode::RequestFailed, b.error, nullptr};
    }
    for (auto &e : fs::recursive_directory_iterator(outDir))
      if (e.path().extension() == ".cubin") {
        ProcessResult d = runProcess({cuobjdump, "-sass", e.path().string()}, "", cancel);
        text += "// " + e.path().filename().string() + "\n" + d.out;
      }
    fs::remove_all(outDir);
    if (text.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "`ph build` wrote no cubin for `" + kernel + "`", nullptr};
    }
  } else {
    // --debug-info makes the MLIR stages print their locations, which map IR lines to .ph lines.
    std::vector<std::string> argv = {driverPath(), "emit", file, "--kernel", kernel, "--stage", stage};
    if (stage != "kir") argv.push_back("--debug-info");
    if (args.contains("config") && args["config"].is_string()) argv.insert(argv.end(), {"--config", args["config"].get<std::string>()});
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
    if (r.exitCode != 0) {
      finish("failed");
      throw driver::driverError("`ph emit --stage " + stage + "`", r);
    }
    text = r.out;
  }
  finish("done");
  // Two shapes of one mapping: `sourceLines` has one entry per IR line (a 0-based
  // .ph line or null), `map` lists the mapped lines as {irLine, sourceLine} pairs.
  json pairs = driver::irLineMap(text, file);
  size_t irLines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  json perLine = json::array();
  for (size_t i = 0; i < irLines; ++i) perLine.push_back(nullptr);
  for (const json &p : pairs) perLine[p["irLine"].get<size_t>()] = p["sourceLine"];
  reply({{"kernel", kernel}, {"stage", stage}, {"text", text}, {"sourceUri", args["uri"]}, {"sourceLines", perLine}, {"map", pairs}});
}

} // namespace ph::lsp
