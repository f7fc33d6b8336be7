//===- Kernel.cpp - Kernel set-up and autotune configurations ----------------===//
//
// Binds a kernel's parameters (tensors, scalars, size symbols, autotune
// constants), runs the elaborator once per autotune configuration and
// records each kernel's summary for the editor.
//
//===----------------------------------------------------------------------===//
#include "Elaborator.h"
#include "ph/Autotune.h"

#include <algorithm>

namespace ph::check::elab {

bool Elaborator::setupParams() {
  k_ = std::make_shared<kir::Kernel>();
  k_->name = decl_.name.name;
  k_->loc = decl_.range;
  k_->config = config_;
  const KernelDecorators &kd = st_.decorators[&decl_];
  k_->threads = kd.threads;
  k_->threadsGiven = kd.launchGiven;
  if (!kd.threadsParam.empty())
    for (auto &[n, val] : config_)
      if (n == kd.threadsParam && val >= 32 && val <= 1024 && val % 32 == 0) k_->threads = static_cast<int>(val);
  k_->tensorcore = tensorcore_ = kd.tensorcore;
  explicitGrid_ = kd.grid != nullptr;
  frames_.push_back(Frame{&decl_, {}, {}});
  // Autotune constants.
  for (size_t ai = 0; ai < kd.autotune.size(); ++ai) {
    const ast::Ident &id = kd.autotune[ai].first;
    uint32_t symbol = st_.autotuneSymbols[&decl_][ai];
    if (symbol == UINT32_MAX) continue;
    {
      {
        Binding b;
        b.kind = Binding::Kind::Value;
        int64_t v = 0;
        for (auto &[n, val] : config_)
          if (n == id.name) v = val;
        b.value = intConst(v, id.range);
        b.type = b.value.type;
        b.isLet = true;
        b.what = "the autotune constant `" + id.name + "`";
        frame().bindings[symbol] = std::move(b);
        st_.ownSymbol(symbol).typeConcrete.resize(configIndex_);
        st_.ownSymbol(symbol).typeConcrete.push_back(std::to_string(v));
      }
    }
  }
  // Size symbols, in order of first appearance in the parameters' shapes.
  std::unordered_map<uint32_t, uint32_t> sizeOfSymbol;
  for (const Param &p : decl_.params) {
    if (!p.type) continue;
    const uint32_t *ps = st_.paramSymbol.find(&p);
    if (!ps) continue;
    Elem elem = Elem::F32;
    bool elemOk = p.type->elem.valid() && parseElem(p.type->elem.name, elem);
    if (!elemOk) return false;
    if (isFp8(elem) && p.type->kind == TypeExpr::Kind::Scalar) {
      Diagnostic &d = report(DiagKind::Fp8StorageOnly, p.type->elem.range, {p.type->elem.name, "scalars"});
      d.fixes.push_back({"use `f32`", {{p.type->elem.range, "f32"}}});
      return false;
    }
    if (p.type->kind == TypeExpr::Kind::Scalar) {
      if (elem == Elem::F16 || elem == Elem::BF16) elem = Elem::F32; // passed as f32
      kir::ScalarParam sp{p.name.name, elem};
      k_->params.push_back({false, static_cast<uint32_t>(k_->scalars.size())});
      Binding b;
      b.kind = Binding::Kind::Value;
      b.value.type = Type::scalar(elem);
      auto e = node(kir::ExprKind::ScalarArg, b.value.type, p.name.range);
      e->index = static_cast<uint32_t>(k_->scalars.size());
      b.value.expr = e;
      b.value.ints.axis = -2;
      b.type = b.value.type;
      b.isLet = true;
      b.what = "the kernel parameter `" + p.name.name + "`";
      k_->scalars.push_back(std::move(sp));
      recordSymbolType(*ps, b.type);
      frame().bindings[*ps] = std::move(b);
      continue;
    }
    if (p.type->kind == TypeExpr::Kind::Tile) {
      report(DiagKind::TypeMismatch, p.type->range, {"a `tensor<T>[...]` or a scalar type for a kernel parameter",
                                                      text(p.type->range)});
      return false;
    }
    if (p.type->kind != TypeExpr::Kind::Tensor) return false;
    kir::TensorParam tp;
    tp.name = p.name.name;
    tp.elem = elem;
    std::vector<Dim> dims;
    for (auto &d : p.type->dims) {
      kir::TensorDim td;
      td.sym = text(d->range);
      if (d->kind == ExprKind::IntLit) {
        if (d->intValue <= 0) {
          report(DiagKind::BadExtent, d->range, {"`" + p.name.name + "`", std::to_string(d->intValue)});
          return false;
        }
        td.value = d->intValue;
      } else if (d->kind == ExprKind::Name) {
        uint32_t dimSym = st_.symbolOf(d.get());
        if (dimSym == UINT32_MAX) return false;
        const Symbol &sym = st_.symbol(dimSym);
        if (sym.kind == SymbolKind::AutotuneParam) {
          td.value = *frame().bindings[dimSym].value.ints.c;
        } else if (sym.kind == SymbolKind::SizeSymbol) {
          auto it = sizeOfSymbol.find(dimSym);
          if (it == sizeOfSymbol.end()) {
            kir::SizeSym ss{sym.name, 1};
            for (auto &[id, expr] : kd.aligned)
              if (id.name == sym.name) {
                auto v = constInt(*expr, "the block of `@aligned`");
                if (!v) return false;
                if (*v <= 0) {
                  report(DiagKind::DecoratorArgs, expr->range, {"aligned", "the block must be positive"});
                  return false;
                }
                ss.alignedTo = *v;
              }
            it = sizeOfSymbol.emplace(dimSym, static_cast<uint32_t>(k_->sizes.size())).first;
            k_->sizes.push_back(ss);
            Binding b;
            b.kind = Binding::Kind::Value;
            b.value.type = Type::scalar(Elem::I32);
            auto e = node(kir::ExprKind::SizeArg, b.value.type, d->range);
            e->index = it->second;
            b.value.expr = e;
            b.value.ints.axis = -2;
            b.value.ints.div = ss.alignedTo;
            b.value.ints.extentSize = static_cast<int>(it->second);
            b.type = b.value.type;
            b.isLet = true;
            b.what = "the size `" + sym.name + "`";
            frame().bindings[dimSym] = std::move(b);
          }
          td.size = it->second;
        } else {
          report(DiagKind::NotCompileTime, d->range, {"a tensor dimension", text(d->range)});
          return false;
        }
      } else {
        report(DiagKind::NotCompileTime, d->range, {"a tensor dimension (a size name or an integer)", text(d->range)});
        return false;
      }
      dims.push_back(Dim{td.sym, td.value});
      tp.dims.push_back(std::move(td));
    }
    k_->params.push_back({true, static_cast<uint32_t>(k_->tensors.size())});
    Binding b;
    b.kind = Binding::Kind::Tensor;
    b.tensor = static_cast<int>(k_->tensors.size());
    b.type = Type::tensor(elem, std::move(dims));
    b.what = "the tensor `" + p.name.name + "`";
    k_->tensors.push_back(std::move(tp));
    recordSymbolType(*ps, b.type);
    frame().bindings[*ps] = std::move(b);
  }
  return true;
}


std::shared_ptr<kir::Kernel> Elaborator::run() {
  if (!setupParams()) {
    ++errors_;
    return nullptr;
  }
  out_ = &k_->body;
  if (explicitGrid_) explicitGrid();
  stmts(decl_.body, k_->body);
  if (!explicitGrid_) inferGrid();
  for (size_t i = 0; i < varTypes_.size(); ++i) {
    k_->vars[i].type = ktype(varTypes_[i]);
    recordSymbolType(varSymbol_[i], varTypes_[i]);
  }
  if (errors_) return nullptr;
  return k_;
}


} // namespace ph::check::elab

