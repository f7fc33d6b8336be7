//===- CpuTargetTest.cpp - The CPU JIT target against C++ references --------===//
//
// Hand-built kir kernels (one per tile op family) and the seed examples from
// source, compiled with compileForCpu and run on random inputs (never zeros),
// compared with straightforward C++ loops in double precision and, for the
// examples, with the fp64 interpreter too.
//
//===----------------------------------------------------------------------===//
#include "KirBuilder.h"

#include "ph/Analysis.h"
#include "ph/Backend/CpuTarget.h"
#include "ph/Backend/Emit.h"
#include "ph/Interpreter.h"
#include "ph/Launch.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <random>
#include <sstream>

using namespace ph;
using namespace ph::kirtest;

namespace {

HostTensor randomTensor(Elem e, std::vector<int64_t> shape, uint32_t seed) {
  HostTensor t = HostTensor::zeros(e, std::move(shape));
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.set(i, u(rng));
  return t;
}

HostTensor nanTensor(Elem e, std::vector<int64_t> shape) {
  HostTensor t = HostTensor::zeros(e, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.set(i, NAN);
  return t;
}

/// Compiles and launches `k`; fails the test on any error.
void runCpu(const Kernel &k, std::vector<HostTensor> &tensors, std::vector<int64_t> sizes,
            std::vector<double> scalars, int64_t gridX, int64_t gridY = 1) {
  std::string err;
  auto kernel = backend::compileForCpu(k, err);
  ASSERT_TRUE(kernel) << err;
  LaunchArgs args;
  for (HostTensor &t : tensors)
    args.tensors.push_back(&t);
  args.sizes = std::move(sizes);
  args.scalars = std::move(scalars);
  args.grid[0] = gridX;
  args.grid[1] = gridY;
  ASSERT_EQ(kernel->launch(args), "");
}

/// max |got - want| / max |want| over all elements (both NaN-free).
double relError(const HostTensor &got, const std::vector<double> &want) {
  double num = 0, den = 1e-30;
  for (int64_t i = 0; i < got.numElements(); ++i) {
    if (std::isnan(got.get(i)))
      return INFINITY;
    num = std::max(num, std::fabs(got.get(i) - want[i]));
    den = std::max(den, std::fabs(want[i]));
  }
  return num / den;
}

std::vector<double> values(const HostTensor &t) {
  std::vector<double> v(t.numElements());
  for (int64_t i = 0; i < t.numElements(); ++i)
    v[i] = t.get(i);
  return v;
}

KType f32(std::vector<int64_t> shape = {}) { return ty(Elem::F32, std::move(shape)); }

//===----------------------------------------------------------------------===//
// Hand-built kernels.
//===----------------------------------------------------------------------===//

TEST(CpuTarget, MaskedRowsScaleAndShift) {
  // Y[r :+ 8, :] = X[r :+ 8, :] * scale + 1 over N = 37 rows: the last CTA's
  // rows 37..39 must read as zero and never be written.
  Kernel k;
  k.name = "affine";
  k.sizes = {{"N", 1}};
  k.scalars = {{"scale", Elem::F32}};
  k.tensors = {tensorParam("X", Elem::F32, {-1, 16}, {"N", "16"}, true, false),
               tensorParam("Y", Elem::F32, {-1, 16}, {"N", "16"}, false, true)};
  ExprPtr row = bin(Op::Mul, blockId(0), ic(8), ty(Elem::I32));
  ExprPtr x = load(0, {range(row, 8), full(16)}, f32({8, 16}));
  ExprPtr y = bin(Op::Add, bin(Op::Mul, x, scalarArg(0), f32({8, 16})), fc(1.0), f32({8, 16}));
  k.body = {store(1, {range(row, 8), full(16)}, y)};
  const int64_t n = 37;
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {n, 16}, 1), nanTensor(Elem::F32, {n, 16})};
  runCpu(k, t, {n}, {0.75}, 5);
  std::vector<double> want(n * 16);
  for (int64_t i = 0; i < n * 16; ++i)
    want[i] = t[0].get(i) * 0.75 + 1.0;
  EXPECT_LT(relError(t[1], want), 1e-6);
}

