//===- ServerFileAccessTest.cpp - What files a client can make ph-lsp read --===//
//
// The commands take a URI from the client. Only documents open in the editor
// and regular files inside the workspace folders (symbolic links resolved) may
// be read or handed to the driver; anything else is InvalidParams, and the
// driver is never started for it (the stand-in driver leaves a mark if it is).
//
//===----------------------------------------------------------------------===//
#include "FileAccess.h"
#include "ServerClient.h"

using namespace ph::lsp;
using namespace ph::lsp::testing;

namespace {

struct Workspace {
  fs::path root = fs::temp_directory_path() / ("ph-lsp-ws-" + std::to_string(getpid()));
  fs::path ws = root / "ws";
  fs::path outside = root / "outside";
  fs::path mark = root / "driver-ran";
  std::string driver;
  Workspace() {
    fs::remove_all(root);
    fs::create_directories(ws);
    fs::create_directories(outside);
    std::ofstream(ws / "k.ph") << kKernel;
    std::ofstream(outside / "secret.ph") << kKernel;
    fs::create_symlink(outside / "secret.ph", ws / "link.ph");
    fs::create_symlink(outside, ws / "linkdir");
    driver = fakeDriver("ph-mark", "touch " + mark.string() + "\necho '{}'");
  }
  ~Workspace() { fs::remove_all(root); }
  std::string uri(const fs::path &p) const { return "file://" + p.string(); }
  json folders() const { return json::array({{{"uri", uri(ws)}, {"name", "ws"}}}); }
};

json run(Client &c, const std::string &uri, const std::string &command = "ph.run") {
  return c.request("workspace/executeCommand",
                   {{"command", command}, {"arguments", {{{"uri", uri}, {"kernel", "k"}, {"target", "cpu"}}}}});
}

void expectRefused(const json &r, const Workspace &w) {
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32602) << r;
  EXPECT_NE(r["error"]["message"].get<std::string>().find("workspace"), std::string::npos) << r;
  EXPECT_FALSE(fs::exists(w.mark)) << "the driver ran for a refused URI";
}

TEST(FileAccess, OutsideTheWorkspaceIsRefusedForEveryCommand) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}}, w.folders());
  for (const char *cmd : {"ph.run", "ph.compile", "ph.showIR"}) {
    expectRefused(run(c, "file:///etc/passwd", cmd), w);
    expectRefused(run(c, "file:///proc/self/environ", cmd), w);
    expectRefused(run(c, w.uri(w.outside / "secret.ph"), cmd), w);
    expectRefused(run(c, w.uri(w.ws / ".." / "outside" / "secret.ph"), cmd), w);
    expectRefused(run(c, w.uri(w.ws / "link.ph"), cmd), w);              // a link out of the workspace
    expectRefused(run(c, w.uri(w.ws / "linkdir" / "secret.ph"), cmd), w); // a folder link out of it
  }
}

TEST(FileAccess, NonFileUrisAndRelativePathsAreRefused) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}}, w.folders());
  for (const char *uri : {"../../etc/passwd", "/etc/passwd", "untitled:Untitled-1", "http://example.invalid/k.ph"}) {
    json r = run(c, uri);
    ASSERT_TRUE(r.contains("error")) << r;
    EXPECT_EQ(r["error"]["code"], -32602) << r;
  }
  EXPECT_FALSE(fs::exists(w.mark));
}

TEST(FileAccess, DevZeroIsRefusedAtOnceNotRead) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}}, json::array({{{"uri", "file:///"}, {"name", "root"}}}));
  auto t0 = std::chrono::steady_clock::now();
  json r = run(c, "file:///dev/zero", "ph.showIR");
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s); // reading it would never end (a generous bound)
  ASSERT_TRUE(r.contains("error")) << r;
  EXPECT_EQ(r["error"]["code"], -32602);
  EXPECT_NE(r["error"]["message"].get<std::string>().find("not a regular file"), std::string::npos) << r;
}

TEST(FileAccess, WithoutWorkspaceFoldersOnlyOpenDocuments) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}});
  expectRefused(run(c, w.uri(w.ws / "k.ph")), w);
  open(c, kKernel, w.uri(w.ws / "k.ph").c_str());
  json r = run(c, w.uri(w.ws / "k.ph"));
  EXPECT_TRUE(r.contains("result")) << r;
  EXPECT_TRUE(fs::exists(w.mark));
}

