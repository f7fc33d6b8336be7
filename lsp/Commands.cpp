//===- Commands.cpp - ph.run, ph.compile, ph.showIR, compile on save, GPU status -===//
//
// Each command starts the `ph` driver as a subprocess with an argument vector
// (never a shell) on a worker thread, reports $/progress while it runs, and
// is cancelled (the child killed) by $/cancelRequest or by the editor's
// progress cancel button. A stage the driver does not have yet is reported
// as a clear RequestFailed error with the driver's own words.
//
//===----------------------------------------------------------------------===//
#include "Server.h"
#include "Subprocess.h"

#include "ph/Analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

namespace fs = std::filesystem;

namespace ph::lsp {

//===----------------------------------------------------------------------===//
// Progress
//===----------------------------------------------------------------------===//

struct Server::Progress {
  Server *server = nullptr;
  json token;
  std::string title;
  std::mutex mu;
  bool ready = false, ended = false;
  std::optional<std::string> pendingEnd;

  void sendBegin() {
    server->endpoint_.notify("$/progress", {{"token", token},
                                            {"value", {{"kind", "begin"}, {"title", title}, {"cancellable", true}}}});
  }
  void sendEnd(const std::string &msg) {
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", {{"kind", "end"}, {"message", msg}}}});
    std::lock_guard<std::mutex> lock(server->mu_);
    server->progressTokens_.erase(token.dump());
  }
  void onReady() {
    std::optional<std::string> end;
    {
      std::lock_guard<std::mutex> lock(mu);
      ready = true;
      sendBegin();
      end = pendingEnd;
    }
    if (end) sendEnd(*end);
  }
  void report(const std::string &msg) {
    std::lock_guard<std::mutex> lock(mu);
    if (!ready || ended) return;
    server->endpoint_.notify("$/progress", {{"token", token}, {"value", {{"kind", "report"}, {"message", msg}}}});
  }
  void end(const std::string &msg) {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (ended) return;
      ended = true;
      if (!ready) {
        pendingEnd = msg; // the client has not acknowledged the token yet
        return;
      }
    }
    sendEnd(msg);
  }
};

std::shared_ptr<Server::Progress> Server::beginProgress(const std::string &title, const json &clientToken,
                                                        const std::shared_ptr<CancelState> &cancel) {
  auto p = std::make_shared<Progress>();
  p->server = this;
  p->title = title;
  bool create = false;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (clientToken.is_string() || clientToken.is_number_integer()) {
      p->token = clientToken;
    } else if (clientProgress_) {
      p->token = "ph-progress-" + std::to_string(nextToken_++);
      create = true;
    } else {
      return nullptr; // the client shows no progress
    }
    progressTokens_[p->token.dump()] = cancel;
  }
  if (create)
    endpoint_.call("window/workDoneProgress/create", {{"token", p->token}},
                   [p](const json &, std::optional<RpcError>) { p->onReady(); });
  else
    p->onReady();
  return p;
}

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

namespace {

/// The build folder for `path`: the `outputDir` setting, relative to the
/// workspace root (else the file's folder). It must stay inside that base, also
/// after following symbolic links, so a setting such as `../../etc` or `/tmp/x`
/// cannot make `ph build` write elsewhere; "" and `error` when it escapes.
fs::path outputFolder(const std::string &setting, const std::string &root, const std::string &path,
                      std::string &error) {
  std::error_code ec;
  fs::path base = root.empty() ? fs::path(path).parent_path() : fs::path(root);
  fs::path out = (base / fs::path(setting)).lexically_normal();
  fs::path realBase = fs::weakly_canonical(base, ec);
  if (ec) realBase = base.lexically_normal();
  fs::path realOut = fs::weakly_canonical(out, ec);
  if (ec) realOut = out;
  auto inside = [](const fs::path &p, const fs::path &b) {
    fs::path rel = p.lexically_relative(b);
    return !rel.empty() && *rel.begin() != ".." && !rel.is_absolute();
  };
  if (setting.empty() || !inside(out, base.lexically_normal()) || !inside(realOut, realBase)) {
    error = "the output folder `" + setting + "` is outside " + (root.empty() ? "the file's folder" : "the workspace") +
            " `" + base.string() + "`; refused (set `ph.outputDir` to a folder inside it)";
    return {};
  }
  return out;
}

/// The driver prints "not built yet" for a command whose backend has not landed.
bool stageMissing(const ProcessResult &r) {
  return r.exitCode != 0 && (r.err.find("not built yet") != std::string::npos ||
                             r.err.find("not available") != std::string::npos ||
                             r.err.find("built without") != std::string::npos ||
                             r.err.find("unknown command") != std::string::npos);
}

std::string firstLines(const std::string &s, size_t maxLines = 20) {
  std::istringstream in(s);
  std::string line, out;
  for (size_t n = 0; n < maxLines && std::getline(in, line); ++n) out += (n ? "\n" : "") + line;
  return out;
}

RpcError driverError(const std::string &what, const ProcessResult &r) {
  std::string said = firstLines(r.err.empty() ? r.out : r.err);
  if (stageMissing(r))
    return {ErrorCode::RequestFailed, what + " is not available in this build of `ph` yet: " + said, nullptr};
  return {ErrorCode::RequestFailed, what + " failed (exit " + std::to_string(r.exitCode) + "): " + said,
          json{{"exitCode", r.exitCode}, {"stdout", r.out}, {"stderr", r.err}}};
}

/// The last JSON object in the driver's stdout (it may print a line of text first).
json parseJsonOutput(const std::string &out) {
  json j = json::parse(out, nullptr, false);
  if (!j.is_discarded()) return j;
  size_t pos = out.rfind("\n{");
  if (pos != std::string::npos) {
    j = json::parse(out.substr(pos + 1), nullptr, false);
    if (!j.is_discarded()) return j;
  }
  return nullptr;
}

std::string numberText(const json &v) {
  if (v.is_number_float()) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v.get<double>());
    return buf;
  }
  return v.is_string() ? v.get<std::string>() : v.dump();
}

