//===- Subprocess.h - Running the `ph` driver without a shell ---*- C++ -*-===//
//
// Commands (ph.run, ph.compile, ph.showIR, compile on save) start the driver
// with an argument vector through posix_spawn, never through a shell, so no
// file name or setting can inject a command. Output is captured; the child is
// killed when the request is cancelled or runs past its time limit.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ph::lsp {

class CancelState;

struct ProcessResult {
  bool started = false;   // false: could not start (error says why)
  int exitCode = -1;      // -1 when killed by a signal
  bool cancelled = false; // killed because of cancellation
  bool timedOut = false;
  std::string out, err, error;
};

/// `onOutLine`, when given, is called with each line of stdout (without its
/// newline) as it arrives, on the calling thread: a build's figures as they come.
ProcessResult runProcess(const std::vector<std::string> &argv, const std::string &cwd,
                         const std::shared_ptr<CancelState> &cancel,
                         std::chrono::milliseconds timeout = std::chrono::minutes(10),
                         const std::function<void(const std::string &)> &onOutLine = {});

/// Finds `name` on PATH (or returns it unchanged if it contains a slash and exists); "" if absent.
std::string findProgram(const std::string &name);

} // namespace ph::lsp
