//===- Options.cpp - The one option parser of ph run, ph bench and ph-run --===//
#include "ph/Runtime/Tool.h"

#include "ph/Npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>

namespace ph::rt {

const char *kToolOptionsHelp =
    "  --kernel K          the kernel (default: the only one)\n"
    "  --config BR=64,...  only the autotune configurations that agree\n"
    "  --size N=4096       bind a size symbol (repeatable)\n"
    "  --arg scale=0.125   a scalar argument (repeatable; default 1/sqrt(D) for `scale`)\n"
    "  --in Q=q.npy        an input from a .npy file (default: uniform [-1, 1) from --seed)\n"
    "  --out O=o.npy       write a result to a .npy file\n"
    "  --ref O=r.npy       compare a result with a .npy file (e.g. PyTorch's)\n"
    "  --seed S            random inputs' seed (default 0)\n"
    "  --check             compare every result with the fp64 interpreter on the same inputs\n"
    "                      (ph::compareOutputs: relative error within 1e-4 f32, 3e-3 f16, 1e-2 bf16)\n"
    "  --bench             time every configuration: warm-up, then the median of CUDA-event timed\n"
    "                      launches over fresh random input sets, with FLOP/s or GB/s\n"
    "  --warmup N --iters N  benchmark launches (default 10 and 100)\n"
    "  --min-ms T          keep timing launches until T ms were timed, up to 10x --iters\n"
    "                      (default 200; 0: exactly --iters launches)\n"
    "  --json              one ph-output document on stdout (docs/output.md)\n"
    "  --timeout S         stop the run after S seconds, exit code 124 (default 600; 0: no limit)\n";

namespace {

bool splitPair(const std::string &s, std::string &name, std::string &value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) return false;
  name = s.substr(0, eq);
  value = s.substr(eq + 1);
  return true;
}

bool parseInt(const std::string &s, int64_t &out) {
  if (s.empty()) return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 0);
  if (errno || !end || *end) return false;
  out = v;
  return true;
}

bool parseDouble(const std::string &s, double &out) {
  if (s.empty()) return false;
  char *end = nullptr;
  out = std::strtod(s.c_str(), &end);
  return end && !*end;
}

struct Spec {
  const char *name;
  unsigned set;
  bool takesValue;
};
const Spec kSpecs[] = {
    {"--kernel", kRunOptions, true},  {"-k", kRunOptions, true},         {"--config", kRunOptions, true},
    {"--size", kRunOptions, true},    {"--arg", kRunOptions, true},      {"--in", kRunOptions, true},
    {"--out", kRunOptions, true},     {"--seed", kRunOptions, true},     {"--check", kRunOptions, false},
    {"--json", kRunOptions, false},   {"--target", kTargetOption, true}, {"--ref", kRefOption, true},
    {"--bench", kBenchOptions, false}, {"--warmup", kBenchOptions, true}, {"--iters", kBenchOptions, true},
    {"--min-ms", kBenchOptions, true},
    {"--timeout", kTimeoutOption, true}, {"--info", kInfoOption, false},
};

} // namespace

std::string parseToolOptions(const std::vector<std::string> &args, ToolOptions &opt, std::vector<std::string> &rest,
                             unsigned accepted) {
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], inline_;
    bool hasInline = false;
    if (a.rfind("--", 0) == 0)
      if (size_t eq = a.find('='); eq != std::string::npos) {
        inline_ = a.substr(eq + 1);
        a = a.substr(0, eq);
        hasInline = true;
      }
    const Spec *spec = nullptr;
    for (const Spec &s : kSpecs)
      if (a == s.name && (s.set & accepted)) spec = &s;
    if (!spec) {
      rest.push_back(args[i]);
      continue;
    }
    if (!spec->takesValue) {
      if (hasInline) return "`" + a + "` takes no value";
      if (a == "--check") opt.check = true;
      else if (a == "--json") opt.json = true;
      else if (a == "--bench") opt.bench = true;
      else opt.info = true;
      continue;
    }
    std::string v;
    if (hasInline) v = inline_;
    else if (i + 1 < args.size()) v = args[++i];
    else return "`" + a + "` needs a value";
    std::string name, val;
    int64_t n = 0;
    if (a == "--kernel" || a == "-k") {
      opt.kernel = v;
    } else if (a == "--target") {
      opt.target = v;
    } else if (a == "--size") {
      if (!splitPair(v, name, val) || !parseInt(val, n) || n < 0)
        return "`--size` takes NAME=INTEGER, found `" + v + "`";
      opt.request.sizes[name] = n;
    } else if (a == "--config") {
      size_t pos = 0;
      while (true) {
        size_t comma = v.find(',', pos);
        std::string item = v.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
        if (!splitPair(item, name, val) || !parseInt(val, n))
          return "`--config` takes NAME=INTEGER[,NAME=INTEGER...], found `" + item + "`";
        opt.config.emplace_back(name, n);
        if (comma == std::string::npos) break;
        pos = comma + 1;
      }
    } else if (a == "--arg") {
      double d = 0;
      if (!splitPair(v, name, val) || !parseDouble(val, d)) return "`--arg` takes NAME=NUMBER, found `" + v + "`";
      opt.request.scalars[name] = d;
    } else if (a == "--in" || a == "--out" || a == "--ref") {
      if (!splitPair(v, name, val)) return "`" + a + "` takes NAME=FILE.npy, found `" + v + "`";
      if (a == "--in") opt.inPaths.emplace_back(name, val);
      else (a == "--out" ? opt.outPaths : opt.refPaths)[name] = val;
    } else if (a == "--seed") {
      if (!parseInt(v, n)) return "`--seed` takes an integer, found `" + v + "`";
      opt.request.seed = static_cast<uint64_t>(n);
    } else if (a == "--warmup" || a == "--iters") {
      if (!parseInt(v, n) || n < (a == "--iters" ? 1 : 0) || n > 1000000)
        return "`" + a + "` takes a count" + (a == "--iters" ? " from 1" : "") + ", found `" + v + "`";
      (a == "--warmup" ? opt.benchOptions.warmup : opt.benchOptions.iterations) = int(n);
    } else if (a == "--min-ms") {
      double t = 0;
      if (!parseDouble(v, t) || !(t >= 0) || t > 1e7) return "`--min-ms` takes milliseconds from 0, found `" + v + "`";
      opt.benchOptions.minTimeMs = t;
    } else if (a == "--timeout") {
      double t = 0;
      if (!parseDouble(v, t) || !(t >= 0)) return "`--timeout` takes a number of seconds, found `" + v + "`";
      opt.timeoutSeconds = t;
    }
  }
  return "";
}

std::string readInputs(ToolOptions &opt) {
  for (auto &[name, path] : opt.inPaths) {
    HostTensor t;
    if (std::string e = npy::read(path, t); !e.empty()) return e;
    opt.request.inputs[name] = std::move(t);
  }
  return "";
}

} // namespace ph::rt
