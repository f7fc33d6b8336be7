//===- Npy.cpp - Reading and writing NumPy .npy files ---------------------===//
#include "ph/Npy.h"

#include "ph/Limits.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

using namespace ph;

const char *npy::dtypeName(Elem e) {
  switch (e) {
  case Elem::F16: return "float16";
  case Elem::BF16: return "bfloat16";
  case Elem::I32: return "int32";
  case Elem::F8E4M3:
  case Elem::F8E5M2: return "uint8";
  default: return "float32";
  }
}

static std::string shapeStr(const std::vector<int64_t> &s) {
  std::string r = "(";
  for (size_t i = 0; i < s.size(); ++i)
    r += (i ? ", " : "") + std::to_string(s[i]);
  return r + (s.size() == 1 ? ",)" : ")");
}

namespace {
/// The header is a Python dict literal; this reads just the three keys NumPy writes.
class HeaderReader {
public:
  explicit HeaderReader(std::string_view h) : h_(h) {}

  /// Finds `'key':` and leaves the cursor after the colon.
  bool seekKey(std::string_view key) {
    for (char q : {'\'', '"'}) {
      std::string pat = std::string(1, q) + std::string(key) + q;
      size_t p = h_.find(pat);
      if (p == std::string_view::npos)
        continue;
      pos_ = p + pat.size();
      skipSpace();
      if (pos_ < h_.size() && h_[pos_] == ':') {
        ++pos_;
        skipSpace();
        return true;
      }
    }
    return false;
  }
  bool readString(std::string &out) {
    if (pos_ >= h_.size() || (h_[pos_] != '\'' && h_[pos_] != '"'))
      return false;
    char q = h_[pos_++];
    size_t e = h_.find(q, pos_);
    if (e == std::string_view::npos)
      return false;
    out = std::string(h_.substr(pos_, e - pos_));
    pos_ = e + 1;
    return true;
  }
  bool readBool(bool &out) {
    if (h_.substr(pos_, 4) == "True") {
      out = true;
      return true;
    }
    if (h_.substr(pos_, 5) == "False") {
      out = false;
      return true;
    }
    return false;
  }
  bool readShape(std::vector<int64_t> &out) {
    if (pos_ >= h_.size() || h_[pos_] != '(')
      return false;
    ++pos_;
    out.clear();
    for (;;) {
      skipSpace();
      if (pos_ >= h_.size())
        return false;
      if (h_[pos_] == ')')
        return true;
      if (!std::isdigit(static_cast<unsigned char>(h_[pos_])))
        return false;
      int64_t v = 0;
      while (pos_ < h_.size() && std::isdigit(static_cast<unsigned char>(h_[pos_]))) {
        v = v * 10 + (h_[pos_++] - '0');
        if (v > (int64_t(1) << 40))
          return false;
      }
      // Python 2 era files may write `3L`.
      if (pos_ < h_.size() && h_[pos_] == 'L')
        ++pos_;
      out.push_back(v);
      skipSpace();
      if (pos_ < h_.size() && h_[pos_] == ',')
        ++pos_;
    }
  }

private:
  void skipSpace() {
    while (pos_ < h_.size() && std::isspace(static_cast<unsigned char>(h_[pos_])))
      ++pos_;
  }
  std::string_view h_;
  size_t pos_ = 0;
};
} // namespace

