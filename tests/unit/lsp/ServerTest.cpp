//===- ServerTest.cpp - The server driven in process ----------------------===//
//
// Messages go straight into Server::handle and come back through the send
// function: lifecycle, sync with incremental UTF-16 edits, diagnostics after
// an edit, cancellation, and the commands against stand-in `ph` drivers
// (small shell scripts) so the paths do not depend on the backend's progress.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <condition_variable>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>

using namespace ph::lsp;
using namespace std::chrono_literals;
namespace fs = std::filesystem;

using namespace ph::lsp::testing;

namespace {

TEST(Server, OpenPublishesDiagnosticsWithVersion) {
  Client c;
  c.initialize();
  json d = open(c, kKernel);
  ASSERT_TRUE(d.is_object());
  EXPECT_TRUE(d["params"]["diagnostics"].empty()) << d;
}

TEST(Server, IncrementalNonAsciiEditsThenDiagnosticsAndHover) {
  Client c;
  c.initialize();
  open(c, kKernel);
  // Line 1 becomes `  let t = ctx.block.x * 8 // é😀 σ` : UTF-16 columns now differ from bytes.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kFile}, {"version", 2}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 1}, {"character", 25}}}, {"end", {{"line", 1}, {"character", 25}}}}},
                                 {"text", " // é😀 σ"}}}}});
  // ... and after the emoji (UTF-16 column 34 = 25 + 4 + 1 + 2 + 1 + 1), add an unknown name on a new line.
  c.notify("textDocument/didChange",
           {{"textDocument", {{"uri", kFile}, {"version", 3}}},
            {"contentChanges", {{{"range", {{"start", {{"line", 1}, {"character", 34}}}, {"end", {{"line", 1}, {"character", 34}}}}},
                                 {"text", "\n  let u = zzz"}}}}});
  json d = c.diagnosticsFor(kFile, 3);
  ASSERT_TRUE(d.is_object());
  bool unknown = false;
  for (const json &x : d["params"]["diagnostics"])
    if (x["code"] == "E0201") {
      unknown = true;
      EXPECT_EQ(x["range"]["start"]["line"], 2);
      EXPECT_EQ(x["range"]["start"]["character"], 10);
    }
  EXPECT_TRUE(unknown) << d;
  // The comment survived intact: the edit landed after σ, not inside the emoji.
  int64_t v;
  auto text = c.server().scheduler().text(kFile, &v);
  EXPECT_EQ(v, 3);
  EXPECT_NE(text->find("// é😀 σ\n  let u = zzz"), std::string::npos) << *text;
  json h = c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 3}, {"character", 3}}}});
  EXPECT_TRUE(h["result"].is_object()) << h;
}

TEST(Server, DiagnosticsClearOnCloseAndFixReported) {
  Client c;
  c.initialize();
  json d = open(c, "kernel k(X: tensor<f32>[N]) {\n  let y = nope\n}\n");
  EXPECT_FALSE(d["params"]["diagnostics"].empty());
  c.notify("textDocument/didClose", {{"textDocument", {{"uri", kFile}}}});
  json cleared = c.waitFor([](const json &m) {
    return m.value("method", "") == "textDocument/publishDiagnostics" && m["params"]["diagnostics"].empty();
  });
  EXPECT_TRUE(cleared.is_object());
}

TEST(Server, EditsAreDebouncedIntoOneAnalysis) {
  Client c;
  c.initialize();
  open(c, kKernel);
  // A debounce no burst outlasts, however slow the machine; the request below skips it.
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"ph", {{"debounceMs", 600000}}}}}});
  size_t before = c.server().scheduler().analysesRun();
  for (int v = 2; v < 30; ++v)
    c.notify("textDocument/didChange", {{"textDocument", {{"uri", kFile}, {"version", v}}},
                                        {"contentChanges", {{{"range", {{"start", {{"line", 3}, {"character", 1}}},
                                                                         {"end", {{"line", 3}, {"character", 1}}}}},
                                                             {"text", " "}}}}});
  json h = c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 1}, {"character", 7}}}});
  EXPECT_TRUE(h.contains("result")) << h;
  json d = c.diagnosticsFor(kFile, 29);
  ASSERT_TRUE(d.is_object());
  c.server().scheduler().waitIdle();
  EXPECT_EQ(c.server().scheduler().analysesRun() - before, 1u); // the last version only
}

