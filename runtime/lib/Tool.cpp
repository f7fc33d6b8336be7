//===- Tool.cpp - The shared behaviour of ph-run and ph bench -------------===//
#include "ph/Runtime/Tool.h"

#include "ph/Interpreter.h"
#include "ph/Npy.h"

#include "ph/Runtime/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <sys/time.h>
#include <thread>
#include <unistd.h>

namespace ph::rt {

using json = nlohmann::ordered_json;

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
    "  --bench             time every configuration: warm-up, then the median of CUDA-event timed\n"
    "                      launches over fresh random input sets, with FLOP/s or GB/s\n"
    "  --warmup N --iters N  benchmark launches (default 10 and 100)\n"
    "  --json              machine-readable output\n"
    "  --timeout S         stop the run after S seconds, exit code 124 (default 600; 0: no limit)\n";

static bool splitAssign(const std::string &s, std::string &name, std::string &value) {
  size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0) return false;
  name = s.substr(0, eq);
  value = s.substr(eq + 1);
  return true;
}

static std::string parseConfigList(const std::string &text, std::vector<std::pair<std::string, int64_t>> &out) {
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = text.find(',', pos);
    std::string item = text.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    std::string n, v;
    if (!splitAssign(item, n, v)) return "`--config` expects NAME=VALUE[,NAME=VALUE...], found `" + text + "`";
    char *end = nullptr;
    long long x = std::strtoll(v.c_str(), &end, 10);
    if (!end || *end) return "`--config " + text + "`: `" + v + "` is not an integer";
    out.emplace_back(n, x);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return "";
}

std::string parseToolOptions(const std::vector<std::string> &args, ToolOptions &opt,
                             std::vector<std::string> &rest) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &a = args[i];
    auto value = [&](std::string &out) -> bool {
      if (i + 1 >= args.size()) return false;
      out = args[++i];
      return true;
    };
    std::string v, n, x;
    if (a == "--check") opt.check = true;
    else if (a == "--bench") opt.bench = true;
    else if (a == "--json") opt.json = true;
    else if (a == "--info") opt.info = true;
    else if (a == "--kernel" || a == "--config" || a == "--size" || a == "--arg" || a == "--in" ||
             a == "--out" || a == "--ref" || a == "--seed" || a == "--warmup" || a == "--iters" ||
             a == "--timeout") {
      if (!value(v)) return "`" + a + "` needs a value";
      if (a == "--kernel") opt.kernel = v;
      else if (a == "--config") {
        if (std::string e = parseConfigList(v, opt.config); !e.empty()) return e;
      } else if (a == "--seed") opt.request.seed = std::strtoull(v.c_str(), nullptr, 10);
      else if (a == "--warmup") opt.benchOptions.warmup = std::atoi(v.c_str());
      else if (a == "--iters") opt.benchOptions.iterations = std::max(1, std::atoi(v.c_str()));
      else if (a == "--timeout") {
        char *end = nullptr;
        double t = std::strtod(v.c_str(), &end);
        if (!end || *end || !(t >= 0)) return "`--timeout " + v + "`: not a number of seconds";
        opt.timeoutSeconds = t;
      }
      else {
        if (!splitAssign(v, n, x)) return "`" + a + "` expects NAME=VALUE, found `" + v + "`";
        char *end = nullptr;
        if (a == "--size") {
          long long s = std::strtoll(x.c_str(), &end, 10);
          if (!end || *end || s < 0) return "`--size " + v + "`: `" + x + "` is not a size";
          opt.request.sizes[n] = s;
        } else if (a == "--arg") {
          double d = std::strtod(x.c_str(), &end);
          if (!end || *end) return "`--arg " + v + "`: `" + x + "` is not a number";
          opt.request.scalars[n] = d;
        } else if (a == "--in") {
          HostTensor t;
          if (std::string e = npy::read(x, t); !e.empty()) return e;
          opt.request.inputs[n] = std::move(t);
        } else if (a == "--out") opt.outPaths[n] = x;
        else opt.refPaths[n] = x;
      }
    } else rest.push_back(a);
  }
  return "";
}

