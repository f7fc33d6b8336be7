//===- CudaDriver.cpp - dlopen("libcuda.so.1") and thin wrappers ----------===//
//
// The few driver entry points Ph uses, declared here with their ABI names (the
// `_v2` symbols that cuda.h's macros select), so neither cuda.h nor libcuda is
// needed to build. Enum values are the driver ABI's and never change.
//
//===----------------------------------------------------------------------===//
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/TensorMap.h"

#include <algorithm>
#include <cstdlib>
#include <iterator>
#include <type_traits>
#include <dlfcn.h>

namespace ph::rt {

namespace {
using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using Ptr = void *;

// Device attributes (cuda.h's CUdevice_attribute).
enum : int {
  kMaxThreadsPerBlock = 1,
  kSharedPerBlock = 8,
  kClockRate = 13,
  kSmCount = 16,
  kMemClockRate = 36,
  kBusWidth = 37,
  kL2Size = 38,
  kCcMajor = 75,
  kCcMinor = 76,
  kSharedPerSM = 81,
  kSharedPerBlockOptin = 97,
};
// Function attributes (CUfunction_attribute).
enum : int {
  kFuncMaxThreads = 0,
  kFuncSharedSize = 1,
  kFuncLocalSize = 3,
  kFuncNumRegs = 4,
  kFuncBinaryVersion = 6,
  kFuncMaxDynamicShared = 8,
};
} // namespace

struct Cuda::Api {
  CUresult (*init)(unsigned);
  CUresult (*driverGetVersion)(int *);
  CUresult (*deviceGetCount)(int *);
  CUresult (*deviceGet)(CUdevice *, int);
  CUresult (*deviceGetName)(char *, int, CUdevice);
  CUresult (*deviceGetAttribute)(int *, int, CUdevice);
  CUresult (*deviceTotalMem)(size_t *, CUdevice);
  CUresult (*primaryCtxRetain)(Ptr *, CUdevice);
  CUresult (*ctxSetCurrent)(Ptr);
  CUresult (*ctxSynchronize)();
  CUresult (*memAlloc)(CUdeviceptr *, size_t);
  CUresult (*memFree)(CUdeviceptr);
  CUresult (*memcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*memcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*memsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*moduleLoadData)(Ptr *, const void *);
  CUresult (*moduleUnload)(Ptr);
  CUresult (*moduleGetFunction)(Ptr *, Ptr, const char *);
  CUresult (*funcSetAttribute)(Ptr, int, int);
  CUresult (*funcGetAttribute)(int *, int, Ptr);
  CUresult (*launchKernel)(Ptr, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                           Ptr, void **, void **);
  CUresult (*eventCreate)(Ptr *, unsigned);
  CUresult (*eventRecord)(Ptr, Ptr);
  CUresult (*eventSynchronize)(Ptr);
  CUresult (*eventElapsedTime)(float *, Ptr, Ptr);
  CUresult (*eventDestroy)(Ptr);
  CUresult (*getErrorName)(CUresult, const char **);
  CUresult (*getErrorString)(CUresult, const char **);
  // CUDA 12.0 and later; null on an older driver (a kernel with TMA maps then cannot launch).
  CUresult (*occupancyMaxActiveBlocks)(int *, void *, int, size_t); // optional
  CUresult (*tensorMapEncodeTiled)(void *, int, unsigned, void *, const uint64_t *, const uint64_t *,
                                   const unsigned *, const unsigned *, int, int, int, int);
};

std::string DeviceInfo::arch() const { return "sm_" + std::to_string(major * 10 + minor); }

double DeviceInfo::peakBandwidth() const {
  // DDR: two transfers a clock over the whole bus.
  return 2.0 * memClockKHz * 1e3 * (busWidthBits / 8.0);
}

double DeviceInfo::peakFp32Flops() const {
  // FP32 lanes per SM: 64 on sm_80 (A100) and sm_60/70, 128 on sm_86/89/90.
  int lanes = (major == 8 && minor == 0) || major < 8 ? 64 : 128;
  return 2.0 * lanes * smCount * clockKHz * 1e3;
}

double DeviceInfo::peakTensorF16Flops() const {
  // Dense f16 FLOP per SM per clock: 2048 on sm_80/86/89, 4096 on sm_90.
  int perClock = major >= 9 ? 4096 : major == 8 ? 2048 : 1024;
  return double(perClock) * smCount * clockKHz * 1e3;
}

Cuda &Cuda::get() {
  static Cuda instance;
  return instance;
}

namespace {

/// `call` failed with `result`, in the driver's words.
std::string checkWith(const Cuda::Api &a, int result, const char *call) {
  if (result == 0) return "";
  const char *name = nullptr, *text = nullptr;
  if (a.getErrorName) a.getErrorName(result, &name);
  if (a.getErrorString) a.getErrorString(result, &text);
  return std::string(call) + " failed: " + (name ? name : "CUDA error " + std::to_string(result)) +
         (text ? std::string(" (") + text + ")" : std::string());
}

} // namespace

std::string Cuda::check(int result, const char *call) const { return api_ ? checkWith(*api_, result, call) : ""; }

/// Opens the driver, resolves every entry point, and reads the device's
/// description; no context is created. Returns "" or why there is no GPU.
std::string Cuda::loadDriver(void *&lib, Api &a, DeviceInfo &info, int &device) {
  std::string why;
  const char *override = std::getenv("PH_LIBCUDA");
  lib = dlopen(override ? override : "libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    why = "no GPU: the CUDA driver (libcuda.so.1) could not be loaded";
    if (const char *e = dlerror()) why += std::string(" (") + e + ")";
    return why;
  }
  bool missing = false;
  std::string missingName;
  auto sym = [&](auto &fn, const char *name, const char *fallback = nullptr) {
    void *p = dlsym(lib, name);
    if (!p && fallback) p = dlsym(lib, fallback);
    if (!p && !missing) {
      missing = true;
      missingName = name;
    }
    fn = reinterpret_cast<std::remove_reference_t<decltype(fn)>>(p);
  };
    sym(a.init, "cuInit");
  sym(a.driverGetVersion, "cuDriverGetVersion");
  sym(a.deviceGetCount, "cuDeviceGetCount");
  sym(a.deviceGet, "cuDeviceGet");
  sym(a.deviceGetName, "cuDeviceGetName");
  sym(a.deviceGetAttribute, "cuDeviceGetAttribute");
  sym(a.deviceTotalMem, "cuDeviceTotalMem_v2");
  sym(a.primaryCtxRetain, "cuDevicePrimaryCtxRetain");
  sym(a.ctxSetCurrent, "cuCtxSetCurrent");
  sym(a.ctxSynchronize, "cuCtxSynchronize");
  sym(a.memAlloc, "cuMemAlloc_v2");
  sym(a.memFree, "cuMemFree_v2");
  sym(a.memcpyHtoD, "cuMemcpyHtoD_v2");
  sym(a.memcpyDtoH, "cuMemcpyDtoH_v2");
  sym(a.memsetD8, "cuMemsetD8_v2");
  sym(a.moduleLoadData, "cuModuleLoadData");
  sym(a.moduleUnload, "cuModuleUnload");
  sym(a.moduleGetFunction, "cuModuleGetFunction");
  sym(a.funcSetAttribute, "cuFuncSetAttribute");
  sym(a.funcGetAttribute, "cuFuncGetAttribute");
  sym(a.launchKernel, "cuLaunchKernel");
  sym(a.eventCreate, "cuEventCreate");
  sym(a.eventRecord, "cuEventRecord");
  sym(a.eventSynchronize, "cuEventSynchronize");
  sym(a.eventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  sym(a.eventDestroy, "cuEventDestroy_v2");
  sym(a.getErrorName, "cuGetErrorName");
  sym(a.getErrorString, "cuGetErrorString");
  a.tensorMapEncodeTiled = reinterpret_cast<decltype(a.tensorMapEncodeTiled)>(dlsym(lib, "cuTensorMapEncodeTiled"));
  a.occupancyMaxActiveBlocks = reinterpret_cast<decltype(a.occupancyMaxActiveBlocks)>(
      dlsym(lib, "cuOccupancyMaxActiveBlocksPerMultiprocessor"));
  if (missing) {
    why = "no GPU: the CUDA driver lacks `" + missingName + "` (driver too old?)";
    return why;
  }
  if (std::string e = checkWith(a, a.init(0), "cuInit"); !e.empty()) {
    why = "no GPU: " + e;
    return why;
  }
  int count = 0;
  if (std::string e = checkWith(a, a.deviceGetCount(&count), "cuDeviceGetCount"); !e.empty() || count == 0) {
    why = e.empty() ? "no GPU: the CUDA driver found no device" : "no GPU: " + e;
    return why;
  }
  int ordinal = 0;
  if (const char *o = std::getenv("PH_DEVICE")) ordinal = std::atoi(o);
  CUdevice dev = 0;
  if (std::string e = checkWith(a, a.deviceGet(&dev, ordinal), "cuDeviceGet"); !e.empty()) {
    why = "no GPU: " + e;
    return why;
  }
  char name[256] = {};
  a.deviceGetName(name, sizeof name, dev);
  info.ordinal = ordinal;
  info.name = name;
  a.driverGetVersion(&info.driverVersion);
  auto attr = [&](int which) {
    int v = 0;
    a.deviceGetAttribute(&v, which, dev);
    return v;
  };
  info.major = attr(kCcMajor);
  info.minor = attr(kCcMinor);
  info.smCount = attr(kSmCount);
  info.maxThreadsPerBlock = attr(kMaxThreadsPerBlock);
  info.sharedPerBlock = attr(kSharedPerBlock);
  info.sharedPerBlockOptin = attr(kSharedPerBlockOptin);
  info.sharedPerSM = attr(kSharedPerSM);
  info.clockKHz = attr(kClockRate);
  info.memClockKHz = attr(kMemClockRate);
  info.busWidthBits = attr(kBusWidth);
  info.l2Bytes = attr(kL2Size);
  size_t mem = 0;
  a.deviceTotalMem(&mem, dev);
  info.totalMem = mem;
  device = dev;
  return "";
}

DeviceProbe probeDevice() {
  static const DeviceProbe probe = [] {
    DeviceProbe p;
    void *lib = nullptr;
    Cuda::Api api{};
    int dev = 0;
    p.why = Cuda::loadDriver(lib, api, p.info, dev); // the library stays loaded: unloading a driver is not worth the risk
    p.available = p.why.empty();
    return p;
  }();
  return probe;
}

Cuda::Cuda() : api_(std::make_unique<Api>()) {
  Api &a = *api_;
  CUdevice dev = 0;
  why_ = loadDriver(lib_, a, info_, dev);
  if (!why_.empty()) return;
  if (std::string e = check(a.primaryCtxRetain(&ctx_, dev), "cuDevicePrimaryCtxRetain"); !e.empty()) {
    why_ = "no GPU: " + e;
    return;
  }
  if (std::string e = check(a.ctxSetCurrent(ctx_), "cuCtxSetCurrent"); !e.empty()) {
    why_ = "no GPU: " + e;
    return;
  }
  ok_ = true;
}

#define PH_NEED_GPU()                                                                              \
  if (!ok_) return why_;

std::string Cuda::alloc(DevicePtr &ptr, size_t bytes) {
  PH_NEED_GPU();
  CUdeviceptr p = 0;
  std::string e = check(api_->memAlloc(&p, bytes ? bytes : 1), "cuMemAlloc");
  ptr = p;
  return e;
}
std::string Cuda::free(DevicePtr ptr) {
  PH_NEED_GPU();
  return ptr ? check(api_->memFree(ptr), "cuMemFree") : "";
}
std::string Cuda::copyToDevice(DevicePtr dst, const void *src, size_t bytes) {
  PH_NEED_GPU();
  return bytes ? check(api_->memcpyHtoD(dst, src, bytes), "cuMemcpyHtoD") : "";
}
std::string Cuda::copyToHost(void *dst, DevicePtr src, size_t bytes) {
  PH_NEED_GPU();
  return bytes ? check(api_->memcpyDtoH(dst, src, bytes), "cuMemcpyDtoH") : "";
}
std::string Cuda::memset8(DevicePtr dst, uint8_t value, size_t bytes) {
  PH_NEED_GPU();
  return bytes ? check(api_->memsetD8(dst, value, bytes), "cuMemsetD8") : "";
}
std::string Cuda::synchronize() {
  PH_NEED_GPU();
  return check(api_->ctxSynchronize(), "cuCtxSynchronize (a kernel failed)");
}
std::string Cuda::eventCreate(void *&event) {
  PH_NEED_GPU();
  return check(api_->eventCreate(&event, 0), "cuEventCreate");
}
std::string Cuda::eventRecord(void *event) {
  PH_NEED_GPU();
  return check(api_->eventRecord(event, nullptr), "cuEventRecord");
}
std::string Cuda::eventElapsedMs(void *start, void *end, float &ms) {
  PH_NEED_GPU();
  if (std::string e = check(api_->eventSynchronize(end), "cuEventSynchronize"); !e.empty()) return e;
  return check(api_->eventElapsedTime(&ms, start, end), "cuEventElapsedTime");
}
void Cuda::eventDestroy(void *event) {
  if (ok_ && event) api_->eventDestroy(event);
}

std::unique_ptr<Module> Module::load(const std::vector<uint8_t> &image, const std::string &symbol,
                                     int dynamicShared, std::string &error) {
  Cuda &cu = Cuda::get();
  if (!cu.available()) {
    error = cu.whyUnavailable();
    return nullptr;
  }
  std::unique_ptr<Module> m(new Module());
  if ((error = cu.check(cu.api_->moduleLoadData(&m->module_, image.data()), "cuModuleLoadData")) != "")
    return nullptr;
  if ((error = cu.check(cu.api_->moduleGetFunction(&m->func_, m->module_, symbol.c_str()),
                        ("cuModuleGetFunction(`" + symbol + "`)").c_str())) != "")
    return nullptr;
  if (dynamicShared > 48 * 1024) {
    if (dynamicShared > cu.device().sharedPerBlockOptin) {
      error = "the kernel needs " + std::to_string(dynamicShared) + " bytes of shared memory, but " +
              cu.device().name + " allows at most " + std::to_string(cu.device().sharedPerBlockOptin);
      return nullptr;
    }
    if ((error = cu.check(cu.api_->funcSetAttribute(m->func_, kFuncMaxDynamicShared, dynamicShared),
                          "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)")) != "")
      return nullptr;
  }
  return m;
}

Module::~Module() {
  Cuda &cu = Cuda::get();
  if (module_ && cu.available()) cu.api_->moduleUnload(module_);
}

std::string Module::launch(const int64_t grid[3], int threads, int dynamicShared, void **params) {
  Cuda &cu = Cuda::get();
  for (int i = 0; i < 3; ++i)
    if (grid[i] < 1 || grid[i] > (i == 0 ? 2147483647LL : 65535))
      return "grid dimension " + std::to_string(i) + " is " + std::to_string(grid[i]) +
             ", outside what CUDA can launch";
  std::string e = cu.check(cu.api_->launchKernel(func_, unsigned(grid[0]), unsigned(grid[1]),
                                                 unsigned(grid[2]), unsigned(threads), 1, 1,
                                                 unsigned(dynamicShared), nullptr, params, nullptr),
                           "cuLaunchKernel");
  return e;
}

std::string Cuda::encodeTensorMap(const TensorMapParams &p, DevicePtr tensor, uint8_t (&map)[128]) {
  if (!ok_) return why_;
  if (!api_->tensorMapEncodeTiled) return "the CUDA driver has no cuTensorMapEncodeTiled (a TMA kernel needs CUDA 12)";
  std::fill(std::begin(map), std::end(map), uint8_t(0));
  return check(api_->tensorMapEncodeTiled(map, p.dataType, p.rank, reinterpret_cast<void *>(tensor), p.dims, p.strides,
                                          p.box, p.elementStrides, p.interleave, p.swizzle, p.l2Promotion, p.oobFill),
               "cuTensorMapEncodeTiled");
}

int Module::ctasPerSM(int threads, int dynamicShared) const {
  Cuda &cu = Cuda::get();
  int n = 0;
  if (cu.available() && cu.api_->occupancyMaxActiveBlocks &&
      cu.api_->occupancyMaxActiveBlocks(&n, func_, threads, size_t(dynamicShared)) == 0 && n > 0)
    return n;
  // Without the driver's answer: what shared memory allows (1 KiB the system keeps per CTA).
  const DeviceInfo &d = cu.device();
  return std::max(1, d.sharedPerSM / std::max(1, dynamicShared + 1024));
}

FuncAttributes Module::attributes() const {
  Cuda &cu = Cuda::get();
  FuncAttributes fa;
  if (!cu.available()) return fa;
  cu.api_->funcGetAttribute(&fa.registers, kFuncNumRegs, func_);
  cu.api_->funcGetAttribute(&fa.localBytes, kFuncLocalSize, func_);
  cu.api_->funcGetAttribute(&fa.staticShared, kFuncSharedSize, func_);
  cu.api_->funcGetAttribute(&fa.maxThreads, kFuncMaxThreads, func_);
  cu.api_->funcGetAttribute(&fa.binaryVersion, kFuncBinaryVersion, func_);
  return fa;
}

} // namespace ph::rt
