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
