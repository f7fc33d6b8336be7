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

Run runFrom(const json &j) {
  Run r;
  r.kernel = j.at("kernel").get<std::string>();
  r.config = j.value("config", "");
  r.target = j.value("target", "");
  if (j.contains("grid"))
    for (size_t i = 0; i < 3 && i < j["grid"].size(); ++i) r.grid[i] = j["grid"][i].get<int64_t>();
  r.threads = j.value("threads", 0);
  const json sizes = j.value("sizes", json::object()), scalars = j.value("scalars", json::object());
  for (auto &[n, x] : sizes.items()) r.sizes.emplace_back(n, x.get<int64_t>());
  for (auto &[n, x] : scalars.items()) r.scalars.emplace_back(n, x.get<double>());
  r.seed = j.value("seed", uint64_t(0));
  r.analyzeMs = j.value("analyze_ms", 0.0);
  r.compileMs = j.value("compile_ms", 0.0);
  r.timeMs = j.value("time_ms", -1.0); // ph-run's single run is not timed
  for (const json &o : j.value("outputs", json::array())) r.outputs.emplace_back(o.at("name").get<std::string>(), o.value("file", ""));
  if (j.contains("check")) r.check = checkFrom(j["check"]);
  r.device = j.value("device", "");
  r.registers = j.value("registers", -1);
  r.sharedBytes = j.value("shared_bytes", int64_t(-1));
  return r;
}

BenchDevice benchDeviceFrom(const json &j) {
  return {j.value("name", ""), j.value("arch", ""), j.value("sms", 0), j.value("peakBandwidthGBs", 0.0),
          j.value("peakFp32TFlops", 0.0), j.value("peakTensorF16TFlops", 0.0)};
}

Bench benchFrom(const json &j) {
  Bench b;
  b.kernel = j.at("kernel").get<std::string>();
  b.device = benchDeviceFrom(j.value("device", json::object()));
  for (const json &x : j.at("rows")) {
    BenchRow r;
    r.config = x.at("config").get<std::string>();
    r.ms = x.at("ms").get<double>();
    r.tflops = x.value("tflops", 0.0);
    r.gbps = x.value("gbps", 0.0);
    r.pctPeak = x.value("pctPeak", 0.0);
    r.computeBound = x.value("computeBound", false);
    r.registers = x.value("registers", 0);
    r.sharedBytes = x.value("sharedBytes", 0);
    r.spills = x.value("spills", 0);
    r.check = x.value("check", "");
    b.rows.push_back(std::move(r));
  }
  b.best = j.value("best", "");
  b.details = j.value("details", json::array());
  b.skipped = j.value("skipped", json::array());
  return b;
}

} // namespace

json checkJson(const Check &c) {
  // Sorted keys, as `ph run --json` has always written them.
  using sorted = nlohmann::json;
  sorted cs = sorted::array();
  for (const OutputCheck &o : c.outputs)
    cs.push_back({{"name", o.name},
                  {"dtype", o.dtype},
                  {"max_abs_err", o.maxAbsErr},
                  {"rel_err", o.relErr},
                  {"tolerance", o.tolerance},
                  {"nan_count", o.nanCount},
                  {"agreed_non_finite", o.agreedNonFinite},
                  {"passed", o.passed},
                  {"worst", o.worst},
                  {"reference", o.reference.empty() ? c.reference : o.reference}});
  sorted j = {{"passed", c.passed}, {"reference", c.reference}, {"reference_ms", c.referenceMs}, {"outputs", cs}};
  return json::parse(j.dump());
}

Check checkFrom(const json &c) {
  Check ck;
  ck.passed = c.at("passed").get<bool>();
  ck.reference = c.value("reference", "");
  ck.referenceMs = c.value("reference_ms", 0.0);
  for (const json &o : c.value("outputs", json::array()))
    ck.outputs.push_back({o.at("name").get<std::string>(), o.value("dtype", ""), o.value("max_abs_err", 0.0),
                          o.value("rel_err", 0.0), o.value("tolerance", 0.0), o.value("nan_count", int64_t(0)),
                          o.value("agreed_non_finite", int64_t(0)), o.at("passed").get<bool>(),
                          o.value("worst", int64_t(-1)), o.value("reference", "")});
  return ck;
}

