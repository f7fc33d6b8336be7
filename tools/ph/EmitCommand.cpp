//===- EmitCommand.cpp - `ph emit`: a kernel printed at one compilation stage ===//
//
// ph emit FILE [--kernel K] [--stage kir|tile|cpu|llvm|llvm-ir|asm|gpu|gpu-llvm|ptx]
//         [--config BR=64,BC=32] [--debug-info] [--json]
//
// Analyses the file (refusing one with errors), picks the kernel (the only
// one, or --kernel) and its autotune variant (the first, or the one --config
// names), and prints it at the stage. MLIR is printed without locations
// unless --debug-info, so that equal kernels print equal text. --json writes
// one ph-output document (docs/output.md): the stage's text and the diagnostics.
//
//===----------------------------------------------------------------------===//
#include "Commands.h"
#include "DriverUtil.h"

#include "ph/Analysis.h"
#include "ph/Runtime/Report.h"
#ifdef PH_HAVE_BACKEND
#include "ph/Backend/Emit.h"
#endif

#include <cstdio>
#include <iostream>

using namespace ph;

namespace {

const char *usage =
    "usage: ph emit FILE [--kernel K] [--stage S] [--config BR=64,BC=32] [--target sm_90a] [--debug-info] [--json]\n"
    "\n"
    "Prints one kernel at a stage of its compilation:\n"
    "  kir      the checked, inlined, specialised kernel\n"
    "  tile     the tile dialect (target-independent MLIR)\n"
    "  tilegpu  the tile dialect with the GPU target's layouts, shared buffers and async copies\n"
    "  cpu      the CPU target's loops (scf, memref, arith, math)\n"
    "  llvm     the LLVM dialect; llvm-ir: LLVM IR; asm: the host assembly the CPU JIT runs\n"
    "  gpu, ptx the GPU target's stages (when built in)\n"
    "The default stage is tile. --config picks an autotune variant (default: the first).\n"
    "--debug-info prints MLIR locations (file:line:col ranges of the source).\n"
    "--target sm_80|sm_86|sm_89|sm_90|sm_90a picks the GPU stages' architecture, whatever GPU is present\n"
    "(default: the GPU present, else sm_90).\n"
    "--json writes one ph-output document (docs/output.md): the text and the diagnostics.\n";

/// --json: what the command says goes into this document on stdout.
bool jsonMode = false;
rt::report::Document doc;

int fail(const std::string &msg, int code = 1) {
  if (jsonMode && code != 2) { // usage errors stay words on stderr
    doc.error = msg;
    std::cout << rt::report::toJson(doc).dump(2) << "\n";
    return code;
  }
  std::fprintf(stderr, "ph emit: %s\n", msg.c_str());
  return code;
}

/// `BR=64,BC=32` -> pairs; false on a malformed entry.
bool parseConfig(const std::string &s, std::vector<std::pair<std::string, int64_t>> &out) {
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    std::string item = s.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      return false;
    try {
      size_t used;
      long long v = std::stoll(item.substr(eq + 1), &used);
      if (used != item.size() - eq - 1)
        return false;
      out.emplace_back(item.substr(0, eq), v);
    } catch (...) {
      return false;
    }
    if (comma == std::string::npos)
      break;
    pos = comma + 1;
  }
  return true;
}

} // namespace

int ph::driver::emitCommand(const Args &args) {
  std::string file, kernel, stageText = "tile", target;
  std::vector<std::pair<std::string, int64_t>> config;
  bool debugInfo = false;
  for (size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i], value;
    bool inlineValue = false;
    if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos && a.rfind("--config", 0) != 0) {
      value = a.substr(a.find('=') + 1);
      a = a.substr(0, a.find('='));
      inlineValue = true;
    } else if (a.rfind("--config=", 0) == 0) {
      value = a.substr(9);
      a = "--config";
      inlineValue = true;
    }
    auto need = [&](std::string &out) {
      if (inlineValue) {
        out = value;
        return true;
      }
      if (i + 1 >= args.size())
        return false;
      out = args[++i];
      return true;
    };
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (a == "--kernel") {
      if (!need(kernel))
        return fail("`--kernel` needs a name", 2);
    } else if (a == "--stage") {
      if (!need(stageText))
        return fail("`--stage` needs a stage", 2);
    } else if (a == "--config") {
      std::string c;
      if (!need(c) || !parseConfig(c, config))
        return fail("`--config` takes NAME=VALUE[,NAME=VALUE...], e.g. `BR=64,BC=32`", 2);
    } else if (a == "--debug-info") {
      debugInfo = true;
    } else if (a == "--target") {
      if (!need(target))
        return fail("`--target` needs an architecture, e.g. `sm_90a`", 2);
    } else if (a == "--json") {
      jsonMode = true;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "ph emit: unknown option `%s`\n\n%s", a.c_str(), usage);
      return 2;
    } else if (file.empty()) {
      file = a;
    } else {
      return fail("one file at a time (got `" + file + "` and `" + a + "`)", 2);
    }
  }
  if (file.empty()) {
    std::fprintf(stderr, "ph emit: no input file\n\n%s", usage);
    return 2;
  }