/// One line for window/showMessage out of `ph run --json`'s result.
std::string summarize(const std::string &kernel, const std::string &target, const json &r) {
  std::string s = kernel + " on " + target;
  if (!r.is_object()) return s + ": done";
  auto pick = [&](std::initializer_list<const char *> keys) -> const json * {
    for (const char *k : keys)
      if (r.contains(k) && !r[k].is_null()) return &r[k];
    return nullptr;
  };
  if (const json *d = pick({"device"})) {
    if (d->is_object() && d->contains("name"))
      s += " (" + numberText((*d)["name"]) + (d->contains("arch") ? ", " + numberText((*d)["arch"]) : "") + ")";
    else if (d->is_string())
      s += " (" + d->get<std::string>() + ")";
  }
  std::vector<std::string> parts;
  if (const json *t = pick({"time_ms", "timeMs", "median_ms", "ms"})) parts.push_back(numberText(*t) + " ms");
  if (const json *t = pick({"tflops", "TFLOPs", "tflops_per_s"})) parts.push_back(numberText(*t) + " TFLOP/s");
  if (const json *t = pick({"gbps", "GBps", "gb_per_s"})) parts.push_back(numberText(*t) + " GB/s");
  if (const json *c = pick({"config", "configuration"})) parts.push_back(c->is_string() ? c->get<std::string>() : c->dump());
  if (const json *e = pick({"max_error", "maxError", "error", "rel_error"})) parts.push_back("error " + numberText(*e));
  if (const json *ok = pick({"check", "passed"})) {
    const json &v = ok->is_object() ? ok->value("passed", json()) : *ok;
    if (v.is_boolean()) parts.push_back(std::string("check ") + (v.get<bool>() ? "passed" : "FAILED"));
  }
  for (size_t i = 0; i < parts.size(); ++i) s += (i ? ", " : ": ") + parts[i];
  return s;
}

/// ptxas figures of one kernel, from `ph build`'s output or manifest.
struct Figures {
  int registers = -1;
  int64_t smem = -1, spill = 0;
  int threads = 128;
  /// Where the tiles live: "tensorcore: 20 tiles in registers, 3 in shared memory", or for
  /// a `@tensorcore` kernel the SIMT lowering took, "SIMT: tiles in shared memory".
  std::string tiles;
};

/// Blocks per SM and what limits them (registers, shared memory or threads),
/// for an sm_80/sm_90-class SM.
std::string occupancyText(const Figures &f, const std::string &arch) {
  int warps = (f.threads + 31) / 32;
  int64_t smemPerSm = arch == "sm_80" ? 167936 : 233472;
  int byThreads = 2048 / std::max(1, f.threads);
  int byRegs = 1 << 30;
  if (f.registers > 0) {
    int perWarp = ((f.registers * 32 + 255) / 256) * 256;
    byRegs = 65536 / std::max(1, perWarp * warps);
  }
  int bySmem = f.smem > 0 ? static_cast<int>(smemPerSm / f.smem) : 1 << 30;
  int blocks = std::min({byThreads, byRegs, bySmem, 32});
  const char *limiter = blocks == byRegs ? "registers" : blocks == bySmem ? "shared memory" : blocks == byThreads ? "threads" : "blocks per SM";
  int pct = static_cast<int>(std::lround(100.0 * blocks * warps / 64.0));
  return std::to_string(blocks) + " blocks/SM (" + std::to_string(pct) + "% occupancy, limited by " + limiter + ")";
}

