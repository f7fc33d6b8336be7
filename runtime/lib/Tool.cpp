//===- Tool.cpp - The shared behaviour of ph-run and ph bench -------------===//
#include "ph/Runtime/Tool.h"

#include "ph/Interpreter.h"
#include "ph/Npy.h"

#include "ph/Runtime/Report.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <chrono>
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
/// with --ref files (ph::compareOutputs, the rule of `ph run --check`); one line
/// per comparison goes to `text`. `check.passed` is false on any mismatch.
report::Check checkOutputs(const kir::Kernel &sig, const Bound &got, const Bound *ref, const ToolOptions &opt,
                           double referenceMs, std::string &text) {
  report::Check check;
  check.passed = true;
  check.reference = ref ? "interp" : "file";
  check.referenceMs = referenceMs;
  for (size_t i = 0; i < sig.tensors.size(); ++i) {
    if (!sig.tensors[i].written) continue;
    const std::string &name = sig.tensors[i].name;
    const HostTensor &out = *got.args.tensors[i];
    auto one = [&](const HostTensor &r, const std::string &against) {
      OutputComparison c = compareOutputs(out, r);
      check.passed = check.passed && c.passed;
      check.outputs.push_back(report::outputCheck(name, c, out.elem, against));
      text += "  " + name + " vs " + (against == "interp" ? "interpreter" : against) + ": " +
              (c.passed ? "ok, " : "MISMATCH, ") + comparisonSummary(c) + "\n";
    };
    if (ref) one(*ref->args.tensors[i], "interp");
    if (auto it = opt.refPaths.find(name); it != opt.refPaths.end()) {
      HostTensor r;
      if (std::string e = npy::read(it->second, r); !e.empty()) {
        check.passed = false;
        text += "  " + name + ": " + e + "\n";
      } else one(r, it->second);
    }
  }
  return check;
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
/// `ph run` takes them: rounded to bf16 for the parameters declared bf16. fp8 inputs
/// arrive as uint8 arrays of their bits (read as f8e4m3: taken as the parameter's
/// type) or as float32 or float16 arrays (rounded, saturating: ph/Fp8.h).
static LaunchRequest bf16FromF32(const kir::Kernel &sig, LaunchRequest req) {
  for (auto &[name, t] : req.inputs)
    for (const kir::TensorParam &p : sig.tensors) {
      if (p.name != name) continue;
      if (isFp8(p.elem) && isFp8(t.elem)) {
        t.elem = p.elem;
      } else if ((p.elem == Elem::BF16 && t.elem == Elem::F32) ||
                 (isFp8(p.elem) && (t.elem == Elem::F32 || t.elem == Elem::F16))) {
        HostTensor b = HostTensor::zeros(p.elem, t.shape);
        for (int64_t i = 0; i < t.numElements(); ++i) b.set(i, t.get(i));
        t = std::move(b);
      }
    }
  return req;
}

/// The random inputs bindLaunch would draw (splitmix64, one stream per tensor,
/// uniform in [-1, 1)), drawn on every core for tensors of 256 MiB or more: a
/// decode cache of 8.6 G elements takes minutes on one. Splitmix's state after
/// e draws is its seed plus e steps, so each thread starts where its slice
/// does, and the values are those of the serial stream.
void drawLargeInputs(const kir::Kernel &sig, LaunchRequest &req, std::vector<std::string> &drawn,
                     int64_t minBytes, std::map<std::string, HostTensor> *cache) {
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
    int64_t bytes = n * int64_t(elemBytes(p.elem));
    if (bytes < minBytes) continue;
    std::string key;
    if (cache && bytes < kLargeInputBytes) {
      key = std::to_string(req.seed) + "/" + p.name + "/" + elemName(p.elem) + "/" + shapeText(shape);
      if (auto hit = cache->find(key); hit != cache->end()) {
        req.inputs[p.name] = hit->second;
        drawn.push_back(p.name);
        continue;
      }
    }
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
    if (!key.empty()) (*cache)[key] = t;
    req.inputs[p.name] = std::move(t);
    drawn.push_back(p.name);
  }
}

