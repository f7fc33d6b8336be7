//===- RunTimeoutTest.cpp - a GPU run past its --timeout is stopped and reported -===//
// The watchdog is tested without a GPU: it must stop whatever the process is doing (a
// kernel that never finishes looks like a process blocked in the driver) with exit code 124
// and a message that names the limit.
#include "ph/Runtime/Tool.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

using namespace ph::rt;

TEST(RunTimeout, StopsABlockedRunAndSaysWhy) {
  EXPECT_EXIT(
      {
        armRunTimeout(0.2);
        for (;;) std::this_thread::sleep_for(std::chrono::seconds(1)); // a hung kernel
      },
      ::testing::ExitedWithCode(kExitTimeout), "exceeded its time limit of 0.2 s \\(--timeout\\); stopped");
}

TEST(RunTimeout, ZeroDisarms) {
  EXPECT_EXIT(
      {
        armRunTimeout(0.2);
        armRunTimeout(0);
        std::this_thread::sleep_for(std::chrono::milliseconds(600));
        std::exit(0);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(RunTimeout, OptionParsing) {
  ToolOptions opt;
  std::vector<std::string> rest;
  EXPECT_EQ(opt.timeoutSeconds, 600); // a default limit, not none
  EXPECT_EQ(parseToolOptions({"--timeout", "2.5", "dir"}, opt, rest), "");
  EXPECT_EQ(opt.timeoutSeconds, 2.5);
  EXPECT_EQ(rest, std::vector<std::string>{"dir"});
  EXPECT_NE(parseToolOptions({"--timeout", "soon"}, opt, rest), "");
  EXPECT_NE(parseToolOptions({"--timeout", "-1"}, opt, rest), "");
  EXPECT_NE(parseToolOptions({"--timeout"}, opt, rest), "");
}
