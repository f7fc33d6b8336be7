//===- ReportTest.cpp - The device description, occupancy, ph-output v1 ---===//
#include "ph/Runtime/Occupancy.h"
#include "ph/Runtime/Report.h"
#include "ph/Source.h"

#include <gtest/gtest.h>

using namespace ph;
using namespace ph::rt;

TEST(Occupancy, RegistersLimitAHeavyTensorCoreKernel) {
  // 168 registers x 32 lanes, in units of 256: 5376 a warp; 65536 / 5376 = 12 warps = 3
  // blocks of 4 warps. Shared memory alone would allow 233472 / (24576 + 1024) = 9.
  Occupancy o = occupancy(limitsForArch("sm_90"), 128, 168, 24576);
  EXPECT_EQ(o.blocksPerSM, 3);
  EXPECT_EQ(o.byRegisters, 3);
  EXPECT_EQ(o.bySharedMemory, 9);
  EXPECT_EQ(o.byThreads, 16);
  EXPECT_EQ(o.limitedBy, "registers");
  EXPECT_EQ(o.warpsPerSM, 12);
  EXPECT_DOUBLE_EQ(o.fraction, 12.0 / 64);
  EXPECT_EQ(occupancyText(o), "3 blocks/SM (19% occupancy, limited by registers)");
}

TEST(Occupancy, SharedMemoryAndTheArchitectureDecide) {
  // 100 KiB a block: two fit in sm_90's 228 KiB, one in sm_80's 164 KiB; each block also
  // reserves 1 KiB, so 102400 + 1024 > sm_86's 102400 and it fits none.
  int64_t smem = 100 * 1024;
  EXPECT_EQ(occupancy(limitsForArch("sm_90"), 128, 32, smem).blocksPerSM, 2);
  EXPECT_EQ(occupancy(limitsForArch("sm_80"), 128, 32, smem).blocksPerSM, 1);
  EXPECT_EQ(occupancy(limitsForArch("sm_86"), 128, 32, smem).blocksPerSM, 0);
  EXPECT_EQ(occupancy(limitsForArch("sm_90"), 128, 32, smem).limitedBy, "shared memory");
  // Few registers, no shared memory: 1024-thread blocks are limited by threads (64 warps).
  Occupancy t = occupancy(limitsForArch("sm_90"), 1024, 16, 0);
  EXPECT_EQ(t.blocksPerSM, 2);
  EXPECT_EQ(t.limitedBy, "threads");
  EXPECT_FALSE(limitsForArch("sm_70").known);
}

TEST(Report, RoundTripsABuildDocument) {
  auto file = std::make_shared<SourceFile>("k.ph", "kernel k() {\n  let x = 1\n}\n");
  SourceManager sm;
  FileId id = sm.add(file);
  Diagnostic d;
  d.kind = DiagKind::SharedMemoryExceeded;
  d.severity = Severity::Error;
  d.range = {id, 15, 24};
  d.message = "too much";
  d.notes.push_back({{id, 7, 8}, "in kernel `k`"});
  d.fixes.push_back({"drop it", {{{id, 15, 24}, ""}}});

  report::Document doc;
  doc.command = "build";
  doc.ok = false;
  doc.file = "k.ph";
  doc.target = "sm_90";
  doc.device = limitsForArch("sm_90");
  doc.diagnostics.push_back(report::fromDiagnostic(d, sm));
  ManifestKernel mk;
  mk.sig.name = "k";
  mk.sig.config = {{"BR", 64}};
  mk.sig.threads = 128;
  mk.sig.tensorcore = true;
  mk.unit = "tensorcore";
  mk.dynamicShared = 24576;
  mk.ptxas.registers = 168;
  mk.ptxas.spillStores = 4;
  mk.tiles.push_back({"tensor<64x64xf16>", {"k.ph", 2, 3, 2, 12}, "shared memory", "2 stages"});
  doc.variants.push_back(report::fromManifest(mk, *doc.device));

  std::string text = report::toJson(doc).dump(2);
  report::Document back;
  ASSERT_EQ(report::fromJson(text, back), "") << text;
  EXPECT_EQ(back.command, "build");
  EXPECT_FALSE(back.ok);
  ASSERT_EQ(back.diagnostics.size(), 1u);
  const report::Diag &bd = back.diagnostics[0];
  EXPECT_EQ(bd.code, "E0501");
  EXPECT_EQ(bd.severity, "error");
  EXPECT_EQ(bd.range.start.line, 2);
  EXPECT_EQ(bd.range.start.col, 3);
  EXPECT_EQ(bd.range.start.offset, 15);
  EXPECT_EQ(bd.range.end.offset, 24);
  ASSERT_EQ(bd.notes.size(), 1u);
  EXPECT_EQ(bd.notes[0].message, "in kernel `k`");
  EXPECT_EQ(bd.notes[0].range.start.offset, 7);
  ASSERT_EQ(bd.fixes.size(), 1u);
  EXPECT_EQ(bd.fixes[0].edits[0].range.end.offset, 24);
  ASSERT_EQ(back.variants.size(), 1u);
  const report::Variant &v = back.variants[0];
  EXPECT_EQ(v.kernel, "k");
  EXPECT_EQ(v.config, mk.sig.config);
  EXPECT_TRUE(v.tensorcore);
  EXPECT_EQ(v.registers, 168);
  EXPECT_EQ(v.sharedBytes(), 24576);
  EXPECT_EQ(v.spillBytes(), 4);
  EXPECT_EQ(v.occupancy.blocksPerSM, 3);
  EXPECT_EQ(v.occupancy.limitedBy, "registers");
  ASSERT_EQ(v.tiles.size(), 1u);
  EXPECT_EQ(v.tiles[0].range.start.line, 2);
  EXPECT_EQ(v.tiles[0].range.start.offset, -1); // backend locations carry no offsets
  EXPECT_EQ(v.tiles[0].placement, "shared memory");
  EXPECT_EQ(v.tiles[0].detail, "2 stages");
  ASSERT_TRUE(back.device);
  EXPECT_EQ(back.device->sharedPerSM, 233472);
}

