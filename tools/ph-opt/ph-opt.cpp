//===- ph-opt.cpp - mlir-opt with the tile dialect and its passes ----------===//
//
// Runs the project's passes and pipelines on MLIR text for lit tests and
// debugging: `ph-opt --tile-to-loops kernel.mlir`, `--tile-to-llvm`,
// `--verify-diagnostics`, and every upstream pass.
//
//===----------------------------------------------------------------------===//
#include "MlirTextGuards.h"
#include "ph/Conversion/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

#include <pthread.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace {

/// Whether an input file among the arguments is text MLIR's parser would crash on (said
/// on stderr, with its place). Inputs are MlirOptMain's positional arguments; the value of
/// `-o` is the output. Standard input is not checked.
bool inputsRefused(int argc, char **argv) {
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "-o") || !std::strcmp(argv[i], "--o")) {
      ++i;
      continue;
    }
    if (argv[i][0] == '-') continue;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(argv[i], ec)) continue;
    std::ifstream in(argv[i], std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    if (auto refused = ph::opt::refuseMlirText(text.view())) {
      std::cerr << argv[i] << ":" << refused->site.line << ":" << refused->site.column << ": error: "
                << refused->reason << "\n";
      return true;
    }
  }
  return false;
}

/// MLIR's parser, verifier and printer recurse once per nesting level. On the main
/// thread's 8 MiB, 4 000 nested regions overflowed, below the 4 096 that
/// refuseMlirText lets through; this thread's stack holds kMaxMlirNesting levels with
/// room to spare (measured: docs/reliability.md, "Limits").
constexpr size_t kStackBytes = 512ull << 20;

struct MainArgs {
  int argc;
  char **argv;
  int result = 1;
};

void *optMain(void *p) {
  auto *a = static_cast<MainArgs *>(p);
  mlir::registerAllPasses();
  ph::tile::registerPasses();
  mlir::DialectRegistry registry;
  ph::tile::registerDialects(registry);
  a->result = mlir::asMainReturnCode(
      mlir::MlirOptMain(a->argc, a->argv, "Ph optimizer driver (tile dialect)\n", registry));
  return nullptr;
}

} // namespace

int main(int argc, char **argv) {
  if (inputsRefused(argc, argv)) return 1;
  MainArgs a{argc, argv};
  pthread_attr_t attr;
  pthread_t thread;
  // The stack is reserved address space, committed only as deep as the input goes.
  if (pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, kStackBytes) == 0 &&
      pthread_create(&thread, &attr, optMain, &a) == 0) {
    pthread_join(thread, nullptr);
    return a.result;
  }
  optMain(&a); // no big stack to be had (an address-space limit): the main thread's
  return a.result;
}
