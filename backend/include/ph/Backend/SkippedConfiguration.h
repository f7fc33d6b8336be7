//===- SkippedConfiguration.h - Autotune configurations a target cannot hold -*- C++ -*-===//
//
// An autotune space is written once for every target, but the targets differ in what a CTA
// may hold: a [128, 128] block of keys at D = 128 fits sm_90's 227 KiB of shared memory and
// not sm_80's 163 KiB. As Triton's autotuner prunes a configuration that runs out of
// resources, `ph build` and `ph bench` leave such a configuration out with W0503 at the
// kernel (the buffer that did not fit a note), and fail (E0501) only when no configuration
// of the kernel fits.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Backend/GpuTarget.h"
#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"

#include <optional>
#include <string>
#include <vector>

namespace ph::backend {

/// W0503 for a configuration of an autotuned kernel that was refused only because its buffers
/// exceed the target's shared memory on every lowering it tried (GpuBinary::sharedMemoryOnly);
/// nullopt for any other failure, which stays an error. The warning is at the kernel (a buffer
/// may be in std/, which an editor does not show for the user's file), the buffer a note.
inline std::optional<Diagnostic> skippedConfiguration(const kir::Kernel &k, const GpuBinary &bin,
                                                      const std::string &target) {
  if (k.config.empty() || !bin.sharedMemoryOnly) return std::nullopt;
  const Diagnostic *exceeded = nullptr;
  for (const Diagnostic &d : bin.diagnostics) {
    if (d.severity != Severity::Error) continue;
    if (d.kind != DiagKind::SharedMemoryExceeded) return std::nullopt;
    exceeded = &d;
  }
  if (!exceeded) return std::nullopt;
  Diagnostic w;
  w.kind = DiagKind::ConfigurationSkipped;
  w.severity = Severity::Warning;
  w.range = k.loc;
  w.message = formatDiag(DiagKind::ConfigurationSkipped, {k.configName(), k.name, target, exceeded->message});
  if (!(exceeded->range == k.loc)) w.notes.push_back({exceeded->range, "the largest buffer"});
  return w;
}

/// Leaves a configuration out where skippedConfiguration says so: its diagnostics become the
/// W0503 alone, and its E0501s, each with the configuration as a note, go to `errors` (the
/// build's errors if no configuration of the kernel fits). False, and nothing changed, otherwise.
inline bool leaveOutConfiguration(const kir::Kernel &k, GpuBinary &bin, const std::string &target,
                                  std::vector<Diagnostic> &errors) {
  std::optional<Diagnostic> w = skippedConfiguration(k, bin, target);
  if (!w) return false;
  for (Diagnostic &d : bin.diagnostics)
    if (d.severity == Severity::Error) {
      d.notes.push_back({k.loc, "in configuration " + k.configName()});
      errors.push_back(std::move(d));
    }
  bin.diagnostics = {std::move(*w)};
  return true;
}

} // namespace ph::backend
