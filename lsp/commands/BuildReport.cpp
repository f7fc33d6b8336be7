//===- BuildReport.cpp - What `ph build --json` says about each kernel ----===//
//
// The driver's ph-output document (ph/Runtime/Report.h, docs/output.md), read
// as typed data: the lens and hover figures of each kernel (its first variant:
// registers, shared memory, spills, the occupancy the driver computed on its
// device description, where the tiles live), the tiles by source line, and the
// build's diagnostics as the editor shows the frontend's (ranges, notes, fixes).
//
//===----------------------------------------------------------------------===//
#include "Driver.h"

#include "Features.h"
#include "Protocol.h"

#include "ph/Analysis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <tuple>

namespace ph::lsp::driver {

namespace report = rt::report;

std::string readBuild(const ProcessResult &r, report::Document &doc) { return readDocument(r, "build", doc); }

std::string firstError(const report::Document &doc, const ProcessResult &r) {
  for (const report::Diag &d : doc.diagnostics)
    if (d.severity == "error")
      return d.range.file + ":" + std::to_string(d.range.start.line) + ":" + std::to_string(d.range.start.col) +
             ": error[" + d.code + "]: " + d.message;
  return !doc.error.empty() ? doc.error : firstLines(r.err, 1);
}

RpcError buildError(const report::Document &doc, const ProcessResult &r) {
  std::string said = firstError(doc, r);
  if (said.empty()) said = firstLines(r.err);
  return {ErrorCode::RequestFailed, "`ph build` failed (exit " + std::to_string(r.exitCode) + "): " + said,
          json{{"exitCode", r.exitCode}, {"build", json::parse(report::toJson(doc).dump())}, {"stderr", r.err}}};
}

namespace {

/// Bytes as "512 B" or "47.2 KiB".
std::string bytesText(int64_t b) {
  if (b < 1024) return std::to_string(b) + " B";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f KiB", static_cast<double>(b) / 1024.0);
  return buf;
}

/// The occupancy's limit in a lens' words.
const char *shortLimit(const std::string &limitedBy) {
  if (limitedBy == "registers") return "regs";
  if (limitedBy == "shared memory") return "smem";
  if (limitedBy == "threads") return "threads";
  return "blocks";
}

} // namespace

std::string figuresText(const report::Variant &v) {
  // Short: it is a lens line of its own and a column of the compile table.
  std::string s = std::to_string(v.registers) + " regs · " + bytesText(v.sharedBytes()) + " smem";
  if (v.spillBytes() > 0) s += " · " + bytesText(v.spillBytes()) + " spilled";
  const rt::Occupancy &o = v.occupancy;
  s += " · " + std::to_string(o.blocksPerSM) + " blocks/SM (" + std::to_string(std::lround(100 * o.fraction)) + "%, " +
       shortLimit(o.limitedBy) + ")";
  size_t regs = std::count_if(v.tiles.begin(), v.tiles.end(), [](const report::Tile &t) { return t.placement == "registers"; });
  if (v.unit == "tensorcore")
    s += " · tc: " + std::to_string(regs) + " tiles in regs, " + std::to_string(v.tiles.size() - regs) + " in smem";
  else if (v.tensorcore)
    s += " · SIMT: " + std::to_string(regs) + " tiles in regs, " + std::to_string(v.tiles.size() - regs) + " in smem";
  return s;
}

std::map<std::string, std::string> figuresByKernel(const report::Document &doc) {
  std::map<std::string, std::string> out;
  for (const report::Variant &v : doc.variants)
    if (!out.count(v.kernel)) out[v.kernel] = figuresText(v); // the first variant speaks for the kernel
  return out;
}

std::string readLastBuild(const fs::path &dir, const std::string &arch, report::Document &doc) {
  rt::Manifest m;
  if (std::string why = rt::readManifest(dir.string(), m); !why.empty()) return why;
  doc = report::Document();
  doc.command = "build";
  doc.ok = true;
  doc.target = m.target.empty() ? arch : m.target;
  doc.device = rt::limitsForArch(doc.target);
  doc.outputDir = dir.string();
  for (const rt::ManifestKernel &k : m.kernels) doc.variants.push_back(report::fromManifest(k, *doc.device));
  return "";
}

void readPlacements(const report::Document &doc, Placements &out) {
  std::set<std::string> seen;
  Placements found;
  for (const report::Variant &v : doc.variants) {
    if (!seen.insert(v.kernel).second) continue;
    for (const report::Tile &t : v.tiles) {
      if (t.range.file.empty() || t.range.start.line <= 0) continue;
      std::error_code ec;
      std::string file = fs::weakly_canonical(t.range.file, ec).string();
      if (ec) file = t.range.file;
      std::vector<std::string> &at = found[file][static_cast<uint32_t>(t.range.start.line)];
      std::string item = "`" + t.type + "` in " + t.placement + (t.detail.empty() ? "" : " (" + t.detail + ")");
      if (std::find(at.begin(), at.end(), item) == at.end()) at.push_back(item);
    }
  }
  // A file's placements come from its latest compile only.
  for (auto &[file, lines] : found) out[file] = std::move(lines);
}

namespace {

/// The snapshot's file a document range names: the same path, or for the main
/// file the same name (the driver may have read a copy of unsaved text).
std::optional<FileId> fileOf(const Snapshot &s, const std::string &path, const std::string &mainPath) {
  const Analysis &a = *s.analysis;
  for (FileId id = 0; id < a.sources.size(); ++id)
    if (a.sources.file(id).path() == path) return id;
  if (path == mainPath || fs::path(path).filename() == fs::path(mainPath).filename()) return a.mainFile;
  return std::nullopt;
}

std::optional<SourceRange> rangeOf(const Snapshot &s, const report::Range &r, const std::string &mainPath) {
  auto id = fileOf(s, r.file, mainPath);
  if (!id || r.start.offset < 0 || r.end.offset < r.start.offset) return std::nullopt;
  uint32_t size = static_cast<uint32_t>(s.analysis->sources.file(*id).text().size());
  uint32_t b = static_cast<uint32_t>(std::min<int64_t>(r.start.offset, size));
  uint32_t e = static_cast<uint32_t>(std::min<int64_t>(r.end.offset, size));
  return SourceRange{*id, b, e};
}

} // namespace

json diagnosticsOf(const report::Document &doc, const Snapshot &s, const FeatureOptions &o, const std::string &path,
                   const std::string &source) {
  json out = json::array();
  if (!s.analysis) return out;
  std::set<std::tuple<std::string, uint32_t, uint32_t, std::string>> seen; // one per variant otherwise
  for (const report::Diag &rd : doc.diagnostics) {
    auto range = rangeOf(s, rd.range, path);
    if (!range || range->file != s.analysis->mainFile) continue; // the document's own, as `ph check`'s
    if (!seen.insert({rd.code, range->begin, range->end, rd.message}).second) continue;
    Diagnostic d;
    d.kind = diagKindFromCode(rd.code);
    if (d.kind == DiagKind::Count) continue; // not a registry code: not this server's registry
    d.severity = rd.severity == "error" ? Severity::Error : rd.severity == "warning" ? Severity::Warning : Severity::Note;
    d.range = *range;
    d.message = rd.message;
    for (const report::Note &n : rd.notes)
      if (auto nr = rangeOf(s, n.range, path)) d.notes.push_back({*nr, n.message});
      else d.notes.push_back({*range, n.message}); // a note without a place stays with the message
    json x = toLsp(s, d, o);
    x["source"] = source;
    x.erase("data"); // codeAction's fixes index the analysis' own diagnostics, not the build's
    out.push_back(std::move(x));
  }
  return out;
}

} // namespace ph::lsp::driver
