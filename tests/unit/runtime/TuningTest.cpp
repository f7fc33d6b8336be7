// DIR/tuning.json (ph-run --tune): records by kernel, device and shape, the file's round trip,
// what a damaged file gives, and the written document against docs/schema/ph-tuning-v1.json.
#include "ph/Runtime/Tuning.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

using namespace ph::rt;
using json = nlohmann::json;

namespace {

std::string tempDir() {
  std::string d = std::filesystem::temp_directory_path() / ("ph-tuning-test-" + std::to_string(getpid()));
  std::filesystem::create_directories(d);
  return d;
}

void writeText(const std::string &path, const std::string &text) { std::ofstream(path) << text; }

TuningRecord record(const std::string &device, int64_t n, const std::string &config, double ms) {
  TuningRecord r;
  r.key.kernel = "mha_f16";
  r.key.device = device;
  r.key.sizes = {{"B", 1}, {"H", 1}, {"N", n}};
  r.key.pinned = {{"D", 64}};
  r.config = config;
  r.ms = ms;
  return r;
}

/// The problems of `v` against `s` (the keywords docs/schema/ph-tuning-v1.json uses; an unknown
/// keyword is a problem too).
void validate(const json &v, const json &s, const json &root, const std::string &at, std::vector<std::string> &out) {
  if (s.contains("$ref")) {
    std::string ref = s["$ref"];
    if (ref.rfind("#/$defs/", 0) != 0) return out.push_back(at + ": a $ref outside $defs");
    return validate(v, root["$defs"][ref.substr(8)], root, at, out);
  }
  for (auto it = s.begin(); it != s.end(); ++it) {
    const std::string &k = it.key();
    if (k == "$schema" || k == "$id" || k == "title" || k == "description" || k == "$defs") continue;
    if (k == "type") {
      std::string t = it.value();
      bool ok = t == "object"    ? v.is_object()
                : t == "array"   ? v.is_array()
                : t == "string"  ? v.is_string()
                : t == "integer" ? v.is_number_integer()
                : t == "number"  ? v.is_number()
                                 : false;
      if (!ok) out.push_back(at + " is not " + t);
    } else if (k == "const") {
      if (v != it.value()) out.push_back(at + " is not " + it.value().dump());
    } else if (k == "minimum") {
      if (v.is_number() && v.get<double>() < it.value().get<double>()) out.push_back(at + " is below its minimum");
    } else if (k == "required") {
      for (const json &r : it.value())
        if (!v.contains(r.get<std::string>())) out.push_back(at + " lacks " + r.get<std::string>());
    } else if (k == "properties") {
      for (auto p = it.value().begin(); p != it.value().end(); ++p)
        if (v.contains(p.key())) validate(v[p.key()], p.value(), root, at + "." + p.key(), out);
    } else if (k == "additionalProperties") {
      const json props = s.value("properties", json::object());
      for (auto p = v.begin(); v.is_object() && p != v.end(); ++p) {
        if (props.contains(p.key())) continue;
        if (!it.value().is_boolean()) validate(p.value(), it.value(), root, at + "." + p.key(), out);
        else if (!it.value().get<bool>()) out.push_back(at + " has " + p.key());
      }
    } else if (k == "items") {
      for (size_t i = 0; v.is_array() && i < v.size(); ++i)
        validate(v[i], it.value(), root, at + "[" + std::to_string(i) + "]", out);
    } else {
      out.push_back("the test does not know the schema keyword " + k);
    }
  }
}

std::vector<std::string> problems(const json &doc, const json &schema) {
  std::vector<std::string> out;
  validate(doc, schema, schema, "$", out);
  return out;
}

} // namespace

TEST(Tuning, RecordsRoundTripThroughTheFile) {
  std::string path = tuningPath(tempDir());
  std::vector<TuningRecord> rs = {record("NVIDIA H100 80GB HBM3", 16384, "D=64,BR=64,BC=128", 0.186),
                                  record("NVIDIA H100 80GB HBM3", 4096, "D=64,BR=128,BC=128", 0.031)};
  rs[1].key.inputs["Q"] = {4, 16, 4096, 64};
  ASSERT_EQ(writeTuning(path, rs), "");
  std::vector<TuningRecord> back;
  ASSERT_EQ(readTuning(path, back), "");
  ASSERT_EQ(back.size(), 2u);
  for (size_t i = 0; i < rs.size(); ++i) {
    EXPECT_EQ(back[i].key, rs[i].key);
    EXPECT_EQ(back[i].config, rs[i].config);
    EXPECT_DOUBLE_EQ(back[i].ms, rs[i].ms);
  }
  // No temporary file is left beside it.
  int files = 0;
  for (auto &e : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path())) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  std::filesystem::remove_all(std::filesystem::path(path).parent_path());
}

