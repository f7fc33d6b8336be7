//===- LlvmPipelineScope.h - LLVM's global pass options, per kind of pipeline -*- C++ -*-===//
//
// Some of LLVM's pass options are global variables (cl::opt), read while the pass runs, and
// the GPU's pipelines want some of them otherwise than the CPU's: the SLP vectorizer's
// search for horizontal reductions (-slp-vectorize-hor), and, under PH_GPU_LSR=0, codegen's
// loop strength reduction (-disable-lsr). A scope covers a module's IR pipeline and codegen.
// The horizontal-reduction search was a tenth of a GPU variant's own compile time (mha.ph,
// sm_90a) and found nothing in any kernel of examples/, bench/gpu/ or tests/gpu/Inputs/
// (NVPTX's vectors are pairs of 16-bit values; our reductions are f32); on the CPU it
// vectorizes row sums, so it stays on there (docs/compile.md, "2026-12-06, fourth session").
//
// A scope holds the options at its kind's values for as long as it lives. Scopes of one
// kind run together (ph build's GPU workers); one of the other kind waits until they are
// done, and while it waits no new scope of the first kind starts.
//
//===----------------------------------------------------------------------===//
#pragma once

namespace ph::backend {

enum class LlvmPipelineKind { Cpu, Gpu };

class LlvmPipelineScope {
public:
  explicit LlvmPipelineScope(LlvmPipelineKind kind);
  ~LlvmPipelineScope();
  LlvmPipelineScope(const LlvmPipelineScope &) = delete;
  LlvmPipelineScope &operator=(const LlvmPipelineScope &) = delete;

private:
  LlvmPipelineKind kind_;
};

/// Whether the GPU's IR pipeline searches for horizontal reductions: off, except under
/// PH_GPU_SLP=hor (LLVM's -O3 as it comes, for A/B measurements).
bool gpuSlpHorizontalReductions();

/// Whether NVPTX codegen runs loop strength reduction (-disable-lsr otherwise): kGpuLsrDefault,
/// or PH_GPU_LSR=0 (off) / any other value (on). LSR is 23 % of a causal attention variant's
/// compile; what turning it off costs on the GPU is not measured yet (docs/compile.md, "Where
/// a causal variant's codegen goes").
inline constexpr bool kGpuLsrDefault = true;
bool gpuLoopStrengthReduction();

} // namespace ph::backend
