//===- BuildCommand.cpp - `ph build` (placeholder until its issue lands) -----===//
#include "Commands.h"

#include <cstdio>

int ph::driver::buildCommand(const Args &) {
  std::fprintf(stderr, "ph build: not built yet\n");
  return 2;
}
