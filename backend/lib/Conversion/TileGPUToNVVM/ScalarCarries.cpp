//===- ScalarCarries.cpp - tilegpu-scalar-carries ---------------------------===//
//
// A struct-typed block argument read only by extractvalue ops becomes one argument per element
// (Passes.td says why).
//
//===----------------------------------------------------------------------===//
#include "ph/Dialect/TileGPU/Passes.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace ph::tilegpu {
#define GEN_PASS_DEF_SCALARCARRIES
#include "ph/Dialect/TileGPU/Passes.h.inc"
} // namespace ph::tilegpu

using namespace mlir;

namespace ph::tilegpu {
namespace {

/// The elements an insertvalue chain from undef or poison holds, or nothing.
SmallVector<Value> chainElements(Value s, size_t n) {
  SmallVector<Value> out(n);
  size_t found = 0;
  Operation *def = s.getDefiningOp();
  for (; def; def = def->getOperand(0).getDefiningOp()) {
    auto ins = dyn_cast<LLVM::InsertValueOp>(def);
    if (!ins) break;
    if (ins.getPosition().size() != 1) return {};
    int64_t i = ins.getPosition()[0];
    if (!out[i]) {
      out[i] = ins.getValue();
      ++found;
    }
  }
  if (found != n && !(def && isa<LLVM::UndefOp, LLVM::PoisonOp>(def))) return {};
  return out;
}

/// Whether every use of `a` is an extractvalue of one element.
bool readOnlyByExtracts(BlockArgument a) {
  return llvm::all_of(a.getUsers(), [](Operation *u) {
    auto x = dyn_cast<LLVM::ExtractValueOp>(u);
    return x && x.getPosition().size() == 1;
  });
}

/// `s`'s elements at the end of `pred` (before its terminator): a chain's inserted values where
/// it covers every element, else extractvalue ops (a struct constant, a call's result).
SmallVector<Value> elementsAt(Value s, LLVM::LLVMStructType st, Operation *terminator) {
  size_t n = st.getBody().size();
  SmallVector<Value> out = chainElements(s, n);
  for (size_t i = 0; i < n; ++i) {
    if (out.size() == n && out[i]) continue;
    if (out.size() != n) out.assign(n, Value());
    OpBuilder b(terminator);
    out[i] = LLVM::ExtractValueOp::create(b, terminator->getLoc(), s, int64_t(i));
  }
  return out;
}

bool scalarize(Block &block, unsigned index) {
  BlockArgument a = block.getArgument(index);
  auto st = dyn_cast<LLVM::LLVMStructType>(a.getType());
  if (!st || st.isOpaque() || !readOnlyByExtracts(a)) return false;
  for (Type t : st.getBody())
    if (isa<LLVM::LLVMStructType, LLVM::LLVMArrayType>(t)) return false;
  // Every predecessor must pass it through a branch op whose operands we can rewrite.
  for (auto it = block.pred_begin(), e = block.pred_end(); it != e; ++it) {
    auto br = dyn_cast<BranchOpInterface>((*it)->getTerminator());
    if (!br) return false;
  }
  size_t n = st.getBody().size();
  SmallVector<Value> args;
  for (size_t i = 0; i < n; ++i) args.push_back(block.insertArgument(index + 1 + i, st.getBody()[i], a.getLoc()));
  SmallVector<Operation *> chains;
  for (auto it = block.pred_begin(), e = block.pred_end(); it != e; ++it) {
    auto br = cast<BranchOpInterface>((*it)->getTerminator());
    for (unsigned s = 0; s < br->getNumSuccessors(); ++s) {
      if (br->getSuccessor(s) != &block) continue;
      SuccessorOperands ops = br.getSuccessorOperands(s);
      // The struct's operand out, its elements in, at the same place.
      MutableOperandRange range = ops.getMutableForwardedOperands();
      SmallVector<Value> now(range.getAsOperandRange().begin(), range.getAsOperandRange().end());
      unsigned at = index - ops.getProducedOperandCount();
      Value v = now[at];
      SmallVector<Value> elems = elementsAt(v, st, br);
      if (Operation *d = v.getDefiningOp()) chains.push_back(d);
      now.erase(now.begin() + at);
      now.insert(now.begin() + at, elems.begin(), elems.end());
      range.assign(now);
    }
  }
  for (Operation *u : llvm::make_early_inc_range(a.getUsers())) {
    auto x = cast<LLVM::ExtractValueOp>(u);
    x.getResult().replaceAllUsesWith(args[x.getPosition()[0]]);
    x.erase();
  }
  block.eraseArgument(index);
  // The chains that built the struct, where nothing else reads them.
  while (!chains.empty()) {
    Operation *op = chains.pop_back_val();
    if (!op->use_empty() || !isa<LLVM::InsertValueOp, LLVM::UndefOp, LLVM::PoisonOp>(op)) continue;
    SmallVector<Operation *, 2> defs;
    for (Value o : op->getOperands())
      if (Operation *d = o.getDefiningOp()) defs.push_back(d);
    op->erase();
    for (Operation *d : defs)
      if (isa<LLVM::InsertValueOp, LLVM::UndefOp, LLVM::PoisonOp>(d)) chains.push_back(d);
  }
  return true;
}

struct ScalarCarriesPass : impl::ScalarCarriesBase<ScalarCarriesPass> {
  void runOnOperation() override {
    getOperation()->walk([](LLVM::LLVMFuncOp f) {
      for (Block &block : f.getBody()) {
        if (block.isEntryBlock()) continue;
        for (unsigned i = 0; i < block.getNumArguments();) {
          // Scalarized, its elements took its place: the next argument follows them.
          auto st = dyn_cast<LLVM::LLVMStructType>(block.getArgument(i).getType());
          i += st && scalarize(block, i) ? unsigned(st.getBody().size()) : 1u;
        }
      }
    });
  }
};

} // namespace
} // namespace ph::tilegpu