TEST(Server, NotInitializedAndShutdown) {
  Client c;
  json r = c.request("textDocument/hover", json::object());
  EXPECT_EQ(r["error"]["code"], -32002);
  c.initialize();
  EXPECT_TRUE(c.request("shutdown", nullptr)["result"].is_null());
  EXPECT_EQ(c.request("textDocument/hover", json::object())["error"]["code"], -32600);
  bool exited = false;
  c.server().onExit = [&] { exited = true; };
  c.notify("exit", nullptr);
  EXPECT_TRUE(exited);
  EXPECT_EQ(c.server().exitCode(), 0);
}

TEST(Server, RunWithoutGpuOffersCpuAtOnce) {
  setenv("PH_LSP_NO_GPU", "1", 1);
  Client c;
  c.initialize();
  open(c, kKernel);
  auto t0 = std::chrono::steady_clock::now();
  json r = c.request("workspace/executeCommand", {{"command", "ph.run"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}}}}});
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 20s); // no driver started (a generous bound)
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["ok"], false);
  EXPECT_NE(r["result"]["error"].get<std::string>().find("no GPU"), std::string::npos);
  EXPECT_EQ(r["result"]["offer"]["arguments"][0]["target"], "cpu");
  json msg = c.waitFor([](const json &m) { return m.value("method", "") == "window/showMessage"; });
  EXPECT_NE(msg["params"]["message"].get<std::string>().find("CPU target"), std::string::npos);
  unsetenv("PH_LSP_NO_GPU");
}

TEST(Server, RunOnCpuParsesTheDriversJsonAndShowsASummary) {
  // `ph run --json`'s ph-output document (docs/output.md), read as typed data.
  std::string driver = fakeDriver("ph-run-json", R"(echo "args: $*" >&2
echo '{"format":"ph-output","version":1,"command":"run","ok":true,"diagnostics":[],"kernel":"k","config":"BR=64","target":"cpu","grid":[1,1,1],"threads":128,"time_ms":1.5,"check":{"passed":true,"reference":"interp","outputs":[]}}')");
  Client c;
  c.initialize(json::object(), {{"ph", {{"path", driver}, {"sizes", {{"N", 64}}}}}});
  open(c, kKernel);
  json r = c.request("workspace/executeCommand",
                     {{"command", "ph.run"}, {"arguments", {{{"uri", kFile}, {"position", {{"line", 1}, {"character", 3}}}, {"target", "cpu"}}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["ok"], true);
  EXPECT_EQ(r["result"]["kernel"], "k");
  EXPECT_EQ(r["result"]["result"]["time_ms"], 1.5);
  // The argument vector reached the driver as given, sizes included.
  std::string err = r["result"]["stderr"];
  EXPECT_NE(err.find("run /tmp/ph-lsp-"), std::string::npos) << err; // unsaved text: a copy
  EXPECT_NE(err.find("--kernel k --target cpu --check --json --size N=64"), std::string::npos) << err;
  EXPECT_EQ(r["result"]["summary"], "k on cpu: 1.5 ms, BR=64, check passed");
}

TEST(Server, RunOnTheGpuNamesTheTargetThatRanAndTheDevice) {
  // Default settings (target auto) with a GPU: the lens names it, and the reply names where the
  // driver ran (`gpu`, not the `auto` asked for) and the device, as the results header shows them.
  setenv("PH_LSP_GPU", "NVIDIA H200,sm_90", 1);
  std::string driver = fakeDriver("ph-run-gpu", R"(echo "args: $*" >&2
echo '{"format":"ph-output","version":1,"command":"run","ok":true,"diagnostics":[],"kernel":"k","config":"BR=64","target":"gpu","device":"NVIDIA H200","grid":[1,1,1],"threads":128,"time_ms":1.5,"check":{"passed":true,"reference":"interp","outputs":[]}}')");
  Client c;
  c.initialize(json::object(), {{"ph", {{"path", driver}, {"sizes", {{"N", 64}}}}}});
  open(c, kKernel);
  json st = c.request("workspace/executeCommand", {{"command", "ph.gpuStatus"}, {"arguments", json::array()}});
  json lenses = c.request("textDocument/codeLens", {{"textDocument", {{"uri", kFile}}}});
  std::vector<std::string> titles;
  for (const json &l : lenses["result"]) titles.push_back(l["command"]["title"]);
  EXPECT_NE(std::find(titles.begin(), titles.end(), "▶ Run on H200"), titles.end()) << lenses;
  json r = c.request("workspace/executeCommand", {{"command", "ph.run"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}}}}});
  unsetenv("PH_LSP_GPU");
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["ok"], true);
  EXPECT_EQ(r["result"]["target"], "gpu");
  EXPECT_EQ(r["result"]["requestedTarget"], "auto");
  EXPECT_EQ(r["result"]["device"], "NVIDIA H200");
  EXPECT_NE(r["result"]["stderr"].get<std::string>().find("--target auto --check --json"), std::string::npos) << r;
  EXPECT_EQ(r["result"]["summary"], "k on gpu (NVIDIA H200): 1.5 ms, BR=64, check passed");
}

