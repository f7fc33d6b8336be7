//===- Gpu.cpp - The runtime's GPU probe, for ph.gpuStatus and ph.run ------===//
#include "Gpu.h"

#include "ph/Runtime/CudaDriver.h"

#include <cstdlib>

namespace ph::lsp {

GpuInfo detectGpu() {
  GpuInfo info;
  if (const char *no = std::getenv("PH_LSP_NO_GPU"); no && *no && *no != '0') {
    info.reason = "disabled by PH_LSP_NO_GPU";
    return info;
  }
  // PH_LSP_GPU="NAME,ARCH" pretends there is that GPU (tests of what the editors show on one).
  if (const char *fake = std::getenv("PH_LSP_GPU"); fake && *fake) {
    std::string f = fake;
    size_t comma = f.find(',');
    info.available = true;
    info.name = f.substr(0, comma);
    info.arch = comma == std::string::npos ? "sm_90" : f.substr(comma + 1);
    return info;
  }
  rt::DeviceProbe p = rt::probeDevice();
  if (!p.available) {
    // The runtime says "no GPU: why"; the server's messages say "no GPU" themselves.
    info.reason = p.why.rfind("no GPU: ", 0) == 0 ? p.why.substr(8) : p.why;
    return info;
  }
  info.available = true;
  info.name = p.info.name;
  info.arch = p.info.arch();
  return info;
}

} // namespace ph::lsp

namespace ph::lsp {

std::string runTargetLabel(const std::string &target, const GpuInfo *gpu) {
  if (target == "cpu") return "CPU";
  if (target == "interp") return "interpreter";
  if (!gpu) return "GPU";
  if (!gpu->available) return target == "auto" ? "CPU" : "GPU";
  // "NVIDIA H200" reads as "H200" in a lens.
  std::string n = gpu->name;
  for (const char *p : {"NVIDIA ", "Tesla "})
    if (n.rfind(p, 0) == 0) n = n.substr(std::string(p).size());
  return n.empty() ? "GPU" : n;
}

} // namespace ph::lsp
