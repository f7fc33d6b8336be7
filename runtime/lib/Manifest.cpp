//===- Manifest.cpp - manifest.json, ptxas reports, file helpers ----------===//
#include "ph/Runtime/Manifest.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <fstream>
#include <regex>
#include <sstream>

namespace ph::rt {

using json = nlohmann::ordered_json;

PtxasReport parsePtxasReport(const std::string &log, const std::string &symbol) {
  PtxasReport r;
  r.log = log;
  // ptxas prints a block per entry: "Compiling entry function 'k' ...",
  // "Function properties for k", the stack/spill line, then "Used N registers".
  std::istringstream in(log);
  std::string line;
  bool mine = symbol.empty();
  static const std::regex entry(R"(Compiling entry function '([^']+)')");
  static const std::regex props(R"(Function properties for (\S+))");
  static const std::regex stack(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex regs(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, m, entry) || std::regex_search(line, m, props)) {
      mine = symbol.empty() || m[1] == symbol;
      continue;
    }
    if (!mine) continue;
    if (std::regex_search(line, m, stack)) {
      r.stackBytes = std::stoi(m[1]);
      r.spillStores = std::stoi(m[2]);
      r.spillLoads = std::stoi(m[3]);
    }
    if (std::regex_search(line, m, regs)) r.registers = std::stoi(m[1]);
    if (std::regex_search(line, m, smem)) r.sharedBytes = std::stoi(m[1]);
  }
  return r;
}

std::vector<const ManifestKernel *> Manifest::find(const std::string &name) const {
  std::vector<const ManifestKernel *> out;
  for (const ManifestKernel &k : kernels)
    if (name.empty() || k.sig.name == name) out.push_back(&k);
  return out;
}

std::vector<std::string> Manifest::kernelNames() const {
  std::vector<std::string> out;
  for (const ManifestKernel &k : kernels)
    if (out.empty() || out.back() != k.sig.name) out.push_back(k.sig.name);
  return out;
}

kir::Kernel signatureOf(const kir::Kernel &k) {
  kir::Kernel s;
  s.name = k.name;
  s.loc = k.loc;
  s.config = k.config;
  s.params = k.params;
  s.tensors = k.tensors;
  s.scalars = k.scalars;
  s.sizes = k.sizes;
  for (int i = 0; i < 3; ++i) {
    s.grid[i] = k.grid[i];
    s.gridText[i] = k.gridText[i];
  }
  s.threads = k.threads;
  s.tensorcore = k.tensorcore;
  return s;
}

static std::string elemString(Elem e) { return elemName(e); }

static Elem elemFrom(const std::string &s) {
  Elem e = Elem::F32;
  if (!parseElem(s, e)) throw std::runtime_error("unknown element type `" + s + "`");
  return e;
}

