//===- CudaDriver.h - The CUDA driver API, loaded at run time ----*- C++ -*-===//
//
// Ph never links libcuda: the driver is opened with dlopen("libcuda.so.1") the
// first time it is needed, so every binary starts on a machine without a GPU
// and says so in words. Handles are opaque here (no cuda.h in this header);
// every call returns "" or an error message that names the driver call.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ph::rt {

/// What the runtime needs to know about the device (one query, at start).
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int major = 0, minor = 0;
  int smCount = 0;
  int maxThreadsPerBlock = 0;
  int sharedPerBlock = 0;       // without opt-in (48 KiB)
  int sharedPerBlockOptin = 0;  // what a kernel may ask for with the opt-in
  int sharedPerSM = 0;
  int clockKHz = 0;             // SM clock (the driver's "typical" clock)
  int memClockKHz = 0;
  int busWidthBits = 0;
  int l2Bytes = 0;
  uint64_t totalMem = 0;
  int driverVersion = 0;

  /// `sm_90`.
  std::string arch() const;
  /// Bytes per second the memory can move (reads + writes), from clock and bus.
  double peakBandwidth() const;
  /// FP32 FMA pipes: the ceiling of the SIMT target's arithmetic.
  double peakFp32Flops() const;
  /// Dense f16/bf16 tensor-core ceiling (for the tensorcore target's figures).
  double peakTensorF16Flops() const;
};

using DevicePtr = uint64_t;
struct TensorMapParams; // TensorMap.h

/// Whether there is a GPU, and its description, without creating a context (what
/// ph-lsp asks at start). Asked once per process; later calls return the answer.
struct DeviceProbe {
  bool available = false;
  DeviceInfo info;
  std::string why; // "no GPU: ..." when not available
};
DeviceProbe probeDevice();

/// The process-wide driver. `get()` never fails: `available()` says whether a
/// driver and a device were found, and `whyUnavailable()` says why not.
class Cuda {
public:
  static Cuda &get();

  bool available() const { return ok_; }
  const std::string &whyUnavailable() const { return why_; }
  const DeviceInfo &device() const { return info_; }

  std::string alloc(DevicePtr &ptr, size_t bytes);
  std::string free(DevicePtr ptr);
  std::string copyToDevice(DevicePtr dst, const void *src, size_t bytes);
  std::string copyToHost(void *dst, DevicePtr src, size_t bytes);
  std::string memset8(DevicePtr dst, uint8_t value, size_t bytes);
  std::string synchronize();
  /// A TMA tensor map over the device tensor at `tensor`, encoded into `map` (cuTensorMapEncodeTiled).
  std::string encodeTensorMap(const TensorMapParams &p, DevicePtr tensor, uint8_t (&map)[128]);

  /// Event timing on the default stream.
  std::string eventCreate(void *&event);
  std::string eventRecord(void *event);
  std::string eventElapsedMs(void *start, void *end, float &ms);
  void eventDestroy(void *event);

  struct Api; // function pointers (defined in the .cpp)
  /// dlopen, the entry points, cuInit and the device's description (no context):
  /// "" or why there is no GPU. Shared by the constructor and probeDevice().
  static std::string loadDriver(void *&lib, Api &api, DeviceInfo &info, int &device);

private:
  Cuda();
  std::string check(int result, const char *call) const;
  friend class Module;

  bool ok_ = false;
  std::string why_;
  DeviceInfo info_;
  void *lib_ = nullptr;
  void *ctx_ = nullptr;
  std::unique_ptr<Api> api_;
};

/// Resources one loaded kernel reports (cuFuncGetAttribute).
struct FuncAttributes {
  int registers = 0;
  int localBytes = 0;
  int staticShared = 0;
  int maxThreads = 0;
  int binaryVersion = 0;
};

/// A loaded cubin and one of its kernels.
class Module {
public:
  ~Module();
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// Loads `image` (a cubin) and looks up `symbol`; raises the kernel's
  /// dynamic shared-memory limit to `dynamicShared` when above 48 KiB.
  static std::unique_ptr<Module> load(const std::vector<uint8_t> &image, const std::string &symbol,
                                      int dynamicShared, std::string &error);

  /// `params` are pointers to each argument's value, in the kernel's order.
  std::string launch(const int64_t grid[3], int threads, int dynamicShared, void **params);
  FuncAttributes attributes() const;
  /// How many CTAs of `threads` threads and `dynamicShared` bytes one SM holds at once
  /// (cuOccupancyMaxActiveBlocksPerMultiprocessor; at least 1).
  int ctasPerSM(int threads, int dynamicShared) const;

private:
  Module() = default;
  void *module_ = nullptr;
  void *func_ = nullptr;
};

} // namespace ph::rt