TEST(Report, RefusesOtherFormatsAndVersions) {
  report::Document doc;
  EXPECT_NE(report::fromJson("[]", doc), "");
  EXPECT_NE(report::fromJson(R"({"format": "ph-build-1"})", doc), "");
  std::string why = report::fromJson(R"({"format": "ph-output", "version": 2, "command": "build", "ok": true, "diagnostics": []})", doc);
  EXPECT_NE(why.find("version 2"), std::string::npos) << why;
  EXPECT_EQ(report::fromJson(R"({"format": "ph-output", "version": 1, "command": "run", "ok": true, "diagnostics": [], "time_ms": 1.5})", doc), "");
  EXPECT_EQ(doc.run["time_ms"], 1.5); // run's own keys stay with the run
  EXPECT_FALSE(doc.runResult);        // no kernel: not a run's result
}

TEST(Report, EmitLinesRoundTrip) {
  // `ph emit --json`'s `lines`: the printer's record of where each located op went,
  // which Show IR maps by; written only for a document that emitted something.
  report::Document doc;
  doc.command = "emit";
  doc.ok = true;
  doc.stage = "tile";
  doc.text = "module {\n  func.func @k() {\n    scf.for ...\n";
  doc.lines.push_back({2, "func.func", {"k.ph", {1, 1, -1}, {9, 2, -1}}});
  doc.lines.push_back({3, "scf.for", {"k.ph", {4, 3, -1}, {4, 40, -1}}});
  nlohmann::ordered_json j = report::toJson(doc);
  ASSERT_TRUE(j.contains("lines")) << j.dump();
  EXPECT_EQ(j["lines"][1]["irLine"], 3);
  EXPECT_FALSE(j["lines"][1]["range"]["start"].contains("offset")); // MLIR locations carry no offsets
  report::Document back;
  ASSERT_EQ(report::fromJson(j.dump(), back), "");
  ASSERT_EQ(back.lines.size(), 2u);
  EXPECT_EQ(back.lines[0].irLine, 2);
  EXPECT_EQ(back.lines[0].op, "func.func");
  EXPECT_EQ(back.lines[1].op, "scf.for");
  EXPECT_EQ(back.lines[1].range.file, "k.ph");
  EXPECT_EQ(back.lines[1].range.start.line, 4);
  EXPECT_EQ(back.lines[1].range.start.col, 3);
  EXPECT_EQ(back.lines[1].range.end.col, 40);
  EXPECT_EQ(back.lines[1].range.start.offset, -1);
  // A failed emit has no text, so no lines.
  doc.ok = false;
  EXPECT_FALSE(report::toJson(doc).contains("lines"));
}