TEST(FileAccess, AFileInsideTheWorkspaceRunsWithoutBeingOpen) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}}, w.folders());
  json r = run(c, w.uri(w.ws / "k.ph"));
  EXPECT_TRUE(r.contains("result")) << r;
  EXPECT_TRUE(fs::exists(w.mark));
}

TEST(FileAccess, AddedWorkspaceFolderIsHonouredAndRemovedOneIsNot) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}}, w.folders());
  std::string secret = w.uri(w.outside / "secret.ph");
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", {{{"uri", w.uri(w.outside)}, {"name", "o"}}}}, {"removed", json::array()}}}});
  EXPECT_TRUE(run(c, secret).contains("result"));
  fs::remove(w.mark);
  c.notify("workspace/didChangeWorkspaceFolders",
           {{"event", {{"added", json::array()}, {"removed", {{{"uri", w.uri(w.outside)}, {"name", "o"}}}}}}});
  expectRefused(run(c, secret), w);
}

TEST(FileAccess, AnOpenDocumentThatIsNoRegularFileGoesToTheDriverAsACopy) {
  // The editor has the text; the device behind the URI is never read.
  Workspace w;
  std::string seen = (w.root / "seen").string();
  std::string driver = fakeDriver("ph-copy", "for a; do case \"$a\" in *.ph) printf %s \"$a\" >" + seen + ";; esac; done\necho '{}'");
  Client c;
  c.initialize(json::object(), {{"path", driver}}, w.folders());
  open(c, kKernel, "file:///dev/zero");
  json r = run(c, "file:///dev/zero");
  ASSERT_TRUE(r.contains("result")) << r;
  std::ifstream f(seen);
  std::string arg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(arg.find("/dev/"), std::string::npos) << arg;
}

TEST(FileAccess, AnOpenRegularFileHoldingTheEditorsTextGoesToTheDriverByName) {
  // Outside the workspace but open, unchanged: the driver's messages name the user's file.
  Workspace w;
  std::string seen = (w.root / "seen").string();
  std::string driver = fakeDriver("ph-name", "for a; do case \"$a\" in *.ph) printf %s \"$a\" >" + seen + ";; esac; done\necho '{}'");
  Client c;
  c.initialize(json::object(), {{"path", driver}}, w.folders());
  std::string uri = w.uri(w.outside / "secret.ph");
  open(c, kKernel, uri.c_str());
  ASSERT_TRUE(run(c, uri).contains("result"));
  std::ifstream f(seen);
  std::string arg((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_EQ(arg, (w.outside / "secret.ph").string());
}

TEST(FileAccess, SaveOfADocumentThatIsNotOpenBuildsNothing) {
  Workspace w;
  Client c;
  c.initialize(json::object(), {{"path", w.driver}, {"outputDir", (w.root / "out").string()}}, w.folders());
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", "file:///etc/passwd"}}}});
  c.notify("textDocument/didSave", {{"textDocument", {{"uri", w.uri(w.ws / "k.ph")}}}});
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(fs::exists(w.mark));
}

TEST(FileAccess, WorkspaceFilesUnit) {
  Workspace w;
  WorkspaceFiles f;
  EXPECT_NE(f.refuse((w.ws / "k.ph").string()), "");
  f.setFolders({w.ws.string(), "/no/such/folder"});
  EXPECT_EQ(f.folders().size(), 1u);
  EXPECT_EQ(f.refuse((w.ws / "k.ph").string()), "");
  EXPECT_NE(f.refuse((w.ws / "link.ph").string()), "");
  EXPECT_NE(f.refuse((w.ws / "missing.ph").string()), "");
  EXPECT_NE(f.refuse(w.ws.string()), ""); // a folder is not a regular file
  EXPECT_NE(f.refuse(""), "");
  // A sibling whose name starts with the folder's is not inside it.
  fs::create_directories(w.root / "ws2");
  std::ofstream(w.root / "ws2" / "k.ph") << kKernel;
  EXPECT_NE(f.refuse((w.root / "ws2" / "k.ph").string()), "");
  EXPECT_EQ(filePathOfUri("untitled:x"), "");
  EXPECT_EQ(filePathOfUri("file:///a%20b.ph"), "/a b.ph");
}

} // namespace
