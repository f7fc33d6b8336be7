//===- Launch.cpp - Host tensors, 16-bit conversions, binding a launch ----===//
#include "ph/Launch.h"

#include "ph/Fp8.h"
#include "ph/Limits.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sstream>

using namespace ph;

//===----------------------------------------------------------------------===//
// 16-bit floating point
//===----------------------------------------------------------------------===//

// One encoder for f16 and bf16, from double: rounding a double straight to the
// target avoids the double rounding of double -> float -> half, and the
// default rounding mode (FE_TONEAREST) makes nearbyint round ties to even.
static uint32_t encodeIeee(double v, int expBits, int mantBits) {
  const uint32_t sign = std::signbit(v) ? 1u << (expBits + mantBits) : 0;
  const uint32_t infBits = ((1u << expBits) - 1) << mantBits;
  const int bias = (1 << (expBits - 1)) - 1;
  const int minExp = 1 - bias;
  if (std::isnan(v))
    return sign | infBits | (1u << (mantBits - 1));
  double a = std::fabs(v);
  if (std::isinf(a))
    return sign | infBits;
  if (a == 0)
    return sign;
  int e = std::max(std::ilogb(a), minExp);
  double quantum = std::ldexp(1.0, e - mantBits);
  double r = std::nearbyint(a / quantum) * quantum;
  if (r >= std::ldexp(1.0, bias + 1))
    return sign | infBits;
  if (r < std::ldexp(1.0, minExp)) // subnormal (or rounded to zero)
    return sign | static_cast<uint32_t>(r / std::ldexp(1.0, minExp - mantBits));
  int re = std::ilogb(r);
  uint32_t mant = static_cast<uint32_t>(r / std::ldexp(1.0, re - mantBits)) - (1u << mantBits);
  return sign | (static_cast<uint32_t>(re + bias) << mantBits) | mant;
}

static double decodeIeee(uint32_t bits, int expBits, int mantBits) {
  const int bias = (1 << (expBits - 1)) - 1;
  const uint32_t expMax = (1u << expBits) - 1;
  bool neg = (bits >> (expBits + mantBits)) & 1;
  uint32_t ex = (bits >> mantBits) & expMax;
  uint32_t mant = bits & ((1u << mantBits) - 1);
  double r;
  if (ex == expMax)
    r = mant ? std::numeric_limits<double>::quiet_NaN() : std::numeric_limits<double>::infinity();
  else if (ex == 0)
    r = std::ldexp(static_cast<double>(mant), 1 - bias - mantBits);
  else
    r = std::ldexp(static_cast<double>(mant + (1u << mantBits)), static_cast<int>(ex) - bias - mantBits);
  return neg ? -r : r;
}

static uint16_t doubleToHalf(double v) { return static_cast<uint16_t>(encodeIeee(v, 5, 10)); }
static uint16_t doubleToBf16(double v) { return static_cast<uint16_t>(encodeIeee(v, 8, 7)); }

uint16_t ph::floatToHalf(float f) { return doubleToHalf(f); }
float ph::halfToFloat(uint16_t h) { return static_cast<float>(decodeIeee(h, 5, 10)); }
uint16_t ph::floatToBf16(float f) { return doubleToBf16(f); }
float ph::bf16ToFloat(uint16_t b) { return static_cast<float>(decodeIeee(b, 8, 7)); }

// Float -> i32 (docs/language.md, "Conversions"; the targets emit the same through
// ph/Conversion/ConvertRules.h): truncate toward zero, saturate at the ends of the
// range, NaN -> 0.
static int32_t toI32(double v) {
  if (std::isnan(v))
    return 0;
  if (v >= 2147483648.0)
    return std::numeric_limits<int32_t>::max();
  if (v < -2147483648.0)
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(std::trunc(v));
}

double ph::roundToElem(double v, Elem e) {
  switch (e) {
  case Elem::F16:
    return decodeIeee(doubleToHalf(v), 5, 10);
  case Elem::BF16:
    return decodeIeee(doubleToBf16(v), 8, 7);
  case Elem::F32:
    return static_cast<double>(static_cast<float>(v));
  case Elem::I32:
    return toI32(v);
  case Elem::F8E4M3:
  case Elem::F8E5M2:
    return fp8::round(v, e);
  default:
    return v;
  }
}

//===----------------------------------------------------------------------===//
// HostTensor
//===----------------------------------------------------------------------===//

static size_t storedBytes(Elem e) { return elemBytes(e); }