std::string figuresText(const Figures &f, const std::string &arch) {
  std::string s;
  if (f.registers >= 0) s += std::to_string(f.registers) + " registers";
  if (f.smem >= 0) s += (s.empty() ? "" : ", ") + std::to_string(f.smem) + " B shared";
  if (f.spill > 0) s += (s.empty() ? "" : ", ") + std::to_string(f.spill) + " B spilled";
  if (f.registers >= 0 || f.smem >= 0) s += " · " + occupancyText(f, arch);
  if (!f.tiles.empty()) s += (s.empty() ? "" : " · ") + f.tiles;
  return s;
}

/// Reads ptxas's `-v` report: "Compiling entry function 'K'", "N bytes spill
/// stores", "Used R registers, ... S bytes smem".
std::map<std::string, Figures> parsePtxasReport(const std::string &text) {
  std::map<std::string, Figures> out;
  static const std::regex entry(R"(Compiling entry function '([A-Za-z_][A-Za-z0-9_]*)')");
  static const std::regex props(R"(Function properties for ([A-Za-z_][A-Za-z0-9_]*))");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  static const std::regex spill(R"((\d+) bytes spill stores)");
  // `ph build`'s own summary line: `K [D=64,...]: sm_90, 48 registers, 54400 B shared memory, 0 B spilled -> ...`
  static const std::regex summary(R"(^([A-Za-z_][A-Za-z0-9_]*) \[[^\]]*\]: [a-z_0-9]+, (\d+) registers, (\d+) B shared memory, (\d+) B spilled)");
  static const std::regex tiles(R"(B spilled, (tensorcore: [^>]*) -> )");
  std::istringstream in(text);
  std::string line, current;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_search(line, m, summary)) {
      if (!out.count(m[1])) { // the first variant speaks for the kernel
        Figures &f = out[m[1]];
        f.registers = std::stoi(m[2]);
        f.smem = std::stoll(m[3]);
        f.spill = std::stoll(m[4]);
        if (std::smatch t; std::regex_search(line, t, tiles)) f.tiles = t[1];
      }
      current.clear();
      continue;
    }
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) current = m[1];
    if (current.empty()) continue;
    if (std::regex_search(line, m, used)) out[current].registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem)) out[current].smem = std::stoll(m[1]);
    if (std::regex_search(line, m, spill)) out[current].spill = std::stoll(m[1]);
  }
  return out;
}

/// Kernel figures from manifest.json (keys as `ph build` writes them).
void readManifest(const fs::path &dir, std::map<std::string, Figures> &out) {
  std::ifstream f(dir / "manifest.json");
  if (!f) return;
  json m = json::parse(f, nullptr, false);
  if (m.is_discarded()) return;
  json kernels = m.value("kernels", json::array());
  if (kernels.is_object()) {
    json arr = json::array();
    for (auto &[k, v] : kernels.items()) {
      json e = v;
      if (e.is_object() && !e.contains("name")) e["name"] = k;
      arr.push_back(e);
    }
    kernels = arr;
  }
  if (!kernels.is_array()) return;
  std::set<std::string> seen;
  for (const json &k : kernels) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string()) continue;
    // One entry per autotune variant: the first speaks for the kernel.
    if (!seen.insert(k["name"].get<std::string>()).second) continue;
    Figures &fig = out[k["name"].get<std::string>()];
    auto num = [&](std::initializer_list<const char *> keys, int64_t &dst) {
      for (const char *key : keys)
        if (k.contains(key) && k[key].is_number_integer()) {
          dst = k[key].get<int64_t>();
          return;
        }
    };
    int64_t regs = fig.registers, threads = fig.threads;
    num({"registers", "regs"}, regs);
    num({"sharedBytes", "shared_bytes", "smem", "sharedMemory"}, fig.smem);
    if (k.contains("dynamicShared") || k.contains("staticShared"))
      fig.smem = k.value("dynamicShared", int64_t(0)) + k.value("staticShared", int64_t(0));
    num({"spillStores", "spillBytes", "spill_bytes", "spills"}, fig.spill);
    num({"threads", "blockSize", "block"}, threads);
    fig.registers = static_cast<int>(regs);
    fig.threads = static_cast<int>(threads);
    // The tensor-core lowering's first note is its summary (docs/tensorcore.md).
    json notes = k.value("notes", json::array());
    if (k.value("unit", std::string()) == "tensorcore" && notes.is_array() && !notes.empty() && notes[0].is_string() &&
        notes[0].get<std::string>().rfind("tensorcore: ", 0) == 0)
      fig.tiles = notes[0].get<std::string>();
    else if (k.value("tensorcore", false) == true && k.value("unit", std::string()) == "simt")
      fig.tiles = "SIMT: tiles in shared memory";
  }
}

