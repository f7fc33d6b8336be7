//===- InterpreterTest.cpp - The fp64 interpreter on hand-built kir -------===//
#include "KirBuilder.h"
#include "ph/Interpreter.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace ph;
using namespace ph::kirtest;

namespace {

/// Owns the tensors of one launch.
struct Launch {
  std::vector<HostTensor> tensors;
  LaunchArgs args;
  void bind() {
    args.tensors.clear();
    for (auto &t : tensors)
      args.tensors.push_back(&t);
  }
};

HostTensor fromValues(Elem e, std::vector<int64_t> shape, const std::vector<double> &v) {
  HostTensor t = HostTensor::zeros(e, std::move(shape));
  for (size_t i = 0; i < v.size(); ++i)
    t.set(static_cast<int64_t>(i), v[i]);
  return t;
}

HostTensor nans(Elem e, std::vector<int64_t> shape) {
  HostTensor t = HostTensor::zeros(e, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.set(i, NAN);
  return t;
}

/// Kernel: O[0 :+ n] = f(X[0 :+ n]) over one rank-1 tensor pair of extent n.
Kernel unaryKernel(Elem in, Elem out, int64_t n, ExprPtr (*f)(ExprPtr, int64_t)) {
  Kernel k;
  k.name = "unary";
  k.tensors = {tensorParam("X", in, {n}, {std::to_string(n)}, true, false),
               tensorParam("O", out, {n}, {std::to_string(n)}, false, true)};
  ExprPtr x = load(0, {full(n)}, ty(in, {n}));
  k.body = {store(1, {full(n)}, f(x, n))};
  return k;
}

TEST(Interpreter, F16LoadIsExactAndStoreRoundsToNearestEven) {
  // O = X + 2^-11 in f32 (exact in double), stored back as f16: 1 + 2^-11 is a
  // tie between 1 and 1 + 2^-10 and goes to the even one, 1.
  Kernel k = unaryKernel(Elem::F16, Elem::F16, 3, [](ExprPtr x, int64_t n) {
    ExprPtr wide = convert(x, ty(Elem::F32, {n}));
    return convert(bin(Op::Add, wide, fc(std::ldexp(1.0, -11)), ty(Elem::F32, {n})), ty(Elem::F16, {n}));
  });
  Launch l;
  l.tensors = {fromValues(Elem::F16, {3}, {1.0, 1.0 + std::ldexp(1.0, -10), 3.0}), nans(Elem::F16, {3})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 1.0);
  // 1 + 2^-10 + 2^-11 ties between 1 + 2^-10 (odd mantissa) and 1 + 2^-9: even wins.
  EXPECT_EQ(l.tensors[1].get(1), 1.0 + std::ldexp(1.0, -9));
  EXPECT_EQ(l.tensors[1].get(2), 3.0);
}

TEST(Interpreter, F32ArithmeticRoundsEachResult) {
  // (1 + 1e-12) - 1 is 1e-12 in double but 0 in f32: each f32 operation rounds its
  // result to f32, as the targets do (docs/language.md, "Precision"), so the
  // product is 0, not 1.
  Kernel k;
  k.name = "prec";
  k.tensors = {tensorParam("O", Elem::F32, {1}, {"1"}, false, true)};
  KType s = ty(Elem::F32);
  ExprPtr big = bin(Op::Add, fc(1.0), fc(1e-12), s);
  ExprPtr diff = bin(Op::Sub, big, fc(1.0), s);
  ExprPtr scaled = bin(Op::Mul, diff, fc(1e12), s);
  k.body = {store(0, {full(1)}, splat(scaled, ty(Elem::F32, {1})))};
  Launch l;
  l.tensors = {nans(Elem::F32, {1})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[0].get(0), 0.0);
}

TEST(Interpreter, BroadcastRowColumnAndScalar) {
  // O[2,3] = A[2,3] + R[2,1] * C[1,3] - 0.5
  Kernel k;
  k.name = "bcast";
  k.tensors = {tensorParam("A", Elem::F32, {2, 3}, {"2", "3"}, true, false),
               tensorParam("R", Elem::F32, {2, 1}, {"2", "1"}, true, false),
               tensorParam("C", Elem::F32, {1, 3}, {"1", "3"}, true, false),
               tensorParam("O", Elem::F32, {2, 3}, {"2", "3"}, false, true)};
  KType t23 = ty(Elem::F32, {2, 3});
  ExprPtr a = load(0, {full(2), full(3)}, t23);
  ExprPtr r = load(1, {full(2), full(1)}, ty(Elem::F32, {2, 1}));
  ExprPtr c = load(2, {full(1), full(3)}, ty(Elem::F32, {1, 3}));
  ExprPtr v = bin(Op::Sub, bin(Op::Add, a, bin(Op::Mul, r, c, t23), t23), fc(0.5), t23);
  k.body = {store(3, {full(2), full(3)}, v)};
  Launch l;
  std::vector<double> A = {1, 2, 3, 4, 5, 6}, R = {10, 20}, C = {1, 2, 3};
  l.tensors = {fromValues(Elem::F32, {2, 3}, A), fromValues(Elem::F32, {2, 1}, R),
               fromValues(Elem::F32, {1, 3}, C), nans(Elem::F32, {2, 3})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      EXPECT_EQ(l.tensors[3].get(i * 3 + j), A[i * 3 + j] + R[i] * C[j] - 0.5) << i << "," << j;
}

TEST(Interpreter, DotAndDotTransposed) {
  // O1 = A[2,3] . B[3,2]; O2 = A . Bt^T where Bt[2,3] holds B transposed.
  Kernel k;
  k.name = "dots";
  k.tensors = {tensorParam("A", Elem::F16, {2, 3}, {"2", "3"}, true, false),
               tensorParam("B", Elem::F16, {3, 2}, {"3", "2"}, true, false),
               tensorParam("Bt", Elem::F16, {2, 3}, {"2", "3"}, true, false),
               tensorParam("O1", Elem::F32, {2, 2}, {"2", "2"}, false, true),
               tensorParam("O2", Elem::F32, {2, 2}, {"2", "2"}, false, true)};
  ExprPtr a = load(0, {full(2), full(3)}, ty(Elem::F16, {2, 3}));
  ExprPtr b = load(1, {full(3), full(2)}, ty(Elem::F16, {3, 2}));
  ExprPtr bt = load(2, {full(2), full(3)}, ty(Elem::F16, {2, 3}));
  k.body = {store(3, {full(2), full(2)}, dotE(a, b, ty(Elem::F32, {2, 2}))),
            store(4, {full(2), full(2)}, dotE(a, bt, ty(Elem::F32, {2, 2}), true))};
  std::vector<double> A = {1, -2, 0.5, 3, 0.25, -1}, B = {2, 1, -1, 4, 0.5, -3};
  std::vector<double> Bt = {B[0], B[2], B[4], B[1], B[3], B[5]};
  Launch l;
  l.tensors = {fromValues(Elem::F16, {2, 3}, A), fromValues(Elem::F16, {3, 2}, B),
               fromValues(Elem::F16, {2, 3}, Bt), nans(Elem::F32, {2, 2}), nans(Elem::F32, {2, 2})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) {
      double want = 0;
      for (int kk = 0; kk < 3; ++kk)
        want += A[i * 3 + kk] * B[kk * 2 + j];
      EXPECT_EQ(l.tensors[3].get(i * 2 + j), want);
      EXPECT_EQ(l.tensors[4].get(i * 2 + j), want);
    }
}

TEST(Interpreter, RowReductionsGiveColumns) {
  Kernel k;
  k.name = "rows";
  k.tensors = {tensorParam("X", Elem::F32, {2, 4}, {"2", "4"}, true, false),
               tensorParam("M", Elem::F32, {2, 1}, {"2", "1"}, false, true),
               tensorParam("S", Elem::F32, {2, 1}, {"2", "1"}, false, true)};
  ExprPtr x = load(0, {full(2), full(4)}, ty(Elem::F32, {2, 4}));
  k.body = {store(1, {full(2), full(1)}, op(ExprKind::RowReduce, Op::Max, {x}, ty(Elem::F32, {2, 1}))),
            store(2, {full(2), full(1)}, op(ExprKind::RowReduce, Op::Sum, {x}, ty(Elem::F32, {2, 1})))};
  Launch l;
  l.tensors = {fromValues(Elem::F32, {2, 4}, {1, 7, -3, 2, -5, -4, -6, -8}), nans(Elem::F32, {2, 1}),
               nans(Elem::F32, {2, 1})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 7);
  EXPECT_EQ(l.tensors[1].get(1), -4);
  EXPECT_EQ(l.tensors[2].get(0), 7);
  EXPECT_EQ(l.tensors[2].get(1), -23);
}

TEST(Interpreter, MaskColsAndCausalMask) {
  // s = 1 everywhere; mask_cols(s, 2, -7); causal_mask(t, row=1, col=2), as std/masks.ph
  // writes them (where, col_ids, row_ids).
  Kernel k;
  k.name = "masks";
  k.tensors = {tensorParam("A", Elem::F32, {3, 4}, {"3", "4"}, false, true),
               tensorParam("B", Elem::F32, {3, 4}, {"3", "4"}, false, true)};
  KType t = ty(Elem::F32, {3, 4});
  ExprPtr ones = splat(fc(1.0), t);
  k.body = {store(0, {full(3), full(4)}, maskCols(ones, ic(2), fc(-7.0), t)),
            store(1, {full(3), full(4)}, causalMask(ones, ic(1), ic(2), t))};
  Launch l;
  l.tensors = {nans(Elem::F32, {3, 4}), nans(Elem::F32, {3, 4})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      EXPECT_EQ(l.tensors[0].get(i * 4 + j), j >= 2 ? -7.0 : 1.0);
      EXPECT_EQ(l.tensors[1].get(i * 4 + j), 2 + j > 1 + i ? static_cast<double>(-1.0e30f) : 1.0)
          << i << "," << j;
    }
}

/// O[b*4 :+ 4] = X[b*4 :+ 4] * 2 over a grid of ceil(N / 4): the last block is partial.
Kernel blockedKernel(bool masked) {
  Kernel k;
  k.name = "blocked";
  k.sizes = {SizeSym{"N", 1}};
  k.tensors = {tensorParam("X", Elem::F32, {-1}, {"N"}, true, false),
               tensorParam("O", Elem::F32, {-1}, {"N"}, false, true)};
  k.grid[0].fromSize = true;
  k.grid[0].size = 0;
  k.grid[0].divisor = 4;
  KType t = ty(Elem::F32, {4});
  ExprPtr start = bin(Op::Mul, blockId(0), ic(4), ty(Elem::I32));
  ExprPtr x = load(0, {range(start, 4, masked)}, t);
  k.body = {store(1, {range(start, 4, masked)}, bin(Op::Mul, x, fc(2.0), t))};
  return k;
}

TEST(Interpreter, MaskedPartialBlockReadsZerosAndSkipsStores) {
  Kernel k = blockedKernel(true);
  // One extra element past N in O's storage would be a bug detector, but
  // tensors are exactly N long; check every element is written exactly.
  Launch l;
  l.tensors = {fromValues(Elem::F32, {6}, {1, 2, 3, 4, 5, 6}), nans(Elem::F32, {6})};
  l.bind();
  l.args.sizes = {6};
  l.args.grid[0] = 2;
  ASSERT_EQ(interpret(k, l.args), "");
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(l.tensors[1].get(i), 2.0 * (i + 1));
}

TEST(Interpreter, MaskedLoadPastTheEndIsZero) {
  // s = sum(X[2 :+ 4]) with X of extent 4: two elements are past the end and read 0.
  Kernel k;
  k.name = "tail";
  k.tensors = {tensorParam("X", Elem::F32, {1, 4}, {"1", "4"}, true, false),
               tensorParam("O", Elem::F32, {1, 1}, {"1", "1"}, false, true)};
  ExprPtr x = load(0, {full(1), range(ic(2), 4, true)}, ty(Elem::F32, {1, 4}));
  k.body = {store(1, {full(1), full(1)}, op(ExprKind::RowReduce, Op::Sum, {x}, ty(Elem::F32, {1, 1})))};
  Launch l;
  l.tensors = {fromValues(Elem::F32, {1, 4}, {1, 10, 100, 1000}), nans(Elem::F32, {1, 1})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 1100);
}

TEST(Interpreter, UnmaskedAccessOutOfRangeNamesTheTensor) {
  Kernel k = blockedKernel(false);
  Launch l;
  l.tensors = {fromValues(Elem::F32, {6}, {1, 2, 3, 4, 5, 6}), nans(Elem::F32, {6})};
  l.bind();
  l.args.sizes = {6};
  l.args.grid[0] = 2;
  std::string err = interpret(k, l.args);
  EXPECT_NE(err.find("unmasked load of `X` out of range: index 6 along dimension 0 (extent 6)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("CTA (1, 0, 0)"), std::string::npos) << err;
}

TEST(Interpreter, EveryCtaOfTheGridRuns) {
  // O[y, x] = x + 10 * y + 100 * z over a (3, 2, 2) grid.
  Kernel k;
  k.name = "grid";
  k.tensors = {tensorParam("O", Elem::I32, {2, 2, 3}, {"2", "2", "3"}, false, true)};
  for (int a = 0; a < 3; ++a)
    k.grid[a].constant = a == 0 ? 3 : 2;
  KType i = ty(Elem::I32);
  ExprPtr v = bin(Op::Add, blockId(0),
                  bin(Op::Add, bin(Op::Mul, blockId(1), ic(10), i), bin(Op::Mul, blockId(2), ic(100), i), i), i);
  k.body = {store(0, {index(blockId(2), false), index(blockId(1), false), index(blockId(0), false)}, v)};
  Launch l;
  l.tensors = {HostTensor::zeros(Elem::I32, {2, 2, 3})};
  l.bind();
  l.args.grid[0] = 3;
  l.args.grid[1] = 2;
  l.args.grid[2] = 2;
  ASSERT_EQ(interpret(k, l.args), "");
  for (int z = 0; z < 2; ++z)
    for (int y = 0; y < 2; ++y)
      for (int x = 0; x < 3; ++x)
        EXPECT_EQ(l.tensors[0].get((z * 2 + y) * 3 + x), x + 10 * y + 100 * z);
}

TEST(Interpreter, IntegerDivisionTruncatesLikeC) {
  Kernel k;
  k.name = "ints";
  k.tensors = {tensorParam("O", Elem::I32, {4}, {"4"}, false, true)};
  KType i = ty(Elem::I32);
  k.body = {store(0, {index(ic(0), false)}, bin(Op::Div, ic(-7), ic(2), i)),
            store(0, {index(ic(1), false)}, bin(Op::Rem, ic(-7), ic(2), i)),
            store(0, {index(ic(2), false)}, bin(Op::Div, ic(7), ic(-2), i)),
            store(0, {index(ic(3), false)}, bin(Op::Rem, ic(7), ic(-2), i))};
  Launch l;
  l.tensors = {HostTensor::zeros(Elem::I32, {4})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[0].get(0), -3);
  EXPECT_EQ(l.tensors[0].get(1), -1);
  EXPECT_EQ(l.tensors[0].get(2), -3);
  EXPECT_EQ(l.tensors[0].get(3), 1);
}

TEST(Interpreter, SixteenBitArithmeticRoundsEachResult) {
  // O (f32) = X + h with X a 16-bit tile: the sum is a 16-bit value (docs/language.md,
  // "Precision"), as on the CPU and GPU targets. With h half an ulp of 1 (2^-11 in
  // f16, 2^-8 in bf16), 1 + h is a tie and rounds to 1 (even) before it is widened
  // into the f32 output; fp64 alone would give 1 + h. 3 + h rounds the same way.
  for (Elem e : {Elem::F16, Elem::BF16}) {
    Kernel k = unaryKernel(e, Elem::F32, 2, [](ExprPtr x, int64_t n) {
      KType t = ty(x->type.elem, {n});
      double h = x->type.elem == Elem::F16 ? std::ldexp(1.0, -11) : std::ldexp(1.0, -8);
      return convert(bin(Op::Add, x, splat(fc(h, x->type.elem), t), t), ty(Elem::F32, {n}));
    });
    Launch l;
    l.tensors = {fromValues(e, {2}, {1.0, 1.0 + 0x1p-7}), nans(Elem::F32, {2})};
    l.bind();
    ASSERT_EQ(interpret(k, l.args), "");
    EXPECT_EQ(l.tensors[1].get(0), 1.0) << elemName(e);
    // (1 + 2^-7) + h is a tie too: in f16 1 + 2^-7 has an even last bit and stays; in
    // bf16 (ulp 2^-7) its last bit is odd, so the tie goes up to 1 + 2^-6.
    EXPECT_EQ(l.tensors[1].get(1), e == Elem::F16 ? 1.0 + 0x1p-7 : 1.0 + 0x1p-6) << elemName(e);
  }
}

TEST(Interpreter, ConvertRoundsWhenNarrowing) {
  // 0.1 narrowed to f16 is 0x2E66 = 0.0999755859375; widened back it stays that.
  Kernel k = unaryKernel(Elem::F32, Elem::F32, 1, [](ExprPtr x, int64_t n) {
    return convert(convert(x, ty(Elem::F16, {n})), ty(Elem::F32, {n}));
  });
  Launch l;
  l.tensors = {fromValues(Elem::F32, {1}, {0.1}), nans(Elem::F32, {1})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 0.0999755859375);
}

TEST(Interpreter, UnaryOps) {
  struct Case {
    Op op;
    double x, want;
  } cases[] = {{Op::Neg, 2, -2},           {Op::Exp, 1, std::exp(1.0)}, {Op::Exp2, 3, 8},
               {Op::Log, std::exp(2.0), 2}, {Op::Sqrt, 9, 3},           {Op::Rsqrt, 4, 0.5},
               {Op::Abs, -3, 3},
               // Issue 16's functions, against <cmath>: log2 of a non-power of two, tanh and erf
               // off their linear part, sin and cos past pi, floor of negative non-integers (not
               // truncation). sigmoid is no kir op: the elaborator writes 1 / (1 + exp(-x))
               // (builtins-elementwise.test); its values are numerics' `functions` case.
               {Op::Log2, 8, 3},            {Op::Log2, 100, std::log2(100.0)},
               {Op::Tanh, 0.5, std::tanh(0.5)}, {Op::Tanh, -2, std::tanh(-2.0)},
               {Op::Erf, 1, std::erf(1.0)}, {Op::Erf, -0.3, std::erf(-0.3)},
               {Op::Sin, 4, std::sin(4.0)}, {Op::Sin, -0.5, std::sin(-0.5)},
               {Op::Cos, 4, std::cos(4.0)}, {Op::Cos, 0.5, std::cos(0.5)},
               {Op::Floor, -2.5, -3},       {Op::Floor, 2.75, 2},  {Op::Floor, -0.25, -1}};
  for (const Case &c : cases) {
    Kernel k;
    k.name = "u";
    k.tensors = {tensorParam("O", Elem::F32, {1}, {"1"}, false, true)};
    k.body = {store(0, {full(1)}, splat(un(c.op, fc(c.x), ty(Elem::F32)), ty(Elem::F32, {1})))};
    Launch l;
    l.tensors = {nans(Elem::F32, {1})};
    l.bind();
    ASSERT_EQ(interpret(k, l.args), "");
    EXPECT_NEAR(l.tensors[0].get(0), c.want, 1e-6) << opName(c.op);
  }
}

TEST(Interpreter, LoopCarriesVariablesAndSlicesCopy) {
  // acc = 0; for i in range(0, 10, 3) { acc = acc + i }  -> 0 + 3 + 6 + 9 = 18
  // t = [1, 2]; a = t[0 :+ 1]; t[0 :+ 1] = 5; O = [acc, a, t[0], t[1]]
  Kernel k;
  k.name = "loop";
  k.tensors = {tensorParam("O", Elem::F32, {4}, {"4"}, false, true)};
  KType s = ty(Elem::F32), t2 = ty(Elem::F32, {2}), t1 = ty(Elem::F32, {1});
  uint32_t acc = addVar(k, "acc", s), i = addVar(k, "i", ty(Elem::I32)), t = addVar(k, "t", t2),
           a = addVar(k, "a", t1);
  k.body = {decl(acc, fc(0.0)),
            forLoop(i, ic(0), ic(10), ic(3),
                    {assign(acc, bin(Op::Add, varRead(acc, s), convert(varRead(i, ty(Elem::I32)), s), s))}),
            decl(t, splat(fc(1.0), t2)),
            assignSlice(t, {range(ic(1), 1)}, splat(fc(2.0), t1)),
            decl(a, tileSlice(t, {range(ic(0), 1)}, t1)),
            assignSlice(t, {range(ic(0), 1)}, fc(5.0)),
            store(0, {index(ic(0), false)}, varRead(acc, s)),
            store(0, {range(ic(1), 1, false)}, varRead(a, t1)),
            store(0, {range(ic(2), 2, false)}, varRead(t, t2))};
  Launch l;
  l.tensors = {nans(Elem::F32, {4})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[0].get(0), 18);
  EXPECT_EQ(l.tensors[0].get(1), 1);
  EXPECT_EQ(l.tensors[0].get(2), 5);
  EXPECT_EQ(l.tensors[0].get(3), 2);
}

TEST(Interpreter, ReadBeforeAssignIsAnError) {
  Kernel k;
  k.name = "uninit";
  k.tensors = {tensorParam("O", Elem::F32, {1}, {"1"}, false, true)};
  uint32_t v = addVar(k, "ghost", ty(Elem::F32, {1}));
  k.body = {store(0, {full(1)}, varRead(v, ty(Elem::F32, {1})))};
  Launch l;
  l.tensors = {nans(Elem::F32, {1})};
  l.bind();
  EXPECT_NE(interpret(k, l.args).find("`ghost` is read before it is assigned"), std::string::npos);
}

TEST(Interpreter, ScalarArgsAndSizes) {
  // O[0] = scale * N, with scale passed as f32 (0.1 rounds to float).
  Kernel k;
  k.name = "args";
  k.sizes = {SizeSym{"N", 1}};
  k.scalars = {ScalarParam{"scale", Elem::F32}};
  k.tensors = {tensorParam("O", Elem::F32, {-1}, {"N"}, false, true)};
  KType s = ty(Elem::F32);
  k.body = {store(0, {index(ic(0), false)}, bin(Op::Mul, scalarArg(0), convert(sizeArg(0), s), s))};
  Launch l;
  l.tensors = {nans(Elem::F32, {3})};
  l.bind();
  l.args.sizes = {3};
  l.args.scalars = {0.1};
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[0].get(0), static_cast<float>(static_cast<double>(0.1f) * 3));
  EXPECT_TRUE(std::isnan(l.tensors[0].get(1))); // never written: stays poisoned
}

TEST(Interpreter, UnmaskedStoreOutOfRangeNamesTheTensor) {
  // O[2 :+ 4] = 1 over an O of extent 4, with the slice marked in bounds.
  Kernel k;
  k.name = "badstore";
  k.tensors = {tensorParam("Out", Elem::F32, {4}, {"4"}, false, true)};
  k.body = {store(0, {range(ic(2), 4, false)}, splat(fc(1.0), ty(Elem::F32, {4})))};
  Launch l;
  l.tensors = {nans(Elem::F32, {4})};
  l.bind();
  std::string err = interpret(k, l.args);
  EXPECT_NE(err.find("unmasked store of `Out` out of range: index 4 along dimension 0 (extent 4)"),
            std::string::npos)
      << err;
}

TEST(Interpreter, MaskedIndexPastTheEndReadsZeroAndSkipsTheStore) {
  // O[i] = X[i + 2] * 10 + 1 for i in 0..3 with X and O of extent 3: i = 1, 2 read past X
  // (so write 1), and the store at i = 3 falls past O and is skipped.
  Kernel k;
  k.name = "idx";
  k.tensors = {tensorParam("X", Elem::F32, {3}, {"3"}, true, false),
               tensorParam("O", Elem::F32, {3}, {"3"}, false, true)};
  uint32_t i = addVar(k, "i", ty(Elem::I32));
  KType s = ty(Elem::F32), it = ty(Elem::I32);
  ExprPtr iv = varRead(i, it);
  ExprPtr x = load(0, {index(bin(Op::Add, iv, ic(2), it), true)}, s);
  k.body = {forLoop(i, ic(0), ic(4), ic(1),
                    {store(1, {index(iv, true)}, bin(Op::Add, bin(Op::Mul, x, fc(10.0), s), fc(1.0), s))})};
  Launch l;
  l.tensors = {fromValues(Elem::F32, {3}, {5, 6, 7}), nans(Elem::F32, {3})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 71);
  EXPECT_EQ(l.tensors[1].get(1), 1);
  EXPECT_EQ(l.tensors[1].get(2), 1);
}

TEST(Interpreter, MaxAndMinPropagateNaN) {
  // A NaN must not vanish in tmax/rowmax: poisoned data stays visible.
  Kernel k;
  k.name = "nan";
  k.tensors = {tensorParam("X", Elem::F32, {1, 3}, {"1", "3"}, true, false),
               tensorParam("O", Elem::F32, {1, 3}, {"1", "3"}, false, true),
               tensorParam("M", Elem::F32, {1, 1}, {"1", "1"}, false, true)};
  KType t = ty(Elem::F32, {1, 3});
  ExprPtr x = load(0, {full(1), full(3)}, t);
  k.body = {store(1, {full(1), full(3)}, bin(Op::Max, x, fc(0.0), t)),
            store(2, {full(1), full(1)}, op(ExprKind::RowReduce, Op::Max, {x}, ty(Elem::F32, {1, 1})))};
  Launch l;
  l.tensors = {fromValues(Elem::F32, {1, 3}, {-1, NAN, 2}), nans(Elem::F32, {1, 3}), HostTensor::zeros(Elem::F32, {1, 1})};
  l.bind();
  ASSERT_EQ(interpret(k, l.args), "");
  EXPECT_EQ(l.tensors[1].get(0), 0);
  EXPECT_TRUE(std::isnan(l.tensors[1].get(1)));
  EXPECT_EQ(l.tensors[1].get(2), 2);
  EXPECT_TRUE(std::isnan(l.tensors[2].get(0)));
}

TEST(Interpreter, ShapesThatDisagreeWithTheCheckedTypeAreErrors) {
  // A load typed [4] over a Full slice of an extent-3 tensor: a checker bug, reported.
  Kernel k;
  k.name = "shape";
  k.tensors = {tensorParam("X", Elem::F32, {3}, {"3"}, true, false),
               tensorParam("O", Elem::F32, {4}, {"4"}, false, true)};
  k.body = {store(1, {full(4)}, load(0, {full(3)}, ty(Elem::F32, {4})))};
  Launch l;
  l.tensors = {fromValues(Elem::F32, {3}, {1, 2, 3}), nans(Elem::F32, {4})};
  l.bind();
  EXPECT_NE(interpret(k, l.args).find("evaluated shape [3] differs from the checked type [4]"), std::string::npos);
}

} // namespace
