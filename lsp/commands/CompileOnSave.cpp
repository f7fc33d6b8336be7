//===- CompileOnSave.cpp - `ph build` after each save ------------------------===//
//
// A newer save cancels the build in flight. The build's diagnostics (and a
// W0502 for each kernel that spills) are published with the document's own;
// its figures go to the lens and hover.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include <filesystem>

namespace fs = std::filesystem;

namespace ph::lsp {

void Server::compileOnSave(const std::string &uri) {
  auto cancel = std::make_shared<CancelState>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto &slot = builds_[uri];
    if (slot) slot->cancel(); // a newer save supersedes the build in flight
    slot = cancel;
  }
  scheduler_->runJob([this, uri, cancel] {
    Settings st = settings();
    std::string path = uriToPath(uri), root;
    {
      std::lock_guard<std::mutex> lock(mu_);
      root = rootPath_;
    }
    std::string outError;
    fs::path out = driver::outputFolder(st.outputDir, root, path, outError);
    if (out.empty()) {
      endpoint_.notify("window/showMessage", {{"type", 2}, {"message", "compile on save: " + outError}});
      if (endpoint_.log) endpoint_.log("compile on save refused: " + outError);
      return;
    }
    std::vector<std::string> argv = {driverPath(), "build", path, "-o", out.string(), "--json"};
    if (st.target.rfind("sm_", 0) == 0 || st.target == "cpu") argv.insert(argv.end(), {"--target", st.target});
    ProcessResult r = runProcess(argv, "", cancel);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = builds_.find(uri);
      if (it != builds_.end() && it->second == cancel) builds_.erase(it);
    }
    if (r.cancelled || !r.started) return;
    if (driver::stageMissing(r)) {
      if (endpoint_.log) endpoint_.log("compile on save skipped: " + driver::firstLines(r.err, 1));
      return;
    }
    rt::report::Document doc;
    if (std::string why = driver::readBuild(r, doc); !why.empty()) {
      if (endpoint_.log) endpoint_.log("compile on save: " + why + ": " + driver::firstLines(r.err, 3));
      return;
    }
    // The build's diagnostics (W0502 for spills among them) are the driver's own.
    json diags = json::array();
    if (auto snap = scheduler_->latest(uri)) diags = driver::diagnosticsOf(doc, *snap, featureOptions(), path);
    auto figures = driver::figuresByKernel(doc);
    {
      std::lock_guard<std::mutex> lock(mu_);
      backendDiags_[uri] = diags;
      driver::readPlacements(doc, features_.tilePlacements);
      for (auto &[k, text] : figures) features_.compileFigures[k] = text;
    }
    if (auto snap = scheduler_->latest(uri)) publish(snap);
    if (clientCodeLensRefresh_ && !figures.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
  });
}

} // namespace ph::lsp
