//===- main.cpp - ph-lsp: the Ph language server --------------------------===//
#include "MallocTuning.h"
#include "Server.h"
#include "Transport.h"
#include "ph/ThreadStack.h"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <string>
#include <thread>
#include <unistd.h>

using namespace ph::lsp;

static const char *usage =
    "usage: ph-lsp [options]\n"
    "  the Ph language server: LSP 3.17 over stdio (default) or TCP\n"
    "\n"
    "  --listen [HOST:]PORT accept one connection on HOST:PORT (default host 127.0.0.1; port 0 picks one)\n"
    "  --std DIR            the standard library folder (default: PH_STD_DIR or the built-in path)\n"
    "  --ph PATH            the `ph` driver used by commands (default: next to ph-lsp, else PATH)\n"
    "  --threads N          worker threads (default 2)\n"
    "  --debounce-ms N      analysis delay after an edit (default 25)\n"
    "  --no-gpu-detect      do not load libcuda to send ph/status\n"
    "  --log                log problems to stderr\n"
    "  --version, --help\n";

int main(int argc, char **argv) {
#ifdef __GLIBC__
  // A larger per-thread cache of freed blocks (MallocTuning.h): glibc reads it only at
  // start-up, so the process starts again, once, with GLIBC_TUNABLES set (a
  // `glibc.malloc.tcache_count` already there, the user's or ours, stops it; the driver
  // processes the commands start inherit it). First diagnostics of the 5,040-line file:
  // 7.6 % fewer instructions, about 1 MiB more peak RSS (docs/lsp.md, Performance).
  // PH_LSP_MALLOC_TCACHE=N asks for N entries, 0 for glibc's default (no second start).
  {
    unsigned count = kTcacheCount;
    if (const char *e = std::getenv("PH_LSP_MALLOC_TCACHE"); e && *e) count = static_cast<unsigned>(std::atoi(e));
    if (auto tunables = tunedMallocTunables(std::getenv("GLIBC_TUNABLES"), count)) {
      setenv("GLIBC_TUNABLES", tunables->c_str(), 1);
      // The executable's own path, not /proc/self/exe: the kernel names a process after the
      // file it executed, and `exe` is what ps, top and pkill then showed (the editors'
      // tests find their ph-lsp by name; Neovim 0.10's lost it).
      char self[4096];
      ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
      if (n > 0) {
        self[n] = '\0';
        execv(self, argv); // returns only on failure: carry on untuned
      }
    }
  }
#endif
  // Malloc arenas: as many as the analysis has threads, at most 8. The first analysis
  // of a large file lexes, parses and checks its items on up to 8 threads; with one
  // arena their allocations queue on its lock (5,040 lines on an idle 16-core host:
  // 174 ms with one arena, 23.5 ms with eight; docs/lsp.md, Performance). Each arena
  // costs a few MiB of peak RSS and reserves 64 MiB of address space it does not use,
  // which is why the hostile-input test caps data (RLIMIT_DATA), not address space.
  // On two hardware threads or fewer, one arena: there the second arena buys no speed
  // (first diagnostics of the 5,040-line file on a 2-core machine: 60-79 ms with one,
  // 70-128 ms with two) and costs the most peak RSS (an edit of the fn every kernel calls,
  // 20 times: 25.5 MiB with one, 30-38 MiB with two; issue 21's bound is 30).
  // PH_LSP_MALLOC_ARENAS=N overrides it (1: the smallest footprint).
  unsigned hw = std::thread::hardware_concurrency();
  int arenas = hw <= 2 ? 1 : static_cast<int>(std::min(hw, 8u));
  if (const char *e = std::getenv("PH_LSP_MALLOC_ARENAS"); e && std::atoi(e) > 0) arenas = std::atoi(e);
  mallopt(M_ARENA_MAX, arenas);
  // PH_LSP_MALLOC_MMAP_KB=N: blocks of N KiB and more are mapped on their own and given
  // back when freed (glibc's threshold otherwise grows with the largest block freed).
  if (const char *e = std::getenv("PH_LSP_MALLOC_MMAP_KB"); e && std::atoi(e) > 0) mallopt(M_MMAP_THRESHOLD, std::atoi(e) * 1024);
  // The analyses run on worker threads: give them a known stack, not `ulimit -s`'s
  // (ph/ThreadStack.h; the parser's nesting limits are measured against it).
  ph::limits::setThreadStack();
  // A client that closes the pipe must not kill us with SIGPIPE mid-write.
  std::signal(SIGPIPE, SIG_IGN);
  ServerOptions options;
  // As many threads for a batch of items as there are arenas: on one arena a second thread
  // only waits for the lock (first diagnostics of the 5,040-line file, idle 2-core machine,
  // one arena: 96-111 ms of CPU on two threads, about half of it on one; docs/lsp.md).
  // PH_LSP_ANALYSIS_THREADS=N overrides it.
  options.analysisThreads = static_cast<unsigned>(arenas);
  if (const char *e = std::getenv("PH_LSP_ANALYSIS_THREADS"); e && std::atoi(e) > 0)
    options.analysisThreads = static_cast<unsigned>(std::atoi(e));
  // PH_LSP_FIRST_THREADS=N: a document's first analysis on N threads (later updates stay
  // on analysisThreads). Not the default: on a 2-core machine, one arena, two threads took
  // twice one thread's CPU through the server (docs/lsp.md, Performance).
  if (const char *e = std::getenv("PH_LSP_FIRST_THREADS"); e && std::atoi(e) > 0)
    options.firstAnalysisThreads = static_cast<unsigned>(std::atoi(e));
  // PH_LSP_ITEM_READS=0: every feature reads the version's whole analysis (to compare).
  if (const char *e = std::getenv("PH_LSP_ITEM_READS"); e && std::string(e) == "0") options.itemReads = false;
  // PH_LSP_INLINE_CACHE=0: every std call inlined afresh (ServerOptions::inlineCache; to compare).
  if (const char *e = std::getenv("PH_LSP_INLINE_CACHE"); e && std::string(e) == "0") options.inlineCache = false;
  // PH_LSP_ITEM_CACHE=1: full-document features item by item (ServerOptions::itemCache).
  if (const char *e = std::getenv("PH_LSP_ITEM_CACHE"); e && std::string(e) == "1") options.itemCache = true;
  std::string listen;
  bool log = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&](const char *name) -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "ph-lsp: %s needs a value\n%s", name, usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") { std::fputs(usage, stdout); return 0; }
    if (a == "--version") { std::puts("ph-lsp 0.1.0"); return 0; }
    if (a == "--listen") listen = value("--listen");
    else if (a == "--std") options.stdDir = value("--std");
    else if (a == "--ph") options.phPath = value("--ph");
    else if (a == "--threads") options.threads = static_cast<unsigned>(std::max(1, std::atoi(value("--threads").c_str())));
    else if (a == "--debounce-ms") options.debounce = std::chrono::milliseconds(std::max(0, std::atoi(value("--debounce-ms").c_str())));
    else if (a == "--no-gpu-detect") options.detectGpu = false;
    else if (a == "--log") log = true;
    else if (a == "--stdio") {} // what clients such as vscode-languageclient pass
    else { std::fprintf(stderr, "ph-lsp: unknown option `%s`\n%s", a.c_str(), usage); return 2; }
  }

  std::unique_ptr<Transport> transport;
  try {
    if (listen.empty()) {
      transport = createStdioTransport();
    } else {
      // `--listen PORT` and `--listen :PORT` bind loopback; any other address
      // exposes an unauthenticated server that can run `ph`, so say so.
      size_t colon = listen.rfind(':');
      std::string host = colon == std::string::npos ? "" : listen.substr(0, colon);
      std::string portText = colon == std::string::npos ? listen : listen.substr(colon + 1);
      if (host.empty()) host = "127.0.0.1";
      char *end = nullptr;
      long port = std::strtol(portText.c_str(), &end, 10);
      if (portText.empty() || *end || port < 0 || port > 65535) {
        std::fprintf(stderr, "ph-lsp: bad port in `%s` (--listen [HOST:]PORT)\n", listen.c_str());
        return 2;
      }
      bool loopback = host.rfind("127.", 0) == 0 || host == "::1" || host == "[::1]";
      if (!loopback)
        std::fprintf(stderr, "ph-lsp: warning: listening on %s, which is not a loopback address: anyone who can "
                             "reach it can run `ph` as you (use 127.0.0.1 unless you mean it)\n", host.c_str());
      transport = createTcpTransport(host, static_cast<unsigned short>(port));
    }
  } catch (const std::exception &e) {
    std::fprintf(stderr, "ph-lsp: %s\n", e.what());
    return 1;
  }

  Transport *t = transport.get();
  Server server([t](std::string body) { t->send(std::move(body)); }, options);
  if (log) server.endpoint().log = [](const std::string &line) { std::fprintf(stderr, "ph-lsp: %s\n", line.c_str()); };
  server.onExit = [t] { t->stop(); };
  transport->run([&](Transport::Incoming in) { server.handle(in); });
  // End of input without `exit` is an abnormal end (LSP: exit code 1).
  int code = server.exited() ? server.exitCode() : 1;
  // Tearing the server down waits for its workers, which stop at their next
  // cancellation check; whatever does not stop within a second (an analysis
  // between checks, a driver being killed) must not keep the process alive
  // after `exit` (issue 20: a worker ran on for minutes).
  std::thread([code] {
    std::this_thread::sleep_for(std::chrono::seconds(1));
    std::fflush(nullptr);
    std::_Exit(code);
  }).detach();
  return code;
}