static json kernelToJson(const ManifestKernel &mk) {
  const kir::Kernel &k = mk.sig;
  json j;
  j["name"] = k.name;
  j["symbol"] = mk.symbol;
  j["cubin"] = mk.cubin;
  json cfg = json::array();
  for (auto &[n, v] : k.config) cfg.push_back({{"name", n}, {"value", v}});
  j["config"] = cfg;
  j["configName"] = k.configName();
  j["threads"] = k.threads;
  json grid = json::array();
  for (int i = 0; i < 3; ++i)
    grid.push_back({{"fromSize", k.grid[i].fromSize},
                    {"size", k.grid[i].size},
                    {"divisor", k.grid[i].divisor},
                    {"constant", k.grid[i].constant},
                    {"text", k.gridText[i]}});
  j["grid"] = grid;
  j["dynamicShared"] = mk.dynamicShared;
  j["registers"] = mk.ptxas.registers;
  j["staticShared"] = mk.ptxas.sharedBytes;
  j["stackBytes"] = mk.ptxas.stackBytes;
  j["spillStores"] = mk.ptxas.spillStores;
  j["spillLoads"] = mk.ptxas.spillLoads;
  j["ptxasLog"] = mk.ptxas.log;
  j["unit"] = mk.unit;
  j["tensorcore"] = k.tensorcore;
  j["notes"] = mk.notes;
  json tiles = json::array();
  for (const TilePlacement &t : mk.tiles)
    tiles.push_back({{"type", t.type}, {"file", t.at.file}, {"line", t.at.line}, {"col", t.at.col},
                     {"endLine", t.at.endLine}, {"endCol", t.at.endCol}, {"placement", t.placement}, {"detail", t.detail}});
  j["tiles"] = tiles;
  json tma = json::array();
  for (const TmaDescriptor &d : mk.tma) tma.push_back({{"tensor", d.tensor}, {"box", d.box}, {"swizzle", d.swizzleBytes}});
  j["tma"] = tma;
  if (mk.persistent) j["persistent"] = true;
  json tensors = json::array();
  for (const kir::TensorParam &t : k.tensors) {
    json dims = json::array();
    for (const kir::TensorDim &d : t.dims) dims.push_back({{"value", d.value}, {"size", d.size}, {"sym", d.sym}});
    tensors.push_back({{"name", t.name}, {"elem", elemString(t.elem)}, {"dims", dims},
                       {"read", t.read}, {"written", t.written}});
  }
  j["tensors"] = tensors;
  json scalars = json::array();
  for (const kir::ScalarParam &s : k.scalars) scalars.push_back({{"name", s.name}, {"elem", elemString(s.elem)}});
  j["scalars"] = scalars;
  json sizes = json::array();
  for (const kir::SizeSym &s : k.sizes) sizes.push_back({{"name", s.name}, {"alignedTo", s.alignedTo}});
  j["sizes"] = sizes;
  json params = json::array();
  for (const kir::ParamRef &p : k.params) params.push_back({{"tensor", p.isTensor}, {"index", p.index}});
  j["params"] = params;
  // The launch ABI, spelled out for anyone loading the cubin by hand.
  j["abi"] = "tensors as 64-bit device pointers in `tensors` order, then every size as i32 in `sizes` "
             "order, then the scalars (f32, or i32) in `scalars` order, then one 64-bit device pointer to a "
             "128-byte TMA tensor map per `tma` entry (docs/abi.md)";
  return j;
}

static ManifestKernel kernelFromJson(const json &j) {
  ManifestKernel mk;
  kir::Kernel &k = mk.sig;
  k.name = j.at("name").get<std::string>();
  mk.symbol = j.at("symbol").get<std::string>();
  mk.cubin = j.at("cubin").get<std::string>();
  for (const json &c : j.at("config")) k.config.emplace_back(c.at("name").get<std::string>(), c.at("value").get<int64_t>());
  k.threads = j.at("threads").get<int>();
  const json &grid = j.at("grid");
  for (int i = 0; i < 3 && i < int(grid.size()); ++i) {
    k.grid[i].fromSize = grid[i].at("fromSize").get<bool>();
    k.grid[i].size = grid[i].at("size").get<uint32_t>();
    k.grid[i].divisor = grid[i].at("divisor").get<int64_t>();
    k.grid[i].constant = grid[i].at("constant").get<int64_t>();
    k.gridText[i] = grid[i].value("text", "");
  }
  mk.dynamicShared = j.at("dynamicShared").get<int>();
  mk.ptxas.registers = j.value("registers", 0);
  mk.ptxas.sharedBytes = j.value("staticShared", 0);
  mk.ptxas.stackBytes = j.value("stackBytes", 0);
  mk.ptxas.spillStores = j.value("spillStores", 0);
  mk.ptxas.spillLoads = j.value("spillLoads", 0);
  mk.ptxas.log = j.value("ptxasLog", "");
  mk.unit = j.value("unit", "simt");
  mk.persistent = j.value("persistent", false);
  k.tensorcore = j.value("tensorcore", false);
  if (j.contains("notes")) mk.notes = j.at("notes").get<std::vector<std::string>>();
  if (j.contains("tiles"))
    for (const json &t : j.at("tiles"))
      mk.tiles.push_back({t.at("type").get<std::string>(),
                          {t.value("file", ""), t.value("line", 0), t.value("col", 0), t.value("endLine", 0),
                           t.value("endCol", 0)},
                          t.at("placement").get<std::string>(), t.value("detail", "")});
  if (j.contains("tma"))
    for (const json &t : j.at("tma"))
      mk.tma.push_back({t.at("tensor").get<uint32_t>(), t.at("box").get<std::vector<int64_t>>(), t.value("swizzle", 128)});
  for (const json &t : j.at("tensors")) {
    kir::TensorParam tp;
    tp.name = t.at("name").get<std::string>();
    tp.elem = elemFrom(t.at("elem").get<std::string>());
    for (const json &d : t.at("dims"))
      tp.dims.push_back({d.at("value").get<int64_t>(), d.at("size").get<uint32_t>(), d.at("sym").get<std::string>()});
    tp.read = t.value("read", true);
    tp.written = t.value("written", false);
    k.tensors.push_back(std::move(tp));
  }
  for (const json &s : j.at("scalars"))
    k.scalars.push_back({s.at("name").get<std::string>(), elemFrom(s.at("elem").get<std::string>())});
  for (const json &s : j.at("sizes"))
    k.sizes.push_back({s.at("name").get<std::string>(), s.at("alignedTo").get<int64_t>()});
  for (const json &p : j.at("params"))
    k.params.push_back({p.at("tensor").get<bool>(), p.at("index").get<uint32_t>()});
  return mk;
}

