//===- Server.h - The protocol layer of ph-lsp ------------------*- C++ -*-===//
//
// Server maps LSP methods onto the scheduler and the features (clangd's
// ClangdLSPServer): lifecycle and capabilities, document sync, one routing
// line per feature, settings, diagnostics publishing, and the commands that
// start the `ph` driver (Commands.cpp, lsp/commands/). It does no analysis itself.
// It is transport-agnostic: give it a send function and feed it messages,
// which is how the unit tests drive it in process.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "Budget.h"
#include "Features.h"
#include "FileAccess.h"
#include "Gpu.h"
#include "JsonRpc.h"
#include "Scheduler.h"

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

namespace ph {
struct Prelude;
}

namespace ph::lsp {

struct ServerOptions {
  std::string stdDir;          // empty: the prelude's default
  std::string phPath;          // the `ph` driver; empty: next to ph-lsp, else PATH
  unsigned threads = 2;
  std::chrono::milliseconds debounce{25};
  bool detectGpu = true;
  /// A feature request's bounds (Budget.h): the time from its arrival to its answer
  /// (RequestFailed past it; the `requestTimeoutMs` setting changes it) and the
  /// elements its result may hold. Commands are bounded by their driver's own limits.
  std::chrono::milliseconds requestTimeout{10000};
  size_t maxResultItems = 2000000;
  /// Features read the items of the incremental analysis (issue 21: a slice for a
  /// request at a position, each item's slice in turn for a full-document one). Off: every
  /// feature reads the version's whole analysis (tests compare the two).
  bool itemReads = true;
  /// Semantic tokens, symbols, folding and lenses (always put together item by item, each
  /// on its own slice, with itemReads) keep each item's entries in a per-document cache
  /// (Items.cpp). Off by default: measured on the 5,040-line file, the copies of the
  /// cached JSON cost as much CPU as computing the items again, for more peak RSS
  /// (docs/lsp.md).
  bool itemCache = false;
  /// Threads for a large batch of items in one document's analysis (a first analysis, an
  /// edit of a fn every kernel calls: IncrementalAnalyzer::maxThreads). main.cpp makes it
  /// the number of malloc arenas: two threads on one arena queue on its lock and take
  /// longer than one (docs/lsp.md, Performance).
  unsigned analysisThreads = 8;
  /// Threads for a document's first analysis (IncrementalAnalyzer::firstThreads; 0: as
  /// analysisThreads, the default). main.cpp's PH_LSP_FIRST_THREADS=N sets it: on a 2-core
  /// machine two threads on one malloc arena took twice the CPU of one through the server
  /// and came later (a fresh process's page faults; docs/lsp.md, Performance), so it is
  /// not the default.
  unsigned firstAnalysisThreads = 0;
  /// IncrementalAnalyzer::cacheInlining: std functions inlined through a cache per call
  /// shape (the same diagnostics either way; main.cpp's PH_LSP_INLINE_CACHE=0 turns it off).
  bool inlineCache = true;
  /// Tests: called at every interruption point of a feature request, with its method.
  std::function<void(const std::string &method, const RequestBudget &)> checkpointProbe;
};

/// Settings from initializationOptions and workspace/didChangeConfiguration
/// (section `ph`); docs/lsp.md lists them.
struct Settings {
  std::string phPath;
  std::string target = "auto";     // auto|gpu|cpu|interp (run), sm_90|sm_80|cpu (build)
  std::string outputDir = ".ph-build";
  bool compileOnSave = true;
  std::map<std::string, int64_t> sizes; // default `--size N=...` for ph.run
  std::chrono::milliseconds requestTimeout{10000}; // a feature request's deadline
};

class Server {
public:
  Server(Endpoint::SendFn send, ServerOptions options);
  ~Server();

  /// One incoming message (I/O thread).
  void handle(const Transport::Incoming &in) { endpoint_.handle(in); }
  Endpoint &endpoint() { return endpoint_; }
  Scheduler &scheduler() { return *scheduler_; }

  /// Called when `exit` arrives; the transport should stop.
  std::function<void()> onExit;
  bool exited() const { return exited_; }
  int exitCode() const { return shutdown_ ? 0 : 1; }
  Settings settings() const;

private:
  enum class State { Uninitialized, Running, ShutDown };

  void registerHandlers();
  /// `fromUser`: initializationOptions, which the client builds from user or
  /// machine settings. Workspace settings (workspace/configuration,
  /// didChangeConfiguration) never name a program to run: a cloned repository
  /// must not choose what the editor executes, so `path` is ignored there.
  void applySettings(const json &ph, bool fromUser);
  FeatureOptions featureOptions() const;

  // Document sync.
  void didOpen(const json &params);
  void didChange(const json &params);
  void didClose(const json &params);
  void didSave(const json &params);
  void publish(const std::shared_ptr<const Snapshot> &snap);
  void clearDiagnostics(const std::string &uri);

  /// Routes a request that needs the document's snapshot to `fn` on a worker.
  template <typename Fn> void withSnapshot(const json &params, Reply reply, Fn fn);

