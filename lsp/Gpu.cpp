//===- Gpu.cpp - GPU detection through the CUDA driver, loaded with dlopen -===//
#include "Gpu.h"

#include <cstdlib>
#include <dlfcn.h>

namespace ph::lsp {

GpuInfo detectGpu() {
  GpuInfo info;
  if (const char *no = std::getenv("PH_LSP_NO_GPU"); no && *no && *no != '0') {
    info.reason = "disabled by PH_LSP_NO_GPU";
    return info;
  }
  void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    info.reason = "no CUDA driver (libcuda.so.1 not found)";
    return info;
  }
  using InitFn = int (*)(unsigned);
  using CountFn = int (*)(int *);
  using GetFn = int (*)(int *, int);
  using NameFn = int (*)(char *, int, int);
  using AttrFn = int (*)(int *, int, int);
  auto init = reinterpret_cast<InitFn>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CountFn>(dlsym(lib, "cuDeviceGetCount"));
  auto get = reinterpret_cast<GetFn>(dlsym(lib, "cuDeviceGet"));
  auto name = reinterpret_cast<NameFn>(dlsym(lib, "cuDeviceGetName"));
  auto attr = reinterpret_cast<AttrFn>(dlsym(lib, "cuDeviceGetAttribute"));
  if (!init || !count || !get || !name || !attr) {
    info.reason = "the CUDA driver lacks the device query functions";
    return info; // keep the library loaded: unloading a driver is not worth the risk
  }
  int n = 0, dev = 0;
  if (int rc = init(0); rc != 0) {
    info.reason = "cuInit failed (CUresult " + std::to_string(rc) + ")";
    return info;
  }
  if (count(&n) != 0 || n == 0) {
    info.reason = "the CUDA driver reports no devices";
    return info;
  }
  char buf[256] = {};
  if (get(&dev, 0) != 0 || name(buf, sizeof buf - 1, dev) != 0) {
    info.reason = "cannot query device 0";
    return info;
  }
  int major = 0, minor = 0;
  attr(&major, 75, dev); // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR
  attr(&minor, 76, dev); // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR
  info.available = true;
  info.name = buf;
  info.arch = "sm_" + std::to_string(major) + std::to_string(minor);
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
