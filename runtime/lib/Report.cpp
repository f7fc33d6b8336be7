//===- Report.cpp - ph-output v1: writing and reading the driver's document -===//
#include "ph/Runtime/Report.h"

#include "ph/Source.h"

#include <algorithm>
#include <iterator>

namespace ph::rt::report {

using json = nlohmann::ordered_json;

namespace {

Range rangeOf(const SourceManager &sm, SourceRange r) {
  Range out;
  if (r.file >= sm.size()) return out;
  const SourceFile &f = sm.file(r.file);
  LineCol b = f.lineCol(r.begin), e = f.lineCol(r.end);
  out.file = f.path();
  out.start = {int(b.line), int(b.col), r.begin};
  out.end = {int(e.line), int(e.col), r.end};
  return out;
}

json posJson(const Position &p) {
  json j = {{"line", p.line}, {"col", p.col}};
  if (p.offset >= 0) j["offset"] = p.offset;
  return j;
}
json rangeJson(const Range &r) { return {{"file", r.file}, {"start", posJson(r.start)}, {"end", posJson(r.end)}}; }

Position posFrom(const json &j) { return {j.at("line").get<int>(), j.at("col").get<int>(), j.value("offset", int64_t(-1))}; }
Range rangeFrom(const json &j) { return {j.value("file", ""), posFrom(j.at("start")), posFrom(j.at("end"))}; }

json diagJson(const Diag &d) {
  json j = {{"code", d.code}, {"name", d.name}, {"severity", d.severity}, {"message", d.message}, {"range", rangeJson(d.range)}};
  json notes = json::array();
  for (const Note &n : d.notes) notes.push_back({{"message", n.message}, {"range", rangeJson(n.range)}});
  j["notes"] = notes;
  json fixes = json::array();
  for (const Fix &f : d.fixes) {
    json edits = json::array();
    for (const Edit &e : f.edits) edits.push_back({{"range", rangeJson(e.range)}, {"text", e.text}});
    fixes.push_back({{"title", f.title}, {"edits", edits}});
  }
  j["fixes"] = fixes;
  return j;
}

Diag diagFrom(const json &j) {
  Diag d{j.at("code").get<std::string>(), j.value("name", ""), j.at("severity").get<std::string>(),
         j.at("message").get<std::string>(), rangeFrom(j.at("range")), {}, {}};
  for (const json &n : j.value("notes", json::array())) d.notes.push_back({n.at("message").get<std::string>(), rangeFrom(n.at("range"))});
  for (const json &f : j.value("fixes", json::array())) {
    Fix fx{f.at("title").get<std::string>(), {}};
    for (const json &e : f.value("edits", json::array())) fx.edits.push_back({rangeFrom(e.at("range")), e.at("text").get<std::string>()});
    d.fixes.push_back(std::move(fx));
  }
  return d;
}

json deviceJson(const DeviceLimits &d) {
  return {{"arch", d.arch},
          {"name", d.name},
          {"source", d.source},
          {"known", d.known},
          {"registersPerSM", d.registersPerSM},
          {"registerAllocUnit", d.registerAllocUnit},
          {"maxWarpsPerSM", d.maxWarpsPerSM},
          {"maxBlocksPerSM", d.maxBlocksPerSM},
          {"sharedPerSM", d.sharedPerSM},
          {"sharedPerBlockOptin", d.sharedPerBlockOptin},
          {"sharedReservedPerBlock", d.sharedReservedPerBlock}};
}

DeviceLimits deviceFrom(const json &j) {
  DeviceLimits d = limitsForArch(j.at("arch").get<std::string>());
  d.name = j.value("name", "");
  d.source = j.value("source", "table");
  d.known = j.value("known", true);
  d.registersPerSM = j.value("registersPerSM", d.registersPerSM);
  d.registerAllocUnit = j.value("registerAllocUnit", d.registerAllocUnit);
  d.maxWarpsPerSM = j.value("maxWarpsPerSM", d.maxWarpsPerSM);
  d.maxBlocksPerSM = j.value("maxBlocksPerSM", d.maxBlocksPerSM);
  d.sharedPerSM = j.value("sharedPerSM", d.sharedPerSM);
  d.sharedPerBlockOptin = j.value("sharedPerBlockOptin", d.sharedPerBlockOptin);
  d.sharedReservedPerBlock = j.value("sharedReservedPerBlock", d.sharedReservedPerBlock);
  return d;
}

json variantJson(const Variant &v) {
  json cfg = json::object();
  for (auto &[n, x] : v.config) cfg[n] = x;
  json tiles = json::array();
  for (const Tile &t : v.tiles) tiles.push_back({{"type", t.type}, {"range", rangeJson(t.range)}, {"placement", t.placement}, {"detail", t.detail}});
  const Occupancy &o = v.occupancy;
  return {{"kernel", v.kernel},
          {"config", cfg},
          {"configName", v.configName},
          {"symbol", v.symbol},
          {"cubin", v.cubin},
          {"unit", v.unit},
          {"tensorcore", v.tensorcore},
          {"threads", v.threads},
          {"registers", v.registers},
          {"sharedBytes", {{"static", v.staticShared}, {"dynamic", v.dynamicShared}, {"total", v.sharedBytes()}}},
          {"spills", {{"stores", v.spillStores}, {"loads", v.spillLoads}, {"stackBytes", v.stackBytes}}},
          {"occupancy",
           {{"blocksPerSM", o.blocksPerSM},
            {"warpsPerSM", o.warpsPerSM},
            {"fraction", o.fraction},
            {"limitedBy", o.limitedBy},
            {"byRegisters", o.byRegisters},
            {"bySharedMemory", o.bySharedMemory},
            {"byThreads", o.byThreads}}},
          {"tiles", tiles},
          {"notes", v.notes}};
}

Variant variantFrom(const json &j) {
  Variant v;
  v.kernel = j.at("kernel").get<std::string>();
  v.configName = j.value("configName", "");
  v.symbol = j.value("symbol", "");
  v.cubin = j.value("cubin", "");
  v.unit = j.value("unit", "simt");
  v.tensorcore = j.value("tensorcore", false);
  const json cfg = j.value("config", json::object()); // items() of a temporary would dangle
  for (auto &[n, x] : cfg.items()) v.config.emplace_back(n, x.get<int64_t>());
  v.threads = j.value("threads", 0);
  v.registers = j.value("registers", 0);
  const json &sh = j.at("sharedBytes");
  v.staticShared = sh.value("static", 0);
  v.dynamicShared = sh.value("dynamic", 0);
  const json &sp = j.at("spills");
  v.spillStores = sp.value("stores", 0);
  v.spillLoads = sp.value("loads", 0);
  v.stackBytes = sp.value("stackBytes", 0);
  const json &o = j.at("occupancy");
  v.occupancy = {o.value("blocksPerSM", 0), o.value("warpsPerSM", 0), o.value("fraction", 0.0), o.value("limitedBy", ""),
                 o.value("byRegisters", 0), o.value("bySharedMemory", 0), o.value("byThreads", 0)};
  for (const json &t : j.value("tiles", json::array()))
    v.tiles.push_back({t.at("type").get<std::string>(), rangeFrom(t.at("range")), t.at("placement").get<std::string>(), t.value("detail", "")});
  v.notes = j.value("notes", std::vector<std::string>());
  return v;
}

const char *kEnvelope[] = {"format", "version", "command", "ok", "diagnostics", "error"};

} // namespace

Diag fromDiagnostic(const Diagnostic &d, const SourceManager &sm) {
  Diag out;
  out.code = d.code();
  out.name = diagInfo(d.kind).name;
  out.severity = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
  out.message = d.message;
  out.range = rangeOf(sm, d.range);
  for (const DiagNote &n : d.notes) out.notes.push_back({n.message, rangeOf(sm, n.range)});
  for (const DiagFix &f : d.fixes) {
    Fix fx{f.title, {}};
    for (const TextEdit &e : f.edits) fx.edits.push_back({rangeOf(sm, e.range), e.text});
    out.fixes.push_back(std::move(fx));
  }
  return out;
}

Variant fromManifest(const ManifestKernel &mk, const DeviceLimits &device) {
  Variant v;
  v.kernel = mk.sig.name;
  v.configName = mk.sig.configName();
  v.config = mk.sig.config;
  v.symbol = mk.symbol;
  v.cubin = mk.cubin;
  v.unit = mk.unit;
  v.tensorcore = mk.sig.tensorcore;
  v.threads = mk.sig.threads;
  v.registers = mk.ptxas.registers;
  v.staticShared = mk.ptxas.sharedBytes;
  v.dynamicShared = mk.dynamicShared;
  v.stackBytes = mk.ptxas.stackBytes;
  v.spillStores = mk.ptxas.spillStores;
  v.spillLoads = mk.ptxas.spillLoads;
  v.occupancy = occupancy(device, v.threads, v.registers, v.sharedBytes());
  for (const TilePlacement &t : mk.tiles)
    v.tiles.push_back({t.type, {t.at.file, {t.at.line, t.at.col, -1}, {t.at.endLine, t.at.endCol, -1}}, t.placement, t.detail});
  v.notes = mk.notes;
  return v;
}

void addEnvelope(json &j, const std::string &command, bool ok, const std::vector<Diag> &diagnostics) {
  json d = json::array();
  for (const Diag &x : diagnostics) d.push_back(diagJson(x));
  json out = {{"format", kFormat}, {"version", kVersion}, {"command", command}, {"ok", ok}, {"diagnostics", d}};
  for (auto &[k, v] : j.items())
    if (!out.contains(k)) out[k] = v;
  j = std::move(out);
}

json toJson(const Document &doc) {
  json j = doc.command == "run" ? doc.run : doc.command == "bench" ? doc.bench : json::object();
  if (!j.is_object()) j = json::object();
  if (!doc.file.empty()) j["file"] = doc.file;
  if (!doc.target.empty()) j["target"] = doc.target;
  if (doc.device) j["deviceLimits"] = deviceJson(*doc.device);
  if (!doc.outputDir.empty()) j["outputDir"] = doc.outputDir;
  if (doc.command == "build" || !doc.variants.empty()) {
    json vs = json::array();
    for (const Variant &v : doc.variants) vs.push_back(variantJson(v));
    j["variants"] = vs;
  }
  if (!doc.stage.empty()) {
    j["stage"] = doc.stage;
    j["text"] = doc.text;
  }
  if (!doc.error.empty()) j["error"] = doc.error;
  addEnvelope(j, doc.command, doc.ok, doc.diagnostics);
  return j;
}

json toJson(const Event &e) {
  json j = {{"format", kEventFormat}, {"version", kVersion}, {"event", e.event}, {"of", e.of}};
  if (e.event == "plan") {
    j["cached"] = e.cached;
    return j;
  }
  j["index"] = e.index;
  j["ok"] = e.ok;
  j["cached"] = e.fromCache;
  j["ms"] = e.ms;
  j["kernel"] = e.kernel;
  j["configName"] = e.configName;
  if (e.variant) j["variant"] = variantJson(*e.variant);
  json d = json::array();
  for (const Diag &x : e.diagnostics) d.push_back(diagJson(x));
  j["diagnostics"] = d;
  return j;
}

std::string eventFromJson(const std::string &line, Event &out) {
  json j = json::parse(line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "not a JSON object";
  if (j.value("format", "") != kEventFormat) return "not a ph-event line";
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    return "ph-event version " + (j.contains("version") ? j["version"].dump() : std::string("(none)")) +
           ", this reader knows version " + std::to_string(kVersion);
  try {
    out = Event();
    out.event = j.at("event").get<std::string>();
    out.of = j.value("of", 0);
    if (out.event == "plan") {
      out.cached = j.value("cached", 0);
      return "";
    }
    out.index = j.value("index", 0);
    out.ok = j.value("ok", false);
    out.fromCache = j.value("cached", false);
    out.ms = j.value("ms", 0.0);
    out.kernel = j.value("kernel", "");
    out.configName = j.value("configName", "");
    if (j.contains("variant")) out.variant = variantFrom(j["variant"]);
    for (const json &d : j.value("diagnostics", json::array())) out.diagnostics.push_back(diagFrom(d));
  } catch (const std::exception &e) {
    return std::string("malformed ph-event line: ") + e.what();
  }
  return "";
}

std::string fromJsonLines(const std::string &text, Document &out, std::vector<Event> *events) {
  // Without --progress the document is the whole text (indented, many lines).
  if (json::accept(text)) return fromJson(text, out);
  std::string last;
  for (size_t pos = 0; pos < text.size();) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (!last.empty()) return "a line after the ph-output document";
    Event e;
    if (eventFromJson(line, e).empty()) {
      if (events) events->push_back(std::move(e));
    } else {
      last = line;
    }
  }
  if (last.empty()) return "no ph-output document after the events";
  return fromJson(last, out);
}

std::string fromJson(const std::string &text, Document &out) {
  json j = json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) return "not a JSON object";
  if (j.value("format", "") != kFormat) return "not a ph-output document (no \"format\": \"ph-output\")";
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    return "ph-output version " + (j.contains("version") ? j["version"].dump() : std::string("(none)")) +
           ", this reader knows version " + std::to_string(kVersion);
  try {
    out = Document();
    out.command = j.at("command").get<std::string>();
    out.ok = j.at("ok").get<bool>();
    for (const json &d : j.at("diagnostics")) out.diagnostics.push_back(diagFrom(d));
    out.file = j.value("file", "");
    out.target = j.value("target", "");
    if (j.contains("deviceLimits")) out.device = deviceFrom(j["deviceLimits"]);
    out.outputDir = j.value("outputDir", "");
    for (const json &v : j.value("variants", json::array())) out.variants.push_back(variantFrom(v));
    out.stage = j.value("stage", "");
    out.text = j.value("text", "");
    out.error = j.value("error", "");
    if (out.command == "run" || out.command == "bench") {
      json rest = json::object();
      for (auto &[k, v] : j.items())
        if (std::find(std::begin(kEnvelope), std::end(kEnvelope), k) == std::end(kEnvelope)) rest[k] = v;
      (out.command == "run" ? out.run : out.bench) = std::move(rest);
    }
  } catch (const std::exception &e) {
    return std::string("malformed ph-output document: ") + e.what();
  }
  return "";
}

} // namespace ph::rt::report
