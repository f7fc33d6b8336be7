//===- GpuTargetTest.cpp - GPU target diagnostics without a GPU -------------===//
#include "ph/Backend/GpuTarget.h"

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
