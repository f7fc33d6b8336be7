//===- ServerCompileOnSaveTest.cpp - compile on save over the protocol --------===//
//
// Stand-in drivers write `ph build --json --progress`'s stream (typed ph-event
// lines, then the ph-output document) and wait for files the test creates, so
// every step is ordered by an event the test saw (a $/progress report, the end
// of a build), never by a clock.
//
//===----------------------------------------------------------------------===//
#include "ServerClient.h"

#include <csignal>

namespace {

using namespace ph::lsp;
using namespace ph::lsp::testing;

/// A fresh folder for the build output and the files the driver waits on
/// (beside the document: the server refuses an output folder outside it).
fs::path freshDir(const std::string &name) {
  fs::path d = fs::path("/tmp/ph-lsp-server-test") / (".ph-cos-" + std::to_string(getpid()) + "-" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// A client whose editor shows progress, with compile on save into `out`.
void start(Client &c, const std::string &driver, const fs::path &out) {
  fs::create_directories("/tmp/ph-lsp-server-test");
  std::ofstream("/tmp/ph-lsp-server-test/k.ph") << kKernel;
  c.initialize(json{{"window", {{"workDoneProgress", true}}}}, {{"path", driver}, {"outputDir", out.string()}});
  open(c, kKernel);
}

/// Answers the server's window/workDoneProgress/create and returns the token.
json acceptProgress(Client &c) {
  json create = c.waitFor([](const json &m) { return m.value("method", "") == "window/workDoneProgress/create"; });
  EXPECT_TRUE(create.is_object());
  if (!create.is_object()) return nullptr;
  c.send({{"jsonrpc", "2.0"}, {"id", create["id"]}, {"result", nullptr}});
  return create["params"]["token"];
}

json progress(Client &c, const json &token, const std::string &kind) {
  return c.waitFor([&](const json &m) {
    return m.value("method", "") == "$/progress" && m["params"]["token"] == token && m["params"]["value"]["kind"] == kind;
  });
}

bool isCompiled(const json &m) { return m.value("method", "") == "ph/compiled"; }

/// Shell functions that write the stream's lines: `plan OF CACHED`,
/// `variant INDEX OF CACHED BR REGISTERS` and `document` (ok, no variants); the
/// driver fails unless the server asked for the stream.
const char *kStream = R"sh(
case "$*" in *"--json --progress"*) ;; *) echo "not asked for --json --progress: $*" >&2; exit 3 ;; esac
plan() { echo "{\"format\": \"ph-event\", \"version\": 1, \"event\": \"plan\", \"of\": $1, \"cached\": $2}"; }
variant() {
  echo "{\"format\": \"ph-event\", \"version\": 1, \"event\": \"variant\", \"of\": $2, \"index\": $1, \"ok\": true, \"cached\": $3, \"ms\": 1.5, \"kernel\": \"k\", \"configName\": \"BR=$4\", \"variant\": {\"kernel\": \"k\", \"config\": {\"BR\": $4}, \"configName\": \"BR=$4\", \"unit\": \"simt\", \"threads\": 128, \"registers\": $5, \"sharedBytes\": {\"static\": 0, \"dynamic\": 2048, \"total\": 2048}, \"spills\": {\"stores\": 0, \"loads\": 0, \"stackBytes\": 0}, \"occupancy\": {\"blocksPerSM\": 8, \"warpsPerSM\": 32, \"fraction\": 0.5, \"limitedBy\": \"registers\"}}, \"diagnostics\": []}"
}
document() { echo "{\"format\": \"ph-output\", \"version\": 1, \"command\": \"build\", \"ok\": true, \"diagnostics\": [], \"variants\": []}"; }
)sh";

