//===- TensorMap.h - TMA descriptors a kernel takes, encoded on the host -*- C++ -*-===//
//
// A kernel built for sm_90a may copy operand tiles by TMA (`cp.async.bulk.tensor`),
// which reads a 128-byte tensor map: the tensor's address, its dimensions and
// strides, the box one copy moves and the shared-memory swizzle. The compiler
// cannot know the address or the sizes, so the manifest describes each map the
// kernel needs (`tma`: which tensor, the box, the swizzle) and the runtime
// encodes it at launch with the driver's cuTensorMapEncodeTiled, from the
// tensor's declared shape with the bound sizes (docs/abi.md, "TMA descriptors").
// This header is the pure half (what to pass the driver), unit-tested without a GPU.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ph::rt {

/// One tensor map a kernel takes, as the manifest stores it.
struct TmaDescriptor {
  uint32_t tensor = 0;       // index into the kernel's tensors
  std::vector<int64_t> box;  // elements per tensor dimension, outermost first (1 where the slice drops one)
  int swizzleBytes = 128;    // 0 (none), 32, 64 or 128: the rings' XOR swizzle
};

/// The arguments of cuTensorMapEncodeTiled, innermost dimension first as the driver wants them.
struct TensorMapParams {
  int dataType = 0;            // CUtensorMapDataType
  uint32_t rank = 0;
  uint64_t dims[5] = {};       // elements
  uint64_t strides[4] = {};    // bytes between consecutive indices of dims 1 .. rank-1
  uint32_t box[5] = {};
  uint32_t elementStrides[5] = {};
  int interleave = 0;          // CU_TENSOR_MAP_INTERLEAVE_NONE
  int swizzle = 0;             // CUtensorMapSwizzle: 0 none, 1 32 B, 2 64 B, 3 128 B
  int l2Promotion = 0;         // CUtensorMapL2promotion
  int oobFill = 0;             // CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE: zeros past the extents
};

/// The driver's parameters for `d` over tensor `t` with the launch's `sizes`; "" or why
/// the map cannot be made (rank, element type, a box or stride the hardware refuses).
std::string tensorMapParams(const TmaDescriptor &d, const kir::TensorParam &t, const std::vector<int64_t> &sizes,
                            TensorMapParams &out);

} // namespace ph::rt
