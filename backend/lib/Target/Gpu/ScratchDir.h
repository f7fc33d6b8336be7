//===- ScratchDir.h - ptxas's files in one private folder -------*- C++ -*-===//
//
// `ph build` hands PTX to ptxas through files. They live in one folder per
// process, `$TMPDIR/ph-XXXXXX` (mode 0700, from mkdtemp), removed at exit and
// on every signal that ends the process and has no other handler: SIGINT,
// SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, the limits' and alarms', and the crashes'
// (SIGABRT, SIGSEGV, ...) (a stopped build left ph-*.ptx, .cubin and .log
// behind in /tmp). Each compile takes its own names, so parallel compiles do
// not collide.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>

namespace ph::scratch {

/// Paths for one ptxas run: `<dir>/<n>.ptx`, `.cubin`, `.log`, registered for removal
/// on every exit path until release(). Empty paths (and `err` set) when no folder can be made.
struct PtxasFiles {
  std::string ptx, cubin, log;
  int slot = -1;
};
bool acquire(PtxasFiles &files, std::string &err);
/// Removes the three files and forgets them.
void release(PtxasFiles &files);
/// The process's scratch folder, created on first use ("" before).
std::string dir();

} // namespace ph::scratch
