//===- ph-opt.cpp - mlir-opt with the tile dialect and its passes ----------===//
//
// Runs the project's passes and pipelines on MLIR text for lit tests and
// debugging: `ph-opt --tile-to-loops kernel.mlir`, `--tile-to-llvm`,
// `--verify-diagnostics`, and every upstream pass.
//
//===----------------------------------------------------------------------===//
#include "ph/Conversion/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  ph::tile::registerPasses();
  mlir::DialectRegistry registry;
  ph::tile::registerDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Ph optimizer driver (tile dialect)\n", registry));
}
