//===- main.cpp - The `ph` command line driver -----------------------------===//
#include "Commands.h"
#include "DriverUtil.h"
#include "ph/ThreadStack.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <thread>

using namespace ph::driver;

static const char *usage =
    "usage: ph <command> [options]\n"
    "\n"
    "commands:\n"
    "  check FILE...                  diagnostics as file:line:col: severity[code]: message (--json)\n"
    "  emit FILE --kernel K --stage S print a stage: kir|tile|cpu|llvm|llvm-ir|asm|gpu|gpu-llvm|ptx [--config BR=64,...]\n"
    "  run FILE --kernel K            run a kernel [--target auto|gpu|cpu|interp] [--size N=4096]...\n"
    "                                 [--arg scale=0.125] [--in Q=q.npy] [--out O=o.npy] [--seed S]\n"
    "                                 [--check] [--json]\n"
    "  build FILE [--kernel K]        cubins + manifest.json [--target sm_90|sm_80|cpu] [-o DIR]\n"
    "  bench FILE --kernel K          time every autotune variant (median, TFLOP/s or GB/s)\n"
    "  cache [info|clear|dir]         the build cache of compiled variants (docs/compile.md)\n"
    "\n"
    "check, emit, run, build and bench take `--source-name NAME`: report the input file as NAME\n"
    "(diagnostics, locations, the JSON document) while reading it from the path given.\n"
    "\n"
    "`ph <command> --help` describes a command's options.\n";

static int dispatch(int argc, char **argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(usage, argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  std::string cmd = argv[1];
  Args args(argv + 2, argv + argc);
  // Every command that reads a .ph file takes --source-name (DriverUtil.h).
  if (cmd != "cache") {
    if (std::string e = takeSourceName(args); !e.empty()) {
      std::fprintf(stderr, "ph %s: %s\n", cmd.c_str(), e.c_str());
      return 2;
    }
  }
  if (cmd == "check") return checkCommand(args);
  if (cmd == "emit") return emitCommand(args);
  if (cmd == "run") return runCommand(args);
  if (cmd == "build") return buildCommand(args);
  if (cmd == "bench") return benchCommand(args);
  if (cmd == "cache") return cacheCommand(args);
  if (cmd == "--version") {
    std::puts("ph 0.1.0");
    return 0;
  }
  std::fprintf(stderr, "ph: unknown command `%s`\n\n%s", cmd.c_str(), usage);
  return 2;
}

int main(int argc, char **argv) {
  // The command runs on a thread with a known stack (ph/ThreadStack.h), not
  // on the main thread's `ulimit -s`: the parser's and checker's nesting limits are
  // measured against it (docs/reliability.md, "Limits"). Threads the command starts get
  // the same stack.
  if (!ph::limits::setThreadStack()) return dispatch(argc, argv);
  int status = 2;
  std::thread([&] { status = dispatch(argc, argv); }).join();
  return status;
}