int runOrBench(const std::vector<const Variant *> &variants, const ToolOptions &opt, const SourceManager *sources,
               BenchPick *best) {
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
    auto t0 = std::chrono::steady_clock::now();
    if (std::string e = runCubin(v.meta, v.cubin, b.args, &fa); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    // The launch with its copies in and out (as `ph run`'s time_ms), not a benchmark.
    double runMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    double refMs = 0;
    if (ref) {
      auto r0 = std::chrono::steady_clock::now();
      if (std::string e = interpret(*v.kernel, ref->args, io); !e.empty()) {
        std::cerr << "error: the interpreter failed: " << e << "\n";
        return 1;
      }
      refMs = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - r0).count();
    }
    std::string text;
    report::Check check = checkOutputs(sig, b, ref.get(), opt, refMs, text);
    bool ok = check.passed;
    if (std::string e = writeOutputs(sig, b, opt); !e.empty()) {
      std::cerr << "error: " << e << "\n";
      return 1;
    }
    if (opt.json) {
      // The ph-output document `ph run --json` writes (docs/output.md), with the device.
      report::Run run;
      run.kernel = sig.name;
      run.config = sig.configName();
      run.target = "gpu";
      run.grid = {b.args.grid[0], b.args.grid[1], b.args.grid[2]};
      run.threads = sig.threads;
      for (size_t i = 0; i < sig.sizes.size() && i < b.args.sizes.size(); ++i)
        run.sizes.emplace_back(sig.sizes[i].name, b.args.sizes[i]);
      for (size_t i = 0; i < sig.scalars.size() && i < b.args.scalars.size(); ++i)
        run.scalars.emplace_back(sig.scalars[i].name, b.args.scalars[i]);
      run.seed = opt.request.seed;
      run.timeMs = runMs;
      for (auto &[name, path] : opt.outPaths) run.outputs.emplace_back(name, path);
      if (ref || !opt.refPaths.empty()) run.check = check;
      run.device = dev.name;
      run.registers = fa.registers;
      run.sharedBytes = int64_t(v.meta.dynamicShared) + fa.staticShared;
      report::Document doc;
      doc.command = "run";
      doc.ok = ok;
      doc.diagnostics = opt.diagnostics;
      doc.runResult = std::move(run);
      std::cout << report::toJson(doc).dump(2) << "\n";
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
  std::vector<std::string> rowConfigs; // Kernel::configName of each row ("" without @autotune)
  bool allOk = true;
  json details = json::array();
  // Inputs of 1 MiB or more drawn on every core, once per set for all the configurations:
  // drawn serially for each one, [4, 16, 4096, 64]'s two sets took seconds a configuration.
  constexpr int64_t kParallelDraw = int64_t(1) << 20;
  std::map<std::string, HostTensor> drawCache;
  for (const Variant *v : variants) {
    const kir::Kernel &sig = v->meta.sig;
    std::vector<std::unique_ptr<Bound>> bound;
    bound.push_back(std::make_unique<Bound>());
    Bound &first = *bound.front();
    LaunchRequest req = bf16FromF32(sig, opt.request);
    std::vector<std::string> large, drawn;
    drawLargeInputs(sig, req, large);
    drawLargeInputs(sig, req, drawn, kParallelDraw, &drawCache);
    // A configuration the sizes do not suit (a tile that breaks an `@aligned`
    // promise, say) is left out of the table, as an autotuner would; only when
    // none suits is it an error.
    if (std::string e = bindLaunch(sig, req, first.storage, first.args); !e.empty()) {
      skipped.push_back("[" + sig.configName() + "] " + e);
      continue;
    }
    // Drawn inputs are at least 256 MiB, so one set already exceeds the L2 three times.
    for (const std::string &n : large) req.inputs.erase(n);
    for (const std::string &n : drawn) req.inputs.erase(n);
    int sets = opt.request.inputs.empty() && large.empty() ? inputSetsFor(sig, first.args) : 1;
    for (int s = 1; s < sets; ++s) {
      auto b = std::make_unique<Bound>();
      req.seed = opt.request.seed + 1000003ULL * uint64_t(s);
      std::vector<std::string> setDrawn;
      drawLargeInputs(sig, req, setDrawn, kParallelDraw, &drawCache);
      std::string e = bindLaunch(sig, req, b->storage, b->args);
      for (const std::string &n : setDrawn) req.inputs.erase(n);
      if (!e.empty()) {
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
    std::string text;
    report::Check check = checkOutputs(sig, *bound.front(), ref.get(), opt, 0, text);
    bool ok = check.passed;
    allOk = allOk && ok;
    BenchRow row = makeRow(sig.configName(), r, cost, v->meta, dev);
    if (!ref && opt.refPaths.empty()) row.check = "unchecked (too large for the interpreter; give --ref)";
    else {
      double worst = 0;
      for (const report::OutputCheck &c : check.outputs) worst = std::max(worst, c.relErr);
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
                       {"bytes", cost.bytes}, {"grid", {first.args.grid[0], first.args.grid[1], first.args.grid[2]}}});
    if (ref || !opt.refPaths.empty()) details.back()["check"] = report::checkJson(check);
    rows.push_back(row);
    rowConfigs.push_back(sig.configName());
  }
  if (rows.empty()) {
    for (const std::string &e : skipped) std::cerr << "error: " << e << "\n";
    return 1;
  }
  for (const std::string &e : skipped) std::cerr << "note: skipped " << e << "\n";
  if (best) {
    *best = {};
    best->timed = int(rows.size());
    bool any = false;
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].check.rfind("MISMATCH", 0) != 0 && (!any || rows[i].ms < best->ms)) {
        any = true;
        best->config = rowConfigs[i];
        best->ms = rows[i].ms;
        best->checked = rows[i].check.rfind("ok", 0) == 0;
      }
    if (!any) best->timed = 0;
  }
  if (opt.json) {
    // One ph-output document (docs/output.md), written by the runtime's writer.
    report::Document doc;
    doc.command = "bench";
    doc.ok = allOk;
    doc.diagnostics = opt.diagnostics;
    size_t fastest = 0; // rows is not empty here
    for (size_t i = 0; i < rows.size(); ++i)
      if (rows[i].ms < rows[fastest].ms) fastest = i;
    doc.benchResult = report::Bench{kernelName, report::benchDeviceOf(dev), rows, rows[fastest].config, details, skipped};
    std::cout << report::toJson(doc).dump(2) << "\n";
  } else {
    std::string sizes;
    for (auto &[n, x] : opt.request.sizes) sizes += (sizes.empty() ? "" : ", ") + n + "=" + std::to_string(x);
    std::cout << formatTable(rows, dev, kernelName + (sizes.empty() ? "" : " (" + sizes + ")"));
  }
  return allOk ? 0 : 1;
}

} // namespace ph::rt
