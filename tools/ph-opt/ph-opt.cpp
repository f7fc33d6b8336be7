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

} // namespace

int main(int argc, char **argv) {
  if (inputsRefused(argc, argv)) return 1;
  mlir::registerAllPasses();
  ph::tile::registerPasses();
  mlir::DialectRegistry registry;
  ph::tile::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Ph optimizer driver (tile dialect)\n", registry));
}