std::vector<const Variant *> selectVariants(const std::vector<Variant> &all, const ToolOptions &opt) {
  std::vector<const Variant *> out;
  for (const Variant &v : all) {
    if (!opt.kernel.empty() && v.meta.sig.name != opt.kernel) continue;
    bool agrees = true;
    for (auto &[n, x] : opt.config)
      for (auto &[cn, cx] : v.meta.sig.config)
        if (cn == n && cx != x) agrees = false;
    if (agrees) out.push_back(&v);
  }
  return out;
}

int printDeviceInfo(bool asJson) {
  Cuda &cu = Cuda::get();
  if (!cu.available()) {
    if (asJson) std::cout << json{{"gpu", false}, {"reason", cu.whyUnavailable()}}.dump(2) << "\n";
    else std::cerr << cu.whyUnavailable() << "\n";
    return kExitNoGpu;
  }
  const DeviceInfo &d = cu.device();
  if (asJson) {
    std::cout << json{{"gpu", true},
                      {"name", d.name},
                      {"arch", d.arch()},
                      {"sms", d.smCount},
                      {"sharedPerBlockOptin", d.sharedPerBlockOptin},
                      {"sharedPerSM", d.sharedPerSM},
                      {"clockMHz", d.clockKHz / 1000},
                      {"memClockMHz", d.memClockKHz / 1000},
                      {"busWidthBits", d.busWidthBits},
                      {"l2Bytes", d.l2Bytes},
                      {"totalMem", d.totalMem},
                      {"driverVersion", d.driverVersion}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::printf("%s: %s, %d SMs, %d MHz, %.1f GiB, L2 %d KiB, shared memory %d B/block (opt-in %d), driver %d\n",
              d.name.c_str(), d.arch().c_str(), d.smCount, d.clockKHz / 1000, d.totalMem / 1073741824.0,
              d.l2Bytes / 1024, d.sharedPerBlock, d.sharedPerBlockOptin, d.driverVersion);
  std::printf("ceilings: %.0f GB/s memory, %.1f TFLOP/s FP32, %.0f TFLOP/s dense f16 tensor\n",
              d.peakBandwidth() / 1e9, d.peakFp32Flops() / 1e12, d.peakTensorF16Flops() / 1e12);
  return 0;
}

namespace {

/// Bound tensors that can be copied with their LaunchArgs.
struct Bound {
  std::vector<HostTensor> storage;
  LaunchArgs args;

  Bound() = default;
  Bound(const Bound &o) : storage(o.storage), args(o.args) {
    for (HostTensor *&t : args.tensors) t = &storage[size_t(t - o.storage.data())];
  }
  Bound &operator=(const Bound &) = delete;
};

std::string shapeText(const std::vector<int64_t> &s) {
  std::string out = "[";
  for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + "]";
}

/// Compares the written tensors of `got` with the interpreter's (`ref`) and
/// with --ref files; prints one line per comparison. Returns false on a mismatch.
bool checkOutputs(const kir::Kernel &sig, const Bound &got, const Bound *ref, const ToolOptions &opt,
                  json &report, std::string &text) {
  bool ok = true;
  for (size_t i = 0; i < sig.tensors.size(); ++i) {
    if (!sig.tensors[i].written) continue;
    const std::string &name = sig.tensors[i].name;
    const HostTensor &out = *got.args.tensors[i];
    auto one = [&](const HostTensor &r, const std::string &against) {
      Comparison c = compare(out, r);
      ok = ok && c.ok;
      report[name][against] = {{"ok", c.ok}, {"relL2", c.relL2}, {"maxAbs", c.maxAbs},
                               {"worst", c.worst}, {"nonFinite", c.nonFinite}, {"tolerance", c.tolerance}};
      text += "  " + name + " vs " + against + ": " + (c.ok ? "ok, " : "MISMATCH, ") + c.summary() + "\n";
    };
    if (ref) one(*ref->args.tensors[i], "interpreter");
    if (auto it = opt.refPaths.find(name); it != opt.refPaths.end()) {
      HostTensor r;
      if (std::string e = npy::read(it->second, r); !e.empty()) {
        ok = false;
        text += "  " + name + ": " + e + "\n";
      } else one(r, it->second);
    }
  }
  return ok;
}

std::string writeOutputs(const kir::Kernel &sig, const Bound &b, const ToolOptions &opt) {
  for (auto &[name, path] : opt.outPaths) {
    bool found = false;
    for (size_t i = 0; i < sig.tensors.size(); ++i)
      if (sig.tensors[i].name == name) {
        found = true;
        if (std::string e = npy::write(path, *b.args.tensors[i]); !e.empty()) return e;
      }
    if (!found) return "`--out " + name + "=...`: the kernel has no tensor `" + name + "`";
  }
  return "";
}

double interpWork(const KernelCost &c, const Bound &b) {
  double elems = 0;
  for (const HostTensor *t : b.args.tensors) elems += double(t->numElements());
  return c.dotFlops + c.elementwiseFlops + elems;
}

} // namespace

// The message is formatted when the watchdog is armed: a signal handler may
// only call async-signal-safe functions (write, _exit).
static char timeoutMessage[160];
static size_t timeoutMessageLength = 0;

static void onRunTimeout(int) {
  ssize_t ignored = ::write(2, timeoutMessage, timeoutMessageLength);
  (void)ignored;
  _exit(kExitTimeout);
}

void armRunTimeout(double seconds) {
  if (!(seconds > 0)) {
    itimerval off{};
    setitimer(ITIMER_REAL, &off, nullptr);
    return;
  }
  int n = std::snprintf(timeoutMessage, sizeof timeoutMessage,
                        "error: the run exceeded its time limit of %g s (--timeout); stopped\n", seconds);
  timeoutMessageLength = n > 0 ? std::min<size_t>(n, sizeof timeoutMessage - 1) : 0;
  struct sigaction sa {};
  sa.sa_handler = onRunTimeout;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGALRM, &sa, nullptr);
  itimerval t{};
  t.it_value.tv_sec = static_cast<time_t>(seconds);
  t.it_value.tv_usec = static_cast<suseconds_t>((seconds - static_cast<double>(t.it_value.tv_sec)) * 1e6);
  if (t.it_value.tv_sec == 0 && t.it_value.tv_usec == 0) t.it_value.tv_usec = 1;
  setitimer(ITIMER_REAL, &t, nullptr);
}

/// bf16 inputs arrive as float32 arrays (NumPy has no bfloat16, docs/running.md), as
/// `ph run` takes them: rounded to bf16 for the parameters declared bf16.
static LaunchRequest bf16FromF32(const kir::Kernel &sig, LaunchRequest req) {
  for (auto &[name, t] : req.inputs)
    for (const kir::TensorParam &p : sig.tensors)
      if (p.name == name && p.elem == Elem::BF16 && t.elem == Elem::F32) {
        HostTensor b = HostTensor::zeros(Elem::BF16, t.shape);
        for (int64_t i = 0; i < t.numElements(); ++i) b.set(i, t.get(i));
        t = std::move(b);
      }
  return req;
}

/// The random inputs bindLaunch would draw (splitmix64, one stream per tensor,
/// uniform in [-1, 1)), drawn on every core for tensors of 256 MiB or more: a
/// decode cache of 8.6 G elements takes minutes on one. Splitmix's state after
/// e draws is its seed plus e steps, so each thread starts where its slice
/// does, and the values are those of the serial stream.
void drawLargeInputs(const kir::Kernel &sig, LaunchRequest &req, std::vector<std::string> &drawn,
                     int64_t minBytes) {
  constexpr uint64_t kStep = 0x9E3779B97F4A7C15ull;
  for (size_t ti = 0; ti < sig.tensors.size(); ++ti) {
    const kir::TensorParam &p = sig.tensors[ti];
    if (p.elem == Elem::I32 || req.inputs.count(p.name) || !(p.read || !p.written)) continue;
    std::vector<int64_t> shape;
    bool known = true;
    for (const auto &d : p.dims) {
      if (d.value >= 0) {
        shape.push_back(d.value);
        continue;
      }
      auto it = req.sizes.find(sig.sizes[size_t(d.size)].name);
      if (it == req.sizes.end()) known = false;
      else shape.push_back(it->second);
    }
    if (!known) continue;
    HostTensor t;
    t.elem = p.elem;
    t.shape = shape;
    int64_t n = t.numElements();
    int64_t bytes = n * (p.elem == Elem::F16 || p.elem == Elem::BF16 ? 2 : 4);
    if (bytes < minBytes) continue;
    t.bytes.resize(size_t(bytes));
    uint64_t seed = req.seed * 0x2545F4914F6CDD1Dull + (ti + 1) * kStep;
    unsigned workers = std::max(1u, std::thread::hardware_concurrency());
    std::vector<std::thread> pool;
    for (unsigned w = 0; w < workers; ++w)
      pool.emplace_back([&, w] {
        int64_t lo = n * w / workers, hi = n * (w + 1) / workers;
        uint64_t state = seed + uint64_t(lo) * kStep;
        for (int64_t e = lo; e < hi; ++e) {
          uint64_t z = (state += kStep);
          z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
          z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
          z ^= z >> 31;
          t.set(e, static_cast<double>(z >> 11) * 0x1p-52 - 1.0);
        }
      });
    for (std::thread &th : pool) th.join();
    req.inputs[p.name] = std::move(t);
    drawn.push_back(p.name);
  }
}

int runOrBench(const std::vector<const Variant *> &variants, const ToolOptions &opt, const SourceManager *sources) {
  if (variants.empty()) {
    std::cerr << "error: no kernel variant matches the options\n";
    return 2;
  }
  Cuda &cu = Cuda::get();
  if (!cu.available()) {
    std::cerr << cu.whyUnavailable() << "\n";
    return kExitNoGpu;
  }
  armRunTimeout(opt.timeoutSeconds);
  const DeviceInfo &dev = cu.device();
  InterpOptions io;
  io.sources = sources;
  const std::string kernelName = variants.front()->meta.sig.name;

  if (!opt.bench) {
    const Variant &v = *variants.front();
    const kir::Kernel &sig = v.meta.sig;
    Bound b;
    if (std::string e = bindLaunch(sig, bf16FromF32(sig, opt.request), b.storage, b.args); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    std::unique_ptr<Bound> ref;
    if (opt.check) {
      if (!v.kernel) {
        std::cerr << "error: --check needs the kernel's source (the manifest has none)\n";
        return 1;
      }
      ref = std::make_unique<Bound>(b);
    }
    FuncAttributes fa;
    if (std::string e = runCubin(v.meta, v.cubin, b.args, &fa); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    if (ref)
      if (std::string e = interpret(*v.kernel, ref->args, io); !e.empty()) {
        std::cerr << "error: the interpreter failed: " << e << "\n";
        return 1;
      }
    json report;
    std::string text;
    bool ok = checkOutputs(sig, b, ref.get(), opt, report, text);
    if (std::string e = writeOutputs(sig, b, opt); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    if (opt.json) {
      json j{{"kernel", sig.name}, {"config", sig.configName()}, {"device", dev.name},
             {"grid", {b.args.grid[0], b.args.grid[1], b.args.grid[2]}}, {"threads", sig.threads},
             {"registers", fa.registers}, {"sharedBytes", v.meta.dynamicShared + fa.staticShared},
             {"checks", report}, {"ok", ok}};
      rt::report::addEnvelope(j, "run", ok, opt.diagnostics); // docs/output.md
      std::cout << j.dump(2) << "\n";
    } else {
      std::printf("%s [%s] on %s: grid (%lld, %lld, %lld) x %d threads, %d registers, %d B shared memory\n",
                  sig.name.c_str(), sig.configName().c_str(), dev.name.c_str(), (long long)b.args.grid[0],
                  (long long)b.args.grid[1], (long long)b.args.grid[2], sig.threads, fa.registers,
                  v.meta.dynamicShared + fa.staticShared);
      for (size_t i = 0; i < sig.tensors.size(); ++i) {
        if (!sig.tensors[i].written) continue;
        const HostTensor &t = *b.args.tensors[i];
        double s = 0;
        for (int64_t k = 0; k < t.numElements(); ++k) s += t.get(k) * t.get(k);
        std::printf("  %s: %s %s, L2 norm %.6g, first %.6g\n", sig.tensors[i].name.c_str(), elemName(t.elem),
                    shapeText(t.shape).c_str(), std::sqrt(s), t.numElements() ? t.get(0) : 0.0);
      }
      std::fputs(text.c_str(), stdout);
    }
    return ok ? 0 : 1;
  }

  // --bench: every configuration.
  std::vector<std::string> skipped;
  std::vector<BenchRow> rows;
  bool allOk = true;
  json details = json::array();
  for (const Variant *v : variants) {
    const kir::Kernel &sig = v->meta.sig;
    std::vector<std::unique_ptr<Bound>> bound;
    bound.push_back(std::make_unique<Bound>());
    Bound &first = *bound.front();
    LaunchRequest req = bf16FromF32(sig, opt.request);
    std::vector<std::string> drawn;
    drawLargeInputs(sig, req, drawn);
    // A configuration the sizes do not suit (a tile that breaks an `@aligned`
    // promise, say) is left out of the table, as an autotuner would; only when
    // none suits is it an error.
    if (std::string e = bindLaunch(sig, req, first.storage, first.args); !e.empty()) {
      skipped.push_back("[" + sig.configName() + "] " + e);
      continue;
    }
    // Drawn inputs are at least 256 MiB, so one set already exceeds the L2 three times.
    for (const std::string &n : drawn) req.inputs.erase(n);
    int sets = opt.request.inputs.empty() && drawn.empty() ? inputSetsFor(sig, first.args) : 1;
    for (int s = 1; s < sets; ++s) {
      auto b = std::make_unique<Bound>();
      req.seed = opt.request.seed + 1000003ULL * uint64_t(s);
      if (std::string e = bindLaunch(sig, req, b->storage, b->args); !e.empty()) {
        std::cerr << "error: " << e << "\n";
        return 1;
      }
      bound.push_back(std::move(b));
    }
    KernelCost cost = countCost(v->kernel ? *v->kernel : sig, first.args);
    bool interp = v->kernel && (opt.check || interpWork(cost, first) <= opt.interpLimit);
    std::unique_ptr<Bound> ref;
    if (interp) ref = std::make_unique<Bound>(first);
    std::vector<LaunchArgs> argSets;
    for (auto &b : bound) argSets.push_back(b->args);
    BenchResult r;
    if (std::string e = benchCubin(v->meta, v->cubin, argSets, opt.benchOptions, r); !e.empty()) {
      std::cerr << "error: [" << sig.configName() << "] " << e << "\n";
      return 1;
    }
    if (ref)
      if (std::string e = interpret(*v->kernel, ref->args, io); !e.empty()) {
        std::cerr << "error: the interpreter failed: " << e << "\n";
        return 1;
      }
    json report;
    std::string text;
    bool ok = checkOutputs(sig, *bound.front(), ref.get(), opt, report, text);
    allOk = allOk && ok;
    BenchRow row = makeRow(sig.configName(), r, cost, v->meta, dev);
    if (!ref && opt.refPaths.empty()) row.check = "unchecked (too large for the interpreter; give --ref)";
    else {
      double worst = 0;
      for (auto &[tname, against] : report.items())
        for (auto &[aname, c] : against.items()) worst = std::max(worst, c.value("relL2", 0.0));
      char buf[64];
      std::snprintf(buf, sizeof buf, "%s %.1e", ok ? "ok" : "MISMATCH", worst);
      row.check = buf;
    }
    if (!text.empty() && !opt.json) std::fputs(text.c_str(), stderr);
    if (std::string e = writeOutputs(sig, *bound.front(), opt); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    details.push_back({{"config", sig.configName()}, {"launches", r.launches}, {"inputSets", r.inputSets},
                       {"minMs", r.minMs}, {"maxMs", r.maxMs}, {"dotFlops", cost.dotFlops},
                       {"bytes", cost.bytes}, {"grid", {first.args.grid[0], first.args.grid[1], first.args.grid[2]}},
                       {"checks", report}});
    rows.push_back(row);
  }
  if (rows.empty()) {
    for (const std::string &e : skipped) std::cerr << "error: " << e << "\n";
    return 1;
  }
  for (const std::string &e : skipped) std::cerr << "note: skipped " << e << "\n";
  if (opt.json) {
    json j = json::parse(rowsToJson(rows, dev, kernelName));
    j["details"] = details;
    j["skipped"] = skipped;
    rt::report::addEnvelope(j, "bench", allOk, opt.diagnostics); // docs/output.md
    std::cout << j.dump(2) << "\n";
  } else {
    std::string sizes;
    for (auto &[n, x] : opt.request.sizes) sizes += (sizes.empty() ? "" : ", ") + n + "=" + std::to_string(x);
    std::cout << formatTable(rows, dev, kernelName + (sizes.empty() ? "" : " (" + sizes + ")"));
  }
  return allOk ? 0 : 1;
}

} // namespace ph::rt