TEST(Report, RunResultsRoundTrip) {
  // What `ph run --json` writes (Run) and ph-lsp reads back, field for field.
  report::Run run;
  run.kernel = "k";
  run.config = "BR=64";
  run.target = "cpu";
  run.grid = {4, 2, 1};
  run.threads = 128;
  run.sizes = {{"N", 256}};
  run.scalars = {{"scale", 0.125}};
  run.seed = 7;
  run.timeMs = 1.5;
  run.outputs = {{"O", "o.npy"}};
  run.check = report::Check{false, "interp", 3.0, {{"O", "f16", 0.5, 0.01, 0.003, 2, 1, false, 7, ""},
                                                   {"O", "f16", 0.0, 0.0, 0.003, 0, 0, true, 0, "ref.npy"}}};
  run.device = "NVIDIA H200"; // ph-run's single run
  run.registers = 96;
  run.sharedBytes = 49152;
  report::Document doc;
  doc.command = "run";
  doc.runResult = run;
  std::string text = report::toJson(doc).dump();
  // Its keys are the ones `ph run` always wrote, sorted, after the envelope.
  EXPECT_EQ(text.rfind(R"({"format":"ph-output","version":1,"command":"run","ok":false,"diagnostics":[],"analyze_ms":)", 0), 0u) << text;
  EXPECT_NE(text.find(R"("agreed_non_finite":1,"dtype":"f16","max_abs_err":0.5,"name":"O","nan_count":2,"passed":false,"reference":"interp")"), std::string::npos) << text;
  report::Document back;
  ASSERT_EQ(report::fromJson(text, back), "");
  ASSERT_TRUE(back.runResult);
  const report::Run &r = *back.runResult;
  EXPECT_EQ(r.kernel, "k");
  EXPECT_EQ(r.config, "BR=64");
  EXPECT_EQ(r.grid[0], 4);
  EXPECT_EQ(r.sizes, run.sizes);
  EXPECT_EQ(r.scalars, run.scalars);
  EXPECT_EQ(r.seed, 7u);
  EXPECT_EQ(r.timeMs, 1.5);
  EXPECT_EQ(r.outputs, run.outputs);
  ASSERT_TRUE(r.check);
  EXPECT_FALSE(r.check->passed);
  ASSERT_EQ(r.check->outputs.size(), 2u);
  EXPECT_EQ(r.check->outputs[0].nanCount, 2);
  EXPECT_EQ(r.check->outputs[0].agreedNonFinite, 1);
  EXPECT_EQ(r.check->outputs[0].relErr, 0.01);
  EXPECT_EQ(r.check->outputs[0].worst, 7);
  EXPECT_EQ(r.check->outputs[0].reference, "interp"); // the check's, written per output
  EXPECT_EQ(r.check->outputs[1].reference, "ref.npy");
  EXPECT_EQ(r.device, "NVIDIA H200");
  EXPECT_EQ(r.registers, 96);
  EXPECT_EQ(r.sharedBytes, 49152);
  // A run that failed before it ran has no result, only the envelope.
  report::Document failed;
  ASSERT_EQ(report::fromJson(R"({"format": "ph-output", "version": 1, "command": "run", "ok": false, "diagnostics": [], "error": "x"})", failed), "");
  EXPECT_FALSE(failed.runResult);
  // A result without its required keys is refused, not guessed at.
  EXPECT_NE(report::fromJson(R"({"format": "ph-output", "version": 1, "command": "run", "ok": true, "diagnostics": [], "kernel": "k", "grid": "x"})", failed), "");
}

TEST(Report, BenchTablesRoundTrip) {
  report::Bench b;
  b.kernel = "k";
  b.device = {"NVIDIA H200", "sm_90", 132, 4800, 60, 990};
  b.rows = {{"BR=64", 0.5, 100, 2000, 50, true, 96, 16384, 0, "ok 3.1e-07"},
            {"BR=128", 0.25, 200, 4000, 60, true, 128, 32768, 8, "ok 2.0e-07"}};
  b.best = "BR=128";
  b.skipped = nlohmann::ordered_json::array({"[BR=256] too much shared memory"});
  report::Document doc;
  doc.command = "bench";
  doc.ok = true;
  doc.benchResult = b;
  report::Document back;
  ASSERT_EQ(report::fromJson(report::toJson(doc).dump(), back), "");
  ASSERT_TRUE(back.benchResult);
  EXPECT_EQ(back.benchResult->device.name, "NVIDIA H200");
  EXPECT_EQ(back.benchResult->device.sms, 132);
  ASSERT_EQ(back.benchResult->rows.size(), 2u);
  EXPECT_EQ(back.benchResult->rows[1].ms, 0.25);
  EXPECT_EQ(back.benchResult->rows[1].spills, 8);
  EXPECT_EQ(back.benchResult->rows[0].check, "ok 3.1e-07");
  EXPECT_EQ(back.benchResult->best, "BR=128");
  EXPECT_EQ(back.benchResult->skipped.size(), 1u);
}

