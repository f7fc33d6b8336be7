//===- CacheTest.cpp - The build cache's store and variant keys ------------===//
#include "ph/Analysis.h"
#include "ph/Cache/Store.h"
#include "ph/Cache/VariantKey.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

using namespace ph;
namespace fs = std::filesystem;

namespace {

/// A private cache folder per test, removed afterwards.
struct TempDir {
  fs::path path;
  TempDir() {
    char tmpl[] = "/tmp/ph-cache-test-XXXXXX";
    path = ::mkdtemp(tmpl);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

std::string key(int i) {
  std::string k(64, '0');
  std::string n = std::to_string(i);
  k.replace(64 - n.size(), n.size(), n);
  k[0] = 'a' + (i % 3);
  return k;
}

cache::Entry entry(const std::string &payload) {
  cache::Entry e;
  e.parts.emplace_back("cubin", payload);
  e.parts.emplace_back("ptx", std::string("\0with\0nuls", 10));
  return e;
}

std::vector<fs::path> entryFiles(const fs::path &root) {
  std::vector<fs::path> out;
  for (auto &f : fs::recursive_directory_iterator(root / "v1"))
    if (f.is_regular_file()) out.push_back(f.path());
  return out;
}

TEST(CacheStore, AnEntryReadsBackAsWritten) {
  TempDir t;
  cache::Store s(t.path.string(), cache::kDefaultMaxBytes);
  cache::Entry out;
  EXPECT_FALSE(s.get(key(1), out));
  ASSERT_EQ(s.put(key(1), entry("abc")), "");
  ASSERT_TRUE(s.get(key(1), out));
  ASSERT_EQ(out.parts.size(), 2u);
  EXPECT_EQ(*out.find("cubin"), "abc");
  EXPECT_EQ(*out.find("ptx"), std::string("\0with\0nuls", 10));
  EXPECT_EQ(out.find("nothing"), nullptr);
  EXPECT_FALSE(s.get(key(2), out));
  // No temporary file is left behind.
  EXPECT_EQ(entryFiles(t.path).size(), 1u);
}

TEST(CacheStore, ADamagedEntryIsAMissAndIsRemoved) {
  TempDir t;
  cache::Store s(t.path.string(), cache::kDefaultMaxBytes);
  ASSERT_EQ(s.put(key(1), entry(std::string(1000, 'x'))), "");
  fs::path f = entryFiles(t.path).at(0);
  // Truncated (a full disk), then one byte flipped.
  fs::resize_file(f, fs::file_size(f) - 3);
  cache::Entry out;
  EXPECT_FALSE(s.get(key(1), out));
  EXPECT_FALSE(fs::exists(f));
  ASSERT_EQ(s.put(key(1), entry(std::string(1000, 'x'))), "");
  {
    std::fstream io(f, std::ios::in | std::ios::out | std::ios::binary);
    io.seekp(100);
    io.put('y');
  }
  EXPECT_FALSE(s.get(key(1), out));
}

TEST(CacheStore, KeysThatAreNotHexAreRefused) {
  TempDir t;
  cache::Store s(t.path.string(), cache::kDefaultMaxBytes);
  EXPECT_NE(s.put("../../etc/passwd0000000000", entry("x")), "");
  cache::Entry out;
  EXPECT_FALSE(s.get("../../etc/passwd0000000000", out));
}

TEST(CacheStore, EvictionRemovesTheLeastRecentlyUsedFirst) {
  TempDir t;
  const std::string payload(10000, 'p');
  cache::Store big(t.path.string(), cache::kDefaultMaxBytes);
  for (int i = 0; i < 5; ++i) ASSERT_EQ(big.put(key(i), entry(payload)), "");
  // Entry 0 is the oldest by writing, but is read last: it becomes the newest.
  auto t0 = fs::file_time_type::clock::now() - std::chrono::hours(1);
  int i = 0;
  for (int k : {1, 2, 3, 4, 0}) {
    for (const fs::path &f : entryFiles(t.path))
      if (f.filename() == key(k)) fs::last_write_time(f, t0 + std::chrono::seconds(i));
    ++i;
  }
  cache::Entry out;
  ASSERT_TRUE(big.get(key(0), out));
  uint64_t one = big.stats().bytes / 5;
  cache::Store small(t.path.string(), 3 * one);
  EXPECT_EQ(small.evict(), 2u);
  EXPECT_EQ(small.stats().entries, 3u);
  EXPECT_FALSE(small.get(key(1), out));
  EXPECT_FALSE(small.get(key(2), out));
  EXPECT_TRUE(small.get(key(3), out));
  EXPECT_TRUE(small.get(key(0), out));
  EXPECT_EQ(small.evict(), 0u);
}

TEST(CacheStore, ClearRemovesEverything) {
  TempDir t;
  cache::Store s(t.path.string(), cache::kDefaultMaxBytes);
  for (int i = 0; i < 3; ++i) ASSERT_EQ(s.put(key(i), entry("x")), "");
  EXPECT_EQ(s.stats().entries, 3u);
  EXPECT_EQ(s.clear(), "");
  EXPECT_EQ(s.stats().entries, 0u);
  cache::Entry out;
  EXPECT_FALSE(s.get(key(0), out));
  EXPECT_EQ(s.clear(), "");
}

TEST(CacheStore, ConcurrentWritersAndReadersNeverSeeHalfAnEntry) {
  TempDir t;
  cache::Store s(t.path.string(), cache::kDefaultMaxBytes);
  const std::string a(200000, 'a'), b(300000, 'b');
  std::atomic<int> bad{0}, hits{0};
  // One entry exists before the threads start, so every read sees a whole entry (old or new)
  // whatever the scheduler does; a reader that finds none is a bug, not a slow writer.
  ASSERT_EQ(s.put(key(7), entry(b)), "");
  std::vector<std::thread> threads;
  for (int w = 0; w < 8; ++w)
    threads.emplace_back([&, w] {
      for (int i = 0; i < 20; ++i) {
        if (w % 2 == 0) {
          if (!s.put(key(7), entry(w % 4 ? a : b)).empty()) ++bad;
        } else {
          cache::Entry out;
          if (!s.get(key(7), out)) {
            ++bad;
          } else {
            ++hits;
            const std::string *c = out.find("cubin");
            if (!c || (*c != a && *c != b)) ++bad;
          }
        }
      }
    });
  for (auto &th : threads) th.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_GT(hits.load(), 0);
  EXPECT_EQ(entryFiles(t.path).size(), 1u);
}

TEST(CacheStore, SizesParseWithSuffixes) {
  uint64_t v;
  EXPECT_TRUE(cache::Store::parseSize("1048576", v));
  EXPECT_EQ(v, 1048576u);
  EXPECT_TRUE(cache::Store::parseSize("512M", v));
  EXPECT_EQ(v, 512u << 20);
  EXPECT_TRUE(cache::Store::parseSize("2G", v));
  EXPECT_EQ(v, uint64_t(2) << 30);
  EXPECT_TRUE(cache::Store::parseSize("64kB", v));
  EXPECT_EQ(v, 64u << 10);
  EXPECT_FALSE(cache::Store::parseSize("", v));
  EXPECT_FALSE(cache::Store::parseSize("lots", v));
  EXPECT_FALSE(cache::Store::parseSize("12T", v));
  EXPECT_FALSE(cache::Store::parseSize("-5", v));
}

TEST(CacheStore, TheFolderFollowsXdgCacheHome) {
  const char *old = std::getenv("XDG_CACHE_HOME");
  const char *oldDir = std::getenv("PH_CACHE_DIR");
  std::string keepOld = old ? old : "", keepDir = oldDir ? oldDir : "";
  ::unsetenv("PH_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/somewhere/cache", 1);
  EXPECT_EQ(cache::Store::defaultDir(), "/somewhere/cache/ph");
  ::setenv("PH_CACHE_DIR", "/elsewhere", 1);
  EXPECT_EQ(cache::Store::defaultDir(), "/elsewhere");
  ::unsetenv("PH_CACHE_DIR");
  ::unsetenv("XDG_CACHE_HOME");
  if (const char *h = std::getenv("HOME")) {
    EXPECT_EQ(cache::Store::defaultDir(), std::string(h) + "/.cache/ph");
  }
  if (old) ::setenv("XDG_CACHE_HOME", keepOld.c_str(), 1);
  if (oldDir) ::setenv("PH_CACHE_DIR", keepDir.c_str(), 1);
}

// --- variant keys -----------------------------------------------------------

std::string readSource(const std::string &rel) {
  std::ifstream in(std::string(PH_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Keys of every variant of `text`, in the analysis' order.
std::vector<std::string> keysOf(const std::string &text, const std::string &target = "sm_90",
                                const std::string &toolchain = "tools", const std::string &path = "k.ph") {
  auto a = analyze(std::make_shared<SourceFile>(path, text), Prelude::load());
  EXPECT_FALSE(a->hasErrors());
  std::vector<std::string> keys;
  for (const auto &k : a->specialised) keys.push_back(cache::variantKey(*k, &a->sources, target, toolchain));
  return keys;
}

TEST(VariantKey, TheSameSourceGivesTheSameKeysAndEachVariantItsOwn) {
  std::string mha = readSource("examples/mha.ph");
  auto a = keysOf(mha), b = keysOf(mha);
  ASSERT_EQ(a.size(), 28u); // 4 kernels of 7 configurations
  EXPECT_EQ(a, b);
  std::set<std::string> distinct(a.begin(), a.end());
  EXPECT_EQ(distinct.size(), a.size());
  for (const std::string &k : a) EXPECT_EQ(k.size(), 64u);
}

TEST(VariantKey, EditingOneKernelChangesOnlyItsVariants) {
  std::string mha = readSource("examples/mha.ph");
  auto before = keysOf(mha);
  // mha_causal_f16 (the third kernel, variants 14..20): its scale, on the same line and column count.
  std::string edited = mha;
  size_t at = edited.find("s = s * scale");
  ASSERT_NE(at, std::string::npos);
  edited.replace(at, 13, "s = scale * s");
  auto after = keysOf(edited);
  ASSERT_EQ(after.size(), before.size());
  for (size_t i = 0; i < before.size(); ++i)
    EXPECT_EQ(before[i] == after[i], i < 14 || i >= 21) << "variant " << i;
}

TEST(VariantKey, AnEditInsideAnElseBranchChangesTheKey) {
  // kir::Stmt::elseBody is hashed: an edit only there must not reuse the old cubin.
  auto src = [](const char *op) {
    return std::string("kernel k(X: tensor<f32>[16, 8], n: i32) {\n  var x = X[0 :+ 16, :]\n"
                       "  if n > 0 {\n    x = x * 2.0\n  } else {\n    x = x ") + op + " 3.0\n  }\n"
                       "  X[0 :+ 16, :] = x\n}\n";
  };
  EXPECT_NE(keysOf(src("*")), keysOf(src("+")));
  EXPECT_EQ(keysOf(src("*")), keysOf(src("*")));
}

TEST(VariantKey, AMovedKernelGetsNewKeysSinceItsLinesAreInThePtx) {
  std::string mha = readSource("examples/mha.ph");
  auto before = keysOf(mha);
  auto after = keysOf("\n" + mha);
  for (size_t i = 0; i < before.size(); ++i) EXPECT_NE(before[i], after[i]);
  // A longer comment on the first line moves byte offsets but no line or column of a kernel.
  std::string longer = mha;
  longer.insert(2, "  ");
  EXPECT_EQ(keysOf(longer), before);
}

TEST(VariantKey, ConstantsTargetToolchainAndPathAllCount) {
  std::string src = "@autotune(BR in [64])\n"
                    "kernel k(X: tensor<f32>[N, 64], Y: tensor<f32>[N, 64]) {\n"
                    "  let r = ctx.block.x * BR\n"
                    "  Y[r :+ BR, :] = X[r :+ BR, :] * 0.1234567\n"
                    "}\n";
  auto base = keysOf(src);
  ASSERT_EQ(base.size(), 1u);
  std::string nearly = src;
  nearly.replace(nearly.find("0.1234567"), 9, "0.1234568");
  // Printed to six digits these two constants look the same; their keys differ.
  EXPECT_NE(keysOf(nearly), base);
  EXPECT_NE(keysOf(src, "sm_80"), base);
  EXPECT_NE(keysOf(src, "sm_90", "other tools"), base);
  EXPECT_NE(keysOf(src, "sm_90", "tools", "elsewhere/k.ph"), base);
  EXPECT_EQ(keysOf(src), base);
}

TEST(VariantKey, TheCompilerIdentityNamesTheExecutableAndThePhEnvironment) {
  ::setenv("PH_SIMT_LAZY", "0", 1);
  ::setenv("PH_CACHE_MAX_SIZE", "5M", 1);
  std::string id = cache::compilerIdentity();
  EXPECT_NE(id.find("ph_cache_tests"), std::string::npos) << id;
  EXPECT_NE(id.find("PH_SIMT_LAZY=0"), std::string::npos) << id;
  EXPECT_EQ(id.find("PH_CACHE_MAX_SIZE"), std::string::npos) << id;
  ::unsetenv("PH_SIMT_LAZY");
  ::unsetenv("PH_CACHE_MAX_SIZE");
  EXPECT_NE(cache::compilerIdentity(), id);
}

} // namespace
