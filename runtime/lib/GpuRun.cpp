//===- GpuRun.cpp - Launching, timing and comparing built kernels ---------===//
#include "ph/Runtime/GpuRun.h"
#include "ph/Runtime/Report.h"
#include "ph/Runtime/TensorMap.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

namespace ph::rt {

namespace {

/// Device copies of one launch's tensors and the packed parameter values.
struct DeviceArgs {
  std::vector<DevicePtr> buffers;
  std::vector<uint64_t> ptrValues;
  std::vector<float> f32Values;
  std::vector<int32_t> i32Values;
  std::vector<void *> params;

  ~DeviceArgs() {
    for (DevicePtr p : buffers) Cuda::get().free(p);
  }

  std::string upload(const ManifestKernel &mk, const LaunchArgs &args) {
    const kir::Kernel &sig = mk.sig;
    Cuda &cu = Cuda::get();
    if (args.tensors.size() != sig.tensors.size()) return "internal error: tensor count differs from the kernel's";
    for (const HostTensor *t : args.tensors) {
      DevicePtr p = 0;
      if (std::string e = cu.alloc(p, t->bytes.size()); !e.empty()) return e;
      buffers.push_back(p);
      if (std::string e = cu.copyToDevice(p, t->bytes.data(), t->bytes.size()); !e.empty()) return e;
    }
    // The ABI (docs/abi.md): every tensor as a device pointer in
    // Kernel::tensors order, then every size as i32, then the scalars (f32,
    // or i32 for i32 scalars). Reserve first: params point into these vectors.
    ptrValues.reserve(sig.tensors.size() + mk.tma.size());
    f32Values.reserve(sig.scalars.size());
    i32Values.reserve(sig.sizes.size() + sig.scalars.size());
    for (DevicePtr p : buffers) {
      ptrValues.push_back(p);
      params.push_back(&ptrValues.back());
    }
    for (int64_t s : args.sizes) {
      if (s > INT32_MAX) return "a size of " + std::to_string(s) + " does not fit the kernel's 32-bit sizes";
      i32Values.push_back(int32_t(s));
      params.push_back(&i32Values.back());
    }
    for (size_t i = 0; i < sig.scalars.size(); ++i) {
      if (sig.scalars[i].elem == Elem::I32) {
        i32Values.push_back(int32_t(args.scalars[i]));
        params.push_back(&i32Values.back());
      } else {
        f32Values.push_back(float(args.scalars[i]));
        params.push_back(&f32Values.back());
      }
    }
    // Then each TMA tensor map, encoded over its tensor's device copy into a 128-byte
    // device buffer whose address is the parameter (docs/abi.md, "TMA descriptors").
    for (const TmaDescriptor &d : mk.tma) {
      if (d.tensor >= sig.tensors.size()) return "the manifest's TMA map names tensor " + std::to_string(d.tensor);
      TensorMapParams p;
      if (std::string e = tensorMapParams(d, sig.tensors[d.tensor], args.sizes, p); !e.empty()) return e;
      uint8_t map[128];
      if (std::string e = cu.encodeTensorMap(p, buffers[d.tensor], map); !e.empty()) return e;
      DevicePtr m = 0;
      if (std::string e = cu.alloc(m, sizeof map); !e.empty()) return e;
      buffers.push_back(m);
      if (std::string e = cu.copyToDevice(m, map, sizeof map); !e.empty()) return e;
      ptrValues.push_back(m);
      params.push_back(&ptrValues.back());
    }
    return "";
  }

