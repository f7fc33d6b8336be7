//===- Store.cpp - Entries as files, atomic renames, LRU by mtime -----------===//
//
// An entry is one file, <dir>/v1/<first two hex digits>/<key>:
//   "phcache1\n", u32 part count, per part: u32 name length, name, u64 size,
//   bytes; then a u64 FNV-1a checksum of everything before it.
// The checksum only catches damage (a full disk, a truncated copy): the key
// itself is a cryptographic hash of the inputs (VariantKey.cpp).
//
//===----------------------------------------------------------------------===//
#include "ph/Cache/Store.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <random>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ph::cache {

namespace {

constexpr char kMagic[] = "phcache1\n";
constexpr size_t kMagicLen = sizeof(kMagic) - 1;
constexpr const char *kTmpMark = ".tmp.";

uint64_t fnv1a(const char *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ uint8_t(p[i])) * 1099511628211ull;
  return h;
}

template <typename T> void putInt(std::string &out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

template <typename T> bool getInt(const std::string &in, size_t &pos, T &v) {
  if (in.size() - pos < sizeof(T)) return false;
  v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= T(uint8_t(in[pos + i])) << (8 * i);
  pos += sizeof(T);
  return true;
}

std::string serialize(const Entry &e) {
  std::string out(kMagic, kMagicLen);
  putInt<uint32_t>(out, uint32_t(e.parts.size()));
  for (const auto &[name, bytes] : e.parts) {
    putInt<uint32_t>(out, uint32_t(name.size()));
    out += name;
    putInt<uint64_t>(out, bytes.size());
    out += bytes;
  }
  putInt<uint64_t>(out, fnv1a(out.data(), out.size()));
  return out;
}

bool deserialize(const std::string &in, Entry &e) {
  if (in.size() < kMagicLen + 12 || in.compare(0, kMagicLen, kMagic) != 0) return false;
  size_t body = in.size() - 8, pos = body;
  uint64_t sum;
  if (!getInt(in, pos, sum) || sum != fnv1a(in.data(), body)) return false;
  pos = kMagicLen;
  uint32_t count;
  if (!getInt(in, pos, count)) return false;
  e.parts.clear();
  for (uint32_t i = 0; i < count; ++i) {
    uint32_t nameLen;
    uint64_t size;
    if (!getInt(in, pos, nameLen) || body - pos < nameLen) return false;
    std::string name = in.substr(pos, nameLen);
    pos += nameLen;
    if (!getInt(in, pos, size) || body - pos < size) return false;
    e.parts.emplace_back(std::move(name), in.substr(pos, size));
    pos += size;
  }
  return pos == body;
}

bool readAll(const std::string &path, std::string &out) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  struct stat st;
  bool ok = ::fstat(fd, &st) == 0;
  if (ok) {
    out.resize(size_t(st.st_size));
    size_t got = 0;
    while (ok && got < out.size()) {
      ssize_t n = ::read(fd, out.data() + got, out.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) ok = false;
      else got += size_t(n);
    }
    // Marks the entry as used: eviction removes the oldest modification times first.
    if (ok) ::futimens(fd, nullptr);
  }
  ::close(fd);
  return ok;
}

bool validKey(const std::string &key) {
  return key.size() >= 16 && std::all_of(key.begin(), key.end(), [](char c) {
           return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
         });
}

/// A temporary name no other process or thread picks: pid, thread, a counter and randomness.
std::string tempSuffix() {
  static std::atomic<uint64_t> counter{0};
  static thread_local std::mt19937_64 rng(std::random_device{}() ^
                                          std::hash<std::thread::id>()(std::this_thread::get_id()));
  char buf[96];
  std::snprintf(buf, sizeof buf, "%s%d.%llu.%llx", kTmpMark, int(::getpid()),
                (unsigned long long)counter.fetch_add(1), (unsigned long long)rng());
  return buf;
}

struct File {
  fs::path path;
  uint64_t size;
  fs::file_time_type used;
};

} // namespace

const std::string *Entry::find(const std::string &name) const {
  for (const auto &p : parts)
    if (p.first == name) return &p.second;
  return nullptr;
}

Store::Store(std::string dir, uint64_t maxBytes) : dir_(std::move(dir)), maxBytes_(maxBytes) {}

std::string Store::defaultDir() {
  if (const char *d = std::getenv("PH_CACHE_DIR"); d && *d) return d;
  if (const char *x = std::getenv("XDG_CACHE_HOME"); x && *x) return std::string(x) + "/ph";
  if (const char *h = std::getenv("HOME"); h && *h) return std::string(h) + "/.cache/ph";
  return "";
}

