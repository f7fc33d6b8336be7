//===- Analysis.h - Everything the tools know about one file ----*- C++ -*-===//
//
// `analyze` lexes, parses and checks one file against the prelude (std/*.ph)
// and returns an immutable snapshot: diagnostics, symbols and their
// occurrences, the type of every expression (symbolic and per autotune
// configuration), kernels with their inferred grid, and the specialised
// kernels for the backends. `ph check`, `ph run` and `ph-lsp` all start here.
//
//===----------------------------------------------------------------------===//
#pragma once

#include "ph/Builtins.h"
#include "ph/AST.h"
#include "ph/Diagnostic.h"
#include "ph/KernelIR.h"
#include "ph/Source.h"
#include "ph/Token.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ph {

enum class SymbolKind { Kernel, Function, Parameter, Local, LoopVar, SizeSymbol, AutotuneParam, Builtin, Decorator };

struct Symbol {
  SymbolKind kind;
  std::string name;
  SourceRange def;           // where it is defined (the name's range); empty for builtins
  SourceRange declRange;     // the whole declaration (fn/kernel: to its closing brace)
  std::string signature;     // `fn attention(acc, q, K, V, scale, BR, BC)`, `s: tile<f32>[BR, BC]`
  std::string doc;           // Markdown (`///` comments, builtin docs)
  std::string typeSymbolic;  // locals and parameters: `tile<f32>[BR, BC]`
  std::vector<std::string> typeConcrete; // per configuration: `[64, 32]`
  int64_t bytes = 0;         // tiles: bytes in the first configuration
  bool isLet = false;
  uint32_t container = UINT32_MAX; // the symbol (kernel or fn) it belongs to
  SourceRange scope;         // locals: where the name is visible (for completion)
};

/// A use or definition of a symbol in some file.
struct Occurrence {
  SourceRange range;
  uint32_t symbol;
  bool isDefinition = false;
  bool isWrite = false;
};

/// Type facts of one expression in the user's file (also inside fn bodies).
struct ExprFact {
  SourceRange range;
  std::string typeSymbolic;
  std::vector<std::string> typeConcrete; // per configuration
};

/// An inlay hint: the type of a `let`/`var` written without one.
struct TypeHint {
  SourceRange nameRange;
  std::string label; // `: tile<f32>[BR, 1]`
};

struct KernelSummary {
  std::string name;
  uint32_t symbol;
  SourceRange nameRange, declRange;
  int threads = 128;                // of the first configuration
  std::string threadsParam;          // `@launch(T)`: `T`; empty for a literal count
  std::vector<int> threadCounts;     // each count the configurations take, in order
  bool tensorcore = false;
  std::string grid;                // `(ceil(Nq / BR), 1, 1)`
  std::vector<std::string> configs; // `D=64,BR=64,BC=32`
  std::string autotuneSpace;       // `D in [64], BR in [64], BC in [32]`
};

struct Analysis {
  SourceManager sources;            // prelude files first, then the user's file
  FileId mainFile = 0;
  std::vector<std::shared_ptr<const ast::Module>> modules; // parallel to sources
  std::vector<Token> tokens;        // the main file's tokens (semantic highlighting)
  std::vector<Diagnostic> diagnostics; // for the main file and for std files it reaches
  std::vector<Symbol> symbols;
  std::vector<Occurrence> occurrences;   // all files; sorted by (file, begin)
  std::vector<ExprFact> exprFacts;       // all files; sorted by (file, begin)
  std::vector<TypeHint> typeHints;       // main file
  std::vector<KernelSummary> kernels;    // main file
  /// One entry per kernel and configuration, only when the file has no errors.
  std::vector<std::shared_ptr<const kir::Kernel>> specialised;

  /// Stopped early by AnalyzeOptions::cancelled: incomplete, not to be shown.
  bool cancelled = false;

  bool hasErrors() const;
  const SourceFile &main() const { return sources.file(mainFile); }
  /// The innermost occurrence at `offset` in `file`, or nullptr.
  const Occurrence *occurrenceAt(FileId file, uint32_t offset) const;
  /// The innermost expression fact covering `offset`, or nullptr.
  const ExprFact *exprAt(FileId file, uint32_t offset) const;
  /// Specialised kernels of one name (one per configuration).
  std::vector<std::shared_ptr<const kir::Kernel>> kernelVariants(const std::string &name) const;
};

/// The standard library, parsed once and shared by every analysis.
struct Prelude {
  std::vector<std::shared_ptr<const SourceFile>> files;
  /// Loads every std/*.ph from `dir`; when empty, from PH_STD_DIR or the
  /// directory compiled in (the source tree's or the install's std/).
  static std::shared_ptr<const Prelude> load(const std::string &dir = "");
  static std::string defaultDir();
};

struct AnalyzeOptions {
  /// Autotune restrictions (`BR=64`): configurations that disagree are skipped.
  std::vector<std::pair<std::string, int64_t>> configFilter;
  /// Build kir::Kernels (skip for pure editor analysis if not needed).
  bool specialise = true;
  /// Record each expression's type for hover (`ph check` needs only diagnostics).
  bool editorFacts = true;
  /// Polled between declarations and kernel variants: when it returns true the
  /// analysis stops early and comes back with `cancelled` set (the language
  /// server uses it when a newer edit makes this analysis stale).
  std::function<bool()> cancelled;
};

std::shared_ptr<const Analysis> analyze(std::shared_ptr<const SourceFile> file,
                                        std::shared_ptr<const Prelude> prelude,
                                        const AnalyzeOptions &options = {});

/// Documentation of a builtin (`dot_t`, `rowmax`, ...) or decorator (`autotune`),
/// or nullptr when `name` is neither: entries of the registry (ph/Builtins.h).
const BuiltinDoc *findBuiltinDoc(std::string_view name);
const std::vector<BuiltinDoc> &allBuiltinDocs();

} // namespace ph
