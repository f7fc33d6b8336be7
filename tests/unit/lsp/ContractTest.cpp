//===- ContractTest.cpp - The driver's documents, read by the server's readers -===//
//
// Issue 18's contract from both ends: the real `ph` (the producer) runs on an
// example (build, run, emit), and what it writes goes through the very functions
// ph-lsp reads it with (lsp/commands/Driver.h over rt::report). A key renamed, a figure moved or
// a range lost on either side fails here, not silently in an editor.
// `ph build` needs ptxas, as the lit GPU tests do; a `ph` without the backend
// skips these tests.
//
//===----------------------------------------------------------------------===//
#include "Driver.h"
#include "Subprocess.h"

#include "ph/Runtime/Manifest.h"
#include "ph/Runtime/Report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;
using namespace ph;
using namespace ph::lsp;
namespace report = ph::rt::report;

namespace {

const std::string kSource = PH_SOURCE_DIR;

/// A fresh folder for one test, with the build cache inside it (no ~/.cache).
std::string scratch(const std::string &name) {
  std::string dir = (fs::temp_directory_path() / ("ph-contract-" + name + "-" + std::to_string(::getpid()))).string();
  fs::remove_all(dir);
  fs::create_directories(dir);
  ::setenv("PH_CACHE_DIR", (dir + "/cache").c_str(), 1);
  return dir;
}

ProcessResult ph(std::vector<std::string> args) {
  args.insert(args.begin(), PH_DRIVER_FOR_TESTS);
  return runProcess(args, "", std::make_shared<CancelState>());
}

/// Builds `example` (one kernel, one configuration) the way compile on save does.
ProcessResult build(const std::string &dir, const std::string &example, const std::string &kernel,
                    const std::string &config, const std::string &target = "sm_80") {
  return ph({"build", kSource + "/" + example, "--kernel", kernel, "--config", config, "--target", target, "-o",
             dir + "/out", "--json"});
}

#define SKIP_WITHOUT_BACKEND(r)                                                                  \
  do {                                                                                           \
    ASSERT_TRUE((r).started) << (r).error;                                                       \
    if (driver::stageMissing(r) || (r).err.find("without the MLIR backend") != std::string::npos) \
      GTEST_SKIP() << "this ph has no GPU backend";                                              \
  } while (0)

TEST(Contract, BuildDocumentReadsBackThroughTheServersReader) {
  std::string dir = scratch("build");
  ProcessResult r = build(dir, "examples/flash_attention.ph", "flash_attention", "D=64,BR=64,BC=32");
  SKIP_WITHOUT_BACKEND(r);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  report::Document doc;
  ASSERT_EQ(driver::readBuild(r, doc), "") << r.out.substr(0, 400);
  EXPECT_TRUE(doc.ok);
  EXPECT_EQ(doc.target, "sm_80");
  ASSERT_TRUE(doc.device);
  EXPECT_EQ(doc.device->sharedPerSM, 167936); // sm_80's table entry
  ASSERT_EQ(doc.variants.size(), 1u);
  const report::Variant &v = doc.variants[0];
  EXPECT_EQ(v.kernel, "flash_attention");
  EXPECT_EQ(v.configName, "D=64,BR=64,BC=32");
  EXPECT_EQ(v.threads, 128);
  EXPECT_GT(v.registers, 0);
  EXPECT_GT(v.occupancy.blocksPerSM, 0);
  // The backend's record of each tile, with the source range it came from.
  ASSERT_FALSE(v.tiles.empty());
  for (const report::Tile &t : v.tiles) {
    // The example's file, or std/attention.ph whose `attention` it calls.
    EXPECT_TRUE(fs::is_regular_file(t.range.file)) << t.range.file;
    EXPECT_GT(t.range.start.line, 0) << t.type;
    EXPECT_TRUE(t.placement == "registers" || t.placement == "shared memory") << t.placement;
  }

  // The lens text is the document's figures.
  std::string lens = driver::figuresByKernel(doc)["flash_attention"];
  EXPECT_EQ(lens.rfind(std::to_string(v.registers) + " regs · ", 0), 0u) << lens;
  EXPECT_NE(lens.find(std::to_string(v.occupancy.blocksPerSM) + " blocks/SM"), std::string::npos) << lens;

  // The manifest the same build wrote, read back after a restart, says the same.
  report::Document last;
  ASSERT_EQ(driver::readLastBuild(dir + "/out", "sm_80", last), "");
  ASSERT_EQ(last.variants.size(), 1u);
  const report::Variant &m = last.variants[0];
  EXPECT_EQ(m.registers, v.registers);
  EXPECT_EQ(m.sharedBytes(), v.sharedBytes());
  EXPECT_EQ(m.spillBytes(), v.spillBytes());
  EXPECT_EQ(m.occupancy.blocksPerSM, v.occupancy.blocksPerSM);
  EXPECT_EQ(m.occupancy.limitedBy, v.occupancy.limitedBy);
  ASSERT_EQ(m.tiles.size(), v.tiles.size());
  for (size_t i = 0; i < m.tiles.size(); ++i) {
    EXPECT_EQ(m.tiles[i].type, v.tiles[i].type);
    EXPECT_EQ(m.tiles[i].range.start.line, v.tiles[i].range.start.line);
    EXPECT_EQ(m.tiles[i].placement, v.tiles[i].placement);
  }
  EXPECT_EQ(driver::figuresByKernel(last), driver::figuresByKernel(doc));

  // Hover's placements: by canonical file and 1-based line.
  driver::Placements placements;
  driver::readPlacements(doc, placements);
  std::string file = fs::weakly_canonical(v.tiles[0].range.file).string();
  ASSERT_TRUE(placements.count(file)) << file;
  EXPECT_TRUE(placements[file].count(static_cast<uint32_t>(v.tiles[0].range.start.line)));
  fs::remove_all(dir);
}

TEST(Contract, TileGpuKernelsReportTheirTilesAsData) {
  // GEMM takes the TileGPU path: its layouts are the tiles' detail.
  std::string dir = scratch("gemm");
  ProcessResult r = build(dir, "examples/gemm.ph", "gemm_relu_f16", "BM=64,BN=64,BK=32", "sm_90");
  SKIP_WITHOUT_BACKEND(r);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  report::Document doc;
  ASSERT_EQ(driver::readBuild(r, doc), "");
  ASSERT_EQ(doc.variants.size(), 1u);
  const report::Variant &v = doc.variants[0];
  ASSERT_EQ(v.unit, "tensorcore");
  ASSERT_FALSE(v.tiles.empty());
  size_t inRegisters = 0, inShared = 0;
  for (const report::Tile &t : v.tiles) {
    EXPECT_GT(t.range.start.line, 0) << t.type;
    if (t.placement == "registers") {
      ++inRegisters;
      EXPECT_FALSE(t.detail.empty()) << t.type; // mma, dot operand or blocked
    } else {
      EXPECT_EQ(t.placement, "shared memory");
      ++inShared;
    }
  }
  EXPECT_GT(inRegisters, 0u);
  EXPECT_GT(inShared, 0u);
  std::string lens = driver::figuresText(v);
  EXPECT_NE(lens.find("tc: " + std::to_string(inRegisters) + " tiles in regs, " + std::to_string(inShared) + " in smem"),
            std::string::npos)
      << lens;
  fs::remove_all(dir);
}

TEST(Contract, ALoweringErrorKeepsItsRangeAndNote) {
  std::string dir = scratch("e0501");
  ProcessResult r = build(dir, "tests/lit/lsp/Inputs/too_big.ph", "causal_attention", "D=128,BR=256,BC=256", "sm_90");
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exitCode, 1);
  report::Document doc;
  ASSERT_EQ(driver::readBuild(r, doc), "") << r.out.substr(0, 400);
  EXPECT_FALSE(doc.ok);
  auto it = std::find_if(doc.diagnostics.begin(), doc.diagnostics.end(),
                         [](const report::Diag &d) { return d.code == "E0501"; });
  ASSERT_NE(it, doc.diagnostics.end());
  EXPECT_EQ(it->severity, "error");
  EXPECT_EQ(it->range.start.line, 14); // the largest buffer, V's ring: `V[kt :+ BC, :]`
  EXPECT_GE(it->range.start.offset, 0);
  ASSERT_FALSE(it->notes.empty());
  EXPECT_EQ(it->notes[0].range.start.line, 2); // the kernel, from its decorator
  EXPECT_EQ(it->notes[0].range.end.line, 22);  // to its closing brace
  std::string first = driver::firstError(doc, r);
  EXPECT_NE(first.find("too_big.ph:14:"), std::string::npos) << first;
  EXPECT_NE(first.find(": error[E0501]: "), std::string::npos) << first;
  fs::remove_all(dir);
}

