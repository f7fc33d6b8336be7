//===- DriverUtil.h - Small helpers shared by the `ph` subcommands -*- C++ -*-===//
#pragma once

#include <fstream>
#include <sstream>
#include <string>

namespace ph::driver {

/// Reads a whole file; on failure sets `err` to a message naming the path.
inline bool readFile(const std::string &path, std::string &out, std::string &err) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    err = "cannot read `" + path + "`";
    return false;
  }
  std::stringstream ss;
  ss << in.rdbuf();
  out = ss.str();
  return true;
}

} // namespace ph::driver