// Each variant event is a report (its figures, as the lens shows them, and how
// far the build is) while the build still runs; the end counts compiled and cached.
TEST(CompileOnSave, ReportsEachVariantWhileTheBuildRuns) {
  fs::path out = freshDir("progress");
  std::string driver = fakeDriver("ph-build-progress", std::string(kStream) + R"sh(out="$4"
plan 2 1
variant 0 2 true 8 32
while [ ! -e "$out/go" ]; do sleep 0.01; done
variant 1 2 false 16 40
document)sh");
  Client c;
  start(c, driver, out);
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", kFile}}}});
  json token = acceptProgress(c);
  ASSERT_TRUE(progress(c, token, "begin").is_object());
  // The driver is still waiting for `go`: this report came from a build in flight.
  json first = progress(c, token, "report");
  ASSERT_TRUE(first.is_object());
  EXPECT_EQ(first["params"]["value"]["message"], "1/2 k [BR=8]: 32 regs · 2.0 KiB smem · 8 blocks/SM (50%, regs) (cached)");
  EXPECT_EQ(first["params"]["value"]["percentage"], 50);
  std::ofstream(out / "go") << "";
  json second = progress(c, token, "report");
  ASSERT_TRUE(second.is_object());
  EXPECT_EQ(second["params"]["value"]["message"], "2/2 k [BR=16]: 40 regs · 2.0 KiB smem · 8 blocks/SM (50%, regs)");
  EXPECT_EQ(second["params"]["value"]["percentage"], 100);
  json end = progress(c, token, "end");
  ASSERT_TRUE(end.is_object());
  std::string said = end["params"]["value"]["message"];
  EXPECT_EQ(said.rfind("2 variant(s): 1 compiled, 1 cached, ", 0), 0u) << said;
  json done = c.waitFor(isCompiled);
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done["params"]["ok"], true) << done;
}

// The driver's first run prints one line and then hangs (its pid in `pid`);
// a later run finishes at once. `what` is the message that supersedes the first;
// `saves` says whether it is a save (which starts the next build itself).
void supersede(const std::string &name, bool saves, const std::function<void(Client &)> &what) {
  fs::path out = freshDir(name);
  std::string driver = fakeDriver("ph-build-" + name, std::string(kStream) + R"sh(out="$4"
if [ -e "$out/pid" ]; then
  plan 1 0
  variant 0 1 false 8 32
  document
  exit 0
fi
echo $$ > "$out/pid.tmp" && mv "$out/pid.tmp" "$out/pid"
plan 2 0
variant 0 2 false 8 32
exec sleep 600)sh");
  Client c;
  start(c, driver, out);
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", kFile}}}});
  json token = acceptProgress(c);
  ASSERT_TRUE(progress(c, token, "report").is_object()); // the first build is running, its pid written
  std::ifstream pidFile(out / "pid");
  pid_t pid = 0;
  pidFile >> pid;
  ASSERT_GT(pid, 0);
  what(c);
  json end = progress(c, token, "end");
  ASSERT_TRUE(end.is_object());
  EXPECT_EQ(end["params"]["value"]["message"], "cancelled");
  // runProcess reaps the driver before the end is sent: it is gone, not left running.
  EXPECT_NE(kill(pid, 0), 0);
  // The next save builds to the end; the cancelled build published nothing.
  if (!saves) c.notify("textDocument/didSave", {{"textDocument", {{"uri", kFile}}}});
  json next = acceptProgress(c);
  ASSERT_TRUE(progress(c, next, "end").is_object());
  json done = c.waitFor(isCompiled);
  ASSERT_TRUE(done.is_object());
  EXPECT_EQ(done["params"]["ok"], true) << done;
  EXPECT_FALSE(c.waitFor(isCompiled, std::chrono::milliseconds(0)).is_object());
}

TEST(CompileOnSave, AnEditCancelsTheBuildInFlight) {
  supersede("edit", false, [](Client &c) {
    c.notify("textDocument/didChange",
             {{"textDocument", {{"uri", kFile}, {"version", 2}}}, {"contentChanges", {{{"text", std::string(kKernel) + "\n"}}}}});
  });
}

TEST(CompileOnSave, ANewerSaveCancelsTheBuildInFlight) {
  supersede("save", true, [](Client &c) { c.notify("textDocument/didSave", {{"textDocument", {{"uri", kFile}}}}); });
}

} // namespace
