//===- RunCommand.cpp - `ph run` (placeholder until its issue lands) -----===//
#include "Commands.h"

#include <cstdio>

int ph::driver::runCommand(const Args &) {
  std::fprintf(stderr, "ph run: not built yet\n");
  return 2;
}