std::string toJson(const Manifest &m) {
  json j;
  j["format"] = Manifest::kFormat;
  j["compiler"] = m.compiler;
  j["target"] = m.target;
  j["source"] = {{"path", m.source.path}, {"text", m.source.text}};
  json prelude = json::array();
  for (const SourceText &s : m.prelude) prelude.push_back({{"path", s.path}, {"text", s.text}});
  j["prelude"] = prelude;
  json kernels = json::array();
  for (const ManifestKernel &k : m.kernels) kernels.push_back(kernelToJson(k));
  j["kernels"] = kernels;
  return j.dump(2) + "\n";
}

std::string fromJson(const std::string &text, Manifest &out) {
  try {
    json j = json::parse(text);
    if (j.value("format", "") != Manifest::kFormat)
      return "not a Ph build manifest (format `" + j.value("format", "") + "`, expected `" +
             Manifest::kFormat + "`)";
    out = Manifest();
    out.compiler = j.value("compiler", "");
    out.target = j.at("target").get<std::string>();
    if (j.contains("source")) {
      out.source.path = j["source"].value("path", "");
      out.source.text = j["source"].value("text", "");
    }
    if (j.contains("prelude"))
      for (const json &s : j["prelude"]) out.prelude.push_back({s.value("path", ""), s.value("text", "")});
    for (const json &k : j.at("kernels")) out.kernels.push_back(kernelFromJson(k));
  } catch (const std::exception &e) {
    return std::string("cannot read the manifest: ") + e.what();
  }
  return "";
}

std::string readFile(const std::string &path, std::vector<uint8_t> &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "cannot open `" + path + "`";
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return "";
}

std::string readTextFile(const std::string &path, std::string &out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return "cannot open `" + path + "`";
  out.assign(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
  return "";
}

std::string writeFile(const std::string &path, const void *data, size_t bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  if (!f) return "cannot write `" + path + "`";
  f.write(static_cast<const char *>(data), std::streamsize(bytes));
  return f ? "" : "cannot write `" + path + "`";
}

std::string writeManifest(const std::string &dir, const Manifest &m) {
  std::string text = toJson(m);
  return writeFile(dir + "/manifest.json", text.data(), text.size());
}

std::string readManifest(const std::string &dir, Manifest &out) {
  std::string text;
  if (std::string e = readTextFile(dir + "/manifest.json", text); !e.empty())
    return e + " (is `" + dir + "` a folder made by `ph build`?)";
  return fromJson(text, out);
}

std::string variantFileName(const kir::Kernel &k, const std::string &ext) {
  std::string name = k.name;
  if (!k.config.empty()) {
    name += ".";
    for (size_t i = 0; i < k.config.size(); ++i) {
      if (i) name += "_";
      name += k.config[i].first + std::to_string(k.config[i].second);
    }
  }
  return name + "." + ext;
}

} // namespace ph::rt

namespace ph::rt {

void launchGrid(const ManifestKernel &mk, const int64_t grid[3], int smCount, int ctasPerSM, int64_t out[3]) {
  for (int i = 0; i < 3; ++i) out[i] = grid[i];
  int64_t tiles = grid[0] * grid[1] * grid[2];
  // No tile at all: the grid as it is, which the launch refuses as for any kernel.
  if (!mk.persistent || tiles < 1) return;
  int64_t resident = int64_t(std::max(1, smCount)) * std::max(1, ctasPerSM);
  out[0] = std::min(tiles, resident);
  out[1] = out[2] = 1;
}

} // namespace ph::rt
