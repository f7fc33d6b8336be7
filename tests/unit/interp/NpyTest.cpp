//===- NpyTest.cpp - Reading and writing .npy files -----------------------===//
#include "KirBuilder.h"
#include "ph/Npy.h"

#include <gtest/gtest.h>

using namespace ph;
using namespace ph::kirtest;

namespace {

std::string header(const std::string &dict, int version = 1) {
  std::string h = dict;
  size_t pre = version == 1 ? 10 : 12;
  while ((pre + h.size() + 1) % 64)
    h.push_back(' ');
  h.push_back('\n');
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(version));
  out.push_back(0);
  for (int i = 0; i < (version == 1 ? 2 : 4); ++i)
    out.push_back(static_cast<char>((h.size() >> (8 * i)) & 0xff));
  return out + h;
}

TEST(Npy, MatchesNumpyBytes) {
  // np.save(f, np.array([1, 2, 3], dtype='<f2')) writes exactly these 134 bytes.
  std::string want = header("{'descr': '<f2', 'fortran_order': False, 'shape': (3,), }") +
                     std::string("\x00\x3c\x00\x40\x00\x42", 6);
  ASSERT_EQ(want.size(), 134u);
  HostTensor t = HostTensor::zeros(Elem::F16, {3});
  t.set(0, 1);
  t.set(1, 2);
  t.set(2, 3);
  EXPECT_EQ(npy::serialize(t), want);
  HostTensor back;
  ASSERT_EQ(npy::parse(want, back), "");
  EXPECT_EQ(back.elem, Elem::F16);
  EXPECT_EQ(back.shape, (std::vector<int64_t>{3}));
  EXPECT_EQ(back.get(2), 3.0);
}

TEST(Npy, RoundTripsEveryDtypeAndRank) {
  for (Elem e : {Elem::F16, Elem::F32, Elem::I32}) {
    for (std::vector<int64_t> shape : {std::vector<int64_t>{}, {5}, {2, 3}, {2, 3, 4}}) {
      HostTensor t = HostTensor::zeros(e, shape);
      for (int64_t i = 0; i < t.numElements(); ++i)
        t.set(i, i - 3);
      HostTensor back;
      ASSERT_EQ(npy::parse(npy::serialize(t), back), "");
      EXPECT_EQ(back.elem, e);
      EXPECT_EQ(back.shape, shape);
      EXPECT_EQ(back.bytes, t.bytes);
    }
  }
}

TEST(Npy, Bf16IsWrittenAsFloat32) {
  HostTensor t = HostTensor::zeros(Elem::BF16, {2});
  t.set(0, 3.140625);
  HostTensor back;
  ASSERT_EQ(npy::parse(npy::serialize(t), back), "");
  EXPECT_EQ(back.elem, Elem::F32);
  EXPECT_EQ(back.get(0), 3.140625);
}

TEST(Npy, ReadsVersion2) {
  std::string bytes = header("{'descr': '<i4', 'fortran_order': False, 'shape': (2,), }", 2) +
                      std::string("\x07\x00\x00\x00\xff\xff\xff\xff", 8);
  HostTensor t;
  ASSERT_EQ(npy::parse(bytes, t), "");
  EXPECT_EQ(t.get(0), 7);
  EXPECT_EQ(t.get(1), -1);
}

TEST(Npy, ClearErrors) {
  HostTensor t;
  EXPECT_EQ(npy::parse("PK\x03\x04 not numpy at all", t), "not a .npy file (bad magic: expected `\\x93NUMPY`)");
  EXPECT_EQ(npy::parse(header("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 2), }") +
                           std::string(16, '\0'),
                       t),
            "the array is in Fortran order; save a C-order array (`np.ascontiguousarray(a)`)");
  EXPECT_EQ(npy::parse(header("{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }") + std::string(8, '\0'),
                       t),
            "unsupported dtype `<f8`: ph reads float16 (`<f2`), float32 (`<f4`), int32 (`<i4`) and, for fp8 "
            "tensors, uint8 (`|u1`, the raw bits); convert with `a.astype(np.float32)`");
  EXPECT_EQ(npy::parse(header("{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }") + std::string(4, '\0'),
                       t),
            "big-endian dtype `>f4` is not supported; save with `a.astype('<f4')`");
  EXPECT_EQ(npy::parse(header("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }") + std::string(8, '\0'),
                       t),
            "truncated .npy data: shape (4,) of float32 needs 16 bytes, the file has 8");
  EXPECT_NE(npy::parse(header("{'fortran_order': False, 'shape': (4,), }"), t).find("no `descr`"),
            std::string::npos);
  EXPECT_NE(npy::read("/nonexistent/x.npy", t).find("/nonexistent/x.npy: cannot open"), std::string::npos);
}

TEST(Npy, FitToParamNamesTensorAndDeclaration) {
  Kernel k;
  k.name = "rotary";
  k.config = {{"D", 64}};
  k.sizes = {SizeSym{"T", 1}};
  TensorParam x = tensorParam("X", Elem::F32, {-1, 128}, {"T", "128"}, true, false);
  TensorParam q = tensorParam("Q", Elem::F16, {-1, 64}, {"T", "D"}, true, false);
  TensorParam b = tensorParam("B", Elem::BF16, {-1}, {"T"}, true, false);

  HostTensor t = HostTensor::zeros(Elem::F16, {8, 128});
  EXPECT_EQ(npy::fitToParam(t, k, x, "x.npy"),
            "x.npy: array for `X` of kernel `rotary` has dtype float16, but `X` is declared `tensor<f32>[T, 128]`");
  t = HostTensor::zeros(Elem::F32, {8, 128, 1});
  EXPECT_EQ(npy::fitToParam(t, k, x, "x.npy"),
            "x.npy: array for `X` of kernel `rotary` has shape (8, 128, 1), but `X` is declared "
            "`tensor<f32>[T, 128]` (rank 2)");
  t = HostTensor::zeros(Elem::F32, {8, 64});
  EXPECT_EQ(npy::fitToParam(t, k, x, "x.npy"),
            "x.npy: array for `X` of kernel `rotary` has shape (8, 64), but `X` is declared "
            "`tensor<f32>[T, 128]`: dimension 1 must be 128");
  t = HostTensor::zeros(Elem::F16, {8, 32});
  EXPECT_NE(npy::fitToParam(t, k, q, "q.npy").find("dimension 1 must be 64"), std::string::npos);
  t = HostTensor::zeros(Elem::F32, {8, 128});
  EXPECT_EQ(npy::fitToParam(t, k, x, "x.npy"), "");
  // bf16 parameters take float32 arrays, rounded.
  t = HostTensor::zeros(Elem::F32, {2});
  t.set(0, 3.14159265);
  ASSERT_EQ(npy::fitToParam(t, k, b, "b.npy"), "");
  EXPECT_EQ(t.elem, Elem::BF16);
  EXPECT_EQ(t.get(0), 3.140625);
}

} // namespace