std::string npy::parse(std::string_view bytes, HostTensor &out) {
  static const char magic[] = "\x93NUMPY";
  if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, 6) != 0)
    return "not a .npy file (bad magic: expected `\\x93NUMPY`)";
  unsigned major = static_cast<uint8_t>(bytes[6]);
  size_t headerLen, headerStart;
  if (major == 1) {
    headerLen = static_cast<uint8_t>(bytes[8]) | static_cast<uint8_t>(bytes[9]) << 8;
    headerStart = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12)
      return "truncated .npy header";
    headerLen = 0;
    for (int i = 3; i >= 0; --i)
      headerLen = headerLen << 8 | static_cast<uint8_t>(bytes[8 + i]);
    headerStart = 12;
  } else {
    return "unsupported .npy format version " + std::to_string(major) + "." +
           std::to_string(static_cast<uint8_t>(bytes[7])) + " (expected 1.0, 2.0 or 3.0)";
  }
  if (bytes.size() < headerStart + headerLen)
    return "truncated .npy header";
  std::string_view header = bytes.substr(headerStart, headerLen);
  HeaderReader r(header);

  std::string descr;
  if (!r.seekKey("descr") || !r.readString(descr))
    return "malformed .npy header: no `descr` string (header: " + std::string(header) + ")";
  bool fortran = false;
  if (!r.seekKey("fortran_order") || !r.readBool(fortran))
    return "malformed .npy header: no `fortran_order` (header: " + std::string(header) + ")";
  std::vector<int64_t> shape;
  if (!r.seekKey("shape") || !r.readShape(shape))
    return "malformed .npy header: no `shape` tuple (header: " + std::string(header) + ")";
  if (fortran)
    return "the array is in Fortran order; save a C-order array (`np.ascontiguousarray(a)`)";

  // `<` little-endian, `|` or `=` (native, little-endian on every host we run on).
  char order = descr.empty() ? '?' : descr[0];
  std::string kind = descr.size() > 1 ? descr.substr(1) : descr;
  if (order == '>')
    return "big-endian dtype `" + descr + "` is not supported; save with `a.astype('<" + kind + "')`";
  Elem elem;
  if (kind == "f2")
    elem = Elem::F16;
  else if (kind == "f4")
    elem = Elem::F32;
  else if (kind == "i4")
    elem = Elem::I32;
  else if (kind == "u1")
    elem = Elem::F8E4M3; // raw fp8 bits: fitToParam takes them as the parameter's fp8 type
  else
    return "unsupported dtype `" + descr +
           "`: ph reads float16 (`<f2`), float32 (`<f4`), int32 (`<i4`) and, for fp8 tensors, "
           "uint8 (`|u1`, the raw bits); convert with `a.astype(np.float32)`";
  if (order != '<' && order != '|' && order != '=')
    return "unsupported dtype `" + descr + "`";

  // Check the shape against the file before allocating: a header may claim any
  // shape (the fuzzer's (2, 421, 84, 4222) allocated 2 GB for a 137-byte file).
  size_t dataStart = headerStart + headerLen;
  {
    // Dimensions are below 2^40 (readShape), so products capped at 2^80 cannot
    // overflow. `span` skips zeros: int64 element counts elsewhere multiply all
    // dimensions, and (2^35, 2^35, 0) would overflow there.
    const unsigned __int128 cap = (unsigned __int128)1 << 80;
    unsigned __int128 need = elemBytes(elem), span = 1;
    for (int64_t d : shape) {
      need = std::min<unsigned __int128>(need * static_cast<uint64_t>(d), cap);
      if (d) span = std::min<unsigned __int128>(span * static_cast<uint64_t>(d), cap);
    }
    if (span >> 60)
      return "unsupported .npy shape " + shapeStr(shape) + ": too many elements";
    if (need > bytes.size() - dataStart)
      return "truncated .npy data: shape " + shapeStr(shape) + " of " + dtypeName(elem) + " needs " +
             (need >> 64 ? std::string("more than 2^64") : std::to_string(static_cast<uint64_t>(need))) +
             " bytes, the file has " + std::to_string(bytes.size() - dataStart);
  }
  HostTensor t = HostTensor::zeros(elem, shape);
  size_t want = t.bytes.size();
  if (bytes.size() - dataStart < want)
    return "truncated .npy data: shape " + shapeStr(shape) + " of " + dtypeName(elem) + " needs " +
           std::to_string(want) + " bytes, the file has " + std::to_string(bytes.size() - dataStart);
  if (want)
    std::memcpy(t.bytes.data(), bytes.data() + dataStart, want);
  out = std::move(t);
  return "";
}

std::string npy::read(const std::string &path, HostTensor &out) {
  // A regular file within the run's tensor limit (`--in X=/dev/zero` read until memory ran out).
  std::string bytes, err;
  DiagKind why;
  if (!limits::readRegularFile(path, limits::kMaxRunTensorBytes + 65536, bytes, err, &why))
    return why == DiagKind::Count ? path + ": cannot open: " + std::strerror(errno) : err;
  err = parse(bytes, out);
  return err.empty() ? "" : path + ": " + err;
}

