//===- Occupancy.h - What an SM holds, and how many blocks fit ---*- C++ -*-===//
//
// The one device description the compiler, `ph build --json`, `ph bench` and
// ph-lsp use for occupancy: per architecture the SM's register file, warps,
// blocks and shared memory (the CUDA C Programming Guide's table of compute
// capabilities), or the device's own figures when one is present. No MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>

namespace ph::rt {

struct DeviceInfo;

struct DeviceLimits {
  std::string arch;              // sm_90
  std::string name;              // "NVIDIA H200" when from a device, else ""
  std::string source = "table";  // "table" (by architecture) or "device" (the driver's figures)
  int registersPerSM = 65536;
  int registerAllocUnit = 256;   // registers are given to a warp in units of this many
  int maxWarpsPerSM = 64;
  int maxBlocksPerSM = 32;
  int64_t sharedPerSM = 233472;         // bytes usable by blocks
  int64_t sharedPerBlockOptin = 232448; // the most one block may ask for
  int64_t sharedReservedPerBlock = 1024; // the system's share of each block (sm_80 on)
  bool known = true;             // false: an architecture not in the table (sm_90's figures used)
};

/// The table's figures for `arch` (sm_80, sm_86, sm_89, sm_90).
DeviceLimits limitsForArch(const std::string &arch);
/// The present device's figures (its shared memory per SM and per block).
DeviceLimits limitsForDevice(const DeviceInfo &dev);

struct Occupancy {
  int blocksPerSM = 0;
  int warpsPerSM = 0;
  double fraction = 0;          // warpsPerSM / maxWarpsPerSM
  std::string limitedBy;        // registers | shared memory | threads | blocks per SM
  int byRegisters = 0, bySharedMemory = 0, byThreads = 0;
};

/// Blocks of `threads` threads using `registers` each and `sharedBytes` per block.
Occupancy occupancy(const DeviceLimits &d, int threads, int registers, int64_t sharedBytes);

/// "2 blocks/SM (25% occupancy, limited by registers)".
std::string occupancyText(const Occupancy &o);

} // namespace ph::rt
