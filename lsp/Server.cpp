//===- Server.cpp - Lifecycle, sync and routing of ph-lsp -----------------===//
#include "Server.h"
#include "Subprocess.h"
#include "features/ItemCache.h"

#include "ph/Analysis.h"
#include "ph/Incremental.h"

#include <filesystem>
#include <type_traits>
#include <unistd.h>

namespace ph::lsp {

static const char *kVersion = "0.1.0";

/// The scheduler's view of an incremental update: publish from its diagnostics, build
/// the whole analysis on first use, and finish the other configurations next.
static AnalysisResult toResult(IncrementalAnalyzer::Result r, std::shared_ptr<const SourceFile> file,
                               std::shared_ptr<IncrementalAnalyzer> analyzer, std::shared_ptr<ItemCache> cache,
                               bool slices) {
  if (!r.diagnostics) return AnalysisResult(std::make_shared<const Analysis>());
  if (!slices) r.slice = nullptr;              // ServerOptions::itemReads off
  if (!slices) r.items = nullptr; // full-document features item by item, cached or not
  AnalysisResult out(r.materialize ? LazyAnalysis::interruptible(r.materialize) : LazyAnalysis(r.diagnostics));
  if (r.materialize) out.published = r.diagnostics;
  if (r.typeHints) {
    auto items = std::make_shared<ItemFacts>();
    items->typeHints = std::move(r.typeHints);
    items->slice = std::move(r.slice);
    if (r.items) {
      auto spans = std::make_shared<std::vector<ItemFacts::Span>>();
      spans->reserve(r.items->size());
      for (const auto &sp : *r.items) spans->push_back({sp.begin, sp.end, sp.identity, sp.typedBy});
      items->spans = std::move(spans);
    }
    items->cache = cache;
    out.items = std::move(items);
  }
  // What is left, next on the document's strand unless an edit comes first: the callers
  // of an edited fn that kept their previous check (their first configuration), then
  // every configuration.
  if (!r.complete && !r.cancelled)
    out.rest = [file, analyzer, cache, slices, all = !r.staleItems](const std::function<bool()> &stale) {
      return toResult(analyzer->update(file, stale, all), file, analyzer, cache, slices);
    };
  return out;
}

struct Server::Analyzers {
  struct PerPath {
    std::shared_ptr<IncrementalAnalyzer> analyzer;
    std::shared_ptr<ItemCache> cache; // what the full-document features derived per item
  };
  std::mutex mu;
  std::map<std::string, PerPath> byPath;
  unsigned threads = 8; // ServerOptions::analysisThreads
  unsigned firstThreads = 0; // ServerOptions::firstAnalysisThreads
  bool inlineCache = true; // ServerOptions::inlineCache
  PerPath get(const std::string &path, const std::shared_ptr<const Prelude> &prelude) {
    std::lock_guard<std::mutex> lock(mu);
    auto &a = byPath[path];
    if (!a.analyzer) {
      a = {std::make_shared<IncrementalAnalyzer>(prelude), std::make_shared<ItemCache>()};
      a.analyzer->maxThreads = threads;
      a.analyzer->firstThreads = firstThreads;
      a.analyzer->cacheInlining = inlineCache;
    }
    return a;
  }
  void drop(const std::string &path) {
    std::lock_guard<std::mutex> lock(mu);
    byPath.erase(path);
  }
};

Server::Server(Endpoint::SendFn send, ServerOptions options)
    : endpoint_(std::move(send)), options_(std::move(options)) {
  prelude_ = Prelude::load(options_.stdDir);
  auto prelude = prelude_;
  analyzers_ = std::make_shared<Analyzers>();
  analyzers_->threads = std::max(1u, options_.analysisThreads);
  analyzers_->firstThreads = options_.firstAnalysisThreads;
  analyzers_->inlineCache = options_.inlineCache;
  // Each document's analyses run one at a time (its strand), on its own item cache;
  // diagnostics are published from the cheap part, the rest is built when a feature asks.
  auto analyzeFn = [prelude, analyzers = analyzers_, itemReads = options_.itemReads, itemCache = options_.itemCache](
                       const std::string &path, std::shared_ptr<const std::string> text,
                       const std::function<bool()> &stale) {
    auto file = std::make_shared<const SourceFile>(path, *text);
    auto per = analyzers->get(path, prelude);
    return toResult(per.analyzer->update(file, stale, false), file, per.analyzer, itemCache ? per.cache : nullptr,
                    itemReads);
  };
  watchdog_ = std::make_unique<Watchdog>();
  scheduler_ = std::make_unique<Scheduler>(analyzeFn, Scheduler::Options{options_.debounce, options_.threads, 2, options_.threads},
                                           [this](std::shared_ptr<const Snapshot> s) { publish(s); });
  settings_.phPath = options_.phPath;
  settings_.requestTimeout = options_.requestTimeout;
  registerHandlers();
}

Server::~Server() {
  // Stop subprocesses of running commands and builds, so the workers finish.
  endpoint_.cancelAll();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto &[uri, b] : builds_) b->cancel();
    for (auto &[tok, c] : progressTokens_) if (c) c->cancel();
  }
  scheduler_.reset();
  watchdog_.reset(); // after the workers: a request still running may disarm its deadline
}