TEST(Server, RunRefusesOutputThatIsNoPhOutputDocument) {
  // Keys guessed from a JSON object of another shape are not read: the run is not ok and
  // says why, with the driver's output passed on.
  std::string driver = fakeDriver("ph-run-other", R"(echo '{"kernel":"k","target":"cpu","time_ms":1.5}')");
  Client c;
  c.initialize(json::object(), {{"ph", {{"path", driver}, {"sizes", {{"N", 64}}}}}});
  open(c, kKernel);
  json r = c.request("workspace/executeCommand",
                     {{"command", "ph.run"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}, {"target", "cpu"}}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["ok"], false);
  EXPECT_NE(r["result"]["summary"].get<std::string>().find("no ph-output document"), std::string::npos) << r;
  EXPECT_TRUE(r["result"]["stdout"].is_string());
}

TEST(Server, MissingStageIsAClearError) {
  std::string driver = fakeDriver("ph-missing", "echo \"ph $1: not built yet\" >&2; exit 2");
  Client c;
  c.initialize(json::object(), {{"path", driver}});
  open(c, kKernel);
  json r = c.request("workspace/executeCommand", {{"command", "ph.showIR"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}, {"stage", "ptx"}}}}});
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32803);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("not available in this build"), std::string::npos) << r;
  json bad = c.request("workspace/executeCommand", {{"command", "ph.showIR"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}, {"stage", "nope"}}}}});
  EXPECT_EQ(bad["error"]["code"], -32602);
}