  std::string download(const kir::Kernel &sig, const LaunchArgs &args) {
    for (size_t i = 0; i < sig.tensors.size(); ++i) {
      if (!sig.tensors[i].written) continue;
      HostTensor *t = args.tensors[i];
      if (std::string e = Cuda::get().copyToHost(t->bytes.data(), buffers[i], t->bytes.size()); !e.empty())
        return e;
    }
    return "";
  }
};

} // namespace

/// The SMs a persistent kernel's launch fills: the device's, or PH_RUN_PERSISTENT_SMS (a test's
/// few, so that a small check gives each CTA several tiles: docs/running.md).
static int persistentSMs() {
  if (const char *e = std::getenv("PH_RUN_PERSISTENT_SMS"); e && std::atoi(e) > 0) return std::atoi(e);
  return Cuda::get().device().smCount;
}

/// launchGrid for the sizes' `grid`; the SMs and the CTAs an SM are asked only for a persistent kernel.
static std::array<int64_t, 3> gridFor(const ManifestKernel &mk, const Module &mod, const int64_t grid[3]) {
  std::array<int64_t, 3> out;
  if (!mk.persistent) launchGrid(mk, grid, 0, 0, out.data());
  else launchGrid(mk, grid, persistentSMs(), mod.ctasPerSM(mk.sig.threads, mk.dynamicShared), out.data());
  return out;
}

std::string runCubin(const ManifestKernel &mk, const std::vector<uint8_t> &cubin, const LaunchArgs &args,
                     FuncAttributes *attrs) {
  Cuda &cu = Cuda::get();
  if (!cu.available()) return cu.whyUnavailable();
  std::string err;
  std::unique_ptr<Module> mod = Module::load(cubin, mk.symbol, mk.dynamicShared, err);
  if (!mod) return err;
  if (attrs) *attrs = mod->attributes();
  DeviceArgs dev;
  if (std::string e = dev.upload(mk, args); !e.empty()) return e;
  std::array<int64_t, 3> grid = gridFor(mk, *mod, args.grid);
  if (std::string e = mod->launch(grid.data(), mk.sig.threads, mk.dynamicShared, dev.params.data()); !e.empty())
    return e;
  if (std::string e = cu.synchronize(); !e.empty()) return e;
  return dev.download(mk.sig, args);
}

int inputSetsFor(const kir::Kernel &sig, const LaunchArgs &args, int cap) {
  double bytes = 0;
  for (const HostTensor *t : args.tensors) bytes += double(t->bytes.size());
  double l2 = Cuda::get().available() ? Cuda::get().device().l2Bytes : 50e6;
  if (bytes <= 0) return 1;
  int sets = int(std::ceil(3 * l2 / bytes));
  return std::clamp(sets, 1, cap);
}

std::string benchCubin(const ManifestKernel &mk, const std::vector<uint8_t> &cubin,
                       const std::vector<LaunchArgs> &argSets, const BenchOptions &opt, BenchResult &out) {
  Cuda &cu = Cuda::get();
  if (!cu.available()) return cu.whyUnavailable();
  if (argSets.empty()) return "internal error: no input set to time";
  std::string err;
  std::unique_ptr<Module> mod = Module::load(cubin, mk.symbol, mk.dynamicShared, err);
  if (!mod) return err;
  out.attrs = mod->attributes();
  std::vector<std::unique_ptr<DeviceArgs>> sets;
  for (const LaunchArgs &a : argSets) {
    sets.push_back(std::make_unique<DeviceArgs>());
    if (std::string e = sets.back()->upload(mk, a); !e.empty()) return e;
  }
  out.inputSets = int(sets.size());
  // Each set's launch grid, once, outside the timed launches.
  std::vector<std::array<int64_t, 3>> grids;
  for (const LaunchArgs &a : argSets) grids.push_back(gridFor(mk, *mod, a.grid));
  auto launch = [&](size_t i) {
    return mod->launch(grids[i % sets.size()].data(), mk.sig.threads, mk.dynamicShared,
                       sets[i % sets.size()]->params.data());
  };
  for (int i = 0; i < opt.warmup; ++i)
    if (std::string e = launch(size_t(i)); !e.empty()) return e;
  if (std::string e = cu.synchronize(); !e.empty()) return e;
  // One event pair per launch: the median of single launches, not a mean
  // over a batch, so a stray slow launch does not move the figure.
  std::vector<double> times;
  void *start = nullptr, *end = nullptr;
  if (std::string e = cu.eventCreate(start); !e.empty()) return e;
  if (std::string e = cu.eventCreate(end); !e.empty()) return e;
  double total = 0;
  int maxLaunches = std::max(opt.iterations, 1) * 10;
  for (int i = 0; i < maxLaunches; ++i) {
    if (i >= opt.iterations && total >= opt.minTimeMs) break;
    cu.eventRecord(start);
    if (std::string e = launch(size_t(i)); !e.empty()) return e;
    cu.eventRecord(end);
    float ms = 0;
    if (std::string e = cu.eventElapsedMs(start, end, ms); !e.empty()) return e;
    times.push_back(ms);
    total += ms;
  }
  cu.eventDestroy(start);
  cu.eventDestroy(end);
  if (std::string e = cu.synchronize(); !e.empty()) return e;
  std::sort(times.begin(), times.end());
  out.launches = int(times.size());
  out.minMs = times.front();
  out.maxMs = times.back();
  out.medianMs = times.size() % 2 ? times[times.size() / 2]
                                  : 0.5 * (times[times.size() / 2 - 1] + times[times.size() / 2]);
  // Every set was launched at least once (warm-up), so the first set's
  // outputs are the kernel's results on its inputs.
  return sets.front()->download(mk.sig, argSets.front());
}

//===----------------------------------------------------------------------===//
// Counting work from the IR
//===----------------------------------------------------------------------===//

namespace {

/// Walks one CTA's statements with integer scalars evaluated, counting dots.
class CostWalker {
public:
  CostWalker(const kir::Kernel &k, const LaunchArgs &args) : k_(k), args_(args), vars_(k.vars.size(), 0) {}