/// The tensor-core lowering's notes of each kernel's first variant, `tile `T` at
/// FILE:LINE:COL: WHERE`, as "`T` in WHERE" by canonical FILE and LINE.
void readPlacements(const fs::path &dir, std::map<std::string, std::map<uint32_t, std::vector<std::string>>> &out) {
  std::ifstream f(dir / "manifest.json");
  if (!f) return;
  json m = json::parse(f, nullptr, false);
  if (m.is_discarded() || !m.contains("kernels") || !m["kernels"].is_array()) return;
  static const std::regex note(R"(^tile `([^`]*)` at (.*):(\d+):\d+: (.*)$)");
  std::set<std::string> seen;
  std::map<std::string, std::map<uint32_t, std::vector<std::string>>> found;
  for (const json &k : m["kernels"]) {
    if (!k.is_object() || !k.contains("name") || !k["name"].is_string() || !k.contains("notes")) continue;
    if (!seen.insert(k["name"].get<std::string>()).second || !k["notes"].is_array()) continue;
    for (const json &n : k["notes"]) {
      std::smatch sm;
      std::string text = n.is_string() ? n.get<std::string>() : std::string();
      if (!std::regex_match(text, sm, note)) continue;
      std::error_code ec;
      std::string file = fs::weakly_canonical(sm[2].str(), ec).string();
      if (ec) file = sm[2].str();
      std::vector<std::string> &at = found[file][static_cast<uint32_t>(std::stoul(sm[3].str()))];
      std::string item = "`" + sm[1].str() + "` in " + sm[4].str();
      if (std::find(at.begin(), at.end(), item) == at.end()) at.push_back(item);
    }
  }
  // A file's placements come from its latest compile only.
  for (auto &[file, lines] : found) out[file] = std::move(lines);
}

/// Lines `file:line:col: severity[code]: message` the driver printed about `path`.
json parseDriverDiagnostics(const std::string &text, const std::string &path, const std::string &docText) {
  json out = json::array();
  static const std::regex re(R"(^(.*):(\d+):(\d+): (error|warning)\[([A-Z]\d+)\]: (.*)$)");
  LineIndex index(docText);
  std::istringstream in(text);
  std::string line;
  std::string base = fs::path(path).filename().string();
  while (std::getline(in, line)) {
    std::smatch m;
    if (!std::regex_match(line, m, re)) continue;
    if (fs::path(m[1].str()).filename().string() != base) continue;
    uint32_t l = static_cast<uint32_t>(std::stoul(m[2])) - 1, c = static_cast<uint32_t>(std::stoul(m[3])) - 1;
    // The driver counts columns in bytes, as the frontend does.
    uint32_t lineStart = index.offset({l, 0});
    Position p = index.position(lineStart + c);
    out.push_back({{"range", toJson(Range{p, p})},
                   {"severity", m[4] == "error" ? 1 : 2},
                   {"code", m[5].str()},
                   {"source", "ph build"},
                   {"message", m[6].str()}});
  }
  return out;
}

/// Maps each line of printed IR to the `.ph` line it came from: MLIR
/// `loc("f.ph":L:C)` (inline or through `#locN` aliases), LLVM `!dbg` with
/// DILocation, PTX `.loc F L C`. Only locations in `phFile` count.
json irLineMap(const std::string &ir, const std::string &phFile) {
  std::string base = fs::path(phFile).filename().string();
  static const std::regex mlirAlias(R"(^#(loc\d*) = loc\((?:callsite\(.* at )?\"([^\"]*)\":(\d+):)");
  static const std::regex mlirInline(R"(loc\(\"([^\"]*)\":(\d+):)");
  static const std::regex mlirRef(R"(loc\((#loc\d*)\))");
  static const std::regex llvmDef(R"(^!(\d+) = (?:distinct )?!DILocation\(line: (\d+))");
  static const std::regex llvmUse(R"(!dbg !(\d+))");
  static const std::regex ptxFile(R"(^\s*\.file\s+(\d+)\s+\"([^\"]*)\")");
  static const std::regex ptxLoc(R"(^\s*\.loc\s+(\d+)\s+(\d+))");
  auto sameFile = [&](const std::string &f) { return fs::path(f).filename().string() == base; };

  std::vector<std::string> lines;
  {
    std::istringstream in(ir);
    std::string l;
    while (std::getline(in, l)) lines.push_back(l);
  }
  std::map<std::string, int> aliases, dbg;
  std::map<std::string, bool> ptxFiles;
  for (const auto &l : lines) {
    std::smatch m;
    if (std::regex_search(l, m, mlirAlias) && sameFile(m[2])) aliases["#" + m[1].str()] = std::stoi(m[3]);
    if (std::regex_search(l, m, llvmDef)) dbg[m[1]] = std::stoi(m[2]);
    if (std::regex_search(l, m, ptxFile)) ptxFiles[m[1]] = sameFile(m[2]);
  }
  json out = json::array(); // [{irLine, sourceLine}] pairs
  int ptxLine = -1;
  for (size_t i = 0; i < lines.size(); ++i) {
    const std::string &l = lines[i];
    std::smatch m;
    int src = -1;
    if (std::regex_search(l, m, ptxLoc)) {
      ptxLine = ptxFiles[m[1]] ? std::stoi(m[2]) : -1;
      continue;
    }
    if (l.rfind("#loc", 0) == 0) continue; // the alias table itself
    if (std::regex_search(l, m, mlirInline) && sameFile(m[1])) src = std::stoi(m[2]);
    else if (std::regex_search(l, m, mlirRef) && aliases.count(m[1])) src = aliases[m[1]];
    else if (std::regex_search(l, m, llvmUse) && dbg.count(m[1])) src = dbg[m[1]];
    else if (ptxLine > 0 && !l.empty() && l.find_first_not_of(" \t") != std::string::npos && l.find("//") != 0)
      src = ptxLine;
    if (src > 0) out.push_back({{"irLine", i}, {"sourceLine", src - 1}}); // both 0-based
  }
  return out;
}