#ifdef PH_HAVE_BACKEND
  backend::Stage stage;
  if (!backend::parseStage(stageText, stage))
    return fail("unknown stage `" + stageText + "` (stages: " + backend::stageNames() + ")", 2);
#else
  if (stageText != "kir")
    return fail("this `ph` was built without the MLIR backend; only `--stage kir` works", 2);
#endif

  doc.command = "emit";
  doc.file = driver::reportedName(file);
  doc.stage = stageText;
  std::string text, err;
  if (!driver::readFile(file, text, err))
    return fail(err);
  AnalyzeOptions aopt;
  aopt.configFilter = config;
  auto a = analyze(std::make_shared<SourceFile>(driver::reportedName(file), std::move(text)), Prelude::load(), aopt);
  for (const Diagnostic &d : a->diagnostics)
    doc.diagnostics.push_back(rt::report::fromDiagnostic(d, a->sources));
  if (a->hasErrors()) {
    if (!jsonMode)
      for (const Diagnostic &d : a->diagnostics)
        std::cerr << renderDiagnostic(d, a->sources);
    return fail("`" + driver::reportedName(file) + "` has errors; nothing to emit");
  }
  std::string names;
  for (const KernelSummary &ks : a->kernels)
    names += (names.empty() ? "`" : ", `") + ks.name + "`";
  if (kernel.empty()) {
    if (a->kernels.size() != 1)
      return fail("`" + driver::reportedName(file) + "` has " + (names.empty() ? "no kernel" : "kernels " + names) +
                      "; choose one with `--kernel`",
                  a->kernels.empty() ? 1 : 2);
    kernel = a->kernels[0].name;
  }
  auto variants = a->kernelVariants(kernel);
  if (variants.empty()) {
    for (const KernelSummary &ks : a->kernels) {
      if (ks.name != kernel)
        continue;
      std::string space = ks.autotuneSpace.empty() ? "none" : ks.autotuneSpace;
      return fail("no autotune variant of `" + kernel + "` matches `--config` (its space: " +
                  space + ")");
    }
    return fail("no kernel named `" + kernel + "` in `" + driver::reportedName(file) + "` (its kernels: " +
                (names.empty() ? "none" : names) + ")");
  }
  const kir::Kernel &k = *variants.front();
#ifdef PH_HAVE_BACKEND
  backend::EmitOptions eo;
  eo.sources = &a->sources;
  eo.debugInfo = debugInfo;
  eo.arch = target;
  std::vector<backend::PrintedOp> printed;
  std::vector<Diagnostic> lowering;
  eo.printed = &printed;
  eo.diagnostics = &lowering;
  std::string out = backend::emitStage(k, stage, err, eo);
  if (!err.empty() || out.empty()) {
    // A lowering failure is a registry diagnostic at the op that failed (GPU: E0501,
    // E0503, E0504, as `ph build` gives it; CPU: E0506, as `ph run`); one the backend could not place is
    // E0502 at the kernel with the backend's words.
    if (lowering.empty()) {
      Diagnostic d;
      d.kind = DiagKind::BackendError;
      d.severity = Severity::Error;
      d.range = k.loc;
      d.message = formatDiag(DiagKind::BackendError, {err.empty() ? "stage `" + stageText + "` printed nothing" : err});
      if (!k.configName().empty()) d.notes.push_back({k.loc, "in configuration " + k.configName()});
      lowering.push_back(std::move(d));
    }
    for (const Diagnostic &d : lowering) {
      if (jsonMode) doc.diagnostics.push_back(rt::report::fromDiagnostic(d, a->sources));
      else std::cerr << renderDiagnostic(d, a->sources);
    }
    if (jsonMode) {
      std::cout << rt::report::toJson(doc).dump(2) << "\n";
      return 1;
    }
    std::fprintf(stderr, "ph emit: cannot emit `%s` at stage `%s`\n", kernel.c_str(), stageText.c_str());
    return 1;
  }
  // The printer's record of where each located op went (docs/output.md, `lines`).
  for (const backend::PrintedOp &p : printed)
    doc.lines.push_back({p.irLine, p.op, {p.file, {p.line, p.col, -1}, {p.endLine, p.endCol, -1}}});
#else
  (void)debugInfo;
  std::string out = kir::print(k);
#endif
  if (!jsonMode) {
    std::cout << out;
    return 0;
  }
  doc.ok = true;
  doc.text = out;
  std::cout << rt::report::toJson(doc).dump(2) << "\n";
  return 0;
}