TEST(Server, ShowIRMapsLinesBackToTheSource) {
  // `ph emit --json`'s document carries the stage's text.
  std::string driver = fakeDriver("ph-emit", R"(case "$*" in *--json*) ;; *) echo "no --json" >&2; exit 2;; esac
cat <<'EOF'
{"format": "ph-output", "version": 1, "command": "emit", "ok": true, "diagnostics": [], "stage": "tile",
 "text": "module {\n  func.func @k() {\n    %0 = arith.constant 8 : i32 loc(#loc2)\n    tile.store %0 loc(\"/x/k.ph\":3:3)\n  } loc(#loc1)\n} loc(#loc)\n#loc = loc(unknown)\n#loc1 = loc(\"/x/k.ph\":1:8)\n#loc2 = loc(\"/x/k.ph\":2:22)\n",
 "lines": [{"irLine": 2, "op": "func.func", "range": {"file": "/x/k.ph", "start": {"line": 1, "col": 8}, "end": {"line": 4, "col": 2}}},
           {"irLine": 3, "op": "arith.constant", "range": {"file": "/x/k.ph", "start": {"line": 2, "col": 22}, "end": {"line": 2, "col": 23}}},
           {"irLine": 4, "op": "tile.store", "range": {"file": "/x/k.ph", "start": {"line": 3, "col": 3}, "end": {"line": 3, "col": 9}}}]}
EOF)");
  Client c;
  c.initialize(json::object(), {{"path", driver}});
  open(c, kKernel);
  json r = c.request("workspace/executeCommand", {{"command", "ph.showIR"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["stage"], "tile");
  json map = r["result"]["map"];
  std::map<int, int> m;
  for (const json &e : map) m[e["irLine"]] = e["sourceLine"];
  // From the document's `lines` (0-based here): the function at its header line.
  EXPECT_EQ(m.size(), 3u);
  EXPECT_EQ(m[1], 0);
  EXPECT_EQ(m[2], 1);
  EXPECT_EQ(m[3], 2);
  json perLine = r["result"]["sourceLines"];
  ASSERT_EQ(perLine.size(), 10u); // nine lines and the empty one after the last newline
  EXPECT_TRUE(perLine[0].is_null());
  EXPECT_EQ(perLine[1], 0);
  EXPECT_EQ(perLine[2], 1);
  EXPECT_TRUE(perLine[4].is_null()); // the closing brace: the text's `loc(#loc1)` is not read
  EXPECT_TRUE(perLine[7].is_null()); // nor the alias table
}

TEST(Server, CancelRequestKillsTheDriver) {
  std::string driver = fakeDriver("ph-slow", "sleep 30");
  Client c;
  c.initialize(json{{"window", {{"workDoneProgress", true}}}}, {{"path", driver}});
  open(c, kKernel);
  auto t0 = std::chrono::steady_clock::now();
  int id = c.sendRequest("workspace/executeCommand", {{"command", "ph.compile"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}}}}});
  // The server asks for a progress token; answer it, then wait for `begin`.
  json create = c.waitFor([](const json &m) { return m.value("method", "") == "window/workDoneProgress/create"; });
  ASSERT_TRUE(create.is_object());
  c.send({{"jsonrpc", "2.0"}, {"id", create["id"]}, {"result", nullptr}});
  json begin = c.waitFor([](const json &m) { return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "begin"; });
  ASSERT_TRUE(begin.is_object());
  EXPECT_EQ(begin["params"]["value"]["cancellable"], true);
  c.notify("$/cancelRequest", {{"id", id}});
  json r = c.waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; });
  EXPECT_EQ(r["error"]["code"], -32800) << r;
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 25s); // not the driver's 30 s
  json end = c.waitFor([](const json &m) { return m.value("method", "") == "$/progress" && m["params"]["value"]["kind"] == "end"; });
  EXPECT_TRUE(end.is_object());
}

TEST(Server, ProgressCancelButtonStopsTheJob) {
  std::string driver = fakeDriver("ph-slow2", "sleep 30");
  Client c;
  c.initialize(json::object(), {{"path", driver}});
  open(c, kKernel);
  int id = c.sendRequest("workspace/executeCommand",
                         {{"command", "ph.run"}, {"workDoneToken", "tok-1"}, {"arguments", {{{"uri", kFile}, {"kernel", "k"}, {"target", "cpu"}}}}});
  ASSERT_TRUE(c.waitFor([](const json &m) { return m.value("method", "") == "$/progress"; }).is_object());
  c.notify("window/workDoneProgress/cancel", {{"token", "tok-1"}});
  json r = c.waitFor([id](const json &m) { return !m.contains("method") && m["id"] == id; });
  EXPECT_EQ(r["error"]["code"], -32800) << r;
}

TEST(Server, ConfigurationChangeIsAppliedButNeverThePathOfAProgram) {
  Client c;
  c.initialize(json::object(), {{"path", "/opt/user/bin/ph"}});
  c.notify("workspace/didChangeConfiguration",
           {{"settings", {{"ph", {{"path", "/opt/ph/bin/ph"}, {"target", "cpu"}, {"outputDir", "out"}, {"compileOnSave", false},
                                  {"sizes", {{"N", 4096}}}}}}}});
  Settings s = c.server().settings();
  // A workspace setting must not choose the program the server runs (docs/lsp.md).
  EXPECT_EQ(s.phPath, "/opt/user/bin/ph");
  json warn = c.waitFor([](const json &m) { return m.value("method", "") == "window/showMessage"; });
  ASSERT_TRUE(warn.is_object());
  EXPECT_NE(warn["params"]["message"].get<std::string>().find("ignored"), std::string::npos) << warn;
  EXPECT_EQ(s.target, "cpu");
  EXPECT_EQ(s.outputDir, "out");
  EXPECT_FALSE(s.compileOnSave);
  EXPECT_EQ(s.sizes["N"], 4096);
}