TEST(CpuTarget, F16MatmulWithMaskedKLoop) {
  // C = A·B with A [M, K], B [K, 16] in f16, an f32 accumulator carried by the
  // loop over K in steps of 8; M = 40 and K = 20 are not multiples of the tiles.
  Kernel k;
  k.name = "matmul";
  k.sizes = {{"M", 1}, {"K", 1}};
  k.tensors = {tensorParam("A", Elem::F16, {-1, -2}, {"M", "K"}, true, false),
               tensorParam("B", Elem::F16, {-2, 16}, {"K", "16"}, true, false),
               tensorParam("C", Elem::F16, {-1, 16}, {"M", "16"}, false, true)};
  uint32_t acc = addVar(k, "acc", f32({16, 16}));
  uint32_t kk = addVar(k, "k", ty(Elem::I32));
  ExprPtr row = bin(Op::Mul, blockId(0), ic(16), ty(Elem::I32));
  ExprPtr kv = varRead(kk, ty(Elem::I32));
  ExprPtr a = load(0, {range(row, 16), range(kv, 8)}, ty(Elem::F16, {16, 8}));
  ExprPtr b = load(1, {range(kv, 8), full(16)}, ty(Elem::F16, {8, 16}));
  k.body = {decl(acc, splat(fc(0.0), f32({16, 16}))),
            forLoop(kk, ic(0), sizeArg(1), ic(8),
                    {assign(acc, bin(Op::Add, varRead(acc, f32({16, 16})), dotE(a, b, f32({16, 16})),
                                     f32({16, 16})))}),
            store(2, {range(row, 16), full(16)}, convert(varRead(acc, f32({16, 16})), ty(Elem::F16, {16, 16})))};
  const int64_t m = 40, kd = 20;
  std::vector<HostTensor> t = {randomTensor(Elem::F16, {m, kd}, 2), randomTensor(Elem::F16, {kd, 16}, 3),
                               nanTensor(Elem::F16, {m, 16})};
  runCpu(k, t, {m, kd}, {}, 3);
  std::vector<double> want(m * 16, 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < 16; ++j)
      for (int64_t p = 0; p < kd; ++p)
        want[i * 16 + j] += t[0].get(i * kd + p) * t[1].get(p * 16 + j);
  EXPECT_LT(relError(t[2], want), 3e-3);
}

TEST(CpuTarget, DotTransposedMaskedSoftmax) {
  // P = softmax(mask_cols(Q·Kᵀ * 0.5, 5, -1e30)) row by row: dot_t, mask_cols,
  // rowmax, rowsum, broadcasts of [R, 1] and exp.
  Kernel k;
  k.name = "softmax";
  k.tensors = {tensorParam("Q", Elem::F32, {8, 4}, {"8", "4"}, true, false),
               tensorParam("K", Elem::F32, {6, 4}, {"6", "4"}, true, false),
               tensorParam("P", Elem::F32, {8, 6}, {"8", "6"}, false, true)};
  uint32_t s = addVar(k, "s", f32({8, 6}));
  uint32_t mx = addVar(k, "m", f32({8, 1}));
  auto S = [&] { return varRead(s, f32({8, 6})); };
  ExprPtr q = load(0, {full(8), full(4)}, f32({8, 4}));
  ExprPtr kt = load(1, {full(6), full(4)}, f32({6, 4}));
  Expr rmax = ex(ExprKind::RowReduce, f32({8, 1}));
  rmax.op = Op::Max;
  rmax.operands = {S()};
  Expr rsum = ex(ExprKind::RowReduce, f32({8, 1}));
  rsum.op = Op::Sum;
  rsum.operands = {S()};
  k.body = {decl(s, bin(Op::Mul, dotE(q, kt, f32({8, 6}), /*transB=*/true), fc(0.5), f32({8, 6}))),
            assign(s, maskCols(S(), ic(5), fc(-1.0e30), f32({8, 6}))),
            decl(mx, mk(rmax)),
            assign(s, un(Op::Exp, bin(Op::Sub, S(), varRead(mx, f32({8, 1})), f32({8, 6})), f32({8, 6}))),
            store(2, {full(8), full(6)}, bin(Op::Div, S(), mk(rsum), f32({8, 6})))};
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {8, 4}, 4), randomTensor(Elem::F32, {6, 4}, 5),
                               nanTensor(Elem::F32, {8, 6})};
  runCpu(k, t, {}, {}, 1);
  std::vector<double> want(8 * 6);
  for (int i = 0; i < 8; ++i) {
    double sc[6], mxv = -1e300, sum = 0;
    for (int j = 0; j < 6; ++j) {
      double d = 0;
      for (int p = 0; p < 4; ++p)
        d += t[0].get(i * 4 + p) * t[1].get(j * 4 + p);
      sc[j] = j >= 5 ? -1.0e30 : d * 0.5;
      mxv = std::max(mxv, sc[j]);
    }
    for (int j = 0; j < 6; ++j)
      sum += (sc[j] = std::exp(sc[j] - mxv));
    for (int j = 0; j < 6; ++j)
      want[i * 6 + j] = sc[j] / sum;
  }
  EXPECT_LT(relError(t[2], want), 1e-5);
  EXPECT_EQ(t[2].get(5), 0.0); // the masked column
}

