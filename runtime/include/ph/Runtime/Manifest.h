//===- Manifest.h - What `ph build` writes next to its cubins ----*- C++ -*-===//
//
// manifest.json describes every kernel and autotune configuration in a build
// folder: the kernel's signature (tensors, size symbols, scalars, parameter
// order), how its grid follows from the sizes, its block size and shared
// memory, what ptxas reported, and the cubin's file name. `ph-run` needs
// nothing else to launch a kernel; the source text is kept too, so that a
// machine with the frontend can re-check results with the fp64 interpreter
// and count FLOPs from the kernel's IR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Runtime/TensorMap.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ph::rt {

/// ptxas -v's report for one kernel.
struct PtxasReport {
  int registers = 0;
  int sharedBytes = 0;   // static shared memory ptxas saw (0 when all is dynamic)
  int stackBytes = 0;
  int spillStores = 0;
  int spillLoads = 0;
  std::string log;       // ptxas's own words
};

/// Parses the `ptxas info` lines of `ptxas -v` output for `symbol`.
PtxasReport parsePtxasReport(const std::string &log, const std::string &symbol);

/// A range of the source as the backend's locations carry it (1-based lines and
/// byte columns; end exclusive; 0 when unknown).
struct SourceSpan {
  std::string file;
  int line = 0, col = 0, endLine = 0, endCol = 0;
};

/// Where the tensor-core lowering put one tile (docs/tensorcore.md): the backend's
/// own record, which `ph build --json` and ph-lsp's hover show.
struct TilePlacement {
  std::string type;      // `tensor<64x64xf16>`
  SourceSpan at;         // the value's source
  std::string placement; // "registers" | "shared memory"
  std::string detail;    // the layout or buffering: "mma", "dot operand", "blocked", "2 stages"; "" when none
};

struct ManifestKernel {
  /// The signature and grid (kir::Kernel with an empty body).
  kir::Kernel sig;
  std::string symbol;     // the entry's name in the cubin
  std::string cubin;      // file name, relative to the manifest
  int dynamicShared = 0;  // bytes passed at launch
  PtxasReport ptxas;
  std::string unit = "simt"; // which lowering produced it: simt | tensorcore
  std::vector<std::string> notes; // e.g. "`@tensorcore` kernel not taken by the tensor-core lowering: ..."
  std::vector<TilePlacement> tiles; // the tensor-core lowering's tiles, in program order
  /// The TMA tensor maps the kernel takes after its scalars, in parameter order: the
  /// launcher encodes each over its tensor and passes a device pointer to its 128 bytes
  /// (docs/abi.md, "TMA descriptors"). Empty for every kernel without TMA copies.
  std::vector<TmaDescriptor> tma;
  /// The kernel walks the grid's tiles a launched CTA count apart (tilegpu-persistent): the
  /// launcher starts min(tiles, SMs x CTAs an SM) CTAs along x (docs/abi.md, "The grid"). A launch
  /// of the whole grid computes the same.
  bool persistent = false;
};

/// The grid to launch `mk` with, `grid` being the one its sizes give: that grid, or for a
/// persistent kernel as many CTAs as the device holds at once (`ctasPerSM` an SM), at most one a tile.
void launchGrid(const ManifestKernel &mk, const int64_t grid[3], int smCount, int ctasPerSM, int64_t out[3]);

struct SourceText {
  std::string path;
  std::string text;
};

struct Manifest {
  static constexpr const char *kFormat = "ph-build-1";
  std::string target;     // sm_90
  std::string compiler;   // "ph 0.1.0"
  SourceText source;      // the user's file
  std::vector<SourceText> prelude; // std/*.ph as compiled
  std::vector<ManifestKernel> kernels;

  /// The entries of one kernel (one per configuration), or all when `name` is empty.
  std::vector<const ManifestKernel *> find(const std::string &name) const;
  std::vector<std::string> kernelNames() const;
};

/// The body-less copy of a kernel that a manifest stores.
kir::Kernel signatureOf(const kir::Kernel &k);

std::string toJson(const Manifest &m);
/// Returns "" or an error naming the field that could not be read.
std::string fromJson(const std::string &text, Manifest &out);

std::string writeManifest(const std::string &dir, const Manifest &m);
std::string readManifest(const std::string &dir, Manifest &out);

/// Whole-file helpers.
std::string readFile(const std::string &path, std::vector<uint8_t> &out);
std::string readTextFile(const std::string &path, std::string &out);
std::string writeFile(const std::string &path, const void *data, size_t bytes);

/// A file name for a kernel variant: `flash_attention.D64_BR64_BC32.cubin`.
std::string variantFileName(const kir::Kernel &k, const std::string &ext);

} // namespace ph::rt