std::string shellQuoteForLog(const std::vector<std::string> &argv) {
  std::string s;
  for (const auto &a : argv) s += (s.empty() ? "" : " ") + a;
  return s;
}

} // namespace

//===----------------------------------------------------------------------===//
// Server commands
//===----------------------------------------------------------------------===//

std::string Server::fileForDriver(const std::string &uri, std::string &tempDir) {
  std::string path = uriToPath(uri);
  auto text = scheduler_->text(uri);
  if (!text) return path;
  std::ifstream f(path, std::ios::binary);
  if (f) {
    std::string disk((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (disk == *text) return path;
  }
  // Unsaved edits: the driver reads a copy, under the same file name so its
  // messages name the same file.
  char tmpl[] = "/tmp/ph-lsp-XXXXXX";
  if (!mkdtemp(tmpl)) return path;
  tempDir = tmpl;
  std::string copy = tempDir + "/" + fs::path(path).filename().string();
  std::ofstream(copy, std::ios::binary) << *text;
  return copy;
}

std::string Server::resolveKernel(const json &args, const std::shared_ptr<const Snapshot> &snap) {
  if (args.contains("kernel") && args["kernel"].is_string()) return args["kernel"];
  if (!snap || !snap->analysis) return "";
  uint32_t off = 0;
  if (args.contains("position")) off = snap->lines.offset(positionFromJson(args["position"]));
  return kernelAt(*snap, off);
}

std::string Server::requireKernel(const json &args, const std::shared_ptr<const Snapshot> &snap) {
  std::string kernel = resolveKernel(args, snap);
  if (kernel.empty()) throw RpcError{ErrorCode::InvalidParams, "no kernel here: pass `kernel` or a `position` inside one", nullptr};
  return kernel;
}

void Server::sendGpuStatus() {
  GpuInfo g;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!gpu_) gpu_ = detectGpu();
    g = *gpu_;
  }
  json status = {{"gpu", g.available ? json{{"name", g.name}, {"arch", g.arch}} : json(nullptr)},
                 {"message", g.available ? "ph run uses " + g.name + " (" + g.arch + ")"
                                         : "no GPU: " + g.reason + "; ph run can use the CPU target"}};
  if (!g.available) status["reason"] = g.reason;
  endpoint_.notify("ph/status", status);
}

void Server::executeCommand(const json &params, Reply reply) {
  std::string command = params.at("command").get<std::string>();
  json args = json::object();
  if (params.contains("arguments") && params["arguments"].is_array() && !params["arguments"].empty() &&
      params["arguments"][0].is_object())
    args = params["arguments"][0];
  json token = params.value("workDoneToken", json());
  if (command == "ph.gpuStatus") {
    scheduler_->runJob([this, reply] {
      sendGpuStatus();
      std::lock_guard<std::mutex> lock(mu_);
      reply({{"available", gpu_->available}, {"name", gpu_->name}, {"arch", gpu_->arch}, {"reason", gpu_->reason}});
    });
    return;
  }
  if (command != "ph.run" && command != "ph.compile" && command != "ph.showIR") {
    reply.error(ErrorCode::InvalidParams, "unknown command `" + command + "`");
    return;
  }
  if (!args.contains("uri") || !args["uri"].is_string()) {
    reply.error(ErrorCode::InvalidParams, "`" + command + "` takes an object argument with `uri` (and `kernel` or `position`)");
    return;
  }
  // The kernel under the cursor needs the current analysis; the driver then
  // runs on the job pool, away from the analysis and request workers.
  auto job = [this, command, args, reply, token](std::shared_ptr<const Snapshot> snap) {
    scheduler_->runJob([this, command, args, reply, token, snap] {
      if (reply.replyIfCancelled()) return;
      try {
        if (command == "ph.run") runKernel(args, reply, token, snap);
        else if (command == "ph.compile") compileKernel(args, reply, token, snap);
        else showIR(args, reply, token, snap);
      } catch (const RpcError &e) {
        reply.error(e);
      } catch (const std::exception &e) {
        reply.error(ErrorCode::InternalError, e.what());
      }
    });
  };
  scheduler_->withSnapshot(args["uri"].get<std::string>(), job);
}