json runJson(const Run &r) {
  // Built sorted, as `ph run --json` has always written its keys.
  using sorted = nlohmann::json;
  sorted sizes = sorted::object(), scalars = sorted::object(), outs = sorted::array();
  for (auto &[n, x] : r.sizes) sizes[n] = x;
  for (auto &[n, x] : r.scalars) scalars[n] = x;
  for (auto &[n, f] : r.outputs) outs.push_back({{"name", n}, {"file", f}});
  sorted j = {{"kernel", r.kernel},   {"config", r.config},          {"target", r.target},
              {"grid", r.grid},       {"threads", r.threads},        {"sizes", sizes},
              {"scalars", scalars},   {"seed", r.seed},              {"analyze_ms", r.analyzeMs},
              {"compile_ms", r.compileMs}, {"time_ms", r.timeMs},    {"outputs", outs}};
  if (r.check) j["check"] = sorted::parse(checkJson(*r.check).dump());
  if (!r.device.empty()) j["device"] = r.device;
  if (r.registers >= 0) j["registers"] = r.registers;
  if (r.sharedBytes >= 0) j["shared_bytes"] = r.sharedBytes;
  return json::parse(j.dump());
}

OutputCheck outputCheck(const std::string &name, const OutputComparison &c, Elem elem, const std::string &reference) {
  return {name, elemName(elem), c.maxAbs, c.relErr, c.tolerance, c.nanCount, c.agreedNonFinite, c.passed, c.worst,
          reference};
}

BenchDevice benchDeviceOf(const DeviceInfo &dev) {
  return {dev.name, dev.arch(), dev.smCount, dev.peakBandwidth() / 1e9, dev.peakFp32Flops() / 1e12,
          dev.peakTensorF16Flops() / 1e12};
}

json benchJson(const Bench &b) {
  json rows = json::array();
  for (const BenchRow &r : b.rows)
    rows.push_back({{"config", r.config},
                    {"ms", r.ms},
                    {"tflops", r.tflops},
                    {"gbps", r.gbps},
                    {"pctPeak", r.pctPeak},
                    {"computeBound", r.computeBound},
                    {"registers", r.registers},
                    {"sharedBytes", r.sharedBytes},
                    {"spills", r.spills},
                    {"check", r.check}});
  json j = {{"kernel", b.kernel},
            {"device",
             {{"name", b.device.name},
              {"arch", b.device.arch},
              {"sms", b.device.sms},
              {"peakBandwidthGBs", b.device.peakBandwidthGBs},
              {"peakFp32TFlops", b.device.peakFp32TFlops},
              {"peakTensorF16TFlops", b.device.peakTensorF16TFlops}}},
            {"rows", rows},
            {"best", b.best}};
  if (!b.details.is_null()) j["details"] = b.details;
  if (!b.skipped.is_null()) j["skipped"] = b.skipped;
  return j;
}

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
  json j = doc.command == "run"     ? (doc.runResult ? runJson(*doc.runResult) : doc.run)
           : doc.command == "bench" ? (doc.benchResult ? benchJson(*doc.benchResult) : doc.bench)
                                    : json::object();
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
    if (doc.ok) {
      json lines = json::array();
      for (const IrLine &l : doc.lines) lines.push_back({{"irLine", l.irLine}, {"op", l.op}, {"range", rangeJson(l.range)}});
      j["lines"] = lines;
    }
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
  if (e.skipped) j["skipped"] = true;
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
    out.skipped = j.value("skipped", false);
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
    for (const json &l : j.value("lines", json::array()))
      out.lines.push_back({l.at("irLine").get<int>(), l.at("op").get<std::string>(), rangeFrom(l.at("range"))});
    out.error = j.value("error", "");
    if (out.command == "run" || out.command == "bench") {
      json rest = json::object();
      for (auto &[k, v] : j.items())
        if (std::find(std::begin(kEnvelope), std::end(kEnvelope), k) == std::end(kEnvelope)) rest[k] = v;
      // A result is there unless the command failed before it ran (a file with errors).
      if (out.command == "run" && rest.contains("kernel")) out.runResult = runFrom(rest);
      if (out.command == "bench" && rest.contains("rows")) out.benchResult = benchFrom(rest);
      (out.command == "run" ? out.run : out.bench) = std::move(rest);
    }
  } catch (const std::exception &e) {
    return std::string("malformed ph-output document: ") + e.what();
  }
  return "";
}

} // namespace ph::rt::report