TEST(Tuning, AShapeFindsItsOwnRecordOnly) {
  std::vector<TuningRecord> rs;
  upsertTuning(rs, record("H100", 16384, "D=64,BR=64,BC=128", 0.19));
  upsertTuning(rs, record("H100", 4096, "D=64,BR=128,BC=128", 0.03));
  upsertTuning(rs, record("H100", 16384, "D=64,BR=128,BC=128", 0.18)); // re-tuned: replaces
  ASSERT_EQ(rs.size(), 2u);
  const TuningRecord *r = findTuning(rs, record("H100", 16384, "", 0).key);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->config, "D=64,BR=128,BC=128");
  EXPECT_FALSE(findTuning(rs, record("H200", 16384, "", 0).key));  // another device
  EXPECT_FALSE(findTuning(rs, record("H100", 8192, "", 0).key));   // another size
  TuningKey pinned = record("H100", 16384, "", 0).key;
  pinned.pinned["BR"] = 64;                                        // another --config
  EXPECT_FALSE(findTuning(rs, pinned));
  TuningKey given = record("H100", 16384, "", 0).key;
  given.inputs["Q"] = {1, 1, 16384, 64};                           // shapes from --in
  EXPECT_FALSE(findTuning(rs, given));
}

TEST(Tuning, TheKeyIsWhatTheCommandLineGives) {
  ToolOptions opt;
  opt.request.sizes = {{"N", 16384}, {"B", 1}};
  opt.config = {{"D", 64}};
  opt.request.inputs["Q"].shape = {1, 1, 16384, 64};
  TuningKey k = tuningKeyOf("mha_f16", "H100", opt);
  EXPECT_EQ(k.kernel, "mha_f16");
  EXPECT_EQ(k.device, "H100");
  EXPECT_EQ(k.sizes, (std::map<std::string, int64_t>{{"B", 1}, {"N", 16384}}));
  EXPECT_EQ(k.pinned, (std::map<std::string, int64_t>{{"D", 64}}));
  EXPECT_EQ(k.inputs.at("Q"), (std::vector<int64_t>{1, 1, 16384, 64}));
}

TEST(Tuning, AMissingFileHasNoRecordsAndADamagedOneSaysWhy) {
  std::string dir = tempDir();
  std::vector<TuningRecord> rs = {record("H100", 1, "x", 1)};
  EXPECT_EQ(readTuning(dir + "/none.json", rs), "");
  EXPECT_TRUE(rs.empty());
  struct Case {
    const char *text, *says;
  } cases[] = {
      {"{not json", "is not JSON"},
      {"[]", "is not a ph-tuning document"},
      {R"({"format": 1, "version": 1, "records": []})", "is not a ph-tuning document"},
      {R"({"format": "ph-tuning", "version": 4294967297, "records": []})", "version 4294967297"},
      {R"({"format": "ph-output", "version": 1, "records": []})", "is not a ph-tuning document"},
      {R"({"format": "ph-tuning", "version": 2, "records": []})", "version 2"},
      {R"({"format": "ph-tuning", "version": 1})", "no `records` array"},
      {R"({"format": "ph-tuning", "version": 1, "records": [{"kernel": "k"}]})", "no string `device`"},
      {R"({"format": "ph-tuning", "version": 1, "records": [{"kernel": "k", "device": "d", "config": "c", "ms": 1,
          "sizes": {"N": "big"}, "inputs": {}, "pinned": {}}]})",
       "`sizes.N` is not an integer"},
      {R"({"format": "ph-tuning", "version": 1, "records": [{"kernel": "k", "device": "d", "config": "c", "ms": 1,
          "sizes": {}, "inputs": {"Q": [1, "x"]}, "pinned": {}}]})",
       "`inputs.Q` is not a shape"},
  };
  for (const Case &c : cases) {
    writeText(dir + "/t.json", c.text);
    std::string e = readTuning(dir + "/t.json", rs);
    EXPECT_NE(e.find(c.says), std::string::npos) << c.text << " -> " << e;
    EXPECT_TRUE(rs.empty()) << c.text;
  }
  std::filesystem::remove_all(dir);
}