Settings Server::settings() const {
  std::lock_guard<std::mutex> lock(mu_);
  return settings_;
}

FeatureOptions Server::featureOptions() const {
  std::lock_guard<std::mutex> lock(mu_);
  FeatureOptions o = features_;
  o.runTarget = runLabelLocked();
  return o;
}

std::string Server::runLabelLocked() const { return runTargetLabel(settings_.target, gpu_ ? &*gpu_ : nullptr); }

void Server::refreshLenses() {
  // Not during `initialize` (initializationOptions): nothing may be asked of the client before
  // its answer, and the client has no lenses yet.
  if (clientCodeLensRefresh_ && state_ == State::Running) endpoint_.call("workspace/codeLens/refresh", nullptr);
}

void Server::applySettings(const json &ph, bool fromUser) {
  if (!ph.is_object()) return;
  std::unique_lock<std::mutex> lock(mu_);
  // The Run lens is named after the target (`▶ Run on CPU`, `▶ Run on H200`): a client keeps
  // the lenses it has until asked to refresh them, so a new name is announced.
  const std::string labelBefore = runLabelLocked();
  if (ph.contains("path") && ph["path"].is_string()) {
    if (fromUser) {
      settings_.phPath = ph["path"];
    } else if (ph["path"] != settings_.phPath && !ph["path"].get<std::string>().empty()) {
      std::string msg = "`ph.path` is taken only from user settings (or `ph-lsp --ph`), never from a workspace: "
                        "the value `" + ph["path"].get<std::string>() + "` is ignored";
      bool first = !warnedWorkspacePath_;
      warnedWorkspacePath_ = true;
      lock.unlock();
      if (endpoint_.log) endpoint_.log(msg);
      if (first) endpoint_.notify("window/showMessage", {{"type", 2}, {"message", msg}});
      lock.lock();
    }
  }
  if (ph.contains("target") && ph["target"].is_string()) settings_.target = ph["target"];
  if (ph.contains("outputDir") && ph["outputDir"].is_string()) settings_.outputDir = ph["outputDir"];
  if (ph.contains("compileOnSave") && ph["compileOnSave"].is_boolean()) settings_.compileOnSave = ph["compileOnSave"];
  if (ph.contains("sizes") && ph["sizes"].is_object()) {
    settings_.sizes.clear();
    for (auto &[k, v] : ph["sizes"].items())
      if (v.is_number_integer()) settings_.sizes[k] = v.get<int64_t>();
  }
  if (ph.contains("requestTimeoutMs") && ph["requestTimeoutMs"].is_number_integer())
    settings_.requestTimeout = std::chrono::milliseconds(std::max<int64_t>(1, ph["requestTimeoutMs"].get<int64_t>()));
  if (ph.contains("debounceMs") && ph["debounceMs"].is_number_integer())
    scheduler_->setDebounce(std::chrono::milliseconds(std::max<int64_t>(0, ph["debounceMs"].get<int64_t>())));
  bool renamed = runLabelLocked() != labelBefore;
  lock.unlock();
  if (renamed) refreshLenses();
}

