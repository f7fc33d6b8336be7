//===- Occupancy.cpp - Blocks per SM from registers, shared memory, threads -===//
#include "ph/Runtime/Occupancy.h"

#include "ph/Runtime/CudaDriver.h"

#include <algorithm>
#include <cmath>

namespace ph::rt {

DeviceLimits limitsForArch(const std::string &arch) {
  DeviceLimits d;
  d.arch = arch;
  if (arch == "sm_80") {
    d.sharedPerSM = 167936; // 164 KiB
    d.sharedPerBlockOptin = 166912;
  } else if (arch == "sm_86" || arch == "sm_89") {
    d.maxWarpsPerSM = 48;
    d.maxBlocksPerSM = arch == "sm_86" ? 16 : 24;
    d.sharedPerSM = 102400; // 100 KiB
    d.sharedPerBlockOptin = 101376;
  } else if (arch != "sm_90" && arch != "sm_90a") {
    d.known = false;
  }
  return d;
}

DeviceLimits limitsForDevice(const DeviceInfo &dev) {
  DeviceLimits d = limitsForArch(dev.arch());
  d.name = dev.name;
  d.source = "device";
  if (dev.sharedPerSM > 0) d.sharedPerSM = dev.sharedPerSM;
  if (dev.sharedPerBlockOptin > 0) d.sharedPerBlockOptin = dev.sharedPerBlockOptin;
  return d;
}

Occupancy occupancy(const DeviceLimits &d, int threads, int registers, int64_t sharedBytes) {
  Occupancy o;
  int warps = std::max(1, (threads + 31) / 32);
  o.byThreads = std::min(d.maxBlocksPerSM, d.maxWarpsPerSM / warps);
  o.byRegisters = d.maxBlocksPerSM;
  if (registers > 0) {
    int perWarp = (registers * 32 + d.registerAllocUnit - 1) / d.registerAllocUnit * d.registerAllocUnit;
    o.byRegisters = (d.registersPerSM / perWarp) / warps;
  }
  o.bySharedMemory = d.maxBlocksPerSM;
  if (sharedBytes > 0)
    o.bySharedMemory = static_cast<int>(d.sharedPerSM / (sharedBytes + d.sharedReservedPerBlock));
  o.blocksPerSM = std::min({o.byThreads, o.byRegisters, o.bySharedMemory, d.maxBlocksPerSM});
  o.limitedBy = o.blocksPerSM == o.byRegisters        ? "registers"
                : o.blocksPerSM == o.bySharedMemory   ? "shared memory"
                : o.blocksPerSM == o.byThreads        ? "threads"
                                                      : "blocks per SM";
  o.warpsPerSM = o.blocksPerSM * warps;
  o.fraction = static_cast<double>(o.warpsPerSM) / d.maxWarpsPerSM;
  return o;
}

std::string occupancyText(const Occupancy &o) {
  return std::to_string(o.blocksPerSM) + " blocks/SM (" + std::to_string(std::lround(100 * o.fraction)) +
         "% occupancy, limited by " + o.limitedBy + ")";
}

} // namespace ph::rt