  void cta(int64_t bx, int64_t by, int64_t bz) {
    block_[0] = bx, block_[1] = by, block_[2] = bz;
    stmts(k_.body);
  }

  double dotFlops = 0, elementwise = 0;

private:
  int64_t eval(const kir::ExprPtr &e) {
    if (!e) return 0;
    switch (e->kind) {
    case kir::ExprKind::IntConst:
      return e->ival;
    case kir::ExprKind::FloatConst:
      return int64_t(e->fval);
    case kir::ExprKind::SizeArg:
      return e->index < args_.sizes.size() ? args_.sizes[e->index] : 0;
    case kir::ExprKind::ScalarArg:
      return e->index < args_.scalars.size() ? int64_t(args_.scalars[e->index]) : 0;
    case kir::ExprKind::BlockId:
      return block_[std::min<uint32_t>(e->index, 2)];
    case kir::ExprKind::VarRead:
      return e->index < vars_.size() ? vars_[e->index] : 0;
    case kir::ExprKind::Convert:
      return eval(e->operands[0]);
    case kir::ExprKind::Unary:
      return e->op == kir::Op::Neg ? -eval(e->operands[0]) : e->op == kir::Op::Not ? !eval(e->operands[0]) : eval(e->operands[0]);
    case kir::ExprKind::Compare: {
      int64_t a = eval(e->operands[0]), b = eval(e->operands[1]);
      switch (e->op) {
      case kir::Op::Lt: return a < b;
      case kir::Op::Le: return a <= b;
      case kir::Op::Gt: return a > b;
      case kir::Op::Ge: return a >= b;
      case kir::Op::Eq: return a == b;
      default: return a != b;
      }
    }
    case kir::ExprKind::Binary: {
      int64_t a = eval(e->operands[0]), b = eval(e->operands[1]);
      switch (e->op) {
      case kir::Op::Add: return a + b;
      case kir::Op::Sub: return a - b;
      case kir::Op::Mul: return a * b;
      case kir::Op::Div: return b ? a / b : 0;
      case kir::Op::Rem: return b ? a % b : 0;
      case kir::Op::Max: return std::max(a, b);
      case kir::Op::Min: return std::min(a, b);
      case kir::Op::And: return a && b;
      case kir::Op::Or: return a || b;
      default: return 0;
      }
    }
    default:
      return 0;
    }
  }

  /// Counts the tile work in an expression tree (evaluated once).
  void work(const kir::ExprPtr &e) {
    if (!e) return;
    for (const kir::ExprPtr &o : e->operands) work(o);
    if (e->kind == kir::ExprKind::Dot && e->operands.size() == 2) {
      const auto &a = e->operands[0]->type.shape, &b = e->operands[1]->type.shape;
      if (a.size() == 2 && b.size() == 2) {
        int64_t m = a[0], kk = a[1], n = e->transB ? b[0] : b[1];
        dotFlops += 2.0 * double(m) * double(n) * double(kk);
      }
    } else if (e->kind == kir::ExprKind::Binary || e->kind == kir::ExprKind::Unary ||
               e->kind == kir::ExprKind::RowReduce) {
      elementwise += double(std::max<int64_t>(1, e->kind == kir::ExprKind::RowReduce
                                                      ? e->operands[0]->type.numElements()
                                                      : e->type.numElements()));
    }
  }

  void stmts(const std::vector<kir::StmtPtr> &body) {
    for (const kir::StmtPtr &s : body) {
      switch (s->kind) {
      case kir::StmtKind::Decl:
      case kir::StmtKind::Assign:
        if (s->var < vars_.size() && k_.vars[s->var].type.isScalar()) vars_[s->var] = eval(s->value);
        work(s->value);
        break;
      case kir::StmtKind::AssignSlice:
      case kir::StmtKind::Store:
        work(s->value);
        break;
      case kir::StmtKind::For: {
        int64_t lo = eval(s->lo), hi = eval(s->hi), step = std::max<int64_t>(1, eval(s->step));
        for (int64_t i = lo; i < hi; i += step) {
          if (s->var < vars_.size()) vars_[s->var] = i;
          stmts(s->body);
        }
        break;
      }
      case kir::StmtKind::If:
        // The cost of the branch taken (conditions of sizes and loop counters evaluate here).
        work(s->value);
        stmts(eval(s->value) ? s->body : s->elseBody);
        break;
      }
    }
  }