namespace ph::check {

using elab::Elaborator;

void elaborate(State &st) {
  for (auto &m : st.A.modules) {
    if (m->file != st.A.mainFile) continue;
    for (auto &d : m->decls) {
      if (st.cancelled()) return;
      if (!d->isKernel || !st.declSymbol.count(d.get())) continue;
      const KernelDecorators &kd = st.decorators[d.get()];
      // The configurations `@autotune` keeps (its `where` conditions) that agree with
      // the filter, in the order they are written.
      std::vector<autotune::Config> kept = autotune::enumerate(kd.autotuneParams(), kd.where, st.options.configFilter);
      KernelSummary ks;
      ks.name = d->name.name;
      ks.symbol = st.declSymbol[d.get()];
      ks.nameRange = d->name.range;
      ks.declRange = d->range;
      ks.threads = kd.threads;
      ks.threadsParam = kd.threadsParam;
      ks.tensorcore = kd.tensorcore;
      for (auto &[id, values] : kd.autotune) {
        if (!ks.autotuneSpace.empty()) ks.autotuneSpace += ", ";
        ks.autotuneSpace += id.name + " in [";
        for (size_t i = 0; i < values.size(); ++i) ks.autotuneSpace += (i ? ", " : "") + std::to_string(values[i]);
        ks.autotuneSpace += "]";
      }
      for (const ast::Expr *w : kd.where) ks.autotuneSpace += ", where " + st.text(w->range);
      for (size_t i = 0; i < kept.size(); ++i) {
        if (st.cancelled()) return; // up to 1 024 configurations: a newer edit or `exit` stops them
        Elaborator el(st, *d, i, kept[i]);
        auto k = el.run();
        if (i == 0 && k)
          ks.grid = "(" + k->gridText[0] + ", " + k->gridText[1] + ", " + k->gridText[2] + ")";
        if (k) {
          ks.configs.push_back(k->configName());
          if (std::find(ks.threadCounts.begin(), ks.threadCounts.end(), k->threads) == ks.threadCounts.end())
            ks.threadCounts.push_back(k->threads);
          if (ks.configs.size() == 1) ks.threads = k->threads;
          if (st.options.specialise) st.A.specialised.push_back(k);
        }
        if (el.failed()) break; // the other configurations would repeat the same errors
      }
      st.A.kernels.push_back(std::move(ks));
    }
  }
}


} // namespace ph::check
