//===- Gpu.h - Which GPU would `ph run` use? --------------------*- C++ -*-===//
#pragma once

#include <string>

namespace ph::lsp {

struct GpuInfo {
  bool available = false;
  std::string name;   // "NVIDIA H200"
  std::string arch;   // "sm_90"
  std::string reason; // why there is none
};

/// The runtime's probe (rt::probeDevice: the CUDA driver loaded with dlopen, no
/// context created, so the server starts on machines without a driver), in the
/// server's terms. PH_LSP_NO_GPU=1 pretends there is none; PH_LSP_GPU="NVIDIA H200,sm_90"
/// that there is that one (tests).
GpuInfo detectGpu();

/// Where a run with `target` (auto|gpu|cpu|interp) executes, for the code lenses: "CPU",
/// "interpreter", the GPU's short name ("H200"), or "GPU" while none was detected yet. `auto`
/// without a GPU is "CPU": the run offers (or, with `noGpu: cpu`, takes) the CPU target.
std::string runTargetLabel(const std::string &target, const GpuInfo *gpu);

} // namespace ph::lsp
