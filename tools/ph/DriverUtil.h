//===- DriverUtil.h - Small helpers shared by the `ph` subcommands -*- C++ -*-===//
#pragma once

#include "ph/Limits.h"

#include <fstream>
#include <sstream>
#include <string>

namespace ph::driver {

/// Reads a whole source file; on failure sets `err` to a message naming the path. Only a
/// regular file of at most limits::kMaxSourceBytes (`/dev/zero` would never end).
inline bool readFile(const std::string &path, std::string &out, std::string &err) {
  return limits::readRegularFile(path, limits::kMaxSourceBytes, out, err);
}

} // namespace ph::driver