template <typename Fn> void Server::withSnapshot(const json &params, Reply reply, Fn fn) {
  std::string uri = params.at("textDocument").at("uri").get<std::string>();
  // The request's bounds (Budget.h): the watchdog answers at the deadline whatever the
  // worker is doing (waiting for the analysis, building it, walking a giant file), and
  // the work stops at its next interruption point.
  auto budget = std::make_shared<RequestBudget>(reply.cancelState(), options_.maxResultItems);
  if (options_.checkpointProbe)
    budget->probe = [probe = options_.checkpointProbe, method = reply.method()](const RequestBudget &b) { probe(method, b); };
  auto timeout = settings().requestTimeout;
  uint64_t timer = watchdog_->at(std::chrono::steady_clock::now() + timeout, [budget, reply, timeout] {
    budget->expire();
    reply.error(ErrorCode::RequestFailed, "`" + reply.method() + "` took longer than " + std::to_string(timeout.count()) +
                                              " ms, the server's limit for one request (setting `ph.requestTimeoutMs`): stopped");
  });
  scheduler_->withSnapshot(uri, [this, reply, fn, uri, budget, timer](std::shared_ptr<const Snapshot> snap) {
    struct Disarm {
      Watchdog &w;
      uint64_t id;
      ~Disarm() { w.cancel(id); }
    } disarm{*watchdog_, timer};
    if (reply.replyIfCancelled() || budget->expired()) return; // past the deadline: answered already
    if (!snap) {
      reply.error(ErrorCode::InvalidParams, "document not open: " + uri);
      return;
    }
    RequestScope scope(budget.get());
    try {
      if constexpr (std::is_same_v<decltype(fn(*snap)), JsonText>) reply.raw(fn(*snap).text);
      else reply(fn(*snap));
    } catch (const Interrupted &e) {
      if (e.reason == Interrupted::Cancelled) reply.error(ErrorCode::RequestCancelled, "request cancelled");
      else if (e.reason == Interrupted::TooLarge)
        reply.error(ErrorCode::RequestFailed, "`" + reply.method() + "` would answer more than " +
                                                  std::to_string(options_.maxResultItems) +
                                                  " elements, the server's limit for one result: stopped");
      // Deadline: the watchdog answered.
    } catch (const RpcError &e) {
      reply.error(e);
    } catch (const json::exception &e) {
      reply.error(ErrorCode::InvalidParams, std::string("invalid params for `") + reply.method() + "`: " + e.what());
    } catch (const std::exception &e) {
      reply.error(ErrorCode::InternalError, std::string("internal error: ") + e.what());
    }
  });
}

