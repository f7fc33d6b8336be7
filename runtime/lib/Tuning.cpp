//===- Tuning.cpp - Configurations picked by timing, per launch shape -----===//
#include "ph/Runtime/Tuning.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace ph::rt {

using json = nlohmann::ordered_json;

static constexpr const char *kFormat = "ph-tuning";
static constexpr int kVersion = 1;

std::string tuningPath(const std::string &dir) { return dir + "/tuning.json"; }

TuningKey tuningKeyOf(const std::string &kernel, const std::string &device, const ToolOptions &opt) {
  TuningKey k;
  k.kernel = kernel;
  k.device = device;
  k.sizes = opt.request.sizes;
  for (const auto &[name, t] : opt.request.inputs) k.inputs[name] = t.shape;
  for (const auto &[name, value] : opt.config) k.pinned[name] = value;
  return k;
}

static json recordJson(const TuningRecord &r) {
  json sizes = json::object(), inputs = json::object(), pinned = json::object();
  for (const auto &[n, v] : r.key.sizes) sizes[n] = v;
  for (const auto &[n, s] : r.key.inputs) inputs[n] = s;
  for (const auto &[n, v] : r.key.pinned) pinned[n] = v;
  return {{"kernel", r.key.kernel}, {"device", r.key.device}, {"sizes", sizes}, {"inputs", inputs},
          {"pinned", pinned},       {"config", r.config},     {"ms", r.ms}};
}

/// One record from its JSON, or why it is not one.
static std::string recordFrom(const json &j, TuningRecord &r) {
  if (!j.is_object()) return "a record is not an object";
  for (const char *key : {"kernel", "device", "config"})
    if (!j.contains(key) || !j[key].is_string()) return std::string("a record has no string `") + key + "`";
  r.key.kernel = j["kernel"].get<std::string>();
  r.key.device = j["device"].get<std::string>();
  r.config = j["config"].get<std::string>();
  if (!j.contains("ms") || !j["ms"].is_number()) return "a record has no number `ms`";
  r.ms = j["ms"].get<double>();
  for (const char *key : {"sizes", "pinned"}) {
    if (!j.contains(key) || !j[key].is_object()) return std::string("a record has no object `") + key + "`";
    auto &into = std::string(key) == "sizes" ? r.key.sizes : r.key.pinned;
    for (auto it = j[key].begin(); it != j[key].end(); ++it) {
      if (!it.value().is_number_integer()) return std::string("`") + key + "." + it.key() + "` is not an integer";
      into[it.key()] = it.value().get<int64_t>();
    }
  }
  if (!j.contains("inputs") || !j["inputs"].is_object()) return "a record has no object `inputs`";
  for (auto it = j["inputs"].begin(); it != j["inputs"].end(); ++it) {
    if (!it.value().is_array()) return "`inputs." + it.key() + "` is not a shape";
    std::vector<int64_t> shape;
    for (const json &d : it.value()) {
      if (!d.is_number_integer()) return "`inputs." + it.key() + "` is not a shape";
      shape.push_back(d.get<int64_t>());
    }
    r.key.inputs[it.key()] = shape;
  }
  return "";
}

std::string readTuning(const std::string &path, std::vector<TuningRecord> &out, bool *otherVersion) {
  out.clear();
  if (otherVersion) *otherVersion = false;
  std::ifstream in(path);
  if (!in) return access(path.c_str(), F_OK) == 0 ? "cannot read `" + path + "`" : "";
  std::stringstream text;
  text << in.rdbuf();
  json doc = json::parse(text.str(), nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) return "`" + path + "` is not JSON";
  if (!doc.is_object() || !doc.contains("format") || !doc["format"].is_string() || doc["format"] != kFormat ||
      !doc.contains("version") || !doc["version"].is_number_integer())
    return "`" + path + "` is not a ph-tuning document";
  if (doc["version"].get<int64_t>() != kVersion) {
    if (otherVersion) *otherVersion = true;
    return "`" + path + "` is ph-tuning version " + doc["version"].dump() + "; this ph-run reads " +
           std::to_string(kVersion);
  }
  if (!doc.contains("records") || !doc["records"].is_array()) return "`" + path + "` has no `records` array";
  for (const json &j : doc["records"]) {
    TuningRecord r;
    if (std::string e = recordFrom(j, r); !e.empty()) {
      out.clear();
      return "`" + path + "`: " + e;
    }
    out.push_back(std::move(r));
  }
  return "";
}

std::string writeTuning(const std::string &path, const std::vector<TuningRecord> &records) {
  json doc = {{"format", kFormat}, {"version", kVersion}, {"records", json::array()}};
  for (const TuningRecord &r : records) doc["records"].push_back(recordJson(r));
  // A temporary file of its own (mkstemp), renamed over the old one: readers see one or the other.
  std::string tmp = path + ".XXXXXX";
  int fd = mkstemp(tmp.data());
  if (fd < 0) return "cannot write a temporary file beside `" + path + "`";
  std::string text = doc.dump(2) + "\n";
  bool written = ::write(fd, text.data(), text.size()) == ssize_t(text.size());
  written = (::close(fd) == 0) && written;
  if (!written) {
    std::remove(tmp.c_str());
    return "cannot write `" + tmp + "`";
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    return "cannot rename `" + tmp + "` to `" + path + "`";
  }
  return "";
}

std::string recordTuning(const std::string &path, const TuningRecord &r, std::string &note) {
  note.clear();
  // One writer at a time: a tuning of another shape that finished meanwhile is re-read, not lost.
  std::string lockPath = path + ".lock";
  int lock = ::open(lockPath.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock < 0) return "cannot open `" + lockPath + "`";
  ::flock(lock, LOCK_EX);
  std::vector<TuningRecord> records;
  bool otherVersion = false;
  std::string e = readTuning(path, records, &otherVersion);
  if (!e.empty()) {
    // Another version's file is another ph-run's to change; a damaged one is kept aside.
    if (otherVersion || std::rename(path.c_str(), (path + ".bad").c_str()) != 0) {
      ::close(lock);
      return e + "; nothing recorded";
    }
    note = e + "; kept as `" + path + ".bad`";
    records.clear();
  }
  upsertTuning(records, r);
  e = writeTuning(path, records);
  ::close(lock);
  return e;
}

void upsertTuning(std::vector<TuningRecord> &records, TuningRecord r) {
  for (TuningRecord &old : records)
    if (old.key == r.key) {
      old = std::move(r);
      return;
    }
  records.push_back(std::move(r));
}

const TuningRecord *findTuning(const std::vector<TuningRecord> &records, const TuningKey &key) {
  for (const TuningRecord &r : records)
    if (r.key == key) return &r;
  return nullptr;
}

std::string preferTuned(std::vector<const Variant *> &variants, const std::vector<TuningRecord> &records,
                        const TuningKey &key, const std::string &path) {
  const TuningRecord *r = findTuning(records, key);
  if (!r) return "";
  auto at = std::find_if(variants.begin(), variants.end(),
                         [&](const Variant *v) { return v->meta.sig.configName() == r->config; });
  char ms[32];
  std::snprintf(ms, sizeof ms, "%.4f", r->ms);
  if (at == variants.end())
    return "warning: " + path + " names [" + r->config + "], which this build does not have; running [" +
           (variants.empty() ? std::string("-") : variants.front()->meta.sig.configName()) + "]";
  std::rotate(variants.begin(), at, at + 1);
  return "note: [" + r->config + "], tuned for this shape on " + r->key.device + " (" + ms + " ms; " + path + ")";
}

} // namespace ph::rt
