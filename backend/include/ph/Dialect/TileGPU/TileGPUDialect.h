//===- TileGPUDialect.h - The TileGPU dialect (ODS declarations) -*- C++ -*-===//
//
// Included only by backend sources that build or rewrite TileGPU IR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Dialect/Tile/TileDialect.h"

#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "ph/Dialect/TileGPU/TileGPUDialect.h.inc"

namespace ph::tilegpu {
/// The names of the dialect's registered discardable attributes (TileGPUDialect.td),
/// for the code that reads and writes them: one spelling, checked by the verifier
/// (IR/Attributes.cpp).
inline constexpr ::llvm::StringLiteral kPolicyAttr = TileGPUDialect::PolicyAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kSharedBytesAttr = TileGPUDialect::SharedBytesAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kConsumerThreadsAttr = TileGPUDialect::ConsumerThreadsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kLaunchThreadsAttr = TileGPUDialect::LaunchThreadsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kMinCtasAttr = TileGPUDialect::MinCtasAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kThreadsAttr = TileGPUDialect::ThreadsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kThreadBaseAttr = TileGPUDialect::ThreadBaseAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kWindowAttr = TileGPUDialect::WindowAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kSqueezedAttr = TileGPUDialect::SqueezedAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kDivisibilityAttr = TileGPUDialect::DivisibilityAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTmaAttr = TileGPUDialect::TmaAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kVectorDotRegsAttr = TileGPUDialect::VectorDotRegsAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kGridAttr = TileGPUDialect::GridAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kTileLoopAttr = TileGPUDialect::TileLoopAttrHelper::getNameStr();
inline constexpr ::llvm::StringLiteral kAfterDeadAttr = TileGPUDialect::AfterDeadAttrHelper::getNameStr();

/// What the shared-memory ops read and write (kept apart from global memory).
struct SharedMemoryResource : mlir::SideEffects::Resource::Base<SharedMemoryResource> {
  llvm::StringRef getName() final { return "<SharedMemory>"; }
};
} // namespace ph::tilegpu

#define GET_ATTRDEF_CLASSES
#include "ph/Dialect/TileGPU/TileGPUAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "ph/Dialect/TileGPU/TileGPUTypes.h.inc"

#define GET_OP_CLASSES
#include "ph/Dialect/TileGPU/TileGPUOps.h.inc"

namespace ph::tilegpu {
/// The layout of a tile value, or null when it has none.
inline mlir::Attribute layoutOf(mlir::Type t) {
  auto rt = mlir::dyn_cast<mlir::RankedTensorType>(t);
  return rt ? rt.getEncoding() : mlir::Attribute();
}
/// `t` with layout `layout` (null: none).
inline mlir::RankedTensorType withLayout(mlir::Type t, mlir::Attribute layout) {
  auto rt = mlir::cast<mlir::RankedTensorType>(t);
  return mlir::RankedTensorType::get(rt.getShape(), rt.getElementType(), layout);
}
} // namespace ph::tilegpu
