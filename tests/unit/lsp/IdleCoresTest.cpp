//===- IdleCoresTest.cpp - Threads for a first analysis from /proc/loadavg -===//
#include "IdleCores.h"

#include <gtest/gtest.h>

using namespace ph::lsp;

TEST(IdleCores, ReadsTheRunnableTasksOfALoadavgLine) {
  EXPECT_EQ(runnableTasks("0.52 0.58 0.59 3/437 12345"), 3u);
  EXPECT_EQ(runnableTasks("12.00 9.10 7.00 17/1204 99\n"), 17u);
  EXPECT_EQ(runnableTasks(""), std::nullopt);
  EXPECT_EQ(runnableTasks("0.52 0.58 0.59"), std::nullopt);
  EXPECT_EQ(runnableTasks("0.52 0.58 0.59 x/437 1"), std::nullopt);
  EXPECT_EQ(runnableTasks("0.52 0.58 0.59 3"), std::nullopt);
}

TEST(IdleCores, TakesTheCoresNothingElseWants) {
  // Two hardware threads: the caller alone runnable leaves one free.
  EXPECT_EQ(threadsForIdleCores(2, 2, 1), 2u);
  // Another task runnable (a compiler, the client): one thread.
  EXPECT_EQ(threadsForIdleCores(2, 2, 2), 1u);
  EXPECT_EQ(threadsForIdleCores(2, 2, 9), 1u);
  // Never more than asked, never fewer than one.
  EXPECT_EQ(threadsForIdleCores(8, 16, 1), 8u);
  EXPECT_EQ(threadsForIdleCores(8, 16, 12), 5u);
  EXPECT_EQ(threadsForIdleCores(1, 16, 1), 1u);
  EXPECT_EQ(threadsForIdleCores(0, 2, 1), 1u);
  // This machine: somewhere between one and the most asked.
  unsigned now = threadsForIdleCoresNow(2);
  EXPECT_GE(now, 1u);
  EXPECT_LE(now, 2u);
  EXPECT_EQ(threadsForIdleCoresNow(1), 1u);
}
