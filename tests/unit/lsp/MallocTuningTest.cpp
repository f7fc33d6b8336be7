//===- MallocTuningTest.cpp - the GLIBC_TUNABLES ph-lsp starts again under -===//
#include "MallocTuning.h"

#include <gtest/gtest.h>

using namespace ph::lsp;

TEST(MallocTuning, AddsTheTcacheCountWhenUnset) {
  EXPECT_EQ(tunedMallocTunables(nullptr, 64), "glibc.malloc.tcache_count=64");
  EXPECT_EQ(tunedMallocTunables("", 64), "glibc.malloc.tcache_count=64");
}

TEST(MallocTuning, KeepsTheUsersOtherTunables) {
  EXPECT_EQ(tunedMallocTunables("glibc.malloc.top_pad=4194304", 64),
            "glibc.malloc.top_pad=4194304:glibc.malloc.tcache_count=64");
  EXPECT_EQ(tunedMallocTunables("glibc.malloc.tcache_count_x=1", 64),
            "glibc.malloc.tcache_count_x=1:glibc.malloc.tcache_count=64");
}

// Already set (by the user, or by the first start of this process): no second start.
TEST(MallocTuning, LeavesAnExplicitTcacheCountAlone) {
  EXPECT_EQ(tunedMallocTunables("glibc.malloc.tcache_count=7", 64), std::nullopt);
  EXPECT_EQ(tunedMallocTunables("glibc.malloc.top_pad=0:glibc.malloc.tcache_count=500", 64), std::nullopt);
  EXPECT_EQ(tunedMallocTunables("glibc.malloc.tcache_count=64", 64), std::nullopt);
}

TEST(MallocTuning, CountZeroMeansGlibcsDefault) {
  EXPECT_EQ(tunedMallocTunables(nullptr, 0), std::nullopt);
}
