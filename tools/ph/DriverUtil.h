//===- DriverUtil.h - Small helpers shared by the `ph` subcommands -*- C++ -*-===//
#pragma once

#include "ph/Limits.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace ph::driver {


/// `--source-name NAME` (main.cpp takes it off the command line before the command
/// parses its own options): the name under which diagnostics, MLIR locations and the
/// JSON document report the input file, whose bytes are still read from the path
/// given. ph-lsp runs the driver on a temporary copy of an unsaved buffer and passes
/// the user's file name here, so nothing rewrites the driver's output afterwards.
inline std::string &sourceNameOption() {
  static std::string name;
  return name;
}

/// The name the input `path` is reported under: --source-name's, else the path itself.
inline std::string reportedName(const std::string &path) {
  return sourceNameOption().empty() ? path : sourceNameOption();
}

/// Reads a whole source file; on failure sets `err` to a message naming the file as it is
/// reported (reportedName: E0602 and E0603 name the user's file, not a temporary copy). Only
/// a regular file of at most limits::kMaxSourceBytes (`/dev/zero` would never end).
inline bool readFile(const std::string &path, std::string &out, std::string &err, DiagKind *kind = nullptr) {
  return limits::readRegularFile(path, limits::kMaxSourceBytes, out, err, kind, reportedName(path));
}

/// Takes `--source-name NAME` and `--source-name=NAME` out of `args` into
/// sourceNameOption(); "" or a usage error (no name, an empty one, given twice).
inline std::string takeSourceName(std::vector<std::string> &args) {
  std::vector<std::string> rest;
  bool given = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    std::string name;
    if (a == "--source-name") {
      if (i + 1 >= args.size()) return "`--source-name` needs a name";
      name = args[++i];
    } else if (a.rfind("--source-name=", 0) == 0) {
      name = a.substr(14);
    } else {
      rest.push_back(a);
      continue;
    }
    if (name.empty()) return "`--source-name` needs a name, not an empty one";
    if (given) return "`--source-name` given twice";
    given = true;
    sourceNameOption() = name;
  }
  args = std::move(rest);
  return "";
}

} // namespace ph::driver