TEST(CpuTarget, CausalMaskPerBlock) {
  // Y[r :+ 4, :] = causal_mask(X[r :+ 4, :], r, 2) over [8, 8], two CTAs.
  Kernel k;
  k.name = "causal";
  k.tensors = {tensorParam("X", Elem::F32, {8, 8}, {"8", "8"}, true, false),
               tensorParam("Y", Elem::F32, {8, 8}, {"8", "8"}, false, true)};
  ExprPtr row = bin(Op::Mul, blockId(0), ic(4), ty(Elem::I32));
  k.body = {store(1, {range(row, 4, false), full(8)},
                  causalMask(load(0, {range(row, 4, false), full(8)}, f32({4, 8})), row, ic(2), f32({4, 8})))};
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {8, 8}, 6), nanTensor(Elem::F32, {8, 8})};
  runCpu(k, t, {}, {}, 2);
  for (int i = 0; i < 8; ++i)
    for (int j = 0; j < 8; ++j) {
      int r = i / 4 * 4, ii = i % 4;
      double want = 2 + j > r + ii ? -1.0e30 : t[0].get(i * 8 + j);
      EXPECT_DOUBLE_EQ(t[1].get(i * 8 + j), (double)(float)want) << i << "," << j;
    }
}

TEST(CpuTarget, TileSlicesAreCopiesAndInsertsWriteInPlace) {
  // The seed's rope on a [4, 8] tile: both halves are copied out before either
  // half is written back, so the second rotation sees the original first half.
  Kernel k;
  k.name = "rope";
  k.sizes = {{"T", 1}};
  k.tensors = {tensorParam("X", Elem::F32, {-1, 8}, {"T", "8"}, true, false),
               tensorParam("C", Elem::F32, {-1, 4}, {"T", "4"}, true, false),
               tensorParam("S", Elem::F32, {-1, 4}, {"T", "4"}, true, false),
               tensorParam("Y", Elem::F32, {-1, 8}, {"T", "8"}, false, true)};
  uint32_t x = addVar(k, "x", f32({4, 8}));
  uint32_t a = addVar(k, "a", f32({4, 4}));
  uint32_t b = addVar(k, "b", f32({4, 4}));
  ExprPtr t0 = bin(Op::Mul, blockId(0), ic(4), ty(Elem::I32));
  ExprPtr c = load(1, {range(t0, 4), full(4)}, f32({4, 4}));
  ExprPtr s = load(2, {range(t0, 4), full(4)}, f32({4, 4}));
  ExprPtr A = varRead(a, f32({4, 4})), B = varRead(b, f32({4, 4}));
  KType h = f32({4, 4});
  k.body = {decl(x, load(0, {range(t0, 4), full(8)}, f32({4, 8}))),
            decl(a, tileSlice(x, {full(4), range(ic(0), 4, false)}, h)),
            decl(b, tileSlice(x, {full(4), range(ic(4), 4, false)}, h)),
            assignSlice(x, {full(4), range(ic(0), 4, false)},
                        bin(Op::Sub, bin(Op::Mul, A, c, h), bin(Op::Mul, B, s, h), h)),
            assignSlice(x, {full(4), range(ic(4), 4, false)},
                        bin(Op::Add, bin(Op::Mul, B, c, h), bin(Op::Mul, A, s, h), h)),
            store(3, {range(t0, 4), full(8)}, varRead(x, f32({4, 8})))};
  const int64_t T = 10;
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {T, 8}, 7), randomTensor(Elem::F32, {T, 4}, 8),
                               randomTensor(Elem::F32, {T, 4}, 9), nanTensor(Elem::F32, {T, 8})};
  runCpu(k, t, {T}, {}, 3);
  std::vector<double> want(T * 8);
  for (int64_t r = 0; r < T; ++r)
    for (int j = 0; j < 4; ++j) {
      double av = t[0].get(r * 8 + j), bv = t[0].get(r * 8 + 4 + j);
      double cv = t[1].get(r * 4 + j), sv = t[2].get(r * 4 + j);
      want[r * 8 + j] = av * cv - bv * sv;
      want[r * 8 + 4 + j] = bv * cv + av * sv;
    }
  EXPECT_LT(relError(t[3], want), 1e-6);
}

