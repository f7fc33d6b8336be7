//===- Commands.h - The subcommands of the `ph` driver ----------*- C++ -*-===//
//
// One file per subcommand (CheckCommand.cpp, EmitCommand.cpp, ...); main.cpp
// dispatches on the first argument. Each takes the arguments after the
// subcommand's name and returns the process exit code.
//
//===----------------------------------------------------------------------===//
#pragma once

#include <string>
#include <vector>

namespace ph::driver {

using Args = std::vector<std::string>;

int checkCommand(const Args &args);
int emitCommand(const Args &args);
int runCommand(const Args &args);
int buildCommand(const Args &args);
int benchCommand(const Args &args);
int cacheCommand(const Args &args);

} // namespace ph::driver