  // Commands.cpp routes; one file per command in lsp/commands/.
  void executeCommand(const json &params, Reply reply);
  void runKernel(json args, Reply reply, const json &workDoneToken, std::shared_ptr<const Snapshot> snap);
  void benchKernel(const json &args, const Reply &reply, const json &workDoneToken, const std::string &kernel,
                   const std::string &target, const std::shared_ptr<const Snapshot> &snap);
  void compileKernel(json args, Reply reply, const json &workDoneToken, std::shared_ptr<const Snapshot> snap);
  void showIR(json args, Reply reply, const json &workDoneToken, std::shared_ptr<const Snapshot> snap);
  void compileOnSave(const std::string &uri);
  // What run and bench share (RunCommand.cpp).
  /// Without a GPU for target auto or gpu: replies with an offer of the CPU target (and,
  /// unless the client asks itself, asks the user); returns whether it did. With
  /// `noGpu: "cpu"` it switches `target` to cpu instead and notes why in `args`.
  bool offerWithoutGpu(json &args, const std::string &kernel, std::string &target, const Reply &reply);
  /// `--size` (the settings', the command's, then defaults from the kernel) and `--arg`;
  /// returns what the result reports about them (`defaultSizes`, `note`, `userFile`).
  json appendLaunchArgs(std::vector<std::string> &argv, const json &args, const Settings &st, const Snapshot *snap,
                        const std::string &kernel);
  /// Runs `ph run`/`ph bench` with progress and cancellation; replies with its JSON result,
  /// the driver's diagnostics among it as LSP diagnostics (`snap`'s document); a failed
  /// run's errors (a lowering failure) are published with the document's own as well.
  void launchDriver(const std::vector<std::string> &argv, const std::string &kernel, const std::string &target,
                    bool bench, const std::string &tempDir, const Reply &reply, const json &workDoneToken,
                    const json &meta, const std::shared_ptr<const Snapshot> &snap);
  /// A failed run's errors `diags` (LSP diagnostics) published with `snap`'s document's own,
  /// when it is open at the version that ran.
  void publishRunErrors(const std::shared_ptr<const Snapshot> &snap, const json &diags);
  /// Benchmark without a GPU: `ph run --target cpu --config C` for each configuration.
  void benchOnCpu(const json &args, const Reply &reply, const json &workDoneToken, const std::string &kernel,
                  const std::string &target, const std::shared_ptr<const Snapshot> &snap);
  /// The lens figures of the last build on disk (manifest.json), after a restart.
  void loadLastBuild();
  /// The Run lens's target name (`CPU`, the GPU's) under the current settings and GPU; mu_ held.
  std::string runLabelLocked() const;
  /// Asks the client to fetch the lenses again (the Run lens was renamed), where it can and
  /// may be asked: never before `initialize` is answered. mu_ not held.
  void refreshLenses();
  void sendGpuStatus();
  /// The file the driver should read: the document's path if the editor's
  /// text is what is on disk, else a copy of the text in a temporary folder.
  /// Throws InvalidParams for a URI that is neither an open document nor a
  /// regular file inside a workspace folder (FileAccess.h).
  std::string fileForDriver(const std::string &uri, std::string &tempDir);
  /// The same check without the copy: throws InvalidParams with the reason.
  void requireReadable(const std::string &command, const std::string &uri);
  std::string resolveKernel(const json &args, const std::shared_ptr<const Snapshot> &snap);
  /// resolveKernel, or InvalidParams when the arguments name no kernel (run, bench, show IR).
  std::string requireKernel(const json &args, const std::shared_ptr<const Snapshot> &snap);
  std::string driverPath() const;

  /// $/progress reporting for one long job; cancellable from the editor.
  struct Progress;
  std::shared_ptr<Progress> beginProgress(const std::string &title, const json &clientToken,
                                          const std::shared_ptr<CancelState> &cancel, bool percentages = false);

  Endpoint endpoint_;
  ServerOptions options_;
  std::shared_ptr<const Prelude> prelude_;
  /// One IncrementalAnalyzer (its item cache) per open document, by path.
  struct Analyzers;
  std::shared_ptr<Analyzers> analyzers_;
  std::unique_ptr<Watchdog> watchdog_; // feature requests' deadlines
  std::unique_ptr<Scheduler> scheduler_;

  std::atomic<State> state_{State::Uninitialized};
  std::atomic<bool> shutdown_{false}, exited_{false};

  mutable std::mutex mu_;
  Settings settings_;
  FeatureOptions features_;
  std::string rootPath_;          // the first workspace folder: where relative output folders go
  WorkspaceFiles workspace_;
  bool clientProgress_ = false, clientConfiguration_ = false, clientCodeLensRefresh_ = false,
       clientShowMessageRequest_ = false;
  std::map<std::string, std::set<std::string>> foreignUris_; // doc -> std files it published to
  std::map<std::string, json> backendDiags_;                 // doc -> diagnostics from the last build
  std::map<std::string, std::shared_ptr<CancelState>> builds_; // doc -> compile on save in flight
  std::map<std::string, std::shared_ptr<CancelState>> progressTokens_;
  std::optional<GpuInfo> gpu_;
  int64_t nextToken_ = 1;
  bool warnedWorkspacePath_ = false;
};

} // namespace ph::lsp
