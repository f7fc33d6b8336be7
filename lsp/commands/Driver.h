//===- Driver.h - The small client of the `ph` driver the commands share -*- C++ -*-===//
//
// Every command (lsp/commands/*.cpp) starts `ph` through this client: an
// argument vector (never a shell), cancellation, the driver's words turned into
// an RpcError, its JSON output, the build folder the settings allow, and what a
// build says (`ph build --json`, read as typed data: diagnostics, and per kernel
// registers, shared memory, spills, occupancy, placements of tiles) for the
// lens, hover and diagnostics. It holds no server state.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "JsonRpc.h"
#include "Subprocess.h"

#include "ph/Runtime/Report.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace ph::lsp {
struct FeatureOptions;
struct Snapshot;
}

namespace ph::lsp::driver {

namespace fs = std::filesystem;

/// The build folder for `path`: the `outputDir` setting, relative to the
/// workspace root (else the file's folder). It must stay inside that base, also
/// after following symbolic links, so a setting such as `../../etc` or `/tmp/x`
/// cannot make `ph build` write elsewhere; "" and `error` when it escapes.
fs::path outputFolder(const std::string &setting, const std::string &root, const std::string &path,
                      std::string &error);

/// The driver said that a command's backend has not landed in this build.
bool stageMissing(const ProcessResult &r);
std::string firstLines(const std::string &s, size_t maxLines = 20);
/// The driver's failure as a RequestFailed error with its own words.
RpcError driverError(const std::string &what, const ProcessResult &r);
/// Reads `ph COMMAND --json`'s document (docs/output.md) from the driver's stdout
/// through the runtime's reader; "" or why there is none.
std::string readDocument(const ProcessResult &r, const std::string &command, rt::report::Document &doc);
/// `--source-name USERFILE` on `argv` when the driver is to read `file`, a temporary
/// copy of the unsaved buffer of `userFile` (Server::fileForDriver): the driver then
/// reports the user's file under its own name in its text, its MLIR locations and its
/// JSON document alike, so nothing here rewrites what it said. Nothing when it reads
/// the user's file itself, or the buffer has no file name (untitled).
void appendSourceName(std::vector<std::string> &argv, const std::string &file, const std::string &userFile);
std::string argvForLog(const std::vector<std::string> &argv);
/// One line for window/showMessage: a run's time, configuration and check
/// ("k on cpu: 1.5 ms, BR=64, check passed"), or a benchmark's fastest row.
std::string runSummary(const std::string &kernel, const std::string &target, const rt::report::Document &doc);
std::string runSummary(const std::string &kernel, const std::string &target, const rt::report::Run &r);

/// Placements of tiles: canonical file -> 1-based line -> "`T` in WHERE".
using Placements = std::map<std::string, std::map<uint32_t, std::vector<std::string>>>;

// BuildReport.cpp: `ph build --json`'s document, read as typed data.
/// Reads the document from the driver's stdout (after its progress events, if
/// any: `--progress`); "" or why there is none.
std::string readBuild(const ProcessResult &r, rt::report::Document &doc);
/// The lens text of one variant, short enough for a lens line or a table column:
/// "96 regs · 47.2 KiB smem · 4 blocks/SM (25%, smem)", the occupancy as the driver
/// computed it on its device description, then where the tiles live.
std::string figuresText(const rt::report::Variant &v);
/// That text for each kernel's first variant.
std::map<std::string, std::string> figuresByKernel(const rt::report::Document &doc);
/// The tensor-core lowering's tiles, by source line.
void readPlacements(const rt::report::Document &doc, Placements &out);
/// A failed build's first error, `file:line:col: error[E0501]: ...`, or the driver's error.
std::string firstError(const rt::report::Document &doc, const ProcessResult &r);
/// A failed build as an RpcError: its first error (`file:line:col: error[E0501]: ...`)
/// or the driver's error, with the document as data.
RpcError buildError(const rt::report::Document &doc, const ProcessResult &r);
/// The driver's diagnostics in the document `path` as LSP diagnostics (`source`: "ph build",
/// "ph run", "ph bench"), with ranges, notes and fixes as the analysis' own are shown.
json diagnosticsOf(const rt::report::Document &doc, const Snapshot &s, const FeatureOptions &o, const std::string &path,
                   const std::string &source = "ph build");
/// The figures of the last build on disk (`dir`/manifest.json) as a build document,
/// their occupancy on `arch`'s description: what the lens shows after a restart.
/// "" or why there is none.
std::string readLastBuild(const fs::path &dir, const std::string &arch, rt::report::Document &doc);
/// Show IR's map from `ph emit --json`'s `lines` (the MLIR printer's record of the
/// line each located op went to; the text is never re-read): the ops whose range is in
/// `phFile` (the same file name), as {irLine, sourceLine} pairs, both 0-based.
json irLineMap(const std::vector<rt::report::IrLine> &lines, const std::string &phFile);

} // namespace ph::lsp::driver