  const kir::Kernel &k_;
  const LaunchArgs &args_;
  std::vector<int64_t> vars_;
  int64_t block_[3] = {0, 0, 0};
};

} // namespace

KernelCost countCost(const kir::Kernel &k, const LaunchArgs &args) {
  KernelCost c;
  for (size_t i = 0; i < k.tensors.size() && i < args.tensors.size(); ++i) {
    double b = double(args.tensors[i]->bytes.size());
    if (k.tensors[i].read) c.bytes += b;
    if (k.tensors[i].written) c.bytes += b;
  }
  c.ctas = args.grid[0] * args.grid[1] * args.grid[2];
  CostWalker w(k, args);
  for (int64_t z = 0; z < args.grid[2]; ++z)
    for (int64_t y = 0; y < args.grid[1]; ++y)
      for (int64_t x = 0; x < args.grid[0]; ++x) w.cta(x, y, z);
  c.dotFlops = w.dotFlops;
  c.elementwiseFlops = w.elementwise;
  return c;
}

//===----------------------------------------------------------------------===//
// Tables
//===----------------------------------------------------------------------===//

BenchRow makeRow(const std::string &config, const BenchResult &r, const KernelCost &cost,
                 const ManifestKernel &mk, const DeviceInfo &dev) {
  BenchRow row;
  row.config = config.empty() ? "-" : config;
  row.ms = r.medianMs;
  double s = r.medianMs * 1e-3;
  row.tflops = s > 0 ? cost.dotFlops / s / 1e12 : 0;
  row.gbps = s > 0 ? cost.bytes / s / 1e9 : 0;
  // Roofline: a kernel is compute-bound when its intensity exceeds the
  // machine balance of the unit that runs it (SIMT: the FP32 pipes).
  double peakFlops = mk.unit == "tensorcore" ? dev.peakTensorF16Flops() : dev.peakFp32Flops();
  double balance = peakFlops / std::max(1.0, dev.peakBandwidth());
  row.computeBound = cost.bytes > 0 && cost.dotFlops / cost.bytes > balance;
  row.pctPeak = row.computeBound ? 100.0 * row.tflops * 1e12 / peakFlops
                                 : 100.0 * row.gbps * 1e9 / std::max(1.0, dev.peakBandwidth());
  row.registers = r.attrs.registers ? r.attrs.registers : mk.ptxas.registers;
  row.sharedBytes = mk.dynamicShared + r.attrs.staticShared;
  row.spills = mk.ptxas.spillStores + mk.ptxas.spillLoads;
  return row;
}

std::string formatTable(const std::vector<BenchRow> &rows, const DeviceInfo &dev, const std::string &title) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "%s on %s (%s, %d SMs; ceilings: %.0f GB/s, FP32 %.1f TFLOP/s, tensor f16 %.0f TFLOP/s)\n",
                title.c_str(), dev.name.c_str(), dev.arch().c_str(), dev.smCount, dev.peakBandwidth() / 1e9,
                dev.peakFp32Flops() / 1e12, dev.peakTensorF16Flops() / 1e12);
  out += buf;
  size_t w = 6;
  for (const BenchRow &r : rows) w = std::max(w, r.config.size());
  std::snprintf(buf, sizeof buf, "%-*s %10s %9s %9s %8s %5s %7s %6s  %s\n", int(w), "config", "ms", "TFLOP/s",
                "GB/s", "%peak", "regs", "smem", "spill", "check");
  out += buf;
  size_t best = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].ms < rows[best].ms) best = i;
  for (size_t i = 0; i < rows.size(); ++i) {
    const BenchRow &r = rows[i];
    std::snprintf(buf, sizeof buf, "%-*s %10.4f %9.2f %9.1f %7.1f%% %5d %7d %6d  %s%s\n", int(w), r.config.c_str(),
                  r.ms, r.tflops, r.gbps, r.pctPeak, r.registers, r.sharedBytes, r.spills, r.check.c_str(),
                  rows.size() > 1 && i == best ? "  <- best" : "");
    out += buf;
  }
  return out;
}

std::string rowsToJson(const std::vector<BenchRow> &rows, const DeviceInfo &dev, const std::string &kernel) {
  // The ph-output writer's (Report.h): one place for the bench table's keys.
  size_t best = 0;
  for (size_t i = 0; i < rows.size(); ++i)
    if (rows[i].ms < rows[best].ms) best = i;
  report::Bench b{kernel, report::benchDeviceOf(dev), rows, rows.empty() ? "" : rows[best].config, nullptr, nullptr};
  return report::benchJson(b).dump(2);
}

} // namespace ph::rt