TEST(CpuTarget, SqueezedIndexSlicesOf3DTensorInPlace) {
  // rope_pairs' shape: X [T, 4, 2] updated in place through X[t :+ 4, :, 0]
  // and X[t :+ 4, :, 1]; T = 10 leaves a partial last block.
  Kernel k;
  k.name = "pairs";
  k.sizes = {{"T", 1}};
  k.tensors = {tensorParam("X", Elem::F32, {-1, 4, 2}, {"T", "4", "2"}, true, true)};
  uint32_t a = addVar(k, "a", f32({4, 4}));
  uint32_t b = addVar(k, "b", f32({4, 4}));
  ExprPtr t0 = bin(Op::Mul, blockId(0), ic(4), ty(Elem::I32));
  KType h = f32({4, 4});
  ExprPtr A = varRead(a, h), B = varRead(b, h);
  k.body = {decl(a, load(0, {range(t0, 4), full(4), index(ic(0), false)}, h)),
            decl(b, load(0, {range(t0, 4), full(4), index(ic(1), false)}, h)),
            store(0, {range(t0, 4), full(4), index(ic(0), false)},
                  bin(Op::Sub, bin(Op::Mul, A, fc(2.0), h), B, h)),
            store(0, {range(t0, 4), full(4), index(ic(1), false)}, bin(Op::Add, B, A, h))};
  const int64_t T = 10;
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {T, 4, 2}, 10)};
  std::vector<double> in = values(t[0]), want(in.size());
  runCpu(k, t, {T}, {}, 3);
  for (int64_t i = 0; i < T * 4; ++i) {
    want[2 * i] = in[2 * i] * 2 - in[2 * i + 1];
    want[2 * i + 1] = in[2 * i + 1] + in[2 * i];
  }
  EXPECT_LT(relError(t[0], want), 1e-6);
}