TEST(Server, ATargetThatRenamesTheRunLensRefreshesTheLenses) {
  // The Run lens is named after `ph.target`; a client keeps its lenses until told, so a
  // setting that renames it sends workspace/codeLens/refresh, and one that does not sends none
  // (the VS Code e2e test's lenses kept "Run on CPU" without links until the editor had focus).
  Client c;
  c.initialize({{"workspace", {{"codeLens", {{"refreshSupport", true}}}}}}, {{"ph", {{"target", "cpu"}}}});
  open(c, kKernel);
  auto refresh = [](const json &m) { return m.value("method", "") == "workspace/codeLens/refresh"; };
  EXPECT_TRUE(c.waitFor(refresh, 0ms).is_null()) << "a refresh before any setting changed";
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"ph", {{"target", "cpu"}, {"sizes", {{"N", 4096}}}}}}}});
  EXPECT_TRUE(c.waitFor(refresh, 0ms).is_null()) << "the sizes do not rename a lens";
  c.notify("workspace/didChangeConfiguration", {{"settings", {{"ph", {{"target", "interp"}}}}}});
  EXPECT_TRUE(c.waitFor(refresh, 0ms).is_object()) << "cpu -> interp renames the Run lens";
  json lenses = c.request("textDocument/codeLens", {{"textDocument", {{"uri", kFile}}}});
  bool named = false;
  for (const json &l : lenses["result"]) named |= l["command"]["title"] == "▶ Run on interpreter";
  EXPECT_TRUE(named) << lenses;
}

TEST(Server, CompileOnSaveTurnsDriverErrorsIntoDiagnostics) {
  // `ph build --json`'s document (docs/output.md): a backend error with its range
  // (line 3, bytes 17-29) and a note at the kernel's name; the editor gets both.
  std::string driver = fakeDriver("ph-build", R"(f="$2"
case "$*" in *--json*) ;; *) echo "no --json" >&2; exit 2;; esac
cat <<EOF
{"format": "ph-output", "version": 1, "command": "build", "ok": false,
 "diagnostics": [{"code": "E0501", "name": "SharedMemoryExceeded", "severity": "error",
   "message": "kernel \`k\` needs 300000 bytes of shared memory",
   "range": {"file": "$f", "start": {"line": 3, "col": 18, "offset": 98}, "end": {"line": 3, "col": 30, "offset": 110}},
   "notes": [{"message": "in kernel \`k\`", "range": {"file": "$f", "start": {"line": 1, "col": 8, "offset": 7}, "end": {"line": 1, "col": 9, "offset": 8}}}],
   "fixes": []}],
 "file": "$f", "target": "sm_90", "variants": []}
