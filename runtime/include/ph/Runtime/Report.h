//===- Report.h - The JSON document `ph ... --json` writes (ph-output v1) -*- C++ -*-===//
//
// One versioned document for `ph build`, `ph emit`, `ph run` and `ph bench`
// with --json (docs/schema/ph-output-v1.json, docs/output.md): the frontend's
// and the backend's diagnostics with ranges, notes and fixes; per variant the
// registers, shared memory, spills, occupancy on the device description and
// where each tile lives; run and bench results. The driver writes it with
// toJson and ph-lsp reads it with fromJson: the schema lives in this one file,
// with the progress events `ph build --json --progress` writes before it.
// No MLIR.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/Launch.h"
#include "ph/Runtime/GpuRun.h"
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Occupancy.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ph {
class SourceManager;
}

namespace ph::rt::report {

constexpr const char *kFormat = "ph-output";
constexpr int kVersion = 1;

/// 1-based line and byte column; `offset` is the 0-based byte offset (-1 when the
/// producer knows only the line and column, as for backend locations).
struct Position {
  int line = 0, col = 0;
  int64_t offset = -1;
};
struct Range {
  std::string file;
  Position start, end;
};
struct Note {
  std::string message;
  Range range;
};
struct Edit {
  Range range;
  std::string text;
};
struct Fix {
  std::string title;
  std::vector<Edit> edits;
};
struct Diag {
  std::string code;     // E0501 (docs/diagnostics.md)
  std::string name;     // SharedMemoryExceeded
  std::string severity; // error | warning | note
  std::string message;
  Range range;
  std::vector<Note> notes;
  std::vector<Fix> fixes;
};
/// The frontend's Diagnostic as the document carries it.
Diag fromDiagnostic(const Diagnostic &d, const SourceManager &sm);

struct Tile {
  std::string type; // `tensor<64x64xf16>`
  Range range;      // where the value comes from
  std::string placement; // registers | shared memory
  std::string detail;    // the layout or buffering: "mma", "blocked", "2 stages"; "" when none
};

/// One compiled kernel variant (an autotune configuration).
struct Variant {
  std::string kernel, configName, symbol, cubin, unit; // unit: simt | tensorcore
  bool tensorcore = false; // the kernel asked for `@tensorcore` (unit says whether it got it)
  std::vector<std::pair<std::string, int64_t>> config;
  int threads = 0;
  int registers = 0;
  int staticShared = 0, dynamicShared = 0; // bytes; the block uses both
  int stackBytes = 0, spillStores = 0, spillLoads = 0;
  Occupancy occupancy;
  std::vector<Tile> tiles;
  std::vector<std::string> notes;