TEST(CpuTarget, NarrowingStoresRoundToNearestEven) {
  // f32 -> bf16 and f32 -> f16 at exact ties: 1 + 2^-8 (bf16) and 1 + 2^-11
  // (f16) lie halfway and go to the even neighbour, 1; 1 + 3·2^-8 goes up.
  Kernel k;
  k.name = "narrow";
  k.tensors = {tensorParam("X", Elem::F32, {4}, {"4"}, true, false),
               tensorParam("B", Elem::BF16, {4}, {"4"}, false, true),
               tensorParam("H", Elem::F16, {4}, {"4"}, false, true)};
  ExprPtr x = load(0, {full(4)}, f32({4}));
  k.body = {store(1, {full(4)}, convert(x, ty(Elem::BF16, {4}))),
            store(2, {full(4)}, convert(x, ty(Elem::F16, {4})))};
  std::vector<HostTensor> t = {HostTensor::zeros(Elem::F32, {4}), nanTensor(Elem::BF16, {4}),
                               nanTensor(Elem::F16, {4})};
  double xs[4] = {1 + std::ldexp(1.0, -8), 1 + 3 * std::ldexp(1.0, -8), 1 + std::ldexp(1.0, -11),
                  -0.3};
  for (int i = 0; i < 4; ++i)
    t[0].set(i, xs[i]);
  runCpu(k, t, {}, {}, 1);
  EXPECT_EQ(t[1].get(0), 1.0);
  EXPECT_EQ(t[1].get(1), 1 + std::ldexp(1.0, -6));
  EXPECT_EQ(t[2].get(2), 1.0);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(t[1].get(i), (double)bf16ToFloat(floatToBf16((float)xs[i]))) << i;
    EXPECT_EQ(t[2].get(i), (double)halfToFloat(floatToHalf((float)xs[i]))) << i;
  }
}

TEST(CpuTarget, ScalarLoadsIndexOtherLoads) {
  // A gather: for i in 0..8, Y[i] = X[Idx[i]]. Idx[i] is a rank-0 load used as
  // a scalar start; indices past X's extent (10) read the masked zero.
  Kernel k;
  k.name = "gather";
  k.tensors = {tensorParam("Idx", Elem::I32, {8}, {"8"}, true, false),
               tensorParam("X", Elem::F32, {10}, {"10"}, true, false),
               tensorParam("Y", Elem::F32, {8}, {"8"}, false, true)};
  uint32_t i = addVar(k, "i", ty(Elem::I32));
  uint32_t j = addVar(k, "j", ty(Elem::I32));
  ExprPtr iv = varRead(i, ty(Elem::I32));
  k.body = {forLoop(i, ic(0), ic(8), ic(1),
                    {decl(j, load(0, {index(iv, false)}, ty(Elem::I32))),
                     store(2, {range(iv, 1, false)},
                           load(1, {range(varRead(j, ty(Elem::I32)), 1, true)}, f32({1})))})};
  std::vector<HostTensor> t = {HostTensor::zeros(Elem::I32, {8}), randomTensor(Elem::F32, {10}, 16),
                               nanTensor(Elem::F32, {8})};
  int idx[8] = {3, 9, 0, 12, 7, 7, 10, 1};
  for (int n = 0; n < 8; ++n)
    t[0].set(n, idx[n]);
  runCpu(k, t, {}, {}, 1);
  for (int n = 0; n < 8; ++n)
    EXPECT_EQ(t[2].get(n), idx[n] < 10 ? t[1].get(idx[n]) : 0.0) << n;
}

TEST(CpuTarget, EveryCtaOfAThreeAxisGrid) {
  // Y[z, y, x*2 :+ 2] = X[z, y, x*2 :+ 2] + (100 z + 10 y + x) over a
  // [2, 3, 4·2] grid: each CTA runs once with its own (x, y, z).
  Kernel k;
  k.name = "grid3";
  k.tensors = {tensorParam("X", Elem::F32, {2, 3, 8}, {"2", "3", "8"}, true, false),
               tensorParam("Y", Elem::F32, {2, 3, 8}, {"2", "3", "8"}, false, true)};
  KType i32 = ty(Elem::I32);
  ExprPtr x = blockId(0), y = blockId(1), z = blockId(2);
  ExprPtr col = bin(Op::Mul, x, ic(2), i32);
  ExprPtr id = bin(Op::Add, bin(Op::Add, bin(Op::Mul, z, ic(100), i32), bin(Op::Mul, y, ic(10), i32), i32), x, i32);
  std::vector<Slice> at = {index(z, false), index(y, false), range(col, 2, false)};
  k.body = {store(1, at, bin(Op::Add, load(0, at, f32({2})), convert(id, f32()), f32({2})))};
  std::vector<HostTensor> t = {randomTensor(Elem::F32, {2, 3, 8}, 17), nanTensor(Elem::F32, {2, 3, 8})};
  std::string err;
  auto kernel = backend::compileForCpu(k, err);
  ASSERT_TRUE(kernel) << err;
  LaunchArgs args;
  args.tensors = {&t[0], &t[1]};
  args.grid[0] = 4;
  args.grid[1] = 3;
  args.grid[2] = 2;
  ASSERT_EQ(kernel->launch(args), "");
  for (int zz = 0; zz < 2; ++zz)
    for (int yy = 0; yy < 3; ++yy)
      for (int c = 0; c < 8; ++c) {
        int64_t i = (zz * 3 + yy) * 8 + c;
        EXPECT_EQ(t[1].get(i), (double)(float)(t[0].get(i) + (100 * zz + 10 * yy + c / 2))) << i;
      }
}

