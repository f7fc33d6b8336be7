//===- Tuning.h - Configurations picked by timing, per launch shape -*- C++ -*-===//
//
// `ph-run DIR --tune` times every configuration of a kernel that the launch's sizes allow
// and records the fastest for that kernel, device and shape in DIR/tuning.json; a later
// `ph-run DIR` with the same sizes runs the recorded configuration instead of the first one
// (docs/running.md, "Tuning by shape"). The file is a ph-tuning document
// (docs/schema/ph-tuning-v1.json), written whole to a temporary file and renamed over the
// old one, so a reader never sees half of it.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Runtime/Tool.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ph::rt {

/// What a tuning is for: the kernel, the device, and the launch's shape as the command line
/// gives it (`--size`, the shapes of `--in` tensors, the constants `--config` pins).
struct TuningKey {
  std::string kernel;
  std::string device;
  std::map<std::string, int64_t> sizes;
  std::map<std::string, std::vector<int64_t>> inputs;
  std::map<std::string, int64_t> pinned;
  bool operator==(const TuningKey &) const = default;
};

struct TuningRecord {
  TuningKey key;
  std::string config; // the configuration's name, as BenchRow::config ("D=64,BR=64,BC=128")
  double ms = 0;      // its median time when it was picked
};

/// The file `ph-run DIR --tune` writes and `ph-run DIR` reads.
std::string tuningPath(const std::string &dir);

/// The key of a launch of `kernel` on `device` with `opt`'s sizes, inputs and --config.
TuningKey tuningKeyOf(const std::string &kernel, const std::string &device, const ToolOptions &opt);

/// Reads `path` into `out`: "" when it was read or does not exist (no records), else why not;
/// `otherVersion` (if given) says whether the reason is a ph-tuning document of another version.
std::string readTuning(const std::string &path, std::vector<TuningRecord> &out, bool *otherVersion = nullptr);
/// Writes `records` to `path` through a temporary file in the same folder and a rename.
std::string writeTuning(const std::string &path, const std::vector<TuningRecord> &records);

/// Records `r` in `path` under a lock (`path`.lock): the file is read again, `r` replaces the
/// record of its key or joins the others, and the whole is written back. A damaged file is
/// renamed to `path`.bad first (`note` says so); a file of another ph-tuning version is left alone
/// and nothing is recorded. Returns "" or why nothing was recorded.
std::string recordTuning(const std::string &path, const TuningRecord &r, std::string &note);

/// Replaces the record of `r.key`, or adds it.
void upsertTuning(std::vector<TuningRecord> &records, TuningRecord r);
/// The record of `key`, or null.
const TuningRecord *findTuning(const std::vector<TuningRecord> &records, const TuningKey &key);

/// A single run of `key`'s shape: moves the variant `records` names for it to the front of
/// `variants` (a single run takes the first). Returns what to tell the user on stderr: a note
/// naming the tuned configuration, a warning when the record names one `variants` lacks, or ""
/// when there is no record.
std::string preferTuned(std::vector<const Variant *> &variants, const std::vector<TuningRecord> &records,
                        const TuningKey &key, const std::string &path);

} // namespace ph::rt