void Server::runKernel(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = requireKernel(args, snap);
  Settings st = settings();
  std::string target = args.value("target", st.target);
  GpuInfo gpu;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!gpu_) gpu_ = detectGpu();
    gpu = *gpu_;
  }
  if ((target == "auto" || target == "gpu") && !gpu.available) {
    // Say so at once and offer the CPU target instead of failing after a compile.
    json cpuArgs = args;
    cpuArgs["target"] = "cpu";
    cpuArgs["kernel"] = kernel;
    std::string msg = "No GPU to run `" + kernel + "` on (" + gpu.reason + "). Run it on the CPU target instead?";
    reply({{"ok", false},
           {"kernel", kernel},
           {"error", "no GPU: " + gpu.reason},
           {"offer", {{"title", "Run on CPU"}, {"command", "ph.run"}, {"arguments", json::array({cpuArgs})}}}});
    bool ask;
    {
      std::lock_guard<std::mutex> lock(mu_);
      ask = clientShowMessageRequest_;
    }
    if (ask)
      endpoint_.call("window/showMessageRequest",
                     {{"type", 2}, {"message", msg}, {"actions", {{{"title", "Run on CPU"}}, {{"title", "Run in the interpreter"}}}}},
                     [this, cpuArgs](const json &result, std::optional<RpcError> err) {
                       if (err || !result.is_object()) return;
                       json a = cpuArgs;
                       if (result.value("title", "") == "Run in the interpreter") a["target"] = "interp";
                       else if (result.value("title", "") != "Run on CPU") return;
                       scheduler_->runJob([this, a] {
                         Reply none; // the answer goes to the user through showMessage only
                         try {
                           runKernel(a, none, json(), nullptr);
                         } catch (const RpcError &e) {
                           endpoint_.notify("window/showMessage", {{"type", 1}, {"message", e.message}});
                         } catch (...) {
                         }
                       });
                     });
    else
      endpoint_.notify("window/showMessage", {{"type", 2}, {"message", msg}});
    return;
  }

  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  // `bench: true` (the editor's "Benchmark Kernel") times every autotune variant.
  bool bench = args.value("bench", false) || args.value("benchmark", false);
  std::vector<std::string> argv = bench ? std::vector<std::string>{driverPath(), "bench", file, "--kernel", kernel, "--json"}
                                        : std::vector<std::string>{driverPath(), "run", file, "--kernel", kernel, "--target", target, "--check", "--json"};
  if (bench && target != "auto") argv.insert(argv.end(), {"--target", target});
  std::map<std::string, int64_t> sizes = st.sizes;
  if (args.contains("sizes") && args["sizes"].is_object())
    for (auto &[k, v] : args["sizes"].items())
      if (v.is_number_integer()) sizes[k] = v.get<int64_t>();
  for (auto &[k, v] : sizes) argv.insert(argv.end(), {"--size", k + "=" + std::to_string(v)});
  if (args.contains("args") && args["args"].is_object())
    for (auto &[k, v] : args["args"].items()) argv.insert(argv.end(), {"--arg", k + "=" + (v.is_string() ? v.get<std::string>() : v.dump())});

  auto cancel = reply.cancelState();
  if (!cancel) {
    // A run the user started from a message: cancelled only when the server exits.
    cancel = std::make_shared<CancelState>();
    std::lock_guard<std::mutex> lock(mu_);
    builds_["run:" + kernel] = cancel;
  }
  auto progress = beginProgress((bench ? "Benchmarking " : "Running ") + kernel + " (" + target + ")", token, cancel);
  if (progress) progress->report(bench ? "every autotune variant" : "compile, autotune, check against the interpreter, benchmark");
  if (endpoint_.log) endpoint_.log("run: " + shellQuoteForLog(argv));
  ProcessResult r = runProcess(argv, "", cancel);
  if (!tempDir.empty()) fs::remove_all(tempDir);
  if (progress) progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? "done" : "failed");
  if (r.cancelled) {
    reply.error(ErrorCode::RequestCancelled, "ph.run cancelled");
    return;
  }
  if (!r.started) throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
  if (stageMissing(r)) {
    RpcError e = driverError(bench ? "`ph bench`" : "`ph run`", r);
    endpoint_.notify("window/showMessage", {{"type", 1}, {"message", e.message}});
    reply.error(e);
    return;
  }
  json parsed = parseJsonOutput(r.out);
  json result = {{"ok", r.exitCode == 0}, {"kernel", kernel}, {"target", target}, {"exitCode", r.exitCode}, {"result", parsed}};
  if (parsed.is_null()) result["stdout"] = r.out;
  if (!r.err.empty()) result["stderr"] = r.err;
  std::string summary = r.exitCode == 0 ? summarize(kernel, target, parsed) : "ph run " + kernel + " failed: " + firstLines(r.err, 3);
  result["summary"] = summary;
  endpoint_.notify("window/showMessage", {{"type", r.exitCode == 0 ? 3 : 1}, {"message", summary}});
  reply(std::move(result));
}

