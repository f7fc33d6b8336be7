//===- LlvmPipelineScopeTest.cpp - LLVM's global options per kind of pipeline ---===//
#include "Target/LlvmPipelineScope.h"

#include "llvm/Support/CommandLine.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

using namespace ph::backend;

namespace {

/// What LLVM's SLP vectorizer reads while it runs.
bool slpHorizontal() {
  auto &opts = llvm::cl::getRegisteredOptions();
  auto it = opts.find("slp-vectorize-hor");
  EXPECT_NE(it, opts.end()) << "LLVM has no -slp-vectorize-hor any more: LlvmPipelineScope sets nothing";
  return it != opts.end() && bool(*static_cast<llvm::cl::opt<bool> *>(it->second));
}

/// What codegen's pass configuration reads when it adds loop strength reduction.
bool lsrDisabled() {
  auto &opts = llvm::cl::getRegisteredOptions();
  auto it = opts.find("disable-lsr");
  EXPECT_NE(it, opts.end()) << "LLVM has no -disable-lsr any more: PH_GPU_LSR sets nothing";
  return it != opts.end() && bool(*static_cast<llvm::cl::opt<bool> *>(it->second));
}

} // namespace

TEST(LlvmPipelineScope, LoopStrengthReductionFollowsTheGpuSettingAndStaysOnTheCpu) {
  // ctest runs this twice: as it comes (LSR on: the GPU scope must leave LLVM's default) and
  // under PH_GPU_LSR=0 (the GPU scope must switch LSR off), tests/unit/backend/CMakeLists.txt.
  if (const char *e = std::getenv("PH_GPU_LSR"); e && std::string(e) == "0") EXPECT_FALSE(gpuLoopStrengthReduction());
  else EXPECT_EQ(gpuLoopStrengthReduction(), kGpuLsrDefault);
  {
    LlvmPipelineScope gpu(LlvmPipelineKind::Gpu);
    EXPECT_EQ(lsrDisabled(), !gpuLoopStrengthReduction());
  }
  LlvmPipelineScope cpu(LlvmPipelineKind::Cpu);
  EXPECT_FALSE(lsrDisabled()) << "LLVM's default on the CPU";
}

TEST(LlvmPipelineScope, TheGpuPipelineSearchesNoHorizontalReductionsTheCpuOneDoes) {
  ASSERT_FALSE(gpuSlpHorizontalReductions()) << "run without PH_GPU_SLP=hor";
  {
    LlvmPipelineScope gpu(LlvmPipelineKind::Gpu);
    EXPECT_FALSE(slpHorizontal());
    // Another GPU worker runs beside it.
    LlvmPipelineScope second(LlvmPipelineKind::Gpu);
    EXPECT_FALSE(slpHorizontal());
  }
  LlvmPipelineScope cpu(LlvmPipelineKind::Cpu);
  EXPECT_TRUE(slpHorizontal()) << "LLVM's default";
}

TEST(LlvmPipelineScope, ACpuPipelineWaitsUntilTheGpuOnesAreDone) {
  std::atomic<bool> started{false};
  bool seen = false;
  std::optional<LlvmPipelineScope> gpu(std::in_place, LlvmPipelineKind::Gpu);
  std::thread cpu([&] {
    LlvmPipelineScope scope(LlvmPipelineKind::Cpu);
    started = true;
    seen = slpHorizontal();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  EXPECT_FALSE(started) << "the CPU pipeline ran with the GPU's options";
  EXPECT_FALSE(slpHorizontal());
  gpu.reset();
  cpu.join();
  EXPECT_TRUE(started);
  EXPECT_TRUE(seen);
}
