//===- LlvmPipelineScope.cpp - LLVM's global pass options, per kind of pipeline ---===//
#include "Target/LlvmPipelineScope.h"

#include "llvm/Support/CommandLine.h"

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>

namespace ph::backend {
namespace {

std::mutex mutex;
std::condition_variable changed;
int active = 0;               // scopes alive, all of kind `current`
int waiting[2] = {0, 0};      // scopes waiting to start, per kind
LlvmPipelineKind current = LlvmPipelineKind::Cpu;

llvm::cl::opt<bool> *boolOption(const char *name) {
  auto &opts = llvm::cl::getRegisteredOptions();
  auto it = opts.find(name);
  return it == opts.end() ? nullptr : static_cast<llvm::cl::opt<bool> *>(it->second);
}

/// -slp-vectorize-hor (the SLP vectorizer's search for horizontal reductions).
llvm::cl::opt<bool> *slpHorizontal() {
  static llvm::cl::opt<bool> *opt = boolOption("slp-vectorize-hor");
  return opt;
}

/// -disable-lsr (codegen's loop strength reduction).
llvm::cl::opt<bool> *disableLsr() {
  static llvm::cl::opt<bool> *opt = boolOption("disable-lsr");
  return opt;
}

/// The CPU's values are what the options held before any scope (LLVM's defaults, or what the
/// command line of a tool set).
void apply(LlvmPipelineKind kind) {
  static const bool cpuValue = slpHorizontal() ? bool(*slpHorizontal()) : true;
  static const bool cpuDisableLsr = disableLsr() ? bool(*disableLsr()) : false;
  bool gpu = kind == LlvmPipelineKind::Gpu;
  if (llvm::cl::opt<bool> *o = slpHorizontal()) o->setValue(gpu ? gpuSlpHorizontalReductions() : cpuValue);
  // A value given on a tool's command line or in PH_GPU_LLVM_OPTS stays as given.
  if (llvm::cl::opt<bool> *o = disableLsr(); o && o->getNumOccurrences() == 0)
    o->setValue(gpu ? !gpuLoopStrengthReduction() : cpuDisableLsr);
}

int index(LlvmPipelineKind k) { return k == LlvmPipelineKind::Cpu ? 0 : 1; }

} // namespace

bool gpuSlpHorizontalReductions() {
  static const bool on = [] {
    const char *e = std::getenv("PH_GPU_SLP");
    return e && std::string(e) == "hor";
  }();
  return on;
}

bool gpuLoopStrengthReduction() {
  static const bool on = [] {
    const char *e = std::getenv("PH_GPU_LSR");
    if (!e || !*e) return kGpuLsrDefault;
    return std::string(e) != "0";
  }();
  return on;
}

LlvmPipelineScope::LlvmPipelineScope(LlvmPipelineKind kind) : kind_(kind) {
  std::unique_lock<std::mutex> lock(mutex);
  int other = 1 - index(kind);
  ++waiting[index(kind)];
  changed.wait(lock, [&] { return active == 0 || (current == kind && waiting[other] == 0); });
  --waiting[index(kind)];
  if (active == 0) {
    current = kind;
    apply(kind);
  }
  ++active;
}

LlvmPipelineScope::~LlvmPipelineScope() {
  std::lock_guard<std::mutex> lock(mutex);
  if (--active == 0) changed.notify_all();
}

} // namespace ph::backend