void Server::registerHandlers() {
  Endpoint &e = endpoint_;
  e.setRequestGate([this](const std::string &method) -> std::optional<RpcError> {
    State s = state_.load();
    if (s == State::Uninitialized && method != "initialize")
      return RpcError{ErrorCode::ServerNotInitialized, "the server is not initialized: send `initialize` first", nullptr};
    if (s == State::Running && method == "initialize")
      return RpcError{ErrorCode::InvalidRequest, "the server is already initialized", nullptr};
    if (s == State::ShutDown)
      return RpcError{ErrorCode::InvalidRequest, "the server is shutting down: only `exit` is accepted", nullptr};
    return std::nullopt;
  });
  e.setNotificationGate([this](const std::string &method) {
    return method == "exit" || state_.load() == State::Running;
  });

  e.onRequest("initialize", [this](const json &params, Reply reply) {
    const json caps = params.value("capabilities", json::object());
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (params.contains("rootUri") && params["rootUri"].is_string()) rootPath_ = filePathOfUri(params["rootUri"].get<std::string>());
      else if (params.contains("rootPath") && params["rootPath"].is_string()) rootPath_ = params["rootPath"];
      std::vector<std::string> folders;
      if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array())
        for (const json &f : params["workspaceFolders"])
          if (f.is_object() && f.contains("uri") && f["uri"].is_string())
            if (std::string p = filePathOfUri(f["uri"].get<std::string>()); !p.empty()) folders.push_back(p);
      if (rootPath_.empty() && !folders.empty()) rootPath_ = folders[0];
      if (folders.empty() && !rootPath_.empty()) folders.push_back(rootPath_);
      workspace_.setFolders(folders);
      auto flag = [&](std::initializer_list<const char *> path) {
        const json *j = &caps;
        for (const char *k : path) {
          if (!j->is_object() || !j->contains(k)) return false;
          j = &(*j)[k];
        }
        return j->is_boolean() && j->get<bool>();
      };
      clientProgress_ = flag({"window", "workDoneProgress"});
      clientConfiguration_ = flag({"workspace", "configuration"});
      clientCodeLensRefresh_ = flag({"workspace", "codeLens", "refreshSupport"});
      clientShowMessageRequest_ = caps.contains("window") && caps["window"].is_object() && caps["window"].contains("showMessage");
      // Absent capabilities mean the 3.17 defaults; only an explicit `false` turns a feature down.
      const json td = caps.value("textDocument", json::object());
      json snippet = td.value("completion", json::object()).value("completionItem", json::object()).value("snippetSupport", json());
      features_.snippets = snippet.is_boolean() ? snippet.get<bool>() : false;
      json formats = td.value("hover", json::object()).value("contentFormat", json());
      if (formats.is_array()) {
        features_.markdown = false;
        for (const json &f : formats)
          if (f == "markdown") features_.markdown = true;
      }
      json related = td.value("publishDiagnostics", json::object()).value("relatedInformation", json());
      features_.relatedInformation = related.is_boolean() ? related.get<bool>() : true;
    }
    if (params.contains("initializationOptions")) {
      const json &io = params["initializationOptions"];
      applySettings(io.is_object() && io.contains("ph") ? io["ph"] : io, /*fromUser=*/true);
    }
    state_ = State::Running;
    json result = {
        {"capabilities",
         {{"positionEncoding", "utf-16"},
          {"textDocumentSync", {{"openClose", true}, {"change", 2}, {"save", {{"includeText", false}}}}},
          {"hoverProvider", true},
          {"definitionProvider", true},
          {"referencesProvider", true},
          {"documentHighlightProvider", true},
          {"documentSymbolProvider", true},
          {"completionProvider", {{"triggerCharacters", {".", "@"}}, {"resolveProvider", false}}},
          {"signatureHelpProvider", {{"triggerCharacters", {"(", ","}}, {"retriggerCharacters", {","}}}},
          {"semanticTokensProvider", {{"legend", semanticTokensLegend()}, {"full", true}, {"range", false}}},
          {"inlayHintProvider", true},
          {"foldingRangeProvider", true},
          {"renameProvider", {{"prepareProvider", true}}},
          {"codeActionProvider", {{"codeActionKinds", {"quickfix"}}}},
          {"codeLensProvider", {{"resolveProvider", false}}},
          {"executeCommandProvider", {{"commands", {"ph.run", "ph.compile", "ph.showIR", "ph.gpuStatus"}}}},
          {"workspace", {{"workspaceFolders", {{"supported", true}, {"changeNotifications", true}}}}}}},
        {"serverInfo", {{"name", "ph-lsp"}, {"version", kVersion}}}};
    reply(std::move(result));
  });

  e.onNotification("initialized", [this](const json &) {
    if (clientConfiguration_)
      endpoint_.call("workspace/configuration", {{"items", {{{"section", "ph"}}}}},
                     [this](const json &result, std::optional<RpcError> err) {
                       if (!err && result.is_array() && !result.empty()) applySettings(result[0], /*fromUser=*/false);
                     });
    if (options_.detectGpu) scheduler_->runJob([this] { sendGpuStatus(); });
    scheduler_->runJob([this] { loadLastBuild(); }); // the lens figures survive a restart
  });

  e.onRequest("shutdown", [this](const json &, Reply reply) {
    shutdown_ = true;
    state_ = State::ShutDown;
    reply(nullptr);
  });

  e.onNotification("exit", [this](const json &) {
    exited_ = true;
    if (onExit) onExit();
  });

  e.onNotification("textDocument/didOpen", [this](const json &p) { didOpen(p); });
  e.onNotification("textDocument/didChange", [this](const json &p) { didChange(p); });
  e.onNotification("textDocument/didClose", [this](const json &p) { didClose(p); });
  e.onNotification("textDocument/didSave", [this](const json &p) { didSave(p); });
  e.onNotification("workspace/didChangeConfiguration", [this](const json &p) {
    json s = p.value("settings", json());
    if (s.is_object() && s.contains("ph")) {
      applySettings(s["ph"], /*fromUser=*/false);
    } else if (clientConfiguration_) {
      // Pull model: the notification only says something changed.
      endpoint_.call("workspace/configuration", {{"items", {{{"section", "ph"}}}}},
                     [this](const json &result, std::optional<RpcError> err) {
                       if (!err && result.is_array() && !result.empty()) applySettings(result[0], /*fromUser=*/false);
                     });
    }
  });
  e.onNotification("workspace/didChangeWorkspaceFolders", [this](const json &p) {
    const json ev = p.value("event", json::object());
    auto each = [&](const char *key, auto fn) {
      if (ev.is_object() && ev.contains(key) && ev[key].is_array())
        for (const json &f : ev[key])
          if (f.is_object() && f.contains("uri") && f["uri"].is_string())
            if (std::string path = filePathOfUri(f["uri"].get<std::string>()); !path.empty()) fn(path);
    };
    each("removed", [this](const std::string &path) { workspace_.removeFolder(path); });
    each("added", [this](const std::string &path) { workspace_.addFolder(path); });
    auto folders = workspace_.folders();
    std::lock_guard<std::mutex> lock(mu_);
    rootPath_ = folders.empty() ? std::string() : folders[0];
  });
  e.onNotification("window/workDoneProgress/cancel", [this](const json &p) {
    std::shared_ptr<CancelState> c;
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = progressTokens_.find(p.value("token", json()).dump());
      if (it != progressTokens_.end()) c = it->second;
    }
    if (c) c->cancel();
  });

  auto route = [this](const char *method, auto fn) {
    endpoint_.onRequest(method, [this, fn](const json &params, Reply reply) { withSnapshot(params, reply, [params, fn](const Snapshot &s) { return fn(s, params); }); });
  };
  route("textDocument/hover", [this](const Snapshot &s, const json &p) { return hover(s, p, featureOptions()); });
  route("textDocument/definition", [](const Snapshot &s, const json &p) { return definition(s, p); });
  route("textDocument/references", [](const Snapshot &s, const json &p) { return references(s, p); });
  route("textDocument/documentHighlight", [](const Snapshot &s, const json &p) { return documentHighlight(s, p); });
  route("textDocument/prepareRename", [](const Snapshot &s, const json &p) { return prepareRename(s, p); });
  route("textDocument/rename", [](const Snapshot &s, const json &p) { return rename(s, p); });
  route("textDocument/documentSymbol", [](const Snapshot &s, const json &p) { return documentSymbolText(s, p); });
  route("textDocument/completion", [this](const Snapshot &s, const json &p) { return completion(s, p, featureOptions()); });
  route("textDocument/signatureHelp", [](const Snapshot &s, const json &p) { return signatureHelp(s, p); });
  route("textDocument/semanticTokens/full", [](const Snapshot &s, const json &p) { return semanticTokensText(s, p); });
  route("textDocument/inlayHint", [](const Snapshot &s, const json &p) { return inlayHint(s, p); });
  route("textDocument/foldingRange", [](const Snapshot &s, const json &p) { return foldingRangeText(s, p); });
  route("textDocument/codeAction", [this](const Snapshot &s, const json &p) { return codeAction(s, p, featureOptions()); });
  route("textDocument/codeLens", [this](const Snapshot &s, const json &p) { return codeLensText(s, p, featureOptions()); });
  e.onRequest("workspace/executeCommand", [this](const json &params, Reply reply) { executeCommand(params, reply); });
}