bool Store::parseSize(const std::string &text, uint64_t &out) {
  if (text.empty()) return false;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 15) return false;
  uint64_t v = std::strtoull(text.substr(0, digits).c_str(), nullptr, 10);
  std::string unit = text.substr(digits);
  if (!unit.empty() && (unit.back() == 'B' || unit.back() == 'b')) unit.pop_back();
  int shift = 0;
  if (unit == "") shift = 0;
  else if (unit == "K" || unit == "k") shift = 10;
  else if (unit == "M" || unit == "m") shift = 20;
  else if (unit == "G" || unit == "g") shift = 30;
  else return false;
  out = v << shift;
  return true;
}

uint64_t Store::defaultMaxBytes(std::string &err) {
  const char *s = std::getenv("PH_CACHE_MAX_SIZE");
  if (!s || !*s) return kDefaultMaxBytes;
  uint64_t v;
  if (parseSize(s, v)) return v;
  err = std::string("PH_CACHE_MAX_SIZE=`") + s + "` is not a size (e.g. 1073741824, 512M, 2G); using 1G";
  return kDefaultMaxBytes;
}

std::string Store::entryPath(const std::string &key) const {
  return dir_ + "/v1/" + key.substr(0, 2) + "/" + key;
}

bool Store::get(const std::string &key, Entry &out) const {
  if (!validKey(key)) return false;
  std::string path = entryPath(key), bytes;
  if (!readAll(path, bytes)) return false;
  if (!deserialize(bytes, out)) {
    ::unlink(path.c_str());
    return false;
  }
  return true;
}

std::string Store::put(const std::string &key, const Entry &e) const {
  if (!validKey(key)) return "not a cache key: `" + key + "`";
  std::string path = entryPath(key);
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (ec) return "cannot create `" + fs::path(path).parent_path().string() + "`: " + ec.message();
  std::string tmp = path + tempSuffix(), bytes = serialize(e);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return "cannot write `" + tmp + "`: " + std::strerror(errno);
  size_t done = 0;
  bool ok = true;
  while (ok && done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) ok = false;
    else done += size_t(n);
  }
  std::string why = ok ? "" : std::strerror(errno);
  if (::close(fd) != 0 && ok) {
    ok = false;
    why = std::strerror(errno);
  }
  // rename() replaces atomically: a reader sees the old entry, the new one, or none.
  if (ok && ::rename(tmp.c_str(), path.c_str()) != 0) {
    ok = false;
    why = std::strerror(errno);
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    return "cannot write `" + path + "`: " + why;
  }
  return "";
}

namespace {
std::vector<File> listFiles(const std::string &root, std::vector<fs::path> *staleTemps) {
  std::vector<File> files;
  std::error_code ec;
  auto now = fs::file_time_type::clock::now();
  for (fs::recursive_directory_iterator it(root + "/v1", ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code e2;
    if (!it->is_regular_file(e2)) continue;
    uint64_t size = it->file_size(e2);
    if (e2) continue;
    auto used = it->last_write_time(e2);
    if (e2) continue;
    if (it->path().filename().string().find(kTmpMark) != std::string::npos) {
      // A build in progress writes its temporaries within seconds; an hour-old one was killed.
      if (staleTemps && now - used > std::chrono::hours(1)) staleTemps->push_back(it->path());
      continue;
    }
    files.push_back({it->path(), size, used});
  }
  return files;
}
} // namespace

uint64_t Store::evict() const {
  std::vector<fs::path> stale;
  std::vector<File> files = listFiles(dir_, &stale);
  std::error_code ec;
  for (const fs::path &p : stale) fs::remove(p, ec);
  uint64_t total = 0;
  for (const File &f : files) total += f.size;
  if (total <= maxBytes_) return 0;
  std::sort(files.begin(), files.end(), [](const File &a, const File &b) {
    return a.used != b.used ? a.used < b.used : a.path < b.path;
  });
  uint64_t removed = 0;
  for (const File &f : files) {
    if (total <= maxBytes_) break;
    // Another build may have removed it already; either way it no longer counts.
    fs::remove(f.path, ec);
    total -= f.size;
    ++removed;
  }
  return removed;
}

std::string Store::clear() const {
  std::error_code ec;
  fs::remove_all(dir_ + "/v1", ec);
  if (ec) return "cannot remove `" + dir_ + "/v1`: " + ec.message();
  return "";
}

Stats Store::stats() const {
  Stats s;
  for (const File &f : listFiles(dir_, nullptr)) {
    ++s.entries;
    s.bytes += f.size;
  }
  return s;
}

} // namespace ph::cache
