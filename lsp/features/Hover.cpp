//===- Hover.cpp - textDocument/hover -------------------------------------===//
//
// Functions (std or the file's own): signature, `///` documentation and a
// link to the source line. Builtins and decorators: their registry docs.
// Kernels: inferred grid, block size, autotune space, compile figures.
// Variables and expressions: symbolic type and concrete shape per
// configuration, where the tile lives and its bytes.
//
//===----------------------------------------------------------------------===//
#include "Features.h"

#include "ph/Analysis.h"

#include <algorithm>
#include <filesystem>

namespace ph::lsp {

namespace {

std::string codeBlock(const std::string &code) { return "```ph\n" + code + "\n```\n"; }

/// `std/attention.ph` for a prelude file, else the file's name.
std::string displayPath(const std::string &path) {
  std::filesystem::path p(path);
  std::string parent = p.parent_path().filename().string();
  return parent == "std" ? "std/" + p.filename().string() : p.filename().string();
}

std::string sourceLink(const Snapshot &s, const Symbol &sym) {
  const Analysis &a = *s.analysis;
  if (sym.def.end == 0 && sym.def.begin == 0) return "";
  json loc = location(s, sym.def);
  uint32_t line = loc["range"]["start"]["line"].get<uint32_t>() + 1;
  const SourceFile &f = a.sources.file(sym.def.file);
  std::string label = displayPath(f.path()) + ":" + std::to_string(line);
  return "Source: [" + label + "](" + loc["uri"].get<std::string>() + "#L" + std::to_string(line) + ")";
}

std::string shapeLine(const std::vector<std::string> &concrete) {
  std::vector<std::string> uniq;
  for (const auto &c : concrete)
    if (std::find(uniq.begin(), uniq.end(), c) == uniq.end()) uniq.push_back(c);
  if (uniq.empty()) return "";
  std::string out = "= `" + uniq[0] + "`";
  for (size_t i = 1; i < uniq.size(); ++i) out += ", `" + uniq[i] + "`";
  return out;
}

std::string variableHover(const Snapshot &s, const Symbol &sym) {
  std::string decl = sym.name;
  if (!sym.typeSymbolic.empty()) decl += ": " + sym.typeSymbolic;
  std::string out = codeBlock((sym.kind == SymbolKind::Local ? (sym.isLet ? "let " : "var ") : "") + decl);
  std::vector<std::string> facts;
  std::string shape = shapeLine(sym.typeConcrete);
  // A shape that is its own symbol (`f32`) says nothing new.
  if (!shape.empty() && !(sym.typeConcrete.size() >= 1 && sym.typeConcrete[0] == sym.typeSymbolic)) facts.push_back(shape);
  if (sym.bytes > 0) facts.push_back(std::to_string(sym.bytes) + " bytes");
  switch (sym.kind) {
  case SymbolKind::Parameter: facts.insert(facts.begin(), "parameter"); break;
  case SymbolKind::LoopVar: facts.insert(facts.begin(), "loop variable"); break;
  case SymbolKind::SizeSymbol: facts.insert(facts.begin(), "size, bound at launch from the tensors' shapes"); break;
  case SymbolKind::AutotuneParam: facts.insert(facts.begin(), "autotune parameter"); break;
  default: break;
  }
  std::string line;
  for (size_t i = 0; i < facts.size(); ++i) line += (i ? " · " : "") + facts[i];
  if (!line.empty()) out += "\n" + line + "\n";
  if (!sym.doc.empty()) out += "\n" + sym.doc + "\n";
  return out;
}

/// Whether token `i` is an argument of `@autotune(...)`, at its top level.
bool inAutotuneArgs(const std::vector<Token> &toks, size_t i) {
  int depth = 0;
  for (size_t j = i; j-- > 0;) {
    Tok k = toks[j].kind;
    if (k == Tok::RParen || k == Tok::RBracket) ++depth;
    else if (k == Tok::LBracket) {
      if (depth-- == 0) return false; // inside a list of values
    }
    else if (k == Tok::LParen) {
      if (depth-- > 0) continue;
      return j >= 2 && toks[j - 1].text == "autotune" && toks[j - 2].kind == Tok::At;
    } else if (k == Tok::LBrace || k == Tok::RBrace || k == Tok::KwKernel || k == Tok::KwFn) {
      return false;
    }
  }
  return false;
}

std::string kernelHover(const Snapshot &s, const Symbol &sym, uint32_t symIndex, const FeatureOptions &o) {
  const Analysis &a = *s.analysis;
  std::string out = codeBlock(sym.signature.empty() ? "kernel " + sym.name : sym.signature);
  if (!sym.doc.empty()) out += "\n" + sym.doc + "\n";
  for (const KernelSummary &k : a.kernels) {
    if (k.symbol != symIndex && k.name != sym.name) continue;
    out += "\n**grid** `" + k.grid + "` · **block** " + threadsText(k, true) + " threads";
    if (k.tensorcore) out += " · tensor cores";
    out += "\n";
    if (!k.autotuneSpace.empty())
      out += "\n**autotune** `" + k.autotuneSpace + "` (" + std::to_string(k.configs.size()) +
             (k.configs.size() == 1 ? " configuration" : " configurations") + ")\n";
    auto it = o.compileFigures.find(k.name);
    if (it != o.compileFigures.end()) out += "\n**compiled** " + it->second + "\n";
    break;
  }
  return out;
}

} // namespace

json hover(const Snapshot &whole, const json &params, const FeatureOptions &o) {
  if (!whole.analysis) return nullptr;
  // The item under the cursor only, while the whole analysis is not built (issue 21).
  uint32_t at = offsetOf(whole, params);
  const Snapshot s = sliceOf(whole, at, at);
  const Analysis &a = *s.analysis;
  uint32_t off = offsetOf(s, params);
  std::string value;
  SourceRange range{a.mainFile, off, off};

  if (const Occurrence *occ = a.occurrenceAt(a.mainFile, off); occ && occ->symbol < a.symbols.size()) {
    const Symbol &sym = a.symbols[occ->symbol];
    range = occ->range;
    switch (sym.kind) {
    case SymbolKind::Function: {
      value = codeBlock(sym.signature.empty() ? "fn " + sym.name : sym.signature);
      if (!sym.doc.empty()) value += "\n" + sym.doc + "\n";
      std::string link = sourceLink(s, sym);
      if (!link.empty()) value += "\n" + link + "\n";
      break;
    }
    case SymbolKind::Kernel: value = kernelHover(s, sym, occ->symbol, o); break;
    case SymbolKind::Builtin:
    case SymbolKind::Decorator: {
      if (const BuiltinDoc *bd = findBuiltinDoc(sym.name))
        value = codeBlock(bd->signature) + "\n" + bd->doc + "\n";
      else
        value = codeBlock(sym.signature.empty() ? sym.name : sym.signature) + (sym.doc.empty() ? "" : "\n" + sym.doc + "\n");
      break;
    }
    default: value = variableHover(s, sym); break;
    }
  } else {
    // No symbol: `ctx.block.x`, a builtin or decorator name the checker did not
    // record, or an expression.
    const auto &toks = a.tokens;
    for (size_t i = 0; i < toks.size(); ++i) {
      checkpoint();
      const Token &t = toks[i];
      if (t.range.begin > off) break;
      if (t.kind != Tok::Ident || !t.range.touches(off)) continue;
      auto text = [&](size_t j) { return j < toks.size() ? toks[j].text : std::string_view(); };
      bool afterCtxBlock = i >= 4 && text(i - 1) == "." && text(i - 2) == "block" && text(i - 3) == "." && text(i - 4) == "ctx";
      if (afterCtxBlock && (t.text == "x" || t.text == "y" || t.text == "z")) {
        std::string axis(t.text);
        value = codeBlock("ctx.block." + axis + ": i32") + "\nThis CTA's index along grid axis " + axis + ".";
        std::string kernel = kernelAt(s, off);
        for (const KernelSummary &k : a.kernels)
          if (k.name == kernel) value += " The grid of `" + k.name + "` is `" + k.grid + "`.";
        value += "\n";
        range = t.range;
      } else if (t.text == "ctx" || (t.text == "block" && text(i - 1) == "." && text(i - 2) == "ctx")) {
        value = codeBlock(t.text == "ctx" ? "ctx" : "ctx.block") +
                "\nThe launch context: `ctx.block.x`, `.y` and `.z` index this CTA in the grid, which is inferred "
                "from how they slice the tensors (or given with `@grid(...)`).\n";
        range = t.range;
      } else if (t.text == "where" && inAutotuneArgs(toks, i)) {
        value = codeBlock("@autotune(..., where CONDITION)") +
                "\nKeeps only the configurations where `CONDITION` holds (with several `where`, where all hold). "
                "The condition uses the `@autotune` parameters and integers: `+ - * / %`, comparisons, "
                "`&& || !` and parentheses.\n";
        range = t.range;
      } else if (const BuiltinDoc *bd = findBuiltinDoc(t.text)) {
        value = codeBlock(bd->signature) + "\n" + bd->doc + "\n";
        range = t.range;
      } else if (Elem el; parseElem(t.text, el) && text(i - 1) != ".") {
        value = codeBlock(std::string(t.text)) + "\n" + elemDoc(el) + "\n";
        range = t.range;
      }
      break;
    }
    if (value.empty()) {
      if (const ExprFact *f = a.exprAt(a.mainFile, off)) {
        value = codeBlock(f->typeSymbolic);
        std::string shape = shapeLine(f->typeConcrete);
        if (!shape.empty() && f->typeConcrete[0] != f->typeSymbolic) value += "\n" + shape + "\n";
        range = f->range;
      }
    }
  }
  if (value.empty()) return nullptr;
  // The tiles the tensor-core lowering placed on this line, from the last compile.
  if (!o.tilePlacements.empty()) {
    std::error_code ec;
    std::string file = std::filesystem::weakly_canonical(s.path, ec).string();
    auto f = o.tilePlacements.find(ec ? s.path : file);
    if (f != o.tilePlacements.end()) {
      auto l = f->second.find(s.lines.position(off).line + 1);
      if (l != f->second.end()) {
        while (!value.empty() && value.back() == '\n') value.pop_back();
        value += "\n\n**tiles on this line**";
        for (const std::string &t : l->second) value += " · " + t;
        value += "\n";
      }
    }
  }
  // Trim the trailing newline: clients render it as an empty paragraph.
  while (!value.empty() && value.back() == '\n') value.pop_back();
  json contents = o.markdown ? json{{"kind", "markdown"}, {"value", value}} : json{{"kind", "plaintext"}, {"value", value}};
  return {{"contents", contents}, {"range", toJson(s.lines.range(range.begin, range.end))}};
}

} // namespace ph::lsp