void Server::compileKernel(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = resolveKernel(args, snap);
  Settings st = settings();
  std::string target = args.value("target", st.target);
  std::string path = uriToPath(args["uri"].get<std::string>());
  std::string root;
  {
    std::lock_guard<std::mutex> lock(mu_);
    root = rootPath_;
  }
  std::string outError;
  fs::path out = outputFolder(st.outputDir, root, path, outError);
  if (out.empty()) throw RpcError{ErrorCode::InvalidParams, outError, nullptr};
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  std::vector<std::string> argv = {driverPath(), "build", file, "-o", out.string()};
  if (!kernel.empty()) argv.insert(argv.end(), {"--kernel", kernel});
  if (target != "auto" && target != "gpu") argv.insert(argv.end(), {"--target", target});
  auto cancel = reply.cancelState() ? reply.cancelState() : std::make_shared<CancelState>();
  auto progress = beginProgress("Compiling " + (kernel.empty() ? fs::path(path).filename().string() : kernel), token, cancel);
  ProcessResult r = runProcess(argv, "", cancel);
  if (!tempDir.empty()) fs::remove_all(tempDir);
  if (progress) progress->end(r.cancelled ? "cancelled" : r.exitCode == 0 ? "done" : "failed");
  if (r.cancelled) {
    reply.error(ErrorCode::RequestCancelled, "ph.compile cancelled");
    return;
  }
  if (!r.started) throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
  if (r.exitCode != 0) throw driverError("`ph build`", r);
  auto figures = parsePtxasReport(r.out + "\n" + r.err);
  readManifest(out, figures);
  json figs = json::object();
  std::string arch = target.rfind("sm_", 0) == 0 ? target : "sm_90";
  {
    std::lock_guard<std::mutex> lock(mu_);
    readPlacements(out, features_.tilePlacements);
    for (auto &[k, f] : figures) {
      std::string text = figuresText(f, arch);
      if (text.empty()) continue;
      features_.compileFigures[k] = text;
      figs[k] = text;
    }
  }
  reply({{"ok", true}, {"outputDir", out.string()}, {"kernel", kernel}, {"figures", figs}, {"stdout", r.out}, {"stderr", r.err}});
  if (clientCodeLensRefresh_ && !figs.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
}

void Server::showIR(json args, Reply reply, const json &token, std::shared_ptr<const Snapshot> snap) {
  std::string kernel = requireKernel(args, snap);
  std::string stage = args.value("stage", "tile");
  static const std::set<std::string> stages = {"kir", "tile", "cpu", "gpu", "llvm", "ptx", "sass"};
  if (!stages.count(stage))
    throw RpcError{ErrorCode::InvalidParams, "unknown stage `" + stage + "`: use kir, tile, cpu, gpu, llvm, ptx or sass", nullptr};
  std::string tempDir;
  std::string file = fileForDriver(args["uri"], tempDir);
  auto cancel = reply.cancelState() ? reply.cancelState() : std::make_shared<CancelState>();
  auto progress = beginProgress("Showing " + stage + " of " + kernel, token, cancel);
  auto finish = [&](const char *msg) {
    if (progress) progress->end(msg);
    if (!tempDir.empty()) fs::remove_all(tempDir);
  };
  std::string text;
  if (stage == "sass") {
    std::string cuobjdump = findProgram("cuobjdump");
    if (cuobjdump.empty() && fs::exists("/usr/local/cuda/bin/cuobjdump")) cuobjdump = "/usr/local/cuda/bin/cuobjdump";
    if (cuobjdump.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "SASS needs `cuobjdump` (CUDA Toolkit), which is not on PATH", nullptr};
    }
    char tmpl[] = "/tmp/ph-lsp-sass-XXXXXX";
    std::string outDir = mkdtemp(tmpl) ? tmpl : "/tmp";
    ProcessResult b = runProcess({driverPath(), "build", file, "--kernel", kernel, "-o", outDir}, "", cancel);
    if (b.exitCode != 0 || !b.started) {
      fs::remove_all(outDir);
      finish("failed");
      if (b.cancelled) { reply.error(ErrorCode::RequestCancelled, "ph.showIR cancelled"); return; }
      throw b.started ? driverError("`ph build`", b) : RpcError{ErrorCode::RequestFailed, b.error, nullptr};
    }
    for (auto &e : fs::recursive_directory_iterator(outDir))
      if (e.path().extension() == ".cubin") {
        ProcessResult d = runProcess({cuobjdump, "-sass", e.path().string()}, "", cancel);
        text += "// " + e.path().filename().string() + "\n" + d.out;
      }
    fs::remove_all(outDir);
    if (text.empty()) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, "`ph build` wrote no cubin for `" + kernel + "`", nullptr};
    }
  } else {
    // --debug-info makes the MLIR stages print their locations, which map IR lines to .ph lines.
    std::vector<std::string> argv = {driverPath(), "emit", file, "--kernel", kernel, "--stage", stage};
    if (stage != "kir") argv.push_back("--debug-info");
    if (args.contains("config") && args["config"].is_string()) argv.insert(argv.end(), {"--config", args["config"].get<std::string>()});
    ProcessResult r = runProcess(argv, "", cancel);
    if (r.cancelled) {
      finish("cancelled");
      reply.error(ErrorCode::RequestCancelled, "ph.showIR cancelled");
      return;
    }
    if (!r.started) {
      finish("failed");
      throw RpcError{ErrorCode::RequestFailed, r.error + " (set `ph.path`)", nullptr};
    }
    if (r.exitCode != 0) {
      finish("failed");
      throw driverError("`ph emit --stage " + stage + "`", r);
    }
    text = r.out;
  }
  finish("done");
  // Two shapes of one mapping: `sourceLines` has one entry per IR line (a 0-based
  // .ph line or null), `map` lists the mapped lines as {irLine, sourceLine} pairs.
  json pairs = irLineMap(text, file);
  size_t irLines = static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
  json perLine = json::array();
  for (size_t i = 0; i < irLines; ++i) perLine.push_back(nullptr);
  for (const json &p : pairs) perLine[p["irLine"].get<size_t>()] = p["sourceLine"];
  reply({{"kernel", kernel}, {"stage", stage}, {"text", text}, {"sourceUri", args["uri"]}, {"sourceLines", perLine}, {"map", pairs}});
}