TEST(CpuTarget, LaunchRefusesMismatchedArguments) {
  Kernel k;
  k.name = "copy";
  k.tensors = {tensorParam("X", Elem::F32, {4}, {"4"}, true, false),
               tensorParam("Y", Elem::F32, {4}, {"4"}, false, true)};
  k.body = {store(1, {full(4)}, load(0, {full(4)}, f32({4})))};
  std::string err;
  auto kernel = backend::compileForCpu(k, err);
  ASSERT_TRUE(kernel) << err;
  HostTensor x = HostTensor::zeros(Elem::F32, {4}), small = HostTensor::zeros(Elem::F32, {2}),
             half = HostTensor::zeros(Elem::F16, {4});
  LaunchArgs args;
  args.tensors = {&x};
  EXPECT_NE(kernel->launch(args).find("takes 2 tensors"), std::string::npos);
  args.tensors = {&x, &small};
  EXPECT_NE(kernel->launch(args).find("bytes"), std::string::npos);
  args.tensors = {&x, &half};
  EXPECT_NE(kernel->launch(args).find("f16"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// The seed examples, from source: CPU == interpreter == C++ reference.
//===----------------------------------------------------------------------===//

std::shared_ptr<const kir::Kernel> kernelFrom(const std::string &example, const std::string &name,
                                              std::shared_ptr<const Analysis> &keep) {
  std::string path = std::string(PH_SOURCE_DIR) + "/examples/" + example;
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  keep = analyze(std::make_shared<SourceFile>(path, ss.str()),
                 Prelude::load(std::string(PH_SOURCE_DIR) + "/std"));
  for (const Diagnostic &d : keep->diagnostics)
    ADD_FAILURE() << path << ": " << d.message;
  auto v = keep->kernelVariants(name);
  return v.empty() ? nullptr : v.front();
}

/// Binds, runs on the CPU and in the interpreter on copies of the same
/// inputs, and returns both sets of tensors.
void runBoth(const kir::Kernel &k, const LaunchRequest &req, std::vector<HostTensor> &cpu,
             std::vector<HostTensor> &interp, LaunchArgs &args) {
  std::string err = bindLaunch(k, req, cpu, args);
  ASSERT_EQ(err, "");
  interp = cpu;
  LaunchArgs iargs = args;
  iargs.tensors.clear();
  for (HostTensor &t : interp)
    iargs.tensors.push_back(&t);
  ASSERT_EQ(interpret(k, iargs), "");
  auto kernel = backend::compileForCpu(k, err);
  ASSERT_TRUE(kernel) << err;
  ASSERT_EQ(kernel->launch(args), "");
}

const HostTensor &tensorNamed(const kir::Kernel &k, const std::vector<HostTensor> &ts,
                              const std::string &name) {
  for (size_t i = 0; i < k.tensors.size(); ++i)
    if (k.tensors[i].name == name)
      return ts[i];
  static HostTensor none;
  ADD_FAILURE() << "no tensor " << name;
  return none;
}

/// softmax(Q Kᵀ scale [causal]) V in double, rows of Q against rows of K/V.
std::vector<double> attentionRef(const HostTensor &Q, const HostTensor &K, const HostTensor &V,
                                 double scale, bool causal) {
  int64_t nq = Q.shape[0], nk = K.shape[0], d = Q.shape[1];
  std::vector<double> o(nq * d, 0.0);
  for (int64_t i = 0; i < nq; ++i) {
    int64_t last = causal ? std::min(nk, i + 1) : nk;
    std::vector<double> s(last);
    double mx = -1e300, sum = 0;
    for (int64_t j = 0; j < last; ++j) {
      double dd = 0;
      for (int64_t p = 0; p < d; ++p)
        dd += Q.get(i * d + p) * K.get(j * d + p);
      s[j] = dd * scale;
      mx = std::max(mx, s[j]);
    }
    for (int64_t j = 0; j < last; ++j)
      sum += (s[j] = std::exp(s[j] - mx));
    for (int64_t j = 0; j < last; ++j)
      for (int64_t p = 0; p < d; ++p)
        o[i * d + p] += s[j] / sum * V.get(j * d + p);
  }
  return o;
}

TEST(CpuTargetExamples, FlashAttentionWithPartialKeyBlock) {
  std::shared_ptr<const Analysis> a;
  auto k = kernelFrom("flash_attention.ph", "flash_attention", a);
  ASSERT_TRUE(k);
  LaunchRequest req;
  req.sizes = {{"Nq", 128}, {"Nk", 100}}; // Nk: three full key blocks and one of 4
  req.scalars = {{"scale", 0.125}};
  req.seed = 11;
  std::vector<HostTensor> cpu, interp;
  LaunchArgs args;
  runBoth(*k, req, cpu, interp, args);
  auto want = attentionRef(tensorNamed(*k, cpu, "Q"), tensorNamed(*k, cpu, "K"),
                           tensorNamed(*k, cpu, "V"), 0.125, false);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), want), 3e-3);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), values(tensorNamed(*k, interp, "O"))), 3e-3);
}

