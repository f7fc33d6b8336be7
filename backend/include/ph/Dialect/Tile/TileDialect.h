//===- TileDialect.h - The tile dialect (ODS-generated declarations) -*- C++ -*-===//
//
// Included only by backend sources that build or rewrite tile IR: it pulls in
// MLIR headers, which the public API headers (ph/Backend/*.h) never do.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/TypeUtilities.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ph/Dialect/Tile/TileOpsDialect.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ph/Dialect/Tile/TileOpsTypes.h.inc"

#define GET_OP_CLASSES
#include "ph/Dialect/Tile/TileOps.h.inc"

namespace ph::tile {
/// The names of the dialect's registered discardable attributes (TileDialect.td),
/// for the code that reads and writes them: one spelling, checked by the verifier.
inline constexpr ::llvm::StringLiteral kThreadsAttr = TileDialect::ThreadsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTensorcoreAttr = TileDialect::TensorcoreAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLaunchAttr = TileDialect::LaunchAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kDivisibilityAttr = TileDialect::DivisibilityAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kSharedBytesAttr = TileDialect::SharedBytesAttrHelper::getNameStr();
} // namespace ph::tile
