//===- Ptxas.h - The CUDA toolchain's paths, ptxas, and registers fitted to two CTAs --*- C++ -*-===//
//
// ptxas runs with an argument vector, never a shell, in the process's private scratch folder
// (ScratchDir.h); its -v report is kept for the manifest.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ph::backend {

/// PH_CUDA_DIR, CUDA_PATH or the build's CUDA folder.
std::string cudaDir();

/// PH_PTXAS, the toolkit's bin/ptxas or ptxas on PATH; "" when there is none.
std::string findPtxas();

/// ptxas's optimisation argument: -O3, or with PH_PTXAS_FAST_COMPILE=min|mid|max its
/// --Ofast-compile level.
std::string ptxasOptArg();

/// ptxas PTX -> cubin; `log` gets ptxas's -v report. `ran` says whether ptxas started at all
/// (a log worth reporting).
bool runPtxas(const std::string &ptx, const std::string &arch, std::vector<uint8_t> &cubin, std::string &log,
              std::string &err, double *cpuMs = nullptr, bool *ran = nullptr);

/// Whether a wgmma kernel of `threads` threads and `sharedBytes` of shared memory, which its
/// registers alone could hold to one CTA an SM, should have them fitted to two (docs/tilegpu.md,
/// "Two CTAs an SM where shared memory allows"): its shared memory leaves room for a second CTA
/// and the register file does not already (more than 128 threads). PH_TILEGPU_FIT_CTAS=0: never.
bool fitTwoCtas(const std::string &arch, const std::string &instruction, int threads, int64_t sharedBytes);

/// `ptx` with `.minnctapersm n` on its one entry (after its `.maxntid`, which ptxas requires beside
/// it and which makes ptxas ignore -maxrregcount); "" where the PTX has several entries, the entry
/// has no `.maxntid`, already says how many CTAs it wants, or moves registers between warpgroups
/// (`setmaxnreg`).
std::string withMinCtasPerSm(const std::string &ptx, int n);

/// The PTX `ph build` tries first for a tensor-core kernel (`tensorCores`) of `instruction`,
/// `threads` and `sharedBytes`: `ptx` fitted to two CTAs an SM where fitTwoCtas says so and
/// withMinCtasPerSm can place it; "" otherwise. GpuTarget assembles it and keeps it within
/// kTwoCtaSpillBudget; `ph emit --stage ptx` only says it would try.
std::string twoCtaFitCandidate(const std::string &ptx, const std::string &arch, bool tensorCores,
                               const std::string &instruction, int threads, int64_t sharedBytes);

/// The most spilled bytes (stores and loads) a fit to two CTAs may cost before ptxas's own
/// choice is taken instead: 96 B of stores and loads was 3-4 % faster on attention at D = 64
/// (an H100); 4 KB was 8x slower.
constexpr int kTwoCtaSpillBudget = 256;

} // namespace ph::backend