std::string npy::serialize(const HostTensor &t) {
  const HostTensor *src = &t;
  HostTensor widened;
  if (t.elem == Elem::BF16) {
    // NumPy has no bfloat16: write float32, which holds every bf16 value exactly.
    widened = HostTensor::zeros(Elem::F32, t.shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      widened.set(i, t.get(i));
    src = &widened;
  }
  const char *descr = src->elem == Elem::F16   ? "<f2"
                      : src->elem == Elem::I32 ? "<i4"
                      : isFp8(src->elem)       ? "|u1" // the raw bits (docs/running.md, "fp8")
                                               : "<f4";
  std::string dict = std::string("{'descr': '") + descr + "', 'fortran_order': False, 'shape': " +
                     shapeStr(src->shape) + ", }";
  // Pad with spaces so that the data starts on a 64-byte boundary, ending in '\n'.
  size_t pre = 10;
  size_t total = pre + dict.size() + 1;
  bool v2 = false;
  size_t padded = (total + 63) / 64 * 64;
  if (padded - pre > 65535) {
    v2 = true;
    pre = 12;
    total = pre + dict.size() + 1;
    padded = (total + 63) / 64 * 64;
  }
  dict.append(padded - total, ' ');
  dict.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(v2 ? 2 : 1);
  out.push_back(0);
  size_t hl = dict.size();
  for (int i = 0; i < (v2 ? 4 : 2); ++i)
    out.push_back(static_cast<char>((hl >> (8 * i)) & 0xff));
  out += dict;
  out.append(reinterpret_cast<const char *>(src->bytes.data()), src->bytes.size());
  return out;
}

std::string npy::write(const std::string &path, const HostTensor &t) {
  std::ofstream os(path, std::ios::binary | std::ios::trunc);
  if (!os)
    return path + ": cannot write: " + std::strerror(errno);
  std::string bytes = serialize(t);
  os.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!os)
    return path + ": write failed";
  return "";
}

std::string npy::fitToParam(HostTensor &t, const kir::Kernel &k, const kir::TensorParam &p,
                            const std::string &path) {
  std::string decl = "tensor<" + std::string(elemName(p.elem)) + ">[";
  for (size_t i = 0; i < p.dims.size(); ++i)
    decl += (i ? ", " : "") + (p.dims[i].sym.empty() ? std::to_string(p.dims[i].value) : p.dims[i].sym);
  decl += "]";
  std::string who = path + ": array for `" + p.name + "` of kernel `" + k.name + "`";
  if (p.elem == Elem::BF16 && t.elem == Elem::F32) {
    HostTensor b = HostTensor::zeros(Elem::BF16, t.shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      b.set(i, t.get(i));
    t = std::move(b);
  }
  if (isFp8(p.elem) && isFp8(t.elem)) {
    t.elem = p.elem; // uint8: the bits, as they are
  } else if (isFp8(p.elem) && (t.elem == Elem::F32 || t.elem == Elem::F16)) {
    HostTensor b = HostTensor::zeros(p.elem, t.shape); // rounded to nearest even, saturating
    for (int64_t i = 0; i < t.numElements(); ++i)
      b.set(i, t.get(i));
    t = std::move(b);
  }
  if (t.elem != p.elem)
    return who + " has dtype " + dtypeName(t.elem) + ", but `" + p.name + "` is declared `" + decl + "`" +
           (p.elem == Elem::BF16 ? " (give bf16 tensors as float32 arrays)"
            : isFp8(p.elem)      ? " (give fp8 tensors as uint8 arrays of their bits, or as float32 arrays)"
                                 : "");
  if (t.shape.size() != p.dims.size())
    return who + " has shape " + shapeStr(t.shape) + ", but `" + p.name + "` is declared `" + decl +
           "` (rank " + std::to_string(p.dims.size()) + ")";
  for (size_t d = 0; d < p.dims.size(); ++d)
    if (p.dims[d].value >= 0 && t.shape[d] != p.dims[d].value)
      return who + " has shape " + shapeStr(t.shape) + ", but `" + p.name + "` is declared `" + decl +
             "`: dimension " + std::to_string(d) + " must be " + std::to_string(p.dims[d].value);
  return "";
}
