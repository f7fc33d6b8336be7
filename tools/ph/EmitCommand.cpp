//===- EmitCommand.cpp - `ph emit` (placeholder until its issue lands) -----===//
#include "Commands.h"

#include <cstdio>

int ph::driver::emitCommand(const Args &) {
  std::fprintf(stderr, "ph emit: not built yet\n");
  return 2;
}
