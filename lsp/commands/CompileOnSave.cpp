//===- CompileOnSave.cpp - `ph build` after each save ------------------------===//
//
// A newer save, or an edit, cancels the build in flight. `ph build` takes
// unchanged kernels from its cache and prints each variant's figures as soon
// as it and the ones before it are done, first configuration first; each line
// is shown as it arrives ($/progress report). The build's diagnostics (and a
// W0502 for each kernel that spills) are published with the document's own,
// for the version that was saved only (an edit drops them, and one the
// analysis already reports is not repeated: Server::publish); its figures go
// to the lens and hover, and `ph/compiled` tells the client how it went (the
// editors' feedback after a save). loadLastBuild reads the figures of the last
// build on disk after a restart.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include "ph/Analysis.h"

#include <chrono>
#include <cstdio>
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
  int64_t version = 0;
  if (!scheduler_->text(uri, &version)) {
    // A save of a document that is not open names nothing the server may build.
    if (endpoint_.log) endpoint_.log("compile on save ignored: " + uri + " is not open");
    return;
  }
  scheduler_->runJob([this, uri, cancel, version] {
    auto started = std::chrono::steady_clock::now();
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
    auto progress = beginProgress("Compiling " + fs::path(path).filename().string(), nullptr, cancel);
    int variants = 0;
    ProcessResult r = runProcess(argv, "", cancel, std::chrono::minutes(10), [&](const std::string &line) {
      // `K [D=64,...]: sm_90, 96 registers, ... -> DIR/K.D64.cubin[ (cached)]`
      if (!progress || line.find(" -> ") == std::string::npos) return;
      progress->report(std::to_string(++variants) + ": " + line.substr(0, line.find(" -> ")) +
                       (line.size() > 9 && line.compare(line.size() - 9, 9, " (cached)") == 0 ? " (cached)" : ""));
    });
    if (progress) {
      std::string last = r.out.substr(r.out.rfind("wrote ") == std::string::npos ? r.out.size() : r.out.rfind("wrote "));
      progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? driver::firstLines(last, 1) : "failed");
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = builds_.find(uri);
      if (it != builds_.end() && it->second == cancel) builds_.erase(it);
    }
    if (r.cancelled || !r.started) return;
    driver::renameCopy(r, file, path);
    std::string name = fs::path(path).filename().string();
    if (driver::stageMissing(r)) {
      if (endpoint_.log) endpoint_.log("compile on save skipped: " + driver::firstLines(r.err, 1));
      endpoint_.notify("ph/compiled", {{"uri", uri}, {"ok", false}, {"message", name + ": not compiled (" + driver::firstLines(r.err, 1) + ")"}});
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
    json figs = json::object();
    {
      std::lock_guard<std::mutex> lock(mu_);
      backendDiags_[uri] = {{"version", version}, {"diagnostics", diags}};
      driver::readPlacements(out, features_.tilePlacements);
      for (auto &[k, f] : figures) {
        std::string t = driver::figuresText(f, arch);
        if (t.empty()) continue;
        features_.compileFigures[k] = t;
        figs[k] = t;
      }
    }
    if (auto snap = scheduler_->latest(uri)) publish(snap);
    if (clientCodeLensRefresh_ && !figures.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
    // One line for the editor's status bar or echo area.
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    char took[32];
    std::snprintf(took, sizeof took, "%.1f s", secs);
    std::string msg = name + (r.exitCode == 0 ? " compiled in " : " failed to compile in ") + took;
    if (r.exitCode != 0) msg += ": " + driver::firstLines(r.err, 1);
    for (auto &[k, t] : figs.items()) msg += "; " + k + ": " + t.get<std::string>();
    endpoint_.notify("ph/compiled", {{"uri", uri}, {"ok", r.exitCode == 0}, {"message", msg}, {"figures", figs},
                                     {"diagnostics", diags.size()}, {"outputDir", out.string()}});
  });
}

void Server::loadLastBuild() {
  Settings st = settings();
  std::string root;
  {
    std::lock_guard<std::mutex> lock(mu_);
    root = rootPath_;
  }
  if (root.empty()) return;
  std::string error;
  fs::path out = driver::outputFolder(st.outputDir, root, root + "/x.ph", error);
  std::error_code ec;
  if (out.empty() || !fs::exists(out / "manifest.json", ec)) return;
  auto figures = driver::readFigures("", out);
  std::string arch = st.target.rfind("sm_", 0) == 0 ? st.target : "sm_90";
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    driver::readPlacements(out, features_.tilePlacements);
    for (auto &[k, f] : figures) {
      std::string t = driver::figuresText(f, arch);
      // A build of this session is newer than the one on disk.
      if (!t.empty() && features_.compileFigures.emplace(k, t).second) any = true;
    }
  }
  if (endpoint_.log) endpoint_.log("figures of " + std::to_string(figures.size()) + " kernel(s) from " + (out / "manifest.json").string());
  if (any && clientCodeLensRefresh_) endpoint_.call("workspace/codeLens/refresh", nullptr);
}

} // namespace ph::lsp
