//===- Arch.cpp - The GPU architecture table ---------------------------------===//
#include "ph/Backend/Arch.h"

namespace ph::backend {
namespace {

// Figures from the CUDA C++ Programming Guide's table of compute capabilities.
const std::vector<GpuArch> &table() {
  static const std::vector<GpuArch> t = {
      {"sm_80", 80, false, 70, 166912, 167936, 65536, 2048, 32, true, true, false, false},
      {"sm_86", 86, false, 71, 101376, 102400, 65536, 1536, 16, true, true, false, false},
      {"sm_89", 89, false, 78, 101376, 102400, 65536, 1536, 24, true, true, false, false},
      {"sm_90", 90, false, 80, 232448, 233472, 65536, 2048, 32, true, true, false, true},
      {"sm_90a", 90, true, 80, 232448, 233472, 65536, 2048, 32, true, true, true, true},
  };
  return t;
}

} // namespace

const GpuArch *findGpuArch(std::string_view name) {
  for (const GpuArch &a : table())
    if (a.name == name) return &a;
  return nullptr;
}

std::string archForDevice(std::string_view deviceArch) {
  // Code built on the machine that runs it may use the device's own features:
  // sm_90's `a` variant adds wgmma and setmaxnreg, and its cubins run only on
  // compute capability 9.0, which is what the device is.
  std::string specific = std::string(deviceArch) + "a";
  if (const GpuArch *a = findGpuArch(specific); a && a->archSpecific) return specific;
  return std::string(deviceArch);
}

std::string supportedGpuArchs() {
  std::string s;
  for (const GpuArch &a : table()) s += (s.empty() ? "" : ", ") + a.name;
  return s;
}

} // namespace ph::backend
