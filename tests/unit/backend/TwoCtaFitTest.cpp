//===- TwoCtaFitTest.cpp - When a wgmma kernel's registers are fitted to two CTAs an SM --===//
// (docs/tilegpu.md, "Two CTAs an SM where shared memory allows"; backend/lib/Target/Gpu/Ptxas.h)
#include "Target/Gpu/Ptxas.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace ph::backend;

namespace {
// The header of an entry as NVPTX writes it, and a body.
std::string entry(const std::string &name, const std::string &body = "\tret;\n") {
  return ".visible .entry " + name + "(\n\t.param .u64 " + name + "_param_0\n)\n.maxntid 256, 1, 1\n{\n" + body + "}\n";
}
const std::string kHead = "//\n.version 8.0\n.target sm_90a\n.address_size 64\n\n";
} // namespace

TEST(TwoCtaFit, WhereSharedMemoryLeavesRoomForASecondCta) {
  // mha.ph at D = 64, 128 x 128 blocks: 114,840 B, 256 threads.
  EXPECT_TRUE(fitTwoCtas("sm_90a", "wgmma", 256, 114840));
  // At D = 128: 229,528 B, one CTA whatever the registers.
  EXPECT_FALSE(fitTwoCtas("sm_90a", "wgmma", 256, 229528));
  // The edge: two CTAs and their 1 KB each within the SM's 233,472 B.
  EXPECT_TRUE(fitTwoCtas("sm_90a", "wgmma", 256, 233472 / 2 - 1024));
  EXPECT_FALSE(fitTwoCtas("sm_90a", "wgmma", 256, 233472 / 2 - 1024 + 1));
  // 128 threads: 255 registers a thread already let two CTAs in.
  EXPECT_FALSE(fitTwoCtas("sm_90a", "wgmma", 128, 50000));
  // Measured on wgmma only.
  EXPECT_FALSE(fitTwoCtas("sm_90a", "mma.sync", 256, 50000));
  EXPECT_FALSE(fitTwoCtas("sm_99", "wgmma", 256, 50000));
}

TEST(TwoCtaFit, OffUnderPH_TILEGPU_FIT_CTAS_0) {
  setenv("PH_TILEGPU_FIT_CTAS", "0", 1);
  EXPECT_FALSE(fitTwoCtas("sm_90a", "wgmma", 256, 114840));
  unsetenv("PH_TILEGPU_FIT_CTAS");
  EXPECT_TRUE(fitTwoCtas("sm_90a", "wgmma", 256, 114840));
}

TEST(TwoCtaFit, MinCtasGoesRightAfterTheEntrysMaxntid) {
  std::string ptx = kHead + entry("mha_f16");
  std::string fitted = withMinCtasPerSm(ptx, 2);
  ASSERT_FALSE(fitted.empty());
  EXPECT_NE(fitted.find(".maxntid 256, 1, 1\n.minnctapersm 2\n{\n"), std::string::npos) << fitted;
  // Nothing else changes.
  std::string back = fitted;
  back.erase(back.find(".minnctapersm 2\n"), std::string(".minnctapersm 2\n").size());
  EXPECT_EQ(back, ptx);
}

TEST(TwoCtaFit, LeavesAloneWhatItMustNotTouch) {
  // A kernel that asks for its own CTA count (tilegpu.min_ctas).
  std::string own = kHead + entry("stream");
  own.insert(own.find("{\n"), ".minnctapersm 4\n");
  EXPECT_EQ(withMinCtasPerSm(own, 2), "");
  // A warp-specialized kernel: its consumers' setmaxnreg.inc would wait forever.
  EXPECT_EQ(withMinCtasPerSm(kHead + entry("ws", "\tsetmaxnreg.inc.sync.aligned.u32 240;\n\tret;\n"), 2), "");
  // Two entries: which one the fit is for is not clear.
  EXPECT_EQ(withMinCtasPerSm(kHead + entry("a") + entry("b"), 2), "");
  // No .maxntid: ptxas wants one beside .minnctapersm.
  std::string bare = kHead + entry("bare");
  bare.erase(bare.find(".maxntid"), std::string(".maxntid 256, 1, 1\n").size());
  EXPECT_EQ(withMinCtasPerSm(bare, 2), "");
  EXPECT_EQ(withMinCtasPerSm("", 2), "");
}
