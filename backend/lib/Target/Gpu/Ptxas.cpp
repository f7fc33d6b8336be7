//===- Ptxas.cpp - The CUDA toolchain's paths, ptxas, and registers fitted to two CTAs ---------===//
#include "Ptxas.h"
#include "ScratchDir.h"
#include "ph/Backend/Arch.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <optional>

#ifndef PH_CUDA_DIR
#define PH_CUDA_DIR "/usr/local/cuda"
#endif

namespace ph::backend {

std::string cudaDir() {
  if (const char *d = std::getenv("PH_CUDA_DIR")) return d;
  if (const char *d = std::getenv("CUDA_PATH")) return d;
  return PH_CUDA_DIR;
}

std::string findPtxas() {
  if (const char *p = std::getenv("PH_PTXAS")) return p;
  std::string inToolkit = cudaDir() + "/bin/ptxas";
  if (llvm::sys::fs::can_execute(inToolkit)) return inToolkit;
  if (auto p = llvm::sys::findProgramByName("ptxas")) return *p;
  return "";
}

std::string ptxasOptArg() {
  const char *e = std::getenv("PH_PTXAS_FAST_COMPILE");
  std::string v = e ? e : "";
  if (v == "min" || v == "mid" || v == "max") return "--Ofast-compile=" + v;
  return "-O3";
}

bool runPtxas(const std::string &ptx, const std::string &arch, std::vector<uint8_t> &cubin, std::string &log,
              std::string &err, double *cpuMs, bool *ran) {
  std::string ptxas = findPtxas();
  if (ptxas.empty()) {
    err = "ptxas not found (looked in " + cudaDir() + "/bin and on PATH; set PH_PTXAS or PH_CUDA_DIR)";
    return false;
  }
  // In the process's private folder, removed on every exit path (ScratchDir.h).
  scratch::PtxasFiles files;
  if (!scratch::acquire(files, err)) return false;
  struct Release {
    scratch::PtxasFiles &f;
    ~Release() { scratch::release(f); }
  } release{files};
  llvm::SmallString<128> in(files.ptx), out(files.cubin), errFile(files.log);
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(in, ec);
    if (ec) {
      err = "cannot write " + files.ptx + ": " + ec.message();
      return false;
    }
    os << ptx;
  }
  std::string archArg = "-arch=" + arch, inPath = in.str().str(), outPath = out.str().str();
  std::string optArg = ptxasOptArg();
  llvm::SmallVector<llvm::StringRef> args = {ptxas, archArg, "-v", optArg, inPath, "-o", outPath};
  std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(errFile), llvm::StringRef(errFile)};
  std::string execErr;
  std::optional<llvm::sys::ProcessStatistics> stat;
  int rc = llvm::sys::ExecuteAndWait(ptxas, args, std::nullopt, redirects, 0, 0, &execErr, nullptr, &stat);
  if (ran) *ran = rc != -1; // -1: it could not be started (-2: it crashed, which its log may say)
  if (cpuMs && stat) *cpuMs = double(stat->TotalTime.count()) / 1000.0;
  if (auto buf = llvm::MemoryBuffer::getFile(errFile)) {
    // ptxas's "Compile time = 53.6 ms" line differs from run to run; without it the report
    // (kept in manifest.json) is the same for the same PTX, so builds are byte-identical.
    llvm::SmallVector<llvm::StringRef> lines;
    (*buf)->getBuffer().split(lines, '\n');
    for (size_t i = 0; i < lines.size(); ++i) {
      if (lines[i].contains("Compile time =")) continue;
      log += lines[i].str();
      if (i + 1 < lines.size()) log += "\n";
    }
  }
  bool ok = rc == 0;
  if (ok) {
    if (auto buf = llvm::MemoryBuffer::getFile(out, /*IsText=*/false))
      cubin.assign((*buf)->getBufferStart(), (*buf)->getBufferEnd());
    else ok = false;
  }
  if (!ok) err = "ptxas failed" + (execErr.empty() ? "" : " (" + execErr + ")") + ":\n" + log;
  return ok;
}

bool fitTwoCtas(const std::string &arch, const std::string &instruction, int threads, int64_t sharedBytes) {
  if (const char *e = std::getenv("PH_TILEGPU_FIT_CTAS"); e && std::string(e) == "0") return false;
  const GpuArch *a = findGpuArch(arch);
  // Measured on wgmma kernels only; mma.sync attention at three CTAs lost to ptxas's choice.
  if (!a || instruction != "wgmma" || threads <= 0) return false;
  constexpr int64_t kReservedPerCta = 1024; // the driver's, in every CTA's shared memory
  if (2 * (sharedBytes + kReservedPerCta) > a->sharedPerSM) return false;
  constexpr int kMostRegs = 255;
  return a->registersPerSM / (2 * threads) < kMostRegs;
}

std::string twoCtaFitCandidate(const std::string &ptx, const std::string &arch, bool tensorCores,
                               const std::string &instruction, int threads, int64_t sharedBytes) {
  if (!tensorCores || !fitTwoCtas(arch, instruction, threads, sharedBytes)) return "";
  return withMinCtasPerSm(ptx, 2);
}

std::string withMinCtasPerSm(const std::string &ptx, int n) {
  // One entry, which neither asks for its own CTA count nor hands registers between its
  // warpgroups: a producer's `setmaxnreg.dec` frees too few for the consumers' `.inc` within half
  // the register file, and `.inc` waits for them forever.
  size_t entry = ptx.find(".entry");
  if (entry == std::string::npos || ptx.find(".entry", entry + 1) != std::string::npos) return "";
  if (ptx.find(".minnctapersm") != std::string::npos || ptx.find("setmaxnreg") != std::string::npos) return "";
  size_t at = ptx.find(".maxntid", entry);
  if (at == std::string::npos) return "";
  size_t eol = ptx.find('\n', at);
  if (eol == std::string::npos) return "";
  return ptx.substr(0, eol + 1) + ".minnctapersm " + std::to_string(n) + "\n" + ptx.substr(eol + 1);
}

} // namespace ph::backend
