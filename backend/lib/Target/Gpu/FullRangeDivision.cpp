//===- FullRangeDivision.cpp - f32 llvm.fdiv -> llvm.nvvm.div.full ---------===//

#include "FullRangeDivision.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Matchers.h"

#include <cstdlib>
#include <string>
#include <vector>

namespace ph::backend {

using namespace mlir;

bool ieeeGpuDivision() {
  const char *e = std::getenv("PH_GPU_DIV");
  return e && std::string(e) == "ieee";
}

namespace {

/// The operand's constant value when every element is the same float (a scalar constant or
/// a splat vector), else null.
FloatAttr splatConstant(Value v) {
  Attribute a;
  if (!matchPattern(v, m_Constant(&a))) return {};
  if (auto f = dyn_cast<FloatAttr>(a)) return f;
  if (auto s = dyn_cast<SplatElementsAttr>(a)) return dyn_cast<FloatAttr>(s.getSplatValue<Attribute>());
  return {};
}

bool isConstant(Value v) {
  Attribute a;
  return matchPattern(v, m_Constant(&a));
}

/// x / 2^k is exact and LLVM's InstCombine makes it x * 2^-k; an intrinsic call would hide that.
bool exactReciprocal(Value divisor) {
  FloatAttr f = splatConstant(divisor);
  return f && f.getValue().getExactInverse(nullptr);
}

Value divFull(OpBuilder &b, Location loc, Value x, Value y) {
  return LLVM::CallIntrinsicOp::create(b, loc, b.getF32Type(), b.getStringAttr("llvm.nvvm.div.full"), ValueRange{x, y})
      .getResult(0);
}

} // namespace

void useFullRangeDivision(ModuleOp m) {
  if (ieeeGpuDivision()) return;
  std::vector<LLVM::FDivOp> divs;
  m.walk([&](LLVM::FDivOp d) {
    Type t = d.getType();
    auto vt = dyn_cast<VectorType>(t);
    bool f32 = t.isF32() || (vt && !vt.isScalable() && vt.getRank() == 1 && vt.getElementType().isF32());
    if (!f32 || exactReciprocal(d.getRhs()) || (isConstant(d.getLhs()) && isConstant(d.getRhs()))) return;
    divs.push_back(d);
  });
  for (LLVM::FDivOp d : divs) {
    OpBuilder b(d);
    Location loc = d.getLoc();
    Value r;
    if (auto vt = dyn_cast<VectorType>(d.getType())) {
      r = LLVM::PoisonOp::create(b, loc, vt);
      for (int64_t i = 0; i < vt.getNumElements(); ++i) {
        Value at = LLVM::ConstantOp::create(b, loc, b.getI32Type(), b.getI32IntegerAttr(int32_t(i)));
        Value x = LLVM::ExtractElementOp::create(b, loc, d.getLhs(), at);
        Value y = LLVM::ExtractElementOp::create(b, loc, d.getRhs(), at);
        r = LLVM::InsertElementOp::create(b, loc, vt, r, divFull(b, loc, x, y), at);
      }
    } else {
      r = divFull(b, loc, d.getLhs(), d.getRhs());
    }
    d.getResult().replaceAllUsesWith(r);
    d.erase();
  }
}

} // namespace ph::backend
