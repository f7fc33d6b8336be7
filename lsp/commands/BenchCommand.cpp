//===- BenchCommand.cpp - ph.run with `bench: true`: every autotune variant timed -===//
//
// `ph bench FILE --kernel K --json` (and `--target T` unless auto): the
// editor's "Benchmark Kernel". The no-GPU offer, progress and the result's
// summary are run's (RunCommand.cpp).
//
//===----------------------------------------------------------------------===//
#include "Server.h"

namespace ph::lsp {

void Server::benchKernel(const json &args, const Reply &reply, const json &token, const std::string &kernel,
                         const std::string &target) {
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "bench", file, "--kernel", kernel, "--json"};
  if (target != "auto") argv.insert(argv.end(), {"--target", target});
  appendLaunchArgs(argv, args, settings());
  launchDriver(argv, kernel, target, /*bench=*/true, tempDir, reply, token);
}

} // namespace ph::lsp
