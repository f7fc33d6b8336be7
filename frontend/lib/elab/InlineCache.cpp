//===- InlineCache.cpp - std functions' inlining, cached per call shape ------===//
//
// The cache (bounded, shared by threads), the key of a call (everything the inlined
// body can read, with the caller's variables and tensors by order of appearance), and
// the elaborator's use of it: elaborate and record, or replay (InlineCache.h says why
// this is exact).
//
//===----------------------------------------------------------------------===//
#include "InlineCache.h"

#include <cstring>
#include <set>

namespace ph::check::elab {

// --- The cache ------------------------------------------------------------------

uint32_t InlineCache::textId(const std::string &text) {
  std::lock_guard<std::mutex> lock(mutex_);
  return textIds_.emplace(text, static_cast<uint32_t>(textIds_.size())).first->second;
}

namespace {
void callsOf(const Expr &e, std::set<std::string> &out) {
  if (e.kind == ExprKind::Call && e.name.valid()) out.insert(e.name.name);
  for (auto &o : e.operands)
    if (o) callsOf(*o, out);
  for (auto &s : e.slices) {
    if (s.start) callsOf(*s.start, out);
    if (s.len) callsOf(*s.len, out);
  }
}
void callsOf(const Stmt &s, std::set<std::string> &out) {
  if (s.value) callsOf(*s.value, out);
  if (s.target) callsOf(*s.target, out);
  if (s.type)
    for (auto &d : s.type->dims) callsOf(*d, out);
  for (auto &b : s.body) callsOf(*b, out);
  for (auto &b : s.elseBody) callsOf(*b, out);
}
} // namespace

uint32_t InlineCache::fnId(const State &st, const ast::Decl &fn) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (auto it = fnIds_.find(&fn); it != fnIds_.end()) return it->second;
  }
  // The fn's text where it is, then each fn it reaches through calls (by name, once).
  std::string text;
  std::set<const ast::Decl *> seen;
  std::vector<const ast::Decl *> work{&fn};
  while (!work.empty()) {
    const ast::Decl *d = work.back();
    work.pop_back();
    if (!seen.insert(d).second) continue;
    const std::string &src = st.A.sources.file(d->range.file).text();
    text += std::to_string(d->range.file) + ":" + std::to_string(d->range.begin) + ":";
    text.append(src, d->range.begin, d->range.end - d->range.begin);
    text += '\0';
    std::set<std::string> calls;
    for (auto &s : d->body) callsOf(*s, calls);
    for (auto it = calls.rbegin(); it != calls.rend(); ++it)
      if (const ast::Decl *const *f = st.functions.find(*it)) work.push_back(*f);
  }
  uint32_t id = textId(text);
  std::lock_guard<std::mutex> lock(mutex_);
  fnIds_.emplace(&fn, id);
  return id;
}

std::shared_ptr<const InlineEffects> InlineCache::find(const std::string &key) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    ++stats_.misses;
    return nullptr;
  }
  ++stats_.hits;
  return it->second;
}

void InlineCache::insert(const std::string &key, std::shared_ptr<const InlineEffects> effects) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (capacity_ == 0 || !entries_.emplace(key, std::move(effects)).second) return;
  order_.push_back(key);
  ++stats_.stored;
  while (entries_.size() > capacity_) {
    entries_.erase(order_.front());
    order_.pop_front();
    ++stats_.evicted;
  }
}

InlineCacheStats InlineCache::stats() const {
  std::lock_guard<std::mutex> lock(mutex_);
  InlineCacheStats s = stats_;
  s.entries = entries_.size();
  return s;
}

// --- The key of a call ------------------------------------------------------------

