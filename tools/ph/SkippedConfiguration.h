//===- SkippedConfiguration.h - Autotune configurations a target cannot hold -*- C++ -*-===//
//
// An autotune space is written once for every target, but the targets differ in what a CTA
// may hold: a [128, 128] block of keys at D = 128 fits sm_90's 227 KiB of shared memory and
// not sm_80's 163 KiB. As Triton's autotuner prunes a configuration that runs out of
// resources, `ph build` and `ph bench` leave such a configuration out with W0503 at the
// buffer that did not fit, and fail (E0501) only when no configuration of the kernel fits.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"

#include <optional>
#include <string>
#include <vector>

namespace ph::driver {

/// W0503 for a configuration of an autotuned kernel whose compile failed only because its
/// buffers exceed the target's shared memory (E0501); nullopt for any other failure, which
/// stays an error.
inline std::optional<Diagnostic> skippedConfiguration(const kir::Kernel &k, const std::vector<Diagnostic> &diags,
                                                      const std::string &target) {
  if (k.config.empty()) return std::nullopt;
  const Diagnostic *exceeded = nullptr;
  for (const Diagnostic &d : diags) {
    if (d.severity != Severity::Error) continue;
    if (d.kind != DiagKind::SharedMemoryExceeded) return std::nullopt;
    exceeded = &d;
  }
  if (!exceeded) return std::nullopt;
  Diagnostic w;
  w.kind = DiagKind::ConfigurationSkipped;
  w.severity = Severity::Warning;
  w.range = exceeded->range;
  w.message = formatDiag(DiagKind::ConfigurationSkipped, {k.configName(), k.name, target, exceeded->message});
  w.notes = exceeded->notes;
  return w;
}

} // namespace ph::driver