void Server::compileOnSave(const std::string &uri) {
  auto cancel = std::make_shared<CancelState>();
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto &slot = builds_[uri];
    if (slot) slot->cancel(); // a newer save supersedes the build in flight
    slot = cancel;
  }
  scheduler_->runJob([this, uri, cancel] {
    Settings st = settings();
    std::string path = uriToPath(uri), root;
    {
      std::lock_guard<std::mutex> lock(mu_);
      root = rootPath_;
    }
    std::string outError;
    fs::path out = outputFolder(st.outputDir, root, path, outError);
    if (out.empty()) {
      endpoint_.notify("window/showMessage", {{"type", 2}, {"message", "compile on save: " + outError}});
      if (endpoint_.log) endpoint_.log("compile on save refused: " + outError);
      return;
    }
    std::vector<std::string> argv = {driverPath(), "build", path, "-o", out.string()};
    if (st.target.rfind("sm_", 0) == 0 || st.target == "cpu") argv.insert(argv.end(), {"--target", st.target});
    ProcessResult r = runProcess(argv, "", cancel);
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto it = builds_.find(uri);
      if (it != builds_.end() && it->second == cancel) builds_.erase(it);
    }
    if (r.cancelled || !r.started) return;
    if (stageMissing(r)) {
      if (endpoint_.log) endpoint_.log("compile on save skipped: " + firstLines(r.err, 1));
      return;
    }
    auto text = scheduler_->text(uri);
    json diags = parseDriverDiagnostics(r.out + "\n" + r.err, path, text ? *text : std::string());
    auto figures = parsePtxasReport(r.out + "\n" + r.err);
    readManifest(out, figures);
    std::string arch = st.target.rfind("sm_", 0) == 0 ? st.target : "sm_90";
    for (auto &[k, f] : figures) {
      if (f.spill <= 0) continue;
      // Spills are warnings on the kernel's name, as the registry words them.
      json w = {{"severity", 2}, {"code", diagInfo(DiagKind::RegisterSpill).code}, {"source", "ph build"},
                {"message", formatDiag(DiagKind::RegisterSpill, {k, std::to_string(f.spill), std::to_string(f.registers)})},
                {"range", toJson(Range{})}};
      if (auto snap = scheduler_->latest(uri); snap && snap->analysis)
        for (const KernelSummary &ks : snap->analysis->kernels)
          if (ks.name == k) w["range"] = toJson(snap->lines.range(ks.nameRange.begin, ks.nameRange.end));
      diags.push_back(w);
    }
    {
      std::lock_guard<std::mutex> lock(mu_);
      backendDiags_[uri] = diags;
      readPlacements(out, features_.tilePlacements);
      for (auto &[k, f] : figures) {
        std::string t = figuresText(f, arch);
        if (!t.empty()) features_.compileFigures[k] = t;
      }
    }
    if (auto snap = scheduler_->latest(uri)) publish(snap);
    if (clientCodeLensRefresh_ && !figures.empty()) endpoint_.call("workspace/codeLens/refresh", nullptr);
  });
}

} // namespace ph::lsp
