//===- VariantKey.cpp - Hashing a specialised kernel, field by field --------===//
//
// Every field is written with a tag and a length, so two different kernels
// never produce the same byte stream. Shared sub-expressions are written once
// and then referred to by number (kir is a DAG; the lowering sees sharing).
// The static_asserts below fail when a kir struct gains a field: add it to
// the hash, then update the size.
//
//===----------------------------------------------------------------------===//
#include "ph/Cache/VariantKey.h"

#include "ph/Source.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Support/BLAKE3.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <sys/stat.h>
#include <unordered_map>
#include <vector>

extern char **environ;

namespace ph::cache {

namespace {

// A new field in kir must reach the key, or an edit that changes only that
// field would reuse a stale cubin. These sizes are for x86-64 with libstdc++.
static_assert(sizeof(kir::Expr) == 128, "kir::Expr changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::Stmt) == 160, "kir::Stmt changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::Slice) == 40, "kir::Slice changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::Var) == 80, "kir::Var changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::Kernel) == 392, "kir::Kernel changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::TensorParam) == 72, "kir::TensorParam changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::TensorDim) == 48, "kir::TensorDim changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::ScalarParam) == 40, "kir::ScalarParam changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::SizeSym) == 40, "kir::SizeSym changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::GridAxis) == 24, "kir::GridAxis changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::ParamRef) == 8, "kir::ParamRef changed: hash the new field in VariantKey.cpp");
static_assert(sizeof(kir::KType) == 32, "kir::KType changed: hash the new field in VariantKey.cpp");

class Hasher {
public:
  Hasher(const kir::Kernel &k, const SourceManager *sources) : k(k), sources(sources) {}

  void bytes(const void *p, size_t n) { h.update(llvm::ArrayRef<uint8_t>(static_cast<const uint8_t *>(p), n)); }
  void u64(uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; ++i) b[i] = uint8_t(v >> (8 * i));
    bytes(b, 8);
  }
  void i64(int64_t v) { u64(uint64_t(v)); }
  void tag(char t) { bytes(&t, 1); }
  void str(const std::string &s) {
    u64(s.size());
    bytes(s.data(), s.size());
  }
  void f64(double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    u64(bits);
  }

  /// As the backend sees a range: the file's path, start and end line and column.
  void loc(SourceRange r) {
    tag('L');
    if (!sources || r.file >= sources->size()) {
      tag('?');
      return;
    }
    const SourceFile &f = sources->file(r.file);
    LineCol a = f.lineCol(r.begin), z = f.lineCol(r.end);
    str(f.path());
    u64(a.line), u64(a.col), u64(z.line), u64(z.col);
  }
  void type(const kir::KType &t) {
    tag('T');
    u64(uint64_t(t.elem));
    u64(t.shape.size());
    for (int64_t d : t.shape) i64(d);
  }
  void slices(const std::vector<kir::Slice> &sl) {
    u64(sl.size());
    for (const kir::Slice &s : sl) {
      tag('S');
      u64(uint64_t(s.kind));
      expr(s.start);
      i64(s.len);
      u64(s.masked);
    }
  }
  void expr(const kir::ExprPtr &e) {
    if (!e) {
      tag('0');
      return;
    }
    if (auto it = seen.find(e.get()); it != seen.end()) {
      tag('R');
      u64(it->second);
      return;
    }
    seen.emplace(e.get(), seen.size());
    tag('E');
    u64(uint64_t(e->kind));
    type(e->type);
    loc(e->loc);
    u64(uint64_t(e->op));
    i64(e->ival);
    f64(e->fval);
    u64(e->index);
    u64(e->transB);
    u64(e->operands.size());
    for (const kir::ExprPtr &o : e->operands) expr(o);
    slices(e->slices);
  }
  void stmts(const std::vector<kir::StmtPtr> &body) {
    u64(body.size());
    for (const kir::StmtPtr &s : body) {
      tag('s');
      u64(uint64_t(s->kind));
      loc(s->loc);
      u64(s->var);
      u64(s->tensor);
      expr(s->value);
      slices(s->slices);
      expr(s->lo);
      expr(s->hi);
      expr(s->step);
      stmts(s->body);
      stmts(s->elseBody);
    }
  }
  void kernel() {
    tag('K');
    str(k.name);
    loc(k.loc);
    u64(k.config.size());
    for (const auto &[n, v] : k.config) str(n), i64(v);
    u64(k.params.size());
    for (const kir::ParamRef &p : k.params) u64(p.isTensor), u64(p.index);
    u64(k.tensors.size());
    for (const kir::TensorParam &t : k.tensors) {
      str(t.name);
      u64(uint64_t(t.elem));
      u64(t.dims.size());
      for (const kir::TensorDim &d : t.dims) i64(d.value), u64(d.size), str(d.sym);
      u64(t.written), u64(t.read);
    }
    u64(k.scalars.size());
    for (const kir::ScalarParam &s : k.scalars) str(s.name), u64(uint64_t(s.elem));
    u64(k.sizes.size());
    for (const kir::SizeSym &s : k.sizes) str(s.name), i64(s.alignedTo);
    for (int i = 0; i < 3; ++i) {
      const kir::GridAxis &g = k.grid[i];
      u64(g.fromSize), u64(g.size), i64(g.divisor), i64(g.constant);
      str(k.gridText[i]);
    }
    i64(k.threads);
    u64(k.threadsGiven);
    u64(k.tensorcore);
    u64(k.vars.size());
    for (const kir::Var &v : k.vars) {
      str(v.name);
      type(v.type);
      u64(v.isLet);
      loc(v.loc);
    }
    stmts(k.body);
  }

  std::string hex() {
    auto r = h.final();
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (uint8_t b : r) s += digits[b >> 4], s += digits[b & 15];
    return s;
  }

