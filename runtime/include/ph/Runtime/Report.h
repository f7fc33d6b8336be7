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
#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Occupancy.h"

#include <nlohmann/json.hpp>

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
  /// run: the run's result (kernel, config, time_ms, check ...); bench: the table
  /// (kernel, device, rows, best). Their keys are documented in docs/output.md.
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

} // namespace ph::rt::report