TEST(Contract, AGpuLoweringErrorReachesTheEditorAtTheOpThatFailed) {
  // Issue 18: a TileGPU pass's MLIR error carries the op's FileLineColRange; ph build
  // --json turns it into a diagnostic at that op (GpuTarget.cpp, LoweringDiagnostics.h),
  // which the server's reader keeps with its notes: not E0502 over the whole kernel.
  std::string dir = scratch("tilegpu-error");
  ::setenv("PH_GPU_LOWERING", "tilegpu", 1);
  ProcessResult r = ph({"build", kSource + "/tests/lit/gpu/lowering/small-dot.ph", "--target", "sm_90", "-o",
                        dir + "/out", "--json"});
  ::unsetenv("PH_GPU_LOWERING");
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exitCode, 1);
  report::Document doc;
  ASSERT_EQ(driver::readBuild(r, doc), "") << r.out.substr(0, 400);
  EXPECT_FALSE(doc.ok);
  ASSERT_EQ(doc.diagnostics.size(), 1u) << r.out.substr(0, 800);
  const report::Diag &d = doc.diagnostics[0];
  EXPECT_EQ(d.code, "E0503");
  EXPECT_EQ(d.severity, "error");
  EXPECT_EQ(d.range.start.line, 17); // `dot(a, K[0 :+ 16, :])`, the tile the policy cannot place
  EXPECT_EQ(d.range.start.col, 30);
  EXPECT_EQ(d.range.end.line, 17);
  EXPECT_EQ(d.range.end.col, 51);
  EXPECT_GE(d.range.start.offset, 0); // mapped back to the file's bytes
  EXPECT_NE(d.message.find("cannot take the mma.sync register layout"), std::string::npos) << d.message;
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].message, "in kernel `small_dot`");
  EXPECT_EQ(d.notes[0].range.start.line, 10); // the kernel, from its decorator
  std::string first = driver::firstError(doc, r);
  EXPECT_NE(first.find("small-dot.ph:17:30"), std::string::npos) << first;
  fs::remove_all(dir);
}

