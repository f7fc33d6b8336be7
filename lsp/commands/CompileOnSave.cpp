//===- CompileOnSave.cpp - `ph build` after each save ------------------------===//
//
// A newer save, or an edit, cancels the build in flight (the driver is killed and
// nothing is published). `ph build --json --progress` writes a typed event per
// variant as it is done, first configuration first (unchanged ones come from its
// cache): each is a $/progress report with that variant's figures. Its document
// is read as typed data: its diagnostics (W0502 for a kernel that spills among
// them, with ranges and notes) are published with the document's own,
// for the version that was saved only (an edit drops them, and one the
// analysis already reports is not repeated: Server::publish); its figures go
// to the lens and hover, and `ph/compiled` tells the client how it went (the
// editors' feedback after a save). loadLastBuild reads the figures of the last
// build on disk (its manifest, through the runtime's reader) after a restart.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Progress.h"
#include "Server.h"

#include <chrono>
#include <cstdio>
#include <cstring>
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
    std::vector<std::string> argv = {driverPath(), "build", file, "-o", out.string(), "--json", "--progress"};
    // A cubin is for a GPU whatever the run target is (cpu, interp, auto), as for ph.compile:
    // only an explicit architecture is passed on (`ph build --target cpu` is a usage error).
    if (st.target.rfind("sm_", 0) == 0) argv.insert(argv.end(), {"--target", st.target});
    driver::appendSourceName(argv, file, path);
    auto progress = beginProgress("Compiling " + fs::path(path).filename().string(), nullptr, cancel, true);
    int of = 0, done = 0, fromCache = 0, skipped = 0;
    ProcessResult r = runProcess(argv, "", cancel, std::chrono::minutes(10), [&](const std::string &line) {
      rt::report::Event e;
      if (!rt::report::eventFromJson(line, e).empty()) return; // the document, read at the end
      of = e.of;
      if (e.event != "variant") return;
      ++done;
      if (e.fromCache) ++fromCache;
      if (e.skipped) ++skipped;
      // `3/16 mha [D=128,BR=64]: 168 regs · 47.2 KiB smem · 1 blocks/SM (...)`
      std::string msg = std::to_string(e.index + 1) + "/" + std::to_string(e.of) + " " + e.kernel;
      if (!e.configName.empty()) msg += " [" + e.configName + "]";
      msg += ": " + (e.variant ? driver::figuresText(*e.variant) : std::string(e.skipped ? "left out (does not fit the target)" : "failed"));
      if (e.fromCache) msg += " (cached)";
      if (progress) progress->report(msg, e.of ? (e.index + 1) * 100 / e.of : -1);
    });
    if (progress) {
      char took[96];
      std::snprintf(took, sizeof took, "%d variant(s): %d compiled, %d cached, %.1f s", of - skipped, done - fromCache - skipped,
                    fromCache, std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
      if (skipped) std::snprintf(took + std::strlen(took), sizeof took - std::strlen(took), ", %d left out", skipped);
      progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? std::string(took) : "failed");
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = builds_.find(uri);
      if (it != builds_.end() && it->second == cancel) builds_.erase(it);
    }
    if (r.cancelled || !r.started) return;
    std::string name = fs::path(path).filename().string();
    if (driver::stageMissing(r)) {
      if (endpoint_.log) endpoint_.log("compile on save skipped: " + driver::firstLines(r.err, 1));
      endpoint_.notify("ph/compiled", {{"uri", uri}, {"ok", false}, {"message", name + ": not compiled (" + driver::firstLines(r.err, 1) + ")"}});
      return;
    }
    rt::report::Document doc;
    if (std::string why = driver::readBuild(r, doc); !why.empty()) {
      if (endpoint_.log) endpoint_.log("compile on save: " + why + ": " + driver::firstLines(r.err, 3));
      endpoint_.notify("ph/compiled", {{"uri", uri}, {"ok", false}, {"message", name + ": not compiled (" + why + ")"}});
      return;
    }
    // The build's diagnostics (W0502 for spills among them) are the driver's own.
    json diags = json::array();
    if (auto snap = scheduler_->latest(uri)) diags = driver::diagnosticsOf(doc, *snap, featureOptions(), path);
    auto figures = driver::figuresByKernel(doc);
    json figs = json::object();
    {
      std::lock_guard<std::mutex> lock(mu_);
      backendDiags_[uri] = {{"version", version}, {"diagnostics", diags}};
      driver::readPlacements(doc, features_.tilePlacements);
      for (auto &[k, t] : figures) {
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
    bool ok = r.exitCode == 0 && doc.ok;
    std::string msg = name + (ok ? " compiled in " : " failed to compile in ") + took;
    if (!ok) msg += ": " + driver::firstError(doc, r);
    for (auto &[k, t] : figs.items()) msg += "; " + k + ": " + t.get<std::string>();
    endpoint_.notify("ph/compiled", {{"uri", uri}, {"ok", ok}, {"message", msg}, {"figures", figs},
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
  std::string arch = st.target.rfind("sm_", 0) == 0 ? st.target : "sm_90";
  rt::report::Document doc;
  if (std::string why = driver::readLastBuild(out, arch, doc); !why.empty()) {
    if (endpoint_.log) endpoint_.log("no figures from the last build: " + why);
    return;
  }
  auto figures = driver::figuresByKernel(doc);
  bool any = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    driver::readPlacements(doc, features_.tilePlacements);
    // A build of this session is newer than the one on disk.
    for (auto &[k, t] : figures)
      if (features_.compileFigures.emplace(k, t).second) any = true;
  }
  if (endpoint_.log) endpoint_.log("figures of " + std::to_string(figures.size()) + " kernel(s) from " + (out / "manifest.json").string());
  if (any && clientCodeLensRefresh_) endpoint_.call("workspace/codeLens/refresh", nullptr);
}

} // namespace ph::lsp
