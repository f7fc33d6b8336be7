//===- ScratchDir.cpp - ptxas's files in one private folder ----------------===//
#include "ScratchDir.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

namespace ph::scratch {
namespace {

// Fixed storage, so the signal handler reads it without allocating or locking:
// it may only call async-signal-safe functions (unlink, rmdir, signal, raise).
constexpr int kSlots = 64;
constexpr size_t kPath = 4096;
char gDir[kPath];
std::atomic<bool> gHaveDir{false};
char gFiles[kSlots][3][kPath];
std::atomic<bool> gLive[kSlots];
std::mutex gMu; // acquire/release only
unsigned long gCounter = 0;

void removeAll() {
  bool live[kSlots];
  for (int s = 0; s < kSlots; ++s) live[s] = gLive[s].exchange(false);
  if (!gHaveDir.exchange(false)) return;
  // A ptxas still running (the signal went to the driver alone) may create its cubin
  // between the unlink and the rmdir: unlink again while the folder is not empty.
  for (int attempt = 0; attempt < 3; ++attempt) {
    for (int s = 0; s < kSlots; ++s)
      if (live[s])
        for (auto &f : gFiles[s]) unlink(f);
    if (rmdir(gDir) == 0 || errno != ENOTEMPTY) return;
  }
}

// Every signal whose default action ends the process: the interrupts and terminations
// (SIGINT, SIGTERM, SIGHUP, SIGQUIT, a closed pipe, CPU and file-size limits, alarms) and
// the crashes (an abort from a failed check, a fault).
constexpr int kSignals[] = {SIGINT,  SIGTERM, SIGHUP,  SIGQUIT, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ,
                            SIGUSR1, SIGUSR2, SIGABRT, SIGSEGV, SIGBUS,  SIGFPE,  SIGILL,  SIGSYS};

void onSignal(int sig) {
  int saved = errno;
  removeAll();
  errno = saved;
  signal(sig, SIG_DFL);
  raise(sig); // die of the signal, as the caller expects (a fault: again on return)
}

bool makeDir(std::string &err) {
  if (gHaveDir) return true;
  const char *tmp = std::getenv("TMPDIR");
  std::string base = tmp && *tmp ? tmp : "/tmp";
  std::string templ = base + "/ph-XXXXXX";
  if (templ.size() + 32 >= kPath) {
    err = "TMPDIR is too long";
    return false;
  }
  std::memcpy(gDir, templ.c_str(), templ.size() + 1);
  if (!mkdtemp(gDir)) { // mode 0700: the folder is ours alone
    err = "cannot create a temporary folder in " + base + ": " + std::strerror(errno);
    return false;
  }
  gHaveDir = true;
  std::atexit(removeAll);
  for (int sig : kSignals) {
    struct sigaction old {};
    // Leave a handler someone else installed (the driver's own, --timeout's SIGALRM,
    // a sanitizer's) and an ignored signal (ph-lsp ignores SIGPIPE) alone.
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_DFL) {
      struct sigaction sa {};
      sa.sa_handler = onSignal;
      sigemptyset(&sa.sa_mask);
      sigaction(sig, &sa, nullptr);
    }
  }
  return true;
}

} // namespace

bool acquire(PtxasFiles &files, std::string &err) {
  std::lock_guard<std::mutex> lock(gMu);
  if (!makeDir(err)) return false;
  for (int s = 0; s < kSlots; ++s) {
    if (gLive[s]) continue;
    std::string stem = std::string(gDir) + "/" + std::to_string(++gCounter);
    files.ptx = stem + ".ptx";
    files.cubin = stem + ".cubin";
    files.log = stem + ".log";
    std::snprintf(gFiles[s][0], kPath, "%s", files.ptx.c_str());
    std::snprintf(gFiles[s][1], kPath, "%s", files.cubin.c_str());
    std::snprintf(gFiles[s][2], kPath, "%s", files.log.c_str());
    gLive[s] = true;
    files.slot = s;
    return true;
  }
  err = "more than 64 ptxas runs at once";
  return false;
}

void release(PtxasFiles &files) {
  if (files.slot < 0) return;
  std::lock_guard<std::mutex> lock(gMu);
  if (gLive[files.slot].exchange(false))
    for (auto &f : gFiles[files.slot]) unlink(f);
  files.slot = -1;
}

std::string dir() { return gHaveDir ? std::string(gDir) : std::string(); }

} // namespace ph::scratch