TEST(Contract, RunAndEmitDocumentsReadBackThroughTheServersReader) {
  // The CPU target and the interpreter's check: what ph.run shows in its summary.
  ProcessResult r = ph({"run", kSource + "/examples/rotary_pairs.ph", "--target", "cpu", "--size", "T=21", "--check", "--json"});
  SKIP_WITHOUT_BACKEND(r);
  ASSERT_EQ(r.exitCode, 0) << r.err;
  report::Document doc;
  ASSERT_EQ(driver::readDocument(r, "run", doc), "") << r.out.substr(0, 400);
  ASSERT_TRUE(doc.runResult);
  const report::Run &run = *doc.runResult;
  EXPECT_EQ(run.kernel, "rotary_pairs");
  EXPECT_EQ(run.target, "cpu");
  EXPECT_GT(run.threads, 0);
  EXPECT_GE(run.timeMs, 0);
  ASSERT_TRUE(run.check);
  EXPECT_TRUE(run.check->passed);
  EXPECT_EQ(run.check->reference, "interp");
  ASSERT_FALSE(run.check->outputs.empty());
  EXPECT_EQ(run.check->outputs[0].name, "X");
  EXPECT_LE(run.check->outputs[0].relErr, run.check->outputs[0].tolerance);
  std::string summary = driver::runSummary("rotary_pairs", "cpu", doc);
  EXPECT_EQ(summary.rfind("rotary_pairs on cpu: ", 0), 0u) << summary;
  EXPECT_NE(summary.find(" ms"), std::string::npos) << summary;
  EXPECT_TRUE(summary.ends_with(", check passed")) << summary;

  // ph.showIR's text.
  ProcessResult e = ph({"emit", kSource + "/examples/rotary_pairs.ph", "--stage", "tile", "--debug-info", "--json"});
  ASSERT_EQ(e.exitCode, 0) << e.err;
  report::Document emitted;
  ASSERT_EQ(driver::readDocument(e, "emit", emitted), "");
  EXPECT_EQ(emitted.stage, "tile");
  EXPECT_NE(emitted.text.find("func.func"), std::string::npos);
  // Its map comes from `lines`, the printer's record: each entry's line of the text
  // prints that op, and the kernel's function is at its header line.
  ASSERT_FALSE(emitted.lines.empty());
  std::vector<std::string> text;
  for (size_t pos = 0; pos < emitted.text.size();) {
    size_t nl = emitted.text.find('\n', pos);
    text.push_back(emitted.text.substr(pos, nl - pos));
    pos = nl == std::string::npos ? emitted.text.size() : nl + 1;
  }
  bool sawFunc = false;
  for (const report::IrLine &l : emitted.lines) {
    ASSERT_GE(l.irLine, 1);
    ASSERT_LE(size_t(l.irLine), text.size());
    // `builtin.module` prints as `module`, `func.return` as `return`.
    std::string op = text[size_t(l.irLine) - 1].find(l.op) == std::string::npos ? l.op.substr(l.op.find('.') + 1) : l.op;
    EXPECT_NE(text[size_t(l.irLine) - 1].find(op), std::string::npos) << l.op << " on line " << l.irLine << ": " << text[size_t(l.irLine) - 1];
    if (l.op == "func.func") sawFunc = text[size_t(l.irLine) - 1].find("func.func @rotary_pairs(") != std::string::npos;
  }
  EXPECT_TRUE(sawFunc);
  EXPECT_FALSE(driver::irLineMap(emitted.lines, kSource + "/examples/rotary_pairs.ph").empty());
}

