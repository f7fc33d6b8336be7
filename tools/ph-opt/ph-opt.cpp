//===- ph-opt.cpp - mlir-opt with the tile dialect and its passes ----------===//
//
// Runs the project's passes and pipelines on MLIR text for lit tests and
// debugging: `ph-opt --tile-to-loops kernel.mlir`, `--tile-to-llvm`,
// `--verify-diagnostics`, and every upstream pass.
//
//===----------------------------------------------------------------------===//
#include "MlirNesting.h"
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

/// The input files among the arguments (MlirOptMain's positional argument; the value
/// of `-o` is the output). Standard input is not checked.
bool inputsNestTooDeep(int argc, char **argv) {
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
    if (auto deep = ph::opt::findDeepNesting(text.str())) {
      std::cerr << argv[i] << ":" << deep->line << ":" << deep->column << ": error: nested more than "
                << ph::opt::kMaxMlirNesting << " deep; MLIR's parser recurses once a level and would "
                << "overflow its stack, so ph-opt refuses the file\n";
      return true;
    }
    if (auto at = ph::opt::findIndexDenseArray(text.str())) {
      std::cerr << argv[i] << ":" << at->line << ":" << at->column << ": error: a dense array of `index` "
                << "elements; MLIR 22's parser crashes on it (llvm/llvm-project#179045): use i64\n";
      return true;
    }
  }
  return false;
}

} // namespace

int main(int argc, char **argv) {
  if (inputsNestTooDeep(argc, argv)) return 1;
  mlir::registerAllPasses();
  ph::tile::registerPasses();
  mlir::DialectRegistry registry;
  ph::tile::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Ph optimizer driver (tile dialect)\n", registry));
}
