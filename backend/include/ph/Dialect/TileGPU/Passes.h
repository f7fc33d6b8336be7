//===- Passes.h - The TileGPU passes ------------------------------*- C++ -*-===//
#pragma once

#include "mlir/Pass/Pass.h"

#include <memory>

namespace ph::tilegpu {

#define GEN_PASS_DECL
#include "ph/Dialect/TileGPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "ph/Dialect/TileGPU/Passes.h.inc"

} // namespace ph::tilegpu