TEST(CpuTargetExamples, FlashAttentionKeysFewerThanOneBlock) {
  std::shared_ptr<const Analysis> a;
  auto k = kernelFrom("flash_attention_manual.ph", "flash_attention_manual", a);
  ASSERT_TRUE(k);
  LaunchRequest req;
  req.sizes = {{"Nq", 64}, {"Nk", 7}};
  req.scalars = {{"scale", 0.3}};
  req.seed = 12;
  std::vector<HostTensor> cpu, interp;
  LaunchArgs args;
  runBoth(*k, req, cpu, interp, args);
  auto want = attentionRef(tensorNamed(*k, cpu, "Q"), tensorNamed(*k, cpu, "K"),
                           tensorNamed(*k, cpu, "V"), 0.3, false);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), want), 3e-3);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), values(tensorNamed(*k, interp, "O"))), 3e-3);
}

TEST(CpuTargetExamples, CausalAttentionF32) {
  std::shared_ptr<const Analysis> a;
  auto k = kernelFrom("causal_attention.ph", "causal_attention", a);
  ASSERT_TRUE(k);
  LaunchRequest req;
  req.sizes = {{"N", 96}};
  req.scalars = {{"scale", 0.125}};
  req.seed = 13;
  std::vector<HostTensor> cpu, interp;
  LaunchArgs args;
  runBoth(*k, req, cpu, interp, args);
  auto want = attentionRef(tensorNamed(*k, cpu, "Q"), tensorNamed(*k, cpu, "K"),
                           tensorNamed(*k, cpu, "V"), 0.125, true);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), want), 1e-5);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "O"), values(tensorNamed(*k, interp, "O"))), 1e-5);
}

