//===- GpuRun.h - Launch a built kernel, compare, time, count ----*- C++ -*-===//
//
// The runtime's public face, shared by `ph-run`, `ph run --target gpu` and
// `ph bench`: run one cubin variant on bound host tensors, time it with CUDA
// events over fresh input sets, compare results, and count a kernel's FLOPs
// and bytes from its IR. No MLIR here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Launch.h"
#include "ph/Runtime/CudaDriver.h"
#include "ph/Runtime/Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ph::rt {

/// One launch: allocates the tensors on the device, copies every tensor in
/// (outputs too, so elements the kernel leaves alone keep their values, as in
/// the interpreter), launches `args.grid`, waits, and copies written tensors back.
std::string runCubin(const ManifestKernel &mk, const std::vector<uint8_t> &cubin, const LaunchArgs &args,
                     FuncAttributes *attrs = nullptr);

struct BenchOptions {
  int warmup = 10;       // launches before timing
  int iterations = 100;  // timed launches (median taken)
  double minTimeMs = 200; // keep launching until this much was timed (caps at 10x iterations)
};

struct BenchResult {
  double medianMs = 0, minMs = 0, maxMs = 0;
  int launches = 0;
  int inputSets = 0;
  FuncAttributes attrs;
};

/// Times launches over `argSets` in turn (each its own device buffers, so
/// repeated launches do not just re-read the cache); copies the first set's
/// written tensors back afterwards, for checking.
std::string benchCubin(const ManifestKernel &mk, const std::vector<uint8_t> &cubin,
                       const std::vector<LaunchArgs> &argSets, const BenchOptions &opt, BenchResult &out);

/// How many input sets make the data several times the L2 (at most `cap`).
int inputSetsFor(const kir::Kernel &sig, const LaunchArgs &args, int cap = 8);

/// The work one launch does, counted from the kernel's IR with the launch's
/// sizes: every `dot` counts 2*M*N*K for each time it runs (loops walked per
/// CTA, so causal loops count what they execute); bytes are each tensor read
/// once plus each written tensor written once (the fewest any kernel moves).
struct KernelCost {
  double dotFlops = 0;
  double elementwiseFlops = 0;
  double bytes = 0;
  int64_t ctas = 0;
};
KernelCost countCost(const kir::Kernel &k, const LaunchArgs &args);

/// ‖out − ref‖ / ‖ref‖ and the worst element.
struct Comparison {
  double relL2 = 0;
  double maxAbs = 0;
  int64_t worst = -1;
  int64_t nonFinite = 0; // a NaN or an infinity in one, not the same in the other (ph::compareNonFinite)
  double tolerance = 0;
  bool ok = false;
  std::string summary() const;
};
/// Tolerance follows the output's element type (f32 1e-4, f16 2e-3, bf16 1e-2).
Comparison compare(const HostTensor &out, const HostTensor &ref);

/// One row of a benchmark table.
struct BenchRow {
  std::string config;
  double ms = 0;
  double tflops = 0, gbps = 0;
  double pctPeak = 0;
  bool computeBound = false;
  int registers = 0, sharedBytes = 0, spills = 0;
  std::string check; // "ok 3.1e-07", "FAILED ...", "-"
};
/// The figures of a row from a result and a cost, against this device's ceilings.
BenchRow makeRow(const std::string &config, const BenchResult &r, const KernelCost &cost,
                 const ManifestKernel &mk, const DeviceInfo &dev);
std::string formatTable(const std::vector<BenchRow> &rows, const DeviceInfo &dev, const std::string &title);
std::string rowsToJson(const std::vector<BenchRow> &rows, const DeviceInfo &dev, const std::string &kernel);

} // namespace ph::rt