TEST(Tuning, TheWrittenFileFollowsTheSchema) {
  std::string dir = tempDir(), path = tuningPath(dir);
  TuningRecord r = record("NVIDIA H100 80GB HBM3", 16384, "D=64,BR=64,BC=128", 0.186);
  r.key.inputs["K"] = {1, 1, 16384, 64};
  ASSERT_EQ(writeTuning(path, {r, record("NVIDIA H200", 4096, "D=64,BR=128,BC=128", 0.5)}), "");
  std::ifstream in(path), schemaIn(std::string(PH_SOURCE_DIR) + "/docs/schema/ph-tuning-v1.json");
  ASSERT_TRUE(schemaIn);
  json doc = json::parse(in), schema = json::parse(schemaIn);
  EXPECT_EQ(problems(doc, schema), std::vector<std::string>{});
  // And the check refuses what it must.
  json extra = doc, slow = doc;
  extra["records"][0]["extra"] = 1;
  EXPECT_EQ(problems(extra, schema), std::vector<std::string>{"$.records[0] has extra"});
  slow["records"][1]["ms"] = "fast";
  EXPECT_EQ(problems(slow, schema), std::vector<std::string>{"$.records[1].ms is not number"});
  std::filesystem::remove_all(dir);
}

TEST(Tuning, ARunOfATunedShapeTakesTheRecordedConfigurationFirst) {
  auto variant = [](int64_t br) {
    Variant v;
    v.meta.sig.name = "mha_f16";
    v.meta.sig.config = {{"D", 64}, {"BR", br}, {"BC", 128}};
    return v;
  };
  std::vector<Variant> all = {variant(128), variant(64)};
  std::vector<const Variant *> chosen = {&all[0], &all[1]};
  std::vector<TuningRecord> rs = {record("H100", 16384, "D=64,BR=64,BC=128", 0.186)};
  // No record for this shape: the order stays, nothing is said.
  EXPECT_EQ(preferTuned(chosen, rs, record("H100", 4096, "", 0).key, "out/tuning.json"), "");
  EXPECT_EQ(chosen.front(), &all[0]);
  // The tuned shape: BR=64 first, and a note names it.
  std::string said = preferTuned(chosen, rs, record("H100", 16384, "", 0).key, "out/tuning.json");
  EXPECT_EQ(chosen.front(), &all[1]);
  EXPECT_EQ(said, "note: [D=64,BR=64,BC=128], tuned for this shape on H100 (0.1860 ms; out/tuning.json)");
  // A record naming a configuration the build lacks: the first one runs, with a warning.
  std::vector<const Variant *> only128 = {&all[0]};
  said = preferTuned(only128, rs, record("H100", 16384, "", 0).key, "out/tuning.json");
  EXPECT_EQ(only128.front(), &all[0]);
  EXPECT_EQ(said, "warning: out/tuning.json names [D=64,BR=64,BC=128], which this build does not have; running "
                  "[D=64,BR=128,BC=128]");
}

TEST(Tuning, RecordingKeepsTheOtherShapesAndSetsADamagedFileAside) {
  std::string dir = tempDir(), path = tuningPath(dir), note;
  // Two tunings of two shapes, one after the other: each re-reads the file, neither is lost.
  ASSERT_EQ(recordTuning(path, record("H100", 16384, "D=64,BR=64,BC=128", 0.19), note), "");
  ASSERT_EQ(recordTuning(path, record("H100", 4096, "D=64,BR=128,BC=128", 0.03), note), "");
  std::vector<TuningRecord> rs;
  ASSERT_EQ(readTuning(path, rs), "");
  EXPECT_EQ(rs.size(), 2u);
  EXPECT_EQ(note, "");
  // A damaged file is renamed to tuning.json.bad, and the new record starts a new file.
  writeText(path, "{damaged");
  ASSERT_EQ(recordTuning(path, record("H100", 8192, "D=64,BR=128,BC=128", 0.1), note), "");
  EXPECT_NE(note.find("kept as"), std::string::npos) << note;
  ASSERT_EQ(readTuning(path, rs), "");
  EXPECT_EQ(rs.size(), 1u);
  std::ifstream bad(path + ".bad");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(bad), {}), "{damaged");
  // Another version's file is another ph-run's: left as it is, nothing recorded.
  std::string v2 = R"({"format": "ph-tuning", "version": 2, "records": []})";
  writeText(path, v2);
  EXPECT_NE(recordTuning(path, record("H100", 8192, "x", 0.1), note).find("nothing recorded"), std::string::npos);
  std::ifstream kept(path);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(kept), {}), v2);
  std::filesystem::remove_all(dir);
}

TEST(Tuning, PinsAreAShapeInAnyOrder) {
  ToolOptions a, b;
  a.config = {{"BR", 64}, {"D", 64}};
  b.config = {{"D", 64}, {"BR", 64}};
  EXPECT_EQ(tuningKeyOf("k", "H100", a), tuningKeyOf("k", "H100", b));
}
