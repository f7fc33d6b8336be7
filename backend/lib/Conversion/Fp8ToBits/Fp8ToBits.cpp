//===- Fp8ToBits.cpp - fp8 as i8 bits for the GPU lowerings (tile-fp8-to-bits) ===//
//
// Ph's fp8 types are storage types (docs/language.md, "fp8"): a value of one is
// only ever loaded and converted, or converted and stored. The GPU lowerings
// have no fp8 registers (LLVM has no fp8 type; NVPTX's cvt for e4m3/e5m2 needs
// sm_89), so this pass turns every fp8 type into i8 (pointers, loads, splats,
// anything that moves the bits) and every tile.convert from or to fp8 into
// ConvertRules.h's integer arithmetic, elementwise on the tile. The result has
// no fp8 type left, and converts the same way as the CPU target and the
// interpreter, bit for bit.
//
//===----------------------------------------------------------------------===//
#include "ph/Conversion/ConvertRules.h"
#include "ph/Conversion/Passes.h"
#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace ph::tile {
#define GEN_PASS_DEF_TILEFP8TOBITS
#include "ph/Conversion/Passes.h.inc"
} // namespace ph::tile

using namespace mlir;

namespace {

bool isFp8(Type t) { return isa<Float8E4M3FNType, Float8E5M2Type>(getElementTypeOrSelf(t)); }

/// `t` with an fp8 element (or pointee) as i8; other types as they are.
Type asBits(Type t) {
  MLIRContext *ctx = t.getContext();
  if (auto p = dyn_cast<ph::tile::PtrType>(t))
    return isFp8(p.getElementType()) ? ph::tile::PtrType::get(ctx, IntegerType::get(ctx, 8)) : t;
  if (!isFp8(t)) return t;
  return ph::conv::withElem(t, IntegerType::get(ctx, 8));
}

struct TileFp8ToBitsPass : ph::tile::impl::TileFp8ToBitsBase<TileFp8ToBitsPass> {
  void runOnOperation() override {
    ModuleOp m = getOperation();
    // The conversions first, while their fp8 operands and results still say which
    // format they are.
    SmallVector<ph::tile::ConvertOp> converts;
    m.walk([&](ph::tile::ConvertOp c) {
      if (isFp8(c.getSource().getType()) || isFp8(c.getType())) converts.push_back(c);
    });
    for (ph::tile::ConvertOp c : converts) {
      OpBuilder b(c);
      Location loc = c.getLoc();
      Type from = getElementTypeOrSelf(c.getSource().getType()), to = getElementTypeOrSelf(c.getType());
      Value r;
      if (std::optional<ph::conv::Fp8Format> f = ph::conv::fp8Format(from)) {
        Value bits = UnrealizedConversionCastOp::create(b, loc, asBits(c.getSource().getType()), c.getSource())
                         .getResult(0);
        Value wide = ph::conv::fp8ToF32(b, loc, bits, *f);
        if (std::optional<ph::conv::Fp8Format> g = ph::conv::fp8Format(to))
          r = ph::conv::f32ToFp8(b, loc, wide, b.getI8Type(), *g);
        else
          r = ph::conv::convertValue(b, loc, wide, c.getType());
      } else {
        Value wide = ph::conv::convertValue(b, loc, c.getSource(), ph::conv::withElem(c.getType(), b.getF32Type()));
        r = ph::conv::f32ToFp8(b, loc, wide, b.getI8Type(), *ph::conv::fp8Format(to));
      }
      // Until every fp8 value is retyped below, users still expect fp8.
      if (isFp8(c.getType())) r = UnrealizedConversionCastOp::create(b, loc, c.getType(), r).getResult(0);
      c.replaceAllUsesWith(r);
      c.erase();
    }
    // Every other fp8 type (function arguments, results of loads and of the ops that
    // move values) becomes its bits.
    m.walk([&](func::FuncOp fn) {
      FunctionType ft = fn.getFunctionType();
      SmallVector<Type> ins;
      for (Type t : ft.getInputs()) ins.push_back(asBits(t));
      fn.setType(FunctionType::get(fn.getContext(), ins, ft.getResults()));
      if (!fn.empty())
        for (BlockArgument a : fn.getArguments()) a.setType(asBits(a.getType()));
    });
    m.walk([&](Operation *op) {
      for (Region &rg : op->getRegions())
        for (Block &blk : rg)
          for (BlockArgument a : blk.getArguments()) a.setType(asBits(a.getType()));
      for (OpResult res : op->getResults()) res.setType(asBits(res.getType()));
    });
    // The casts the conversions left are now i8 -> i8.
    m.walk([&](UnrealizedConversionCastOp cast) {
      if (cast->getNumOperands() == 1 && cast->getNumResults() == 1 &&
          cast.getOperand(0).getType() == cast.getResult(0).getType()) {
        cast.getResult(0).replaceAllUsesWith(cast.getOperand(0));
        cast.erase();
      }
    });
    // An fp8 constant (none come from the frontend, which converts literals from f32)
    // would keep an fp8 attribute: refuse rather than miscompile.
    WalkResult w = m.walk([&](arith::ConstantOp c) {
      if (auto attr = dyn_cast<FloatAttr>(c.getValue()); attr && isFp8(attr.getType())) {
        c.emitOpError("an fp8 constant reached the GPU lowering (expected an f32 constant and a tile.convert)");
        return WalkResult::interrupt();
      }
      if (auto d = dyn_cast<DenseElementsAttr>(c.getValue()); d && isFp8(d.getElementType())) {
        c.emitOpError("an fp8 constant reached the GPU lowering (expected an f32 constant and a tile.convert)");
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (w.wasInterrupted()) signalPassFailure();
  }
};

} // namespace
