//===- Driver.h - The small client of the `ph` driver the commands share -*- C++ -*-===//
//
// Every command (lsp/commands/*.cpp) starts `ph` through this client: an
// argument vector (never a shell), cancellation, the driver's words turned into
// an RpcError, its JSON output, the build folder the settings allow, and what a
// build says about each kernel (registers, shared memory, spills, placements of
// tiles) for the lens and hover. It holds no server state.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "JsonRpc.h"
#include "Subprocess.h"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

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
/// The last JSON object in the driver's stdout (it may print a line of text first).
json parseJsonOutput(const std::string &out);
/// The driver read `copy` (a temporary copy of an unsaved buffer): its messages name
/// `userFile` instead, the file the user has open.
void renameCopy(ProcessResult &r, const std::string &copy, const std::string &userFile);
std::string argvForLog(const std::vector<std::string> &argv);
/// One line for window/showMessage out of `ph run --json` or `ph bench --json`.
std::string runSummary(const std::string &kernel, const std::string &target, const json &result);

/// What a build says about one kernel (its first variant).
struct Figures {
  int registers = -1;
  int64_t smem = -1, spill = 0;
  int threads = 128;
  /// Where the tiles live: "tensorcore: 20 tiles in registers, 3 in shared memory", or for
  /// a `@tensorcore` kernel the SIMT lowering took, "SIMT: tiles in shared memory".
  std::string tiles;
};
using FiguresByKernel = std::map<std::string, Figures>;
/// Placements of tiles: canonical file -> 1-based line -> "`T` in WHERE".
using Placements = std::map<std::string, std::map<uint32_t, std::vector<std::string>>>;

/// A build's figures of each kernel, from its output and the folder's manifest.
FiguresByKernel readFigures(const std::string &output, const fs::path &dir);
/// The lens text of one kernel's figures with its occupancy on `arch`, short enough for a
/// lens line or a table column: "96 regs · 47.2 KiB smem · 4 blocks/SM (25%, smem)".
std::string figuresText(const Figures &f, const std::string &arch);
/// The tensor-core lowering's placements in the folder's manifest.
void readPlacements(const fs::path &dir, Placements &out);
/// Diagnostics (LSP shape) the driver printed about `path`.
json parseDiagnostics(const std::string &text, const std::string &path, const std::string &docText);
/// Maps each line of printed IR to the `.ph` line it came from ({irLine, sourceLine} pairs).
json irLineMap(const std::string &ir, const std::string &phFile);
/// The MLIR lines whose location is in another file than `phFile` (a `fn` of the standard
/// library inlined into the kernel): {irLine, file, line} with `line` 1-based.
json irForeignLines(const std::string &ir, const std::string &phFile);

} // namespace ph::lsp::driver