private:
  llvm::BLAKE3 h;
  const kir::Kernel &k;
  const SourceManager *sources;
  std::unordered_map<const kir::Expr *, uint64_t> seen;
};

} // namespace

std::string fileIdentity(const std::string &path) {
  struct stat st;
  if (path.empty() || ::stat(path.c_str(), &st) != 0) return path + " missing";
  return path + " " + std::to_string(st.st_size) + " " + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

std::string compilerIdentity() {
  std::string id = "ph 0.1.0; llvm " LLVM_VERSION_STRING "; ";
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  id += fileIdentity(n > 0 ? std::string(exe, size_t(n)) : std::string());
  std::vector<std::string> env;
  for (char **e = environ; e && *e; ++e)
    if (!std::strncmp(*e, "PH_", 3) || !std::strncmp(*e, "CUDA_PATH=", 10)) {
      // Where the cache lives and how big it may grow do not change what is compiled.
      if (!std::strncmp(*e, "PH_CACHE_", 9)) continue;
      env.emplace_back(*e);
    }
  std::sort(env.begin(), env.end());
  for (const std::string &v : env) id += "; " + v;
  return id;
}

std::string contentKey(const std::string &kind, const std::string &content) {
  llvm::BLAKE3 h;
  auto str = [&](const std::string &s) {
    uint8_t n[8];
    for (int i = 0; i < 8; ++i) n[i] = uint8_t(uint64_t(s.size()) >> (8 * i));
    h.update(llvm::ArrayRef<uint8_t>(n, 8));
    h.update(llvm::ArrayRef<uint8_t>(reinterpret_cast<const uint8_t *>(s.data()), s.size()));
  };
  str("ph-content-1");
  str(kind);
  str(content);
  auto r = h.final();
  static const char digits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : r) out += digits[b >> 4], out += digits[b & 15];
  return out;
}

std::string variantKey(const kir::Kernel &k, const SourceManager *sources, const std::string &target,
                       const std::string &toolchain) {
  Hasher h(k, sources);
  h.str("ph-variant-1");
  h.str(target);
  h.str(toolchain);
  h.kernel();
  return h.hex();
}

} // namespace ph::cache