int64_t HostTensor::numElements() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

double HostTensor::get(int64_t i) const {
  const uint8_t *p = bytes.data() + i * storedBytes(elem);
  switch (elem) {
  case Elem::F16:
  case Elem::BF16: {
    uint16_t h;
    std::memcpy(&h, p, 2);
    return elem == Elem::F16 ? decodeIeee(h, 5, 10) : decodeIeee(h, 8, 7);
  }
  case Elem::F8E4M3:
  case Elem::F8E5M2:
    return fp8::toFloat(*p, elem);
  case Elem::I32: {
    int32_t v;
    std::memcpy(&v, p, 4);
    return v;
  }
  default: {
    float v;
    std::memcpy(&v, p, 4);
    return v;
  }
  }
}

void HostTensor::set(int64_t i, double v) {
  uint8_t *p = bytes.data() + i * storedBytes(elem);
  switch (elem) {
  case Elem::F16:
  case Elem::BF16: {
    uint16_t h = elem == Elem::F16 ? doubleToHalf(v) : doubleToBf16(v);
    std::memcpy(p, &h, 2);
    return;
  }
  case Elem::F8E4M3:
  case Elem::F8E5M2:
    *p = fp8::fromFloat(static_cast<float>(v), elem);
    return;
  case Elem::I32: {
    int32_t x = toI32(v);
    std::memcpy(p, &x, 4);
    return;
  }
  default: {
    float f = static_cast<float>(v);
    std::memcpy(p, &f, 4);
    return;
  }
  }
}

HostTensor HostTensor::zeros(Elem e, std::vector<int64_t> shape) {
  HostTensor t;
  t.elem = e;
  t.shape = std::move(shape);
  t.bytes.assign(static_cast<size_t>(t.numElements()) * storedBytes(e), 0);
  return t;
}

//===----------------------------------------------------------------------===//
// Binding a launch
//===----------------------------------------------------------------------===//

static std::string declString(const kir::TensorParam &p) {
  std::string s = "tensor<" + std::string(elemName(p.elem)) + ">[";
  for (size_t i = 0; i < p.dims.size(); ++i)
    s += (i ? ", " : "") + (p.dims[i].sym.empty() ? std::to_string(p.dims[i].value) : p.dims[i].sym);
  return s + "]";
}