TEST(Report, ALoweringFailureIsARegistryDiagnostic) {
  // `ph build --json` turns a lowering failure without a diagnostic of its own into
  // E0502 on the kernel; the document carries its code, name, range and note.
  SourceManager sm;
  FileId id = sm.add(std::make_shared<SourceFile>("k.ph", "kernel k() {\n}\n"));
  Diagnostic d;
  d.kind = DiagKind::BackendError;
  d.severity = Severity::Error;
  d.range = {id, 7, 8};
  d.message = formatDiag(DiagKind::BackendError, {"ptxas ran out of registers"});
  d.notes.push_back({d.range, "in configuration BR=64"});
  EXPECT_NE(renderDiagnostic(d, sm).find("error[E0502]"), std::string::npos) << renderDiagnostic(d, sm);
  report::Diag rd = report::fromDiagnostic(d, sm);
  EXPECT_EQ(rd.code, "E0502");
  EXPECT_EQ(rd.name, "BackendError");
  EXPECT_EQ(rd.range.start.line, 1);
  EXPECT_EQ(rd.range.start.col, 8);
  ASSERT_EQ(rd.notes.size(), 1u);
  EXPECT_EQ(rd.notes[0].message, "in configuration BR=64");
}

// `ph build --json --progress`: events, one a line, then the document on its last line;
// the reader takes both, and a plain --json document too.
TEST(Report, ReadsTheProgressStreamAndItsDocument) {
  report::Event plan;
  plan.event = "plan";
  plan.of = 2;
  plan.cached = 1;
  report::Event v;
  v.event = "variant";
  v.of = 2;
  v.index = 1;
  v.ok = true;
  v.fromCache = true;
  v.ms = 2.5;
  v.kernel = "k";
  v.configName = "BR=64";
  v.variant.emplace();
  v.variant->kernel = "k";
  v.variant->registers = 96;
  v.variant->config = {{"BR", 64}};
  report::Document doc;
  doc.command = "build";
  doc.ok = true;
  doc.variants.push_back(*v.variant);
  std::string stream = report::toJson(plan).dump() + "\n" + report::toJson(v).dump() + "\n" + report::toJson(doc).dump() + "\n";
  report::Document back;
  std::vector<report::Event> events;
  ASSERT_EQ(report::fromJsonLines(stream, back, &events), "");
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].event, "plan");
  EXPECT_EQ(events[0].of, 2);
  EXPECT_EQ(events[0].cached, 1);
  EXPECT_EQ(events[1].index, 1);
  EXPECT_TRUE(events[1].fromCache);
  EXPECT_EQ(events[1].configName, "BR=64");
  ASSERT_TRUE(events[1].variant);
  EXPECT_EQ(events[1].variant->registers, 96);
  EXPECT_EQ(back.command, "build");
  ASSERT_EQ(back.variants.size(), 1u);
  EXPECT_EQ(back.variants[0].config[0].second, 64);
  // Without --progress: the indented document alone.
  events.clear();
  ASSERT_EQ(report::fromJsonLines(report::toJson(doc).dump(2), back, &events), "");
  EXPECT_TRUE(events.empty());
  EXPECT_EQ(back.variants.size(), 1u);
  // Events without the document, or a line after it, are refused.
  EXPECT_NE(report::fromJsonLines(report::toJson(plan).dump() + "\n", back), "");
  EXPECT_NE(report::fromJsonLines(report::toJson(doc).dump() + "\n" + report::toJson(plan).dump() + "\n", back), "");
  report::Event e;
  EXPECT_NE(report::eventFromJson(R"({"format": "ph-event", "version": 2, "event": "plan"})", e), "");
}