//===----------------------------------------------------------------------===//
// Document sync
//===----------------------------------------------------------------------===//

void Server::didOpen(const json &params) {
  const json &doc = params.at("textDocument");
  scheduler_->update(doc.at("uri").get<std::string>(), doc.at("text").get<std::string>(), doc.value("version", 0));
}

void Server::didChange(const json &params) {
  const json &doc = params.at("textDocument");
  std::string uri = doc.at("uri").get<std::string>();
  int64_t oldVersion = 0;
  auto current = scheduler_->text(uri, &oldVersion);
  if (!current) {
    if (endpoint_.log) endpoint_.log("didChange for a document that is not open: " + uri);
    return;
  }
  {
    // The build of the saved text is out of date: the next save starts another.
    std::lock_guard<std::mutex> lock(mu_);
    if (auto it = builds_.find(uri); it != builds_.end()) it->second->cancel();
  }
  std::string text = *current;
  applyChanges(text, params.at("contentChanges"));
  int64_t version = doc.contains("version") && doc["version"].is_number_integer() ? doc["version"].get<int64_t>() : oldVersion + 1;
  scheduler_->update(uri, std::move(text), version);
}

void Server::didClose(const json &params) {
  std::string uri = params.at("textDocument").at("uri").get<std::string>();
  scheduler_->close(uri);
  analyzers_->drop(uriToPath(uri)); // its cache; an analysis still running keeps its own reference
  {
    std::lock_guard<std::mutex> lock(mu_);
    backendDiags_.erase(uri);
    if (auto it = builds_.find(uri); it != builds_.end()) it->second->cancel();
  }
  clearDiagnostics(uri);
}

