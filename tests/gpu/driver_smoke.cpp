//===- driver_smoke.cpp - The runtime's driver layer on a cubin made by nvcc -===//
//
// usage: driver_smoke KERNEL.cubin. The cubin holds `extern "C" scale_add(float
// *x, int n)` computing x[i] = 2 x[i] + 1 (tests/gpu/Inputs/scale_add.cu).
// Exits 77 (skipped) without a GPU, 1 on a wrong result.
//
//===----------------------------------------------------------------------===//
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/Manifest.h"

#include <cmath>
#include <cstdio>
#include <vector>

using namespace ph::rt;

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: driver_smoke KERNEL.cubin\n");
    return 2;
  }
  Cuda &cu = Cuda::get();
  if (!cu.available()) {
    std::printf("skipped: %s\n", cu.whyUnavailable().c_str());
    return 77;
  }
  const DeviceInfo &d = cu.device();
  std::printf("%s %s, %d SMs, shared/block opt-in %d, clock %d MHz, mem %d MHz x %d bit, L2 %d\n", d.name.c_str(),
              d.arch().c_str(), d.smCount, d.sharedPerBlockOptin, d.clockKHz / 1000, d.memClockKHz / 1000,
              d.busWidthBits, d.l2Bytes);
  std::vector<uint8_t> image;
  if (std::string e = readFile(argv[1], image); !e.empty()) {
    std::fprintf(stderr, "%s\n", e.c_str());
    return 1;
  }
  std::string err;
  // 64 KiB of dynamic shared memory exercises the opt-in path.
  auto mod = Module::load(image, "scale_add", 64 * 1024, err);
  if (!mod) {
    std::fprintf(stderr, "load: %s\n", err.c_str());
    return 1;
  }
  const int n = 1 << 20;
  std::vector<float> host(n), back(n);
  for (int i = 0; i < n; ++i) host[i] = float(i % 1000) * 0.5f - 3.0f;
  DevicePtr p = 0;
  if (!(err = cu.alloc(p, n * 4)).empty() || !(err = cu.copyToDevice(p, host.data(), n * 4)).empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  int nn = n;
  void *params[] = {&p, &nn};
  int64_t grid[3] = {(n + 255) / 256, 1, 1};
  void *e0 = nullptr, *e1 = nullptr;
  cu.eventCreate(e0);
  cu.eventCreate(e1);
  cu.eventRecord(e0);
  err = mod->launch(grid, 256, 64 * 1024, params);
  cu.eventRecord(e1);
  float ms = 0;
  if (err.empty()) err = cu.eventElapsedMs(e0, e1, ms);
  if (err.empty()) err = cu.synchronize();
  if (err.empty()) err = cu.copyToHost(back.data(), p, n * 4);
  if (!err.empty()) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  int bad = 0;
  for (int i = 0; i < n; ++i)
    if (back[i] != 2 * host[i] + 1) ++bad;
  FuncAttributes fa = mod->attributes();
  std::printf("scale_add: %d registers, %.3f ms, %d wrong of %d\n", fa.registers, ms, bad, n);
  // A grid CUDA cannot launch must come back as an error, not a crash.
  int64_t badGrid[3] = {1, 70000, 1};
  std::string e2 = mod->launch(badGrid, 256, 0, params);
  std::printf("oversized grid: %s\n", e2.empty() ? "accepted (wrong)" : e2.c_str());
  cu.free(p);
  return bad || e2.empty() ? 1 : 0;
}
