//===- Arch.h - One table of the GPU architectures Ph compiles for -*- C++ -*-===//
//
// What each `--target sm_XX` offers: the matrix instructions, async copies,
// shared memory and register budgets. The layout policies, the shared-memory
// allocator, the occupancy estimate and ptxas's `-arch` all read it, so a
// build for sm_90a does not depend on the GPU of the machine that compiles.
// No MLIR here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ph::backend {

struct GpuArch {
  std::string name;          // sm_80 ... sm_90a: ptxas's -arch and NVPTX's chip
  int sm = 0;                // 80, 86, 89, 90
  bool archSpecific = false; // the `a` suffix: wgmma, setmaxnreg (sm_90a)
  int ptxVersion = 0;        // the PTX ISA to emit (NVPTX feature +ptxNN)
  long sharedPerBlock = 0;   // bytes one CTA may use with the opt-in
  long sharedPerSM = 0;      // bytes per multiprocessor
  int registersPerSM = 65536;
  int maxThreadsPerSM = 2048;
  int maxBlocksPerSM = 32;
  bool mmaSync = false;      // mma.sync m16n8k16 with f16/bf16 inputs
  bool cpAsync = false;      // cp.async
  bool wgmma = false;        // wgmma.mma_async (sm_90a only)
  bool tma = false;          // cp.async.bulk.tensor (sm_90 and later)
};

/// The architecture called `name`, or null (then `supportedGpuArchs()` lists the names).
const GpuArch *findGpuArch(std::string_view name);

/// The architecture to compile for on a machine whose GPU is `deviceArch`:
/// its arch-specific variant when there is one (sm_90 -> sm_90a), else itself.
std::string archForDevice(std::string_view deviceArch);
/// "sm_80, sm_86, sm_89, sm_90, sm_90a" for messages.
std::string supportedGpuArchs();

} // namespace ph::backend