// The server builds and runs a temporary copy of an unsaved buffer and passes the user's
// file name with `--source-name` (Driver.h, appendSourceName): the driver itself reports
// that name, in its text, its MLIR locations and its document, so nothing rewrites what it
// wrote (a `"` in a path is escaped in JSON, where rewriting the text missed it). A name
// with a `"` and spaces comes through intact.
TEST(Contract, AnUnsavedCopyIsReportedUnderTheUsersName) {
  std::string dir = scratch("source-name");
  std::string copy = dir + "/copy \"of\" k.ph";
  std::string user = "/home/u/my k \"draft\".ph";
  {
    std::ofstream f(copy);
    f << "kernel k(X: tensor<f32>[N]) {\n  X[0] = missing\n}\n";
  }
  std::vector<std::string> argv = {"build", copy, "-o", dir + "/out", "--json"};
  driver::appendSourceName(argv, copy, user);
  ASSERT_EQ(argv.size(), 7u);
  ProcessResult r = ph(argv);
  SKIP_WITHOUT_BACKEND(r);
  EXPECT_EQ(r.exitCode, 1);
  EXPECT_EQ(r.out.find("copy \\\"of"), std::string::npos) << "the copy's name is nowhere in the document";
  report::Document doc;
  ASSERT_EQ(driver::readBuild(r, doc), "") << r.out.substr(0, 400);
  EXPECT_EQ(doc.file, user);
  ASSERT_EQ(doc.diagnostics.size(), 1u);
  const report::Diag &d = doc.diagnostics[0];
  EXPECT_EQ(d.code, "E0201");
  EXPECT_EQ(d.range.file, user);
  EXPECT_EQ(d.range.start.line, 2);
  EXPECT_EQ(d.range.start.col, 10);
  std::string first = driver::firstError(doc, r);
  EXPECT_EQ(first.rfind(user + ":2:10: error[E0201]", 0), 0u) << first;

  // The text for people (`ph check`, `ph run` without --json) names the user's file too.
  ProcessResult checked = ph({"check", copy, "--source-name", user});
  EXPECT_EQ(checked.exitCode, 1);
  EXPECT_EQ(checked.out.rfind(user + ":2:10: error[E0201]", 0), 0u) << checked.out;
  ProcessResult ran = ph({"run", copy, "--target", "interp", "--source-name=" + user});
  EXPECT_EQ(ran.exitCode, 1);
  EXPECT_NE(ran.err.find(user + ":2:10: error[E0201]"), std::string::npos) << ran.err;
  EXPECT_EQ(ran.err.find(copy), std::string::npos) << ran.err;

  // A file that compiles: the emitted ops' ranges (Show IR's map) and a run's document.
  {
    std::ofstream f(copy);
    f << "kernel k(X: tensor<f32>[8, 8], Y: tensor<f32>[8, 8]) {\n  Y[:, :] = X[:, :] * 2.0\n}\n";
  }
  std::vector<std::string> emitArgv = {"emit", copy, "--stage", "tile", "--debug-info", "--json"};
  driver::appendSourceName(emitArgv, copy, user);
  ProcessResult e = ph(emitArgv);
  ASSERT_EQ(e.exitCode, 0) << e.err;
  report::Document emitted;
  ASSERT_EQ(driver::readDocument(e, "emit", emitted), "");
  EXPECT_EQ(emitted.file, user);
  ASSERT_FALSE(emitted.lines.empty());
  for (const report::IrLine &l : emitted.lines) EXPECT_EQ(l.range.file, user) << l.op;
  EXPECT_EQ(emitted.text.find("copy "), std::string::npos) << "the locations name the user's file";
  EXPECT_FALSE(driver::irLineMap(emitted.lines, user).empty());
  ProcessResult run = ph({"run", copy, "--target", "interp", "--json", "--source-name", user});
  ASSERT_EQ(run.exitCode, 0) << run.err;
  EXPECT_EQ(run.out.find("copy \\\"of"), std::string::npos) << run.out.substr(0, 400);

  // The driver refuses a name it cannot use.
  EXPECT_EQ(ph({"check", copy, "--source-name"}).exitCode, 2);
  EXPECT_EQ(ph({"check", copy, "--source-name="}).exitCode, 2);
  EXPECT_EQ(ph({"check", copy, copy, "--source-name", user}).exitCode, 2);
  // Nothing to add when the driver reads the user's own file, or the buffer has no name.
  std::vector<std::string> same = {"build", user};
  driver::appendSourceName(same, user, user);
  driver::appendSourceName(same, copy, "");
  EXPECT_EQ(same.size(), 2u);
  fs::remove_all(dir);
}

} // namespace
