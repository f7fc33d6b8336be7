//===- BenchCommand.cpp - `ph bench` (placeholder until its issue lands) -----===//
#include "Commands.h"

#include <cstdio>

int ph::driver::benchCommand(const Args &) {
  std::fprintf(stderr, "ph bench: not built yet\n");
  return 2;
}