static std::string shapeString(const std::vector<int64_t> &shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

static std::string listNames(const std::vector<std::string> &names) {
  if (names.empty())
    return "none";
  std::string s;
  for (size_t i = 0; i < names.size(); ++i)
    s += (i ? ", " : "") + ("`" + names[i] + "`");
  return s;
}

// A portable generator (splitmix64): the same seed gives the same inputs with
// every standard library, which std::uniform_real_distribution does not promise.
namespace {
struct SplitMix {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  /// Uniform in [-1, 1), a multiple of 2^-52.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1p-52 - 1.0; }
};
} // namespace

static const std::pair<std::string, int64_t> *findConfig(const kir::Kernel &k, const std::string &name) {
  for (const auto &c : k.config)
    if (c.first == name)
      return &c;
  return nullptr;
}

double ph::defaultScalar(const kir::Kernel &k, const std::string &name) {
  return defaultScalar(k, name, {});
}

double ph::defaultScalar(const kir::Kernel &k, const std::string &name,
                         const std::vector<int64_t> &sizes) {
  if (name != "scale")
    return 1.0;
  if (const auto *c = findConfig(k, "D"))
    return 1.0 / std::sqrt(static_cast<double>(c->second));
  for (size_t i = 0; i < k.sizes.size() && i < sizes.size(); ++i)
    if (k.sizes[i].name == "D" && sizes[i] > 0)
      return 1.0 / std::sqrt(static_cast<double>(sizes[i]));
  // A static extent spelled `D` (a literal size would not be named D, but an
  // autotune constant folded into a tensor dimension would).
  for (const auto &t : k.tensors)
    for (const auto &d : t.dims)
      if (d.sym == "D" && d.value > 0)
        return 1.0 / std::sqrt(static_cast<double>(d.value));
  return 1.0;
}

std::string ph::bindLaunch(const kir::Kernel &k, const LaunchRequest &req,
                           std::vector<HostTensor> &storage, LaunchArgs &out) {
  auto tensorIndex = [&](const std::string &name) -> int {
    for (size_t i = 0; i < k.tensors.size(); ++i)
      if (k.tensors[i].name == name)
        return static_cast<int>(i);
    return -1;
  };
  std::vector<std::string> tensorNames, sizeNames, scalarNames;
  for (const auto &t : k.tensors)
    tensorNames.push_back(t.name);
  for (const auto &s : k.sizes)
    sizeNames.push_back(s.name);
  for (const auto &s : k.scalars)
    scalarNames.push_back(s.name);

  // Names the kernel does not have are mistakes, not things to ignore.
  for (const auto &[name, t] : req.inputs)
    if (tensorIndex(name) < 0)
      return "kernel `" + k.name + "` has no tensor parameter `" + name + "` (its tensors: " +
             listNames(tensorNames) + ")";
  for (const auto &[name, v] : req.scalars) {
    bool found = false;
    for (const auto &s : k.scalars)
      found |= s.name == name;
    if (!found)
      return "kernel `" + k.name + "` has no scalar parameter `" + name + "` (its scalars: " +
             listNames(scalarNames) + ")";
  }

  // Where each size got its value, to name both sides of a disagreement.
  std::vector<int64_t> sizes(k.sizes.size(), -1);
  std::vector<std::string> from(k.sizes.size());
  for (const auto &[name, v] : req.sizes) {
    if (const auto *c = findConfig(k, name)) {
      if (c->second != v)
        return "`--size " + name + "=" + std::to_string(v) + "` disagrees with the `@autotune` constant `" +
               name + "` = " + std::to_string(c->second) + " of this variant (" + k.configName() +
               "); choose a variant with `--config " + name + "=...`";
      continue;
    }
    size_t i = 0;
    while (i < k.sizes.size() && k.sizes[i].name != name)
      ++i;
    if (i == k.sizes.size())
      return "kernel `" + k.name + "` has no size `" + name + "` (its sizes: " + listNames(sizeNames) + ")";
    if (v <= 0)
      return "size `" + name + "` must be positive, found " + std::to_string(v);
    if (v > std::numeric_limits<int32_t>::max()) // kernels compute with i32 sizes and indices
      return "size `" + name + "` = " + std::to_string(v) + " does not fit in i32 (at most 2147483647)";
    sizes[i] = v;
    from[i] = "`--size " + name + "=" + std::to_string(v) + "`";
  }

  for (const auto &[name, t] : req.inputs) {
    const kir::TensorParam &p = k.tensors[tensorIndex(name)];
    std::string decl = "`" + p.name + ": " + declString(p) + "`";
    if (t.elem != p.elem)
      return "input `" + name + "` has element type " + elemName(t.elem) + ", but the parameter is " + decl;
    if (t.shape.size() != p.dims.size())
      return "input `" + name + "` has shape " + shapeString(t.shape) + " (rank " +
             std::to_string(t.shape.size()) + "), but the parameter is " + decl + " (rank " +
             std::to_string(p.dims.size()) + ")";
    for (size_t d = 0; d < p.dims.size(); ++d) {
      const kir::TensorDim &dim = p.dims[d];
      int64_t have = t.shape[d];
      if (dim.value >= 0) {
        if (have != dim.value) {
          bool isConst = findConfig(k, dim.sym) != nullptr;
          return "input `" + name + "` has extent " + std::to_string(have) + " along dimension " +
                 std::to_string(d) + ", but " + decl + " fixes it to " + std::to_string(dim.value) +
                 (isConst ? " (the `@autotune` constant `" + dim.sym + "` of this variant, " +
                                k.configName() + ")"
                          : "");
        }
        continue;
      }
      std::string here = "`" + name + "` (dimension " + std::to_string(d) + ")";
      int64_t &bound = sizes[dim.size];
      if (bound >= 0 && bound != have)
        return "size `" + k.sizes[dim.size].name + "` is " + std::to_string(bound) + " from " +
               from[dim.size] + " but " + std::to_string(have) + " from " + here;
      if (bound < 0) {
        if (have <= 0)
          return "size `" + k.sizes[dim.size].name + "` must be positive, found " + std::to_string(have) +
                 " from " + here;
        bound = have;
        from[dim.size] = here;
      }
    }
  }

  for (size_t i = 0; i < k.sizes.size(); ++i) {
    const kir::SizeSym &s = k.sizes[i];
    if (sizes[i] < 0) {
      std::vector<std::string> users;
      for (const auto &t : k.tensors)
        for (const auto &d : t.dims)
          if (d.value < 0 && d.size == i) {
            users.push_back(t.name);
            break;
          }
      return "size `" + s.name + "` is not bound: give `--size " + s.name + "=...` or an input for " +
             (users.empty() ? std::string("it") : listNames(users));
    }
    if (s.alignedTo > 1 && sizes[i] % s.alignedTo != 0)
      return "size `" + s.name + "` = " + std::to_string(sizes[i]) + " (from " + from[i] +
             ") breaks `@aligned(" + s.name + " = " + std::to_string(s.alignedTo) + ")`: it is not a multiple of " +
             std::to_string(s.alignedTo);
  }

  // The bytes of every tensor, before any is allocated (`--size T=2147483647` threw
  // std::bad_alloc): limits::kMaxRunTensorBytes in all.
  {
    uint64_t total = 0, largest = 0;
    std::string largestText;
    for (const auto &p : k.tensors) {
      std::vector<size_t> dims;
      std::string shape;
      for (const auto &d : p.dims) {
        int64_t e = d.value >= 0 ? d.value : sizes[d.size];
        dims.push_back(static_cast<size_t>(e));
        shape += (shape.empty() ? "" : ", ") + (d.value >= 0 ? std::to_string(e) : d.sym + " = " + std::to_string(e));
      }
      dims.push_back(elemBytes(p.elem));
      uint64_t bytes = limits::configCount(dims); // a saturating product
      total = total > UINT64_MAX - bytes ? UINT64_MAX : total + bytes;
      if (bytes >= largest) {
        largest = bytes;
        largestText = "`" + p.name + "`: " + elemName(p.elem) + "[" + shape + "], " + limits::groupDigits(bytes) + " bytes";
      }
    }
    if (total > req.maxTensorBytes)
      return "the tensors of `" + k.name + "` need " + limits::groupDigits(total) + " bytes, more than the limit of " +
             limits::groupDigits(req.maxTensorBytes) + " bytes for one run (largest " + largestText + ")";
  }

  // A size-based `@grid` axis `N / q` runs ceil(N / q) blocks, and the elaborator reads the
  // kernel's `(N + q - 1) / q` as exactly that (the block counted from the end, gqa_prefill's row,
  // drops masks on it: docs/language.md, The grid). The kernel computes N + q - 1 in i32, which
  // wraps past 2^31 - 1 and makes the quotient a lie: such a size is refused here, for every
  // target, before anything is allocated. An inferred grid's axis is refused alike (the Kernel
  // does not say which axes `@grid` gave, and ph-run's manifest neither); after the limit on
  // the bytes, whose message names the tensors.
  static const char *axisName[3] = {"x", "y", "z"};
  for (int a = 0; a < 3; ++a) {
    const kir::GridAxis &g = k.grid[a];
    if (!g.fromSize || g.divisor <= 1 || g.size >= sizes.size()) continue;
    const int64_t imax = std::numeric_limits<int32_t>::max();
    int64_t n = sizes[g.size];
    if (n <= imax - (g.divisor - 1)) continue;
    const std::string &name = k.sizes[g.size].name;
    std::string q = std::to_string(g.divisor);
    std::string most = g.divisor - 1 >= imax ? "no size fits" : name + " may be at most " + std::to_string(imax - (g.divisor - 1));
    std::string plus = name + " + " + std::to_string(g.divisor - 1);
    return "size `" + name + "` = " + std::to_string(n) + " (from " + from[g.size] + ") is too large for the grid's axis " +
           axisName[a] + ", `" + name + " / " + q + "` (`@grid` or inferred): ceil(" + name + " / " + q + ") is `(" + plus + ") / " + q +
           "` in the kernel's i32, and " + plus + " = " + std::to_string(n + g.divisor - 1) +
           " is above 2147483647 (" + most + ")";
  }

  // Allocate. Pointers into `storage` must stay valid: reserve first.
  storage.clear();
  storage.reserve(k.tensors.size());
  out.tensors.clear();
  for (size_t ti = 0; ti < k.tensors.size(); ++ti) {
    const kir::TensorParam &p = k.tensors[ti];
    auto it = req.inputs.find(p.name);
    if (it != req.inputs.end()) {
      storage.push_back(it->second);
    } else {
      std::vector<int64_t> shape;
      for (const auto &d : p.dims)
        shape.push_back(d.value >= 0 ? d.value : sizes[d.size]);
      HostTensor t = HostTensor::zeros(p.elem, shape);
      int64_t n = t.numElements();
      if (p.read || !p.written) {
        // One stream per tensor, so adding a parameter does not change the others' data.
        SplitMix rng{req.seed * 0x2545F4914F6CDD1Dull + (ti + 1) * 0x9E3779B97F4A7C15ull};
        for (int64_t e = 0; e < n; ++e)
          t.set(e, p.elem == Elem::I32 ? std::floor((rng.uniform() + 1.0) * 4.0) : rng.uniform());
      } else {
        // Poison: an output element the kernel forgets to write shows up as NaN.
        double poison = p.elem == Elem::I32 ? static_cast<double>(std::numeric_limits<int32_t>::min())
                                            : std::numeric_limits<double>::quiet_NaN();
        for (int64_t e = 0; e < n; ++e)
          t.set(e, poison);
      }
      storage.push_back(std::move(t));
    }
    out.tensors.push_back(&storage.back());
  }

  out.sizes = sizes;
  out.scalars.clear();
  for (const auto &s : k.scalars) {
    auto it = req.scalars.find(s.name);
    double v = it != req.scalars.end() ? it->second : defaultScalar(k, s.name, sizes);
    out.scalars.push_back(s.elem == Elem::I32 ? std::trunc(v) : v);
  }
  for (int a = 0; a < 3; ++a) {
    const kir::GridAxis &g = k.grid[a];
    if (g.fromSize) {
      int64_t div = g.divisor > 0 ? g.divisor : 1;
      out.grid[a] = (sizes.at(g.size) + div - 1) / div;
    } else {
      out.grid[a] = g.constant;
    }
  }
  return "";
}

//===----------------------------------------------------------------------===//
// Checking a target against the interpreter
//===----------------------------------------------------------------------===//

double ph::checkTolerance(Elem e) {
  switch (e) {
  case Elem::F32: return 1e-4;
  case Elem::I32: return 0;
  case Elem::BF16: return 1e-2;
  // One unit in the last place is 1/8 (e4m3) or 1/4 (e5m2) of a value: the targets round
  // the same f32 the same way, so only an f32 a reduction order moved across a rounding
  // boundary differs, by one unit, in an element here and there.
  case Elem::F8E4M3: return 3e-2;
  case Elem::F8E5M2: return 6e-2;
  default: return 3e-3; // f16
  }
}

NonFinite ph::compareNonFinite(double out, double ref) {
  if (std::isfinite(out) && std::isfinite(ref))
    return NonFinite::No;
  if (std::isnan(out) && std::isnan(ref))
    return NonFinite::Agree;
  return out == ref ? NonFinite::Agree : NonFinite::Disagree; // equal infinities
}

OutputComparison ph::compareOutputs(const HostTensor &out, const HostTensor &ref) {
  OutputComparison c;
  c.tolerance = checkTolerance(out.elem);
  if (out.shape != ref.shape) {
    c.passed = false;
    c.relErr = std::numeric_limits<double>::infinity();
    return c;
  }
  double diff2 = 0, ref2 = 0;
  for (int64_t i = 0; i < out.numElements(); ++i) {
    double o = out.get(i), r = ref.get(i);
    if (NonFinite nf = compareNonFinite(o, r); nf != NonFinite::No) {
      ++(nf == NonFinite::Agree ? c.agreedNonFinite : c.nanCount);
      continue;
    }
    double d = o - r;
    if (std::fabs(d) > c.maxAbs || c.worst < 0) {
      c.maxAbs = std::fabs(d);
      c.worst = i;
    }
    diff2 += d * d;
    ref2 += r * r;
  }
  c.relErr = ref2 > 0 ? std::sqrt(diff2 / ref2) : std::sqrt(diff2);
  c.passed = c.nanCount == 0 && std::isfinite(c.relErr) && c.relErr <= c.tolerance;
  return c;
}

std::string ph::comparisonSummary(const OutputComparison &c) {
  char buf[256];
  if (!std::isfinite(c.relErr) && c.worst < 0 && c.nanCount == 0)
    return "the shapes differ";
  if (c.nanCount)
    std::snprintf(buf, sizeof buf, "%lld element(s) NaN or infinite in one but not the other",
                  static_cast<long long>(c.nanCount));
  else
    std::snprintf(buf, sizeof buf, "rel L2 error %.3g (tolerance %g), max abs error %.3g at element %lld", c.relErr,
                  c.tolerance, c.maxAbs, static_cast<long long>(c.worst));
  return buf;
}
