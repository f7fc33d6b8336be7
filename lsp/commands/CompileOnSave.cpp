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

#include "ph/Analysis.h"

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
  if (!scheduler_->text(uri)) {
    // A save of a document that is not open names nothing the server may build.
    if (endpoint_.log) endpoint_.log("compile on save ignored: " + uri + " is not open");
    return;
  }
  scheduler_->runJob([this, uri, cancel] {
    Settings st = settings();
    std::string path = filePathOfUri(uri), root;
    std::string tempDir, file;
    try {
      file = fileForDriver(uri, tempDir);
    } catch (const RpcError &e) {
      if (endpoint_.log) endpoint_.log("compile on save refused: " + e.message);
      return;
    }
    struct RemoveTemp {
      std::string dir;
      ~RemoveTemp() {
        std::error_code ec;
        if (!dir.empty()) fs::remove_all(dir, ec);
      }
    } removeTemp{tempDir};
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
    std::vector<std::string> argv = {driverPath(), "build", file, "-o", out.string()};
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
    auto text = scheduler_->text(uri);
    json diags = driver::parseDiagnostics(r.out + "\n" + r.err, path, text ? *text : std::string());
    auto figures = driver::readFigures(r.out + "\n" + r.err, out);
    std::string arch = st.target.rfind("sm_", 0) == 0 ? st.target : "sm_90";
    for (auto &[k, f] : figures) {
      if (f.spill <= 0) continue;
      // Spills are warnings on the kernel's name, as the registry words them.
      json w = {{"severity", 2}, {"code", diagInfo(DiagKind::RegisterSpill).code}, {"source", "ph build"},
                {"message", formatDiag(DiagKind::RegisterSpill, {k, std::to_string(f.spill), std::to_string(f.registers)})},
                {"range", toJson(Range{})}};
      if (auto snap = scheduler_->latest(uri); snap && snap->analysis)
        for (const KernelSummary &ks : snap->analysis->kernels)
          if (ks.name == k) w["range"] = toJson(snap->lines.range(ks.nameRange.begin, ks.nameRange.end));
      diags.push_back(w);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      backendDiags_[uri] = diags;
      driver::readPlacements(out, features_.tilePlacements);
      for (auto &[k, f] : figures) {
        std::string t = driver::figuresText(f, arch);
        if (!t.empty()) features_.compileFigures[k] = t;
      }
    }
    if (auto snap = scheduler_->latest(uri)) publish(snap);
    if (clientCodeLensRefresh_ && !figures.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
  });
}

} // namespace ph::lsp
