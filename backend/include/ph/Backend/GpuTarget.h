//===- GpuTarget.h - Compile a kernel to cubin and run it -------*- C++ -*-===//
//
// The SIMT GPU target: tile dialect -> shared-memory tiles spread over the
// CTA's threads -> gpu/nvvm/llvm dialects -> PTX (LLVM's NVPTX backend) ->
// cubin (the CUDA Toolkit's ptxas, whose -v report is kept). No MLIR type
// appears here; the driver (`ph build`, `ph bench`, `ph run --target gpu`)
// includes it cheaply.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"
#include "ph/Launch.h"
#include "ph/Runtime/Manifest.h"

#include <string>
#include <vector>

namespace ph {
class SourceManager;
}

namespace ph::backend {

/// ptxas's work kept by what it depends on (`ph build`'s cache). A kernel that
/// only moved (lines added above it) has a new variant key but the same PTX:
/// its cubin then comes from here, and ptxas, most of a variant's time, is skipped.
class PtxasCache {
public:
  virtual ~PtxasCache() = default;
  /// `what` is everything ptxas's output depends on: ptxas itself, its
  /// arguments, the architecture and the PTX (the implementation hashes it).
  virtual bool find(const std::string &what, std::vector<uint8_t> &cubin, std::string &log) const = 0;
  virtual void keep(const std::string &what, const std::vector<uint8_t> &cubin, const std::string &log) const = 0;
};

struct GpuOptions {
  /// `sm_90` or `sm_80`; empty: the GPU present, else sm_90.
  std::string arch;
  /// For `file:line:col` in MLIR locations and diagnostics.
  const SourceManager *sources = nullptr;
  /// Fills GpuBinary::passTiming with MLIR's pass timing report (`ph build --time-passes`).
  bool timePasses = false;
  /// Null: ptxas runs for every compile.
  const PtxasCache *ptxasCache = nullptr;
};

/// Time of one step of a compile, in milliseconds: wall, and CPU (the
/// compiling thread's; for `ptxas`, the subprocess's user + system time),
/// which a loaded machine inflates far less.
struct PhaseTime {
  std::string name; // context, kir-to-tile, lower, to-nvvm, nvptx, ptxas (or ptxas-cached)
  double ms = 0;
  double cpuMs = 0;
};

/// One compiled kernel variant.
struct GpuBinary {
  rt::ManifestKernel meta;   // signature, grid, shared memory, ptxas report, cubin file name
  std::vector<uint8_t> cubin;
  std::string ptx;
  /// Notes and warnings (`@tensorcore` ignored, spills), or the error that
  /// refused the kernel (shared memory exceeded).
  std::vector<Diagnostic> diagnostics;
  /// Where the time went, in order; `ptxas` is the subprocess, the rest is ours.
  std::vector<PhaseTime> phases;
  /// MLIR's pass timing report (GpuOptions::timePasses), else empty.
  std::string passTiming;
  /// Refused only because its buffers exceed the target's shared memory (E0501) on every
  /// lowering it tried: the tensor-core policies too for a `@tensorcore` kernel. An autotuned
  /// build may leave such a configuration out (W0503); any other refusal stays an error.
  bool sharedMemoryOnly = false;
};

/// `sm_90`/`sm_80`/... of the GPU present, else `sm_90`.
std::string defaultGpuArch();
/// Shared memory one CTA may use with the opt-in, in bytes (sm_90: 227 KiB).
int64_t sharedMemoryLimit(const std::string &arch);
/// True for the architectures this target builds for.
bool isSupportedGpuArch(const std::string &arch);

/// What a compiled variant depends on besides its kir and the ph executable:
/// ptxas's and libdevice's identity (path, size, modification time) for `arch`.
/// Part of the build cache's key (ph/Cache/VariantKey.h).
std::string gpuToolchainIdentity(const std::string &arch);

/// Compiles one specialised kernel. Safe to call from several threads at once
/// (each call has its own MLIR context; `ph build -j`). Returns false when it was refused (a
/// diagnostic says why) or failed (`err`).
bool compileForGpu(const kir::Kernel &k, const GpuOptions &opts, GpuBinary &out, std::string &err);

/// W0502 for a kernel whose ptxas report shows spills to local memory; nothing otherwise.
std::vector<Diagnostic> spillDiagnostics(const kir::Kernel &k, const rt::PtxasReport &report);

/// `ph run --target gpu`: compiles for the GPU present and runs once on
/// `args` (written tensors are updated in place). Returns "" or an error;
/// without a GPU the error starts with "no GPU". Compile-time diagnostics
/// (notes included) are appended to `diags` when given.
std::string runOnGpu(const kir::Kernel &k, const LaunchArgs &args, const GpuOptions &opts,
                     std::vector<Diagnostic> *diags = nullptr);

} // namespace ph::backend
