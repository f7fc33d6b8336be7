//===- Tool.h - Run, check and benchmark variants (ph-run, ph bench) -*- C++ -*-===//
//
// The command-line behaviour shared by `ph-run DIR` (cubins read from a build
// folder) and `ph bench FILE` / `ph run --target gpu` (cubins compiled in the
// same process): option parsing, binding inputs, one checked run, or the
// benchmark table over every autotune configuration.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/KernelIR.h"
#include "ph/Launch.h"
#include "ph/Runtime/GpuRun.h"
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Report.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ph {
class SourceManager;
}

namespace ph::rt {

/// Exit code of every GPU command on a machine without a usable GPU (the
/// message says why); ctest treats it as "skipped".
constexpr int kExitNoGpu = 77;

/// One compiled kernel variant: what the manifest says, its cubin, and, when
/// the frontend is at hand, the checked kernel (for the interpreter and for
/// counting work).
struct Variant {
  ManifestKernel meta;
  std::vector<uint8_t> cubin;
  std::shared_ptr<const kir::Kernel> kernel; // may be null
};

/// What `ph run`, `ph bench` and `ph-run` are told on the command line: one
/// parser (parseToolOptions) for the three, so an option means the same in each.
struct ToolOptions {
  std::string kernel;
  std::vector<std::pair<std::string, int64_t>> config; // --config BR=64,BC=32
  LaunchRequest request; // --size, --arg, --seed; the inputs once readInputs has read them
  std::vector<std::pair<std::string, std::string>> inPaths; // --in Q=q.npy, in order
  std::map<std::string, std::string> outPaths; // --out O=o.npy
  std::map<std::string, std::string> refPaths; // --ref O=ref.npy
  std::string target; // --target: ph run's auto|gpu|cpu|interp, ph bench's sm_90 (each tool checks it)
  bool check = false;
  bool bench = false;
  bool json = false;
  bool info = false;
  /// With --json, the compiler's diagnostics (ph bench) go into the document.
  std::vector<report::Diag> diagnostics;
  /// Largest launch (in dot FLOPs plus elements touched) checked with the
  /// interpreter during --bench; bigger ones are compared only with --ref.
  double interpLimit = 4e8;
  BenchOptions benchOptions;
  /// --timeout: the whole run (GPU launches, check, benchmark) is stopped after
  /// this many seconds (0: never), so a hung kernel cannot hold the GPU forever.
  double timeoutSeconds = 600;
};

/// Exit code of a run stopped by --timeout (that of timeout(1)).
constexpr int kExitTimeout = 124;

/// Arms a watchdog: after `seconds` (if > 0) the process prints why on stderr
/// and exits with kExitTimeout; the CUDA driver then tears the context down,
/// which stops any kernel still running. A later call re-arms it.
void armRunTimeout(double seconds);

/// Which options a tool takes (parseToolOptions leaves the others in `rest`).
enum ToolOptionSet : unsigned {
  kRunOptions = 1,     // --kernel/-k --config --size --arg --in --out --seed --check --json
  kTargetOption = 2,   // --target
  kRefOption = 4,      // --ref
  kBenchOptions = 8,   // --bench --warmup --iters
  kTimeoutOption = 16, // --timeout
  kInfoOption = 32,    // --info
  kPhRunOptions = kRunOptions | kRefOption | kBenchOptions | kTimeoutOption | kInfoOption,
  kPhBenchOptions = kRunOptions | kTargetOption | kRefOption | kBenchOptions | kTimeoutOption,
  kPhRunCommandOptions = kRunOptions | kTargetOption, // `ph run`
};

/// Parses `args` (`--size N=4096` and `--size=N=4096` alike); options outside
/// `accepted`, and the operands, are left in `rest` in order. Returns "" or a
/// usage error (`--size` takes NAME=INTEGER, found `T`). Files are not read here.
std::string parseToolOptions(const std::vector<std::string> &args, ToolOptions &opt,
                             std::vector<std::string> &rest, unsigned accepted = kPhRunOptions);
/// Reads the --in files into `opt.request.inputs`. Returns "" or an error.
std::string readInputs(ToolOptions &opt);
extern const char *kToolOptionsHelp;

/// Keeps the variants whose configuration agrees with `opt.config`.
std::vector<const Variant *> selectVariants(const std::vector<Variant> &all, const ToolOptions &opt);

/// Runs once (the first selected variant) or benchmarks every one; prints a
/// report on stdout (JSON with --json). Returns the process exit code.
/// Inputs this large are drawn on every core for each configuration and never cached (the
/// decode caches of bench_decode.py are 8 GiB each); one set of them exceeds the L2 many times.
inline constexpr int64_t kLargeInputBytes = int64_t(256) << 20;

/// Draws the random inputs bindLaunch would draw (the same values) for every read f16, bf16
/// or f32 tensor of at least `minBytes` whose sizes `req` gives, on every core, into
/// `req.inputs`; their names go to `drawn`. `ph-run --bench` uses it for inputs of 256 MiB
/// or more, which one core takes minutes to draw, and for every input of 1 MiB or more through
/// `cache` (keyed by seed, name, type and shape; tensors under 256 MiB only), so that the
/// configurations of a kernel time the same data without drawing it again.
void drawLargeInputs(const kir::Kernel &sig, LaunchRequest &req, std::vector<std::string> &drawn,
                     int64_t minBytes = kLargeInputBytes,
                     std::map<std::string, HostTensor> *cache = nullptr);

/// With --bench, `best` (if given) receives the fastest configuration whose check did not fail:
/// its name (Kernel::configName, "" without @autotune), median ms, whether the interpreter or
/// --ref checked it (large launches are not), and how many configurations ran. What `ph-run
/// --tune` records (only when every check passed: the exit code is 0).
struct BenchPick {
  std::string config;
  double ms = 0;
  bool checked = false;
  int timed = 0;
};
int runOrBench(const std::vector<const Variant *> &variants, const ToolOptions &opt,
               const SourceManager *sources = nullptr, BenchPick *best = nullptr);

/// `ph-run --info`: the device, or why there is none.
int printDeviceInfo(bool json);

} // namespace ph::rt