  int64_t sharedBytes() const { return int64_t(staticShared) + dynamicShared; }
  int spillBytes() const { return spillStores + spillLoads; }
};
/// A manifest entry with its occupancy on `device`.
Variant fromManifest(const ManifestKernel &mk, const DeviceLimits &device);

/// One output compared with one reference (`--check`, `--ref`): ph::compareOutputs's
/// figures, the one comparison of ph run, ph-run and ph bench.
struct OutputCheck {
  std::string name, dtype;
  double maxAbsErr = 0, relErr = 0, tolerance = 0;
  int64_t nanCount = 0;
  int64_t agreedNonFinite = 0; // elements NaN/Inf where the reference has the same
  bool passed = false;
  int64_t worst = -1;     // the element of maxAbsErr (-1: unknown)
  std::string reference;  // what it was compared with: interp, or the --ref file ("" : Check::reference)
};
/// An OutputCheck from the comparison of `name` with `reference`.
OutputCheck outputCheck(const std::string &name, const OutputComparison &c, Elem elem, const std::string &reference);
struct Check {
  bool passed = false;
  std::string reference; // interp, or file when only --ref files were compared with
  double referenceMs = 0;
  std::vector<OutputCheck> outputs;
};
/// `ph run --json`'s result (its keys predate v1: snake_case, docs/output.md).
struct Run {
  std::string kernel, config, target;
  std::array<int64_t, 3> grid{};
  int threads = 0;
  std::vector<std::pair<std::string, int64_t>> sizes;
  std::vector<std::pair<std::string, double>> scalars;
  uint64_t seed = 0;
  double analyzeMs = 0, compileMs = 0, timeMs = 0;
  std::vector<std::pair<std::string, std::string>> outputs; // tensor -> .npy file
  std::optional<Check> check;
  /// ph-run and `ph run --target gpu`: the device and the kernel's resources
  /// (written only when known: device non-empty, the figures >= 0).
  std::string device;
  int registers = -1;
  int64_t sharedBytes = -1;
};

/// The device `ph bench` ran on.
struct BenchDevice {
  std::string name, arch;
  int sms = 0;
  double peakBandwidthGBs = 0, peakFp32TFlops = 0, peakTensorF16TFlops = 0;
};
/// `ph bench --json`'s table: one row per configuration (rt::BenchRow's figures).
struct Bench {
  std::string kernel;
  BenchDevice device;
  std::vector<BenchRow> rows;
  std::string best; // the fastest row's config
  nlohmann::ordered_json details, skipped; // per row: launches, min/max, cost, checks; configurations not run
};

/// One line of `ph emit`'s text that prints an op with a source location
/// (`lines`): what the editor's Show IR maps between the IR and the source,
/// from the MLIR printer's own record, never re-read from `loc(...)` text.
struct IrLine {
  int irLine = 0; // 1-based line of `text`
  std::string op; // `tile.dot`; a loop or function at its header line
  Range range;    // the frontend's range its location carries (no offsets)
};

struct Document {
  std::string command; // build | emit | run | bench
  bool ok = false;
  std::string file;    // the source file
  std::string target;  // sm_90, cpu, interp, gpu
  std::optional<DeviceLimits> device; // the description occupancy was computed on
  std::string outputDir; // build: the folder with manifest.json
  std::vector<Diag> diagnostics;
  std::vector<Variant> variants;
  std::string stage, text; // emit: the stage and its text
  std::vector<IrLine> lines; // emit: the located ops of the MLIR stages, in line order
  /// run: the run's result; bench: the table (docs/output.md). fromJson fills
  /// them when the document has a result (not for a file with errors).
  std::optional<Run> runResult;
  std::optional<Bench> benchResult;
  /// The same result as the document's JSON keys, for passing on whole (ph-lsp's
  /// replies); toJson writes it when there is no typed result.
  nlohmann::ordered_json run, bench;
  std::string error; // a failure that is not a diagnostic (a missing file, no GPU)
};

/// One line of `ph build --json --progress`'s stream (docs/output.md, "Progress
/// events"; docs/schema/ph-event-v1.json): the build says what it will do, then
/// each variant as it is done, in build order; the document is the stream's last line.
constexpr const char *kEventFormat = "ph-event";
struct Event {
  std::string event; // plan | variant
  int of = 0;        // the variants the build makes
  int cached = 0;    // plan: how many of them come from the cache
  int index = 0;     // variant: 0-based, in build order
  bool ok = false;   // variant: compiled (or read from the cache)
  bool fromCache = false;
  bool skipped = false; // variant: left out, since it does not fit the target (W0503; ok is false)
  double ms = 0;     // variant: wall time of its compile or cache read
  std::string kernel, configName;
  std::optional<Variant> variant; // variant, when ok: its figures as in the document
  std::vector<Diag> diagnostics;  // variant: the backend's diagnostics of this variant
};

nlohmann::ordered_json toJson(const Event &e);
/// Returns "" or why `line` is not a ph-event line this reader understands.
std::string eventFromJson(const std::string &line, Event &out);

nlohmann::ordered_json toJson(const Document &doc);
/// Adds the envelope (format, version, command, ok, diagnostics) to an existing
/// object, for the commands whose result keys predate the document (run, bench).
void addEnvelope(nlohmann::ordered_json &j, const std::string &command, bool ok,
                 const std::vector<Diag> &diagnostics);
/// Returns "" or why `text` is not a ph-output document this reader understands.
std::string fromJson(const std::string &text, Document &out);
/// Reads the output of `--json` with or without `--progress`: the document, and
/// the events before it (into `events` when given). "" or why it cannot.
std::string fromJsonLines(const std::string &text, Document &out, std::vector<Event> *events = nullptr);

/// The result keys of `ph run --json` and `ph bench --json` (what toJson writes for
/// runResult and benchResult, before the envelope).
nlohmann::ordered_json runJson(const Run &r);
/// A check as `ph run` writes it (`check`), also each bench row's (`details[].check`).
nlohmann::ordered_json checkJson(const Check &c);
Check checkFrom(const nlohmann::ordered_json &j);
nlohmann::ordered_json benchJson(const Bench &b);
/// What `ph bench` says about the device it ran on.
BenchDevice benchDeviceOf(const DeviceInfo &dev);

} // namespace ph::rt::report
