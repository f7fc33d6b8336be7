//===- GpuTargetTest.cpp - GPU target diagnostics without a GPU -------------===//
#include "ph/Backend/GpuTarget.h"
#include "ph/Backend/SkippedConfiguration.h"

#include <gtest/gtest.h>

using namespace ph;

TEST(GpuTarget, SpillsInThePtxasReportAreAWarning) {
  kir::Kernel k;
  k.name = "heavy";
  k.loc = SourceRange{0, 10, 20};
  // ptxas -v's words for a kernel that spills.
  std::string log = "ptxas info    : Compiling entry function 'heavy' for 'sm_90'\n"
                    "ptxas info    : Function properties for heavy\n"
                    "    64 bytes stack frame, 48 bytes spill stores, 40 bytes spill loads\n"
                    "ptxas info    : Used 255 registers, used 0 barriers\n";
  rt::PtxasReport report = rt::parsePtxasReport(log, "heavy");
  EXPECT_EQ(report.spillStores, 48);
  EXPECT_EQ(report.spillLoads, 40);
  EXPECT_EQ(report.registers, 255);
  auto diags = backend::spillDiagnostics(k, report);
  ASSERT_EQ(diags.size(), 1u);
  EXPECT_EQ("[" + std::string(diags[0].code()) + "]", "[W0502]");
  EXPECT_EQ(diags[0].severity, Severity::Warning);
  EXPECT_EQ(diags[0].message, "kernel `heavy` spills 88 bytes to local memory (255 registers)");
  EXPECT_EQ(diags[0].range, k.loc);

  rt::PtxasReport clean = rt::parsePtxasReport(
      "ptxas info    : Function properties for heavy\n    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 40 registers\n", "heavy");
  EXPECT_TRUE(backend::spillDiagnostics(k, clean).empty());
}

namespace {
Diagnostic exceeded(SourceRange at) {
  Diagnostic d;
  d.kind = DiagKind::SharedMemoryExceeded;
  d.severity = Severity::Error;
  d.range = at;
  d.message = "kernel `k` needs 174080 bytes of shared memory, more than the 166912 that sm_80 allows";
  return d;
}

kir::Kernel autotunedKernel() {
  kir::Kernel k;
  k.name = "k";
  k.loc = SourceRange{0, 10, 20};
  k.config = {{"BC", 128}};
  return k;
}
} // namespace

TEST(GpuTarget, AConfigurationTooLargeOnEveryLoweringIsLeftOutAtTheKernel) {
  kir::Kernel k = autotunedKernel();
  backend::GpuBinary bin;
  bin.sharedMemoryOnly = true;
  SourceRange buffer{1, 30, 40};
  bin.diagnostics = {exceeded(buffer)};
  auto w = backend::skippedConfiguration(k, bin, "sm_80");
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ("[" + std::string(w->code()) + "]", "[W0503]");
  EXPECT_EQ(w->severity, Severity::Warning);
  EXPECT_EQ(w->range, k.loc);
  ASSERT_EQ(w->notes.size(), 1u);
  EXPECT_EQ(w->notes[0].range, buffer);
  EXPECT_NE(w->message.find("configuration BC=128 of `k` does not fit sm_80"), std::string::npos) << w->message;
  // Left out, the variant says only W0503; the E0501 kept for a kernel none of whose
  // configurations fits names the configuration.
  std::vector<Diagnostic> errors;
  ASSERT_TRUE(backend::leaveOutConfiguration(k, bin, "sm_80", errors));
  ASSERT_EQ(bin.diagnostics.size(), 1u);
  EXPECT_EQ(bin.diagnostics[0].kind, DiagKind::ConfigurationSkipped);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].kind, DiagKind::SharedMemoryExceeded);
  ASSERT_FALSE(errors[0].notes.empty());
  EXPECT_EQ(errors[0].notes.back().message, "in configuration BC=128");
}

TEST(GpuTarget, EveryOtherRefusalStaysAnError) {
  kir::Kernel k = autotunedKernel();
  backend::GpuBinary bin;
  bin.diagnostics = {exceeded(k.loc)};
  // A tensor-core policy refused it for another reason before the SIMT policy ran out.
  bin.sharedMemoryOnly = false;
  EXPECT_FALSE(backend::skippedConfiguration(k, bin, "sm_80").has_value());
  // Another error beside the E0501.
  bin.sharedMemoryOnly = true;
  Diagnostic other = exceeded(k.loc);
  other.kind = DiagKind::GpuLoweringFailed;
  bin.diagnostics.push_back(other);
  EXPECT_FALSE(backend::skippedConfiguration(k, bin, "sm_80").has_value());
  // A kernel without @autotune keeps its E0501.
  bin.diagnostics = {exceeded(k.loc)};
  k.config.clear();
  EXPECT_FALSE(backend::skippedConfiguration(k, bin, "sm_80").has_value());
  // Nothing left out, nothing changed.
  std::vector<Diagnostic> errors;
  EXPECT_FALSE(backend::leaveOutConfiguration(k, bin, "sm_80", errors));
  EXPECT_TRUE(errors.empty());
  ASSERT_EQ(bin.diagnostics.size(), 1u);
  EXPECT_EQ(bin.diagnostics[0].kind, DiagKind::SharedMemoryExceeded);
}
