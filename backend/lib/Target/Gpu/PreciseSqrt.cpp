//===- PreciseSqrt.cpp - __nv_sqrtf calls -> llvm.intr.sqrt ---------------===//

#include "PreciseSqrt.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

#include <vector>

namespace ph::backend {

using namespace mlir;

void usePreciseSqrt(ModuleOp m) {
  std::vector<LLVM::CallOp> calls;
  m.walk([&](LLVM::CallOp c) {
    if (c.getCallee() == "__nv_sqrtf" && c.getNumOperands() == 1 && c.getNumResults() == 1) calls.push_back(c);
  });
  for (LLVM::CallOp c : calls) {
    OpBuilder b(c);
    Value r = LLVM::SqrtOp::create(b, c.getLoc(), c.getResult().getType(), c.getOperand(0));
    c.getResult().replaceAllUsesWith(r);
    c.erase();
  }
  std::vector<LLVM::LLVMFuncOp> unused;
  m.walk([&](LLVM::LLVMFuncOp f) {
    if (f.isExternal() && f.getSymName() == "__nv_sqrtf" && SymbolTable::symbolKnownUseEmpty(f, f->getParentOp()))
      unused.push_back(f);
  });
  for (LLVM::LLVMFuncOp f : unused) f.erase();
}

} // namespace ph::backend