void Server::didSave(const json &params) {
  std::string uri = params.at("textDocument").at("uri").get<std::string>();
  if (settings().compileOnSave) compileOnSave(uri);
}

void Server::clearDiagnostics(const std::string &uri) {
  std::set<std::string> foreign;
  {
    std::lock_guard<std::mutex> lock(mu_);
    foreign = std::move(foreignUris_[uri]);
    foreignUris_.erase(uri);
  }
  endpoint_.notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", json::array()}});
  for (const auto &f : foreign)
    endpoint_.notify("textDocument/publishDiagnostics", {{"uri", f}, {"diagnostics", json::array()}});
}

void Server::publish(const std::shared_ptr<const Snapshot> &snap) {
  if (endpoint_.log) {
    auto ms = [](auto d) { return std::to_string(std::chrono::duration_cast<std::chrono::microseconds>(d).count() / 1000.0); };
    endpoint_.log("analysed " + snap->uri + " v" + std::to_string(snap->version) + " in " + ms(snap->analysisTime) +
                  " ms, " + ms(std::chrono::steady_clock::now() - snap->editTime) + " ms after the edit");
  }
  FeatureOptions o = featureOptions();
  auto groups = diagnostics(*snap, o);
  std::set<std::string> foreign, stale;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto b = backendDiags_.find(snap->uri);
    if (b != backendDiags_.end()) {
      // The build's diagnostics are for the text that was saved: an edit drops them. One
      // the analysis already reports (same code and line) is not shown twice.
      if (b->second.value("version", int64_t(-1)) != snap->version) backendDiags_.erase(b);
      else mergeBuildDiagnostics(groups[0].second, b->second["diagnostics"]);
    }
    for (size_t i = 1; i < groups.size(); ++i) foreign.insert(groups[i].first);
    for (const auto &u : foreignUris_[snap->uri])
      if (!foreign.count(u)) stale.insert(u);
    foreignUris_[snap->uri] = foreign;
  }
  for (auto &[uri, diags] : groups) {
    json p = {{"uri", uri}, {"diagnostics", diags}};
    if (uri == snap->uri) p["version"] = snap->version;
    endpoint_.notify("textDocument/publishDiagnostics", std::move(p));
  }
  for (const auto &u : stale)
    endpoint_.notify("textDocument/publishDiagnostics", {{"uri", u}, {"diagnostics", json::array()}});
}

std::string Server::driverPath() const {
  std::string configured = settings().phPath;
  if (!configured.empty()) return configured;
  // Next to ph-lsp (build/bin/ph beside build/bin/ph-lsp), else on PATH.
  std::error_code ec;
  auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    auto sibling = self.parent_path() / "ph";
    if (std::filesystem::exists(sibling, ec)) return sibling.string();
  }
  std::string onPath = findProgram("ph");
  return onPath.empty() ? "ph" : onPath;
}

} // namespace ph::lsp