EOF
exit 1)");
  fs::create_directories("/tmp/ph-lsp-server-test");
  std::ofstream("/tmp/ph-lsp-server-test/k.ph") << kKernel;
  Client c;
  c.initialize({{"textDocument", {{"publishDiagnostics", {{"relatedInformation", true}}}}}},
               {{"path", driver}, {"outputDir", "/tmp/ph-lsp-server-test/.ph-build-" + std::to_string(getpid())}});
  open(c, kKernel);
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", kFile}}}});
  json d = c.waitFor([](const json &m) {
    if (m.value("method", "") != "textDocument/publishDiagnostics") return false;
    for (const json &x : m["params"]["diagnostics"])
      if (x["code"] == "E0501") return true;
    return false;
  });
  ASSERT_TRUE(d.is_object());
  int found = 0;
  for (const json &x : d["params"]["diagnostics"])
    if (x["code"] == "E0501") {
      ++found;
      EXPECT_EQ(x["source"], "ph"); // one source of diagnostics
      EXPECT_EQ(x["message"], "kernel `k` needs 300000 bytes of shared memory");
      EXPECT_EQ(x["range"]["start"]["line"], 2);
      EXPECT_EQ(x["range"]["start"]["character"], 17);
      EXPECT_EQ(x["range"]["end"]["line"], 2);
      EXPECT_EQ(x["range"]["end"]["character"], 29);
      ASSERT_EQ(x["relatedInformation"].size(), 1u) << x;
      EXPECT_EQ(x["relatedInformation"][0]["message"], "in kernel `k`");
      EXPECT_EQ(x["relatedInformation"][0]["location"]["uri"], kFile);
      EXPECT_EQ(x["relatedInformation"][0]["location"]["range"]["start"]["character"], 7);
      EXPECT_EQ(x["relatedInformation"][0]["location"]["range"]["end"]["character"], 8);
    }
  EXPECT_EQ(found, 1);
}

TEST(Server, CompileShowsTheDriversFiguresAndPlacements) {
  // The lens text comes from the document's first variant: ptxas's figures and the
  // occupancy the driver computed; no text of the driver is read.
  std::string driver = fakeDriver("ph-build-ok", R"(f="$2"
cat <<EOF
{"format": "ph-output", "version": 1, "command": "build", "ok": true, "diagnostics": [],
 "file": "$f", "target": "sm_90",
 "variants": [{"kernel": "k", "config": {}, "configName": "", "unit": "tensorcore", "tensorcore": true,
   "threads": 128, "registers": 96, "sharedBytes": {"static": 0, "dynamic": 16384, "total": 16384},
   "spills": {"stores": 8, "loads": 8, "stackBytes": 16},
   "occupancy": {"blocksPerSM": 5, "warpsPerSM": 20, "fraction": 0.3125, "limitedBy": "registers"},
   "tiles": [{"type": "tensor<64x64xf16>", "range": {"file": "$f", "start": {"line": 3, "col": 17}, "end": {"line": 3, "col": 29}}, "placement": "shared memory", "detail": "2 stages"},
             {"type": "tensor<64x64xf32>", "range": {"file": "$f", "start": {"line": 3, "col": 3}, "end": {"line": 3, "col": 15}}, "placement": "registers"}],
   "notes": []},
  {"kernel": "k", "config": {}, "configName": "", "unit": "simt", "threads": 128, "registers": 1,
   "sharedBytes": {"static": 0, "dynamic": 0, "total": 0}, "spills": {"stores": 0, "loads": 0},
   "occupancy": {"blocksPerSM": 16, "warpsPerSM": 64, "fraction": 1, "limitedBy": "threads"}, "tiles": [], "notes": []}]}
EOF
)");
  fs::create_directories("/tmp/ph-lsp-server-test");
  std::ofstream("/tmp/ph-lsp-server-test/k.ph") << kKernel;
  Client c;
  c.initialize(json::object(), {{"path", driver}, {"outputDir", "/tmp/ph-lsp-server-test/.ph-build-" + std::to_string(getpid())}});
  open(c, kKernel);
  json r = c.request("workspace/executeCommand", {{"command", "ph.compile"}, {"arguments", {{{"uri", kFile}}}}});
  ASSERT_TRUE(r.contains("result")) << r;
  EXPECT_EQ(r["result"]["figures"]["k"],
            "96 regs · 16.0 KiB smem · 16 B spilled · 5 blocks/SM (31%, regs) · tc: 1 tiles in regs, 1 in smem");
  EXPECT_EQ(r["result"]["build"]["variants"].size(), 2u);
  json h = c.request("textDocument/hover", {{"textDocument", {{"uri", kFile}}}, {"position", {{"line", 2}, {"character", 3}}}});
  std::string hover = h["result"].dump();
  EXPECT_NE(hover.find("`tensor<64x64xf16>` in shared memory (2 stages)"), std::string::npos) << hover;
  EXPECT_NE(hover.find("`tensor<64x64xf32>` in registers"), std::string::npos) << hover;
}

} // namespace