TEST(CpuTargetExamples, RotaryWithPartialLastBlock) {
  std::shared_ptr<const Analysis> a;
  auto k = kernelFrom("rotary.ph", "rotary", a);
  ASSERT_TRUE(k);
  LaunchRequest req;
  req.sizes = {{"T", 21}};
  req.seed = 14;
  std::vector<HostTensor> cpu, interp;
  LaunchArgs args;
  runBoth(*k, req, cpu, interp, args);
  const HostTensor &X = tensorNamed(*k, cpu, "X"), &C = tensorNamed(*k, cpu, "Cos"),
                   &S = tensorNamed(*k, cpu, "Sin");
  std::vector<double> want(21 * 128);
  for (int r = 0; r < 21; ++r)
    for (int j = 0; j < 64; ++j) {
      double av = X.get(r * 128 + j), bv = X.get(r * 128 + 64 + j);
      double c = C.get(r * 64 + j), s = S.get(r * 64 + j);
      want[r * 128 + j] = av * c - bv * s;
      want[r * 128 + 64 + j] = bv * c + av * s;
    }
  EXPECT_LT(relError(tensorNamed(*k, cpu, "Y"), want), 1e-5);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "Y"), values(tensorNamed(*k, interp, "Y"))), 1e-5);
}

TEST(CpuTargetExamples, RotaryPairsInPlace) {
  std::shared_ptr<const Analysis> a;
  auto k = kernelFrom("rotary_pairs.ph", "rotary_pairs", a);
  ASSERT_TRUE(k);
  LaunchRequest req;
  req.sizes = {{"T", 19}};
  req.seed = 15;
  std::vector<HostTensor> cpu, interp;
  LaunchArgs args;
  std::string err = bindLaunch(*k, req, cpu, args);
  ASSERT_EQ(err, "");
  std::vector<double> x = values(tensorNamed(*k, cpu, "X"));
  runBoth(*k, req, cpu, interp, args);
  const HostTensor &C = tensorNamed(*k, cpu, "Cos"), &S = tensorNamed(*k, cpu, "Sin");
  std::vector<double> want(x.size());
  for (int64_t i = 0; i < 19 * 64; ++i) {
    double c = C.get(i), s = S.get(i);
    want[2 * i] = x[2 * i] * c - x[2 * i + 1] * s;
    want[2 * i + 1] = x[2 * i + 1] * c + x[2 * i] * s;
  }
  EXPECT_LT(relError(tensorNamed(*k, cpu, "X"), want), 1e-5);
  EXPECT_LT(relError(tensorNamed(*k, cpu, "X"), values(tensorNamed(*k, interp, "X"))), 1e-5);
}

//===----------------------------------------------------------------------===//
// ph emit's stages.
//===----------------------------------------------------------------------===//

TEST(Emit, StageNamesRoundTrip) {
  for (const char *n : {"kir", "tile", "cpu", "llvm", "llvm-ir", "asm", "gpu", "ptx"}) {
    backend::Stage s;
    ASSERT_TRUE(backend::parseStage(n, s)) << n;
    EXPECT_STREQ(backend::stageName(s), n);
  }
  backend::Stage s;
  EXPECT_FALSE(backend::parseStage("sass", s));
}

TEST(Emit, AttentionCallAndHandWrittenKernelAgreeAtEveryStage) {
  std::shared_ptr<const Analysis> a, b;
  auto ka = kernelFrom("flash_attention.ph", "flash_attention", a);
  auto kb = kernelFrom("flash_attention_manual.ph", "flash_attention_manual", b);
  ASSERT_TRUE(ka && kb);
  kir::Kernel renamed = *kb;
  renamed.name = ka->name;
  for (backend::Stage s : {backend::Stage::Tile, backend::Stage::Cpu, backend::Stage::Llvm,
                           backend::Stage::LlvmIR, backend::Stage::Asm}) {
    std::string ea, eb;
    std::string ta = backend::emitStage(*ka, s, ea), tb = backend::emitStage(renamed, s, eb);
    ASSERT_EQ(ea, "");
    ASSERT_EQ(eb, "");
    EXPECT_FALSE(ta.empty());
    EXPECT_EQ(ta, tb) << "stage " << backend::stageName(s);
  }
}

} // namespace