namespace {
struct KeyWriter {
  std::string &s;
  void u8(uint8_t v) { s.push_back(static_cast<char>(v)); }
  void i64(int64_t v) { s.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void f64(double v) { s.append(reinterpret_cast<const char *>(&v), sizeof v); }
  void str(const std::string &v) {
    i64(static_cast<int64_t>(v.size()));
    s += v;
  }
  void type(const Type &t) {
    u8(static_cast<uint8_t>(t.kind));
    u8(static_cast<uint8_t>(t.elem));
    i64(static_cast<int64_t>(t.dims.size()));
    for (auto &d : t.dims) {
      str(d.sym);
      i64(d.value);
    }
  }
  void slices(const std::vector<kir::Slice> &ss) {
    i64(static_cast<int64_t>(ss.size()));
    for (auto &sl : ss) {
      u8(static_cast<uint8_t>(sl.kind));
      i64(sl.len);
      u8(sl.masked);
      u8(sl.start != nullptr);
    }
  }
};
} // namespace

std::string Elaborator::inlineKey(const Decl &fn, const Frame &nf, InlineAliases &al) {
  std::string key;
  key.reserve(512);
  KeyWriter w{key};
  w.i64(st_.inlineCache->fnId(st_, fn));
  // The frames it runs under: their number (a limit) and the std fns among them
  // (recursion); the others (the kernel, the file's fns) no std body can call.
  w.i64(static_cast<int64_t>(frames_.size()));
  for (auto &f : frames_)
    if (f.decl->range.file < st_.inlineCacheBelow && !f.decl->isKernel) w.i64(st_.inlineCache->fnId(st_, *f.decl));
  w.u8(tensorcore_);
  w.u8(explicitGrid_);
  // `@grid`'s extents decide the masks of slices by ctx.block (Slices.cpp, gridInside).
  for (int a = 0; a < 3; ++a) {
    const kir::GridAxis &g = k_->grid[a];
    w.u8(gridKnown_[a]);
    if (!gridKnown_[a]) continue;
    w.u8(g.fromSize);
    w.i64(g.fromSize ? static_cast<int64_t>(g.size) : g.constant);
    w.i64(g.divisor);
  }
  w.i64(static_cast<int64_t>(k_->sizes.size()));
  for (auto &sz : k_->sizes) {
    w.str(sz.name);
    w.i64(sz.alignedTo);
  }
  std::function<void(uint32_t)> var;
  // Every field of IntFacts, by a structured binding: a field added to IntFacts without a
  // name here fails to compile ("type has 18 members"), so the key cannot silently forget a
  // fact that changes what the inlined body elaborates to (Elaborator.h, IntFacts).
  std::function<void(const IntFacts &)> ints = [&](const IntFacts &f) {
    const auto &[c, div, axis, coef, offset, loopVar, extentSize, extentStatic, quotSize, quotBy, leSize, mirror,
                 sumSize, sumPlus, ceilSize, ceilBy, ceilPlus] = f;
    w.u8(c.has_value());
    w.i64(c.value_or(0));
    w.i64(div);
    w.i64(axis);
    w.i64(coef);
    w.i64(offset);
    w.i64(extentSize);
    w.i64(extentStatic);
    w.i64(quotSize);
    w.i64(quotBy);
    w.i64(leSize);
    w.u8(mirror);
    w.i64(sumSize);
    w.i64(sumPlus);
    w.i64(ceilSize);
    w.i64(ceilBy);
    w.i64(ceilPlus);
    if (loopVar < 0) w.u8(0);
    else {
      w.u8(1);
      var(static_cast<uint32_t>(loopVar));
    }
  };
  // A variable or tensor seen before is written as its order of first appearance, so
  // two arguments that name the same variable give another key than two that do not.
  var = [&](uint32_t v) {
    auto at = std::find(al.vars.begin(), al.vars.end(), v);
    if (at != al.vars.end()) {
      w.u8(0);
      w.i64(at - al.vars.begin());
      return;
    }
    al.vars.push_back(v);
    w.u8(1);
    w.type(varTypes_[v]);
    w.u8(varFromDot_[v]);
    w.str(k_->vars[v].name);
    w.u8(k_->vars[v].isLet);
    if (auto li = letInts_.find(v); li != letInts_.end()) {
      w.u8(1);
      ints(li->second);
    } else {
      w.u8(0);
    }
    if (auto l = loops_.find(v); l != loops_.end()) {
      w.u8(1);
      w.i64(l->second.loDiv);
      w.i64(l->second.step);
      w.i64(l->second.hiSize);
      w.i64(l->second.hiStatic);
      w.i64(l->second.hiLeSize);
      w.i64(l->second.hiDiv);
      w.u8(l->second.loNonNeg);
    } else {
      w.u8(0);
    }
  };
  auto tensor = [&](int t) {
    if (t < 0) {
      w.u8(2);
      return;
    }
    auto at = std::find(al.tensors.begin(), al.tensors.end(), t);
    if (at != al.tensors.end()) {
      w.u8(0);
      w.i64(at - al.tensors.begin());
      return;
    }
    al.tensors.push_back(t);
    const kir::TensorParam &tp = k_->tensors[t];
    w.u8(1);
    w.str(tp.name);
    w.u8(static_cast<uint8_t>(tp.elem));
    w.i64(static_cast<int64_t>(tp.dims.size()));
    for (auto &d : tp.dims) {
      w.i64(d.value);
      w.i64(d.size);
      w.str(d.sym);
    }
  };
  for (const Param &p : fn.params) {
    const uint32_t *ps = st_.paramSymbol.find(&p);
    auto it = ps ? nf.bindings.find(*ps) : nf.bindings.end();
    if (it == nf.bindings.end()) {
      w.u8(0);
      continue;
    }
    const Binding &b = it->second;
    w.u8(1);
    w.u8(static_cast<uint8_t>(b.kind));
    w.u8(b.isLet);
    w.str(b.what);
    w.type(b.type);
    switch (b.kind) {
    case Binding::Kind::Var: var(b.var); break;
    case Binding::Kind::Tensor: tensor(b.tensor); break;
    case Binding::Kind::TensorSlice:
      tensor(b.tensor);
      w.slices(b.slices);
      break;
    case Binding::Kind::TileSlice:
      var(b.var);
      w.slices(b.slices);
      break;
    case Binding::Kind::Value: {
      const Val &v = b.value;
      w.type(v.type);
      tensor(v.tensor);
      w.slices(v.slices);
      ints(v.ints);
      w.u8(v.fromDot);
      w.u8(v.isDot);
      // What the body reads of a value's kir: whether it is a literal, and which.
      w.u8(v.expr != nullptr);
      if (v.expr) {
        w.u8(static_cast<uint8_t>(v.expr->kind));
        w.i64(v.expr->ival);
        w.f64(v.expr->fval);
      }
      break;
    }
    case Binding::Kind::Error: break;
    }
  }
  return key;
}

// --- Inlining through the cache ------------------------------------------------------

void Elaborator::inlineBody(const Decl &fn, Frame nf, std::vector<kir::StmtPtr> &out) {
  // Only where replaying is exact (InlineCache.h): nothing reads the kir, and the body
  // is the prelude's, whose expressions and symbols record no facts.
  bool cacheable = st_.inlineCache && !st_.options.specialise && fn.range.file < st_.inlineCacheBelow &&
                   fn.range.file < st_.factsFrom;
  if (!cacheable) {
    frames_.push_back(std::move(nf));
    stmts(fn.body, out);
    frames_.pop_back();
    return;
  }
  InlineAliases al;
  std::string key = inlineKey(fn, nf, al);
  if (auto fx = st_.inlineCache->find(key)) {
    for (auto &v : fx->vars) {
      uint32_t id = newVar(v.name, v.type, v.isLet, v.loc, v.symbol);
      varFromDot_[id] = v.fromDot;
    }
    for (auto &[a, d] : fx->fromDot) varFromDot_[al.vars[a]] = d;
    for (auto &[a, rw] : fx->tensorFlags) {
      kir::TensorParam &tp = k_->tensors[al.tensors[a]];
      tp.read = tp.read || rw.first;
      tp.written = tp.written || rw.second;
    }
    for (int a = 0; a < 3; ++a) {
      gridCands_[a].insert(gridCands_[a].end(), fx->grid[a].begin(), fx->grid[a].end());
      if (!fx->axisUsed[a]) continue;
      if (!axisUsed_[a]) axisUse_[a] = fx->axisUse[a];
      axisUsed_[a] = true;
    }
    if (st_.textReads) st_.textReads->insert(st_.textReads->end(), fx->textReads.begin(), fx->textReads.end());
    return;
  }
  // Elaborate it, and keep what it did when it reported nothing and touched only what
  // its key names. The marks the body may set on the caller's state (a tensor read or
  // written, an axis of ctx.block used) are cleared for it and merged back after, so
  // the entry holds the body's own.
  size_t diags0 = st_.diags.all().size() + st_.diags.dropped(), errors0 = errors_;
  size_t facts0 = st_.A.exprFacts.size(), vars0 = varTypes_.size();
  size_t reads0 = st_.textReads ? st_.textReads->size() : 0;
  size_t grid0[3] = {gridCands_[0].size(), gridCands_[1].size(), gridCands_[2].size()};
  std::vector<bool> fromDot0 = varFromDot_;
  std::vector<std::pair<bool, bool>> flags0;
  flags0.reserve(k_->tensors.size());
  for (auto &t : k_->tensors) {
    flags0.push_back({t.read, t.written});
    t.read = t.written = false;
  }
  bool used0[3] = {axisUsed_[0], axisUsed_[1], axisUsed_[2]};
  SourceRange use0[3] = {axisUse_[0], axisUse_[1], axisUse_[2]};
  for (bool &u : axisUsed_) u = false;
  frames_.push_back(std::move(nf));
  stmts(fn.body, out);
  frames_.pop_back();
  auto fx = std::make_shared<InlineEffects>();
  bool keep = st_.diags.all().size() + st_.diags.dropped() == diags0 && errors_ == errors0 &&
              st_.A.exprFacts.size() == facts0;
  for (size_t t = 0; t < flags0.size(); ++t) {
    kir::TensorParam &tp = k_->tensors[t];
    if (tp.read || tp.written) {
      auto at = std::find(al.tensors.begin(), al.tensors.end(), static_cast<int>(t));
      if (at == al.tensors.end()) keep = false;
      else fx->tensorFlags.push_back({static_cast<uint32_t>(at - al.tensors.begin()), {tp.read, tp.written}});
    }
    tp.read = tp.read || flags0[t].first;
    tp.written = tp.written || flags0[t].second;
  }
  for (int a = 0; a < 3; ++a) {
    fx->axisUsed[a] = axisUsed_[a];
    fx->axisUse[a] = axisUse_[a];
    if (used0[a]) {
      axisUsed_[a] = true;
      axisUse_[a] = use0[a];
    }
  }
  if (!keep) return;
  for (size_t v = 0; v < vars0; ++v)
    if (varFromDot_[v] != fromDot0[v] && std::find(al.vars.begin(), al.vars.end(), v) == al.vars.end()) return;
  for (uint32_t a = 0; a < al.vars.size(); ++a) fx->fromDot.push_back({a, varFromDot_[al.vars[a]]});
  for (size_t v = vars0; v < varTypes_.size(); ++v)
    fx->vars.push_back({k_->vars[v].name, varTypes_[v], k_->vars[v].isLet, k_->vars[v].loc, varSymbol_[v],
                        static_cast<bool>(varFromDot_[v])});
  for (int a = 0; a < 3; ++a)
    fx->grid[a].assign(gridCands_[a].begin() + static_cast<std::ptrdiff_t>(grid0[a]), gridCands_[a].end());
  if (st_.textReads)
    fx->textReads.assign(st_.textReads->begin() + static_cast<std::ptrdiff_t>(reads0), st_.textReads->end());
  st_.inlineCache->insert(key, std::move(fx));
}

} // namespace ph::check::elab
