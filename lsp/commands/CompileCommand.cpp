//===- CompileCommand.cpp - ph.compile: `ph build` into the output folder ------===//
//
// Builds the file (or one kernel) into `ph.outputDir`, which must stay inside
// the workspace; the figures of each kernel (registers, shared memory,
// occupancy, where its tiles live) go to the lens and hover.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace ph::lsp {

void Server::compileKernel(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = resolveKernel(args, snap);
  Settings st = settings();
  std::string target = args.value("target", st.target);
  std::string path = filePathOfUri(args["uri"].get<std::string>());
  std::string root;
  {
    std::lock_guard<std::mutex> lock(mu_);
    root = rootPath_;
  }
  std::string outError;
  fs::path out = driver::outputFolder(st.outputDir, root, path, outError);
  if (out.empty()) throw RpcError{ErrorCode::InvalidParams, outError, nullptr};
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "build", file, "-o", out.string(), "--json"};
  if (!kernel.empty()) argv.insert(argv.end(), {"--kernel", kernel});
  // A cubin is for a GPU whatever the run target is (cpu, interp, auto): only an explicit
  // architecture is passed on.
  if (target.rfind("sm_", 0) == 0) argv.insert(argv.end(), {"--target", target});
  driver::appendSourceName(argv, file, path);
  auto cancel = reply.cancelState() ? reply.cancelState() : std::make_shared<CancelState>();
  auto progress = beginProgress("Compiling " + (kernel.empty() ? fs::path(path).filename().string() : kernel), token, cancel);
  ProcessResult r = runProcess(argv, "", cancel);
  if (!tempDir.empty()) fs::remove_all(tempDir);
  if (progress) progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? "done" : "failed");
  if (r.cancelled) {
    reply.error(ErrorCode::RequestCancelled, "ph.compile cancelled");
    return;
  }
  if (!r.started) throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
  rt::report::Document doc;
  if (std::string why = driver::readBuild(r, doc); !why.empty()) {
    if (r.exitCode != 0) throw driver::driverError("`ph build`", r);
    throw RpcError{ErrorCode::RequestFailed, why, nullptr};
  }
  if (!doc.ok || r.exitCode != 0) throw driver::buildError(doc, r);
  json figs = json::object();
  {
    std::lock_guard<std::mutex> lock(mu_);
    driver::readPlacements(doc, features_.tilePlacements);
    for (auto &[k, text] : driver::figuresByKernel(doc)) {
      features_.compileFigures[k] = text;
      figs[k] = text;
    }
  }
  reply({{"ok", true}, {"outputDir", out.string()}, {"kernel", kernel}, {"figures", figs},
         {"build", rt::report::toJson(doc)}, {"stderr", r.err}});
  if (clientCodeLensRefresh_ && !figs.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
}

} // namespace ph::lsp
