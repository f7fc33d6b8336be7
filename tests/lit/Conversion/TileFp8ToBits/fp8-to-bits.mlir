// RUN: ph-opt %s -split-input-file --tile-fp8-to-bits | %FileCheck %s
// REQUIRES: mlir
// tile-fp8-to-bits (docs/language.md, "fp8"): for the GPU lowerings, fp8 pointers and values
// become their i8 bits and every tile.convert from or to fp8 becomes ConvertRules.h's integer
// arithmetic on the tile; no fp8 type is left. tests/lit/run/fp8.test checks the values.

// A load of e4m3 widened to f32: the pointer and the loaded tile are i8; the code is
// zero-extended, rebiased (exponent + 120), a subnormal through an exact multiplication by
// 2^-9, S.1111.111 gives f32's quiet NaN (0x7FC00000), and the bits become f32.
// CHECK-LABEL: func.func @widen_e4m3
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !tile.ptr<i8>, %[[Y:[a-z0-9]+]]: !tile.ptr<f32>
// CHECK: %[[L:.*]] = tile.load %[[X]]{{.*}} : !tile.ptr<i8> -> tensor<4x64xi8>
// CHECK: %[[W:.*]] = arith.extui %[[L]] : tensor<4x64xi8> to tensor<4x64xi32>
// CHECK: arith.constant dense<120> : tensor<4x64xi32>
// CHECK: arith.constant dense<0.001953125> : tensor<4x64xf32>
// CHECK: arith.uitofp
// CHECK: %[[NANC:.*]] = arith.constant dense<2143289344> : tensor<4x64xi32>
// CHECK: %[[SEL:.*]] = arith.select %{{.*}}, %[[NANC]], %{{.*}} : tensor<4x64xi1>, tensor<4x64xi32>
// CHECK: %[[OR:.*]] = arith.ori %[[SEL]], %{{.*}} : tensor<4x64xi32>
// CHECK: %[[F:.*]] = arith.bitcast %[[OR]] : tensor<4x64xi32> to tensor<4x64xf32>
// CHECK: tile.store %[[F]], %[[Y]]{{.*}} : tensor<4x64xf32>, !tile.ptr<f32>
// CHECK-NOT: f8E4M3FN
func.func @widen_e4m3(%x: !tile.ptr<f8E4M3FN>, %y: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f8E4M3FN> -> tensor<4x64xf8E4M3FN>
  %1 = tile.convert %0 : tensor<4x64xf8E4M3FN> -> tensor<4x64xf32>
  tile.store %1, %y[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32>, !tile.ptr<f32>
  return
}

// -----

// e5m2 widened: rebias + 112, subnormals times 2^-16, the all-ones exponent as +-inf
// (0x7F800000) or NaN (0x7FC00000).
// CHECK-LABEL: func.func @widen_e5m2
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !tile.ptr<i8>
// CHECK: tile.load %[[X]]{{.*}} : !tile.ptr<i8> -> tensor<4x64xi8>
// CHECK: arith.extui
// CHECK: arith.constant dense<112> : tensor<4x64xi32>
// CHECK: arith.constant dense<1.52587891E-5> : tensor<4x64xf32>
// CHECK: arith.constant dense<2143289344> : tensor<4x64xi32>
// CHECK: arith.constant dense<2139095040> : tensor<4x64xi32>
// CHECK: arith.bitcast %{{.*}} : tensor<4x64xi32> to tensor<4x64xf32>
// CHECK-NOT: f8E5M2
func.func @widen_e5m2(%x: !tile.ptr<f8E5M2>, %y: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f8E5M2> -> tensor<4x64xf8E5M2>
  %1 = tile.convert %0 : tensor<4x64xf8E5M2> -> tensor<4x64xf32>
  tile.store %1, %y[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32>, !tile.ptr<f32>
  return
}

// -----

// f32 stored into e4m3: the magnitude's bits rounded to nearest even (add 2^19 - 1 plus the
// kept bit's lowest one, shift by 20), below 2^-6 (0x3C800000) through the subnormal shift,
// from 448 (0x43E00000) on saturated to 0x7E, NaN (above 0x7F800000) to 0x7F, the sign or-ed
// in; the i8 code is stored through an i8 pointer.
// CHECK-LABEL: func.func @narrow_e4m3
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !tile.ptr<f32>, %[[A:[a-z0-9]+]]: !tile.ptr<i8>
// CHECK: %[[L:.*]] = tile.load %[[X]]{{.*}} : !tile.ptr<f32> -> tensor<4x64xf32>
// CHECK: %[[B:.*]] = arith.bitcast %[[L]] : tensor<4x64xf32> to tensor<4x64xi32>
// CHECK: %[[ABSM:.*]] = arith.constant dense<2147483647> : tensor<4x64xi32>
// CHECK: %[[MAG:.*]] = arith.andi %[[B]], %[[ABSM]] : tensor<4x64xi32>
// CHECK: arith.constant dense<524287> : tensor<4x64xi32>
// CHECK: %[[MINN:.*]] = arith.constant dense<1015021568> : tensor<4x64xi32>
// CHECK: arith.cmpi uge, %[[MAG]], %[[MINN]] : tensor<4x64xi32>
// CHECK: %[[MAXC:.*]] = arith.constant dense<126> : tensor<4x64xi32>
// CHECK: %[[MAXF:.*]] = arith.constant dense<1138753536> : tensor<4x64xi32>
// CHECK: %[[SAT:.*]] = arith.cmpi uge, %[[MAG]], %[[MAXF]] : tensor<4x64xi32>
// CHECK: arith.select %[[SAT]], %[[MAXC]], %{{.*}} : tensor<4x64xi1>, tensor<4x64xi32>
// CHECK: %[[NANC:.*]] = arith.constant dense<127> : tensor<4x64xi32>
// CHECK: %[[INF:.*]] = arith.constant dense<2139095040> : tensor<4x64xi32>
// CHECK: %[[ISNAN:.*]] = arith.cmpi ugt, %[[MAG]], %[[INF]] : tensor<4x64xi32>
// CHECK: %[[CODE:.*]] = arith.select %[[ISNAN]], %[[NANC]], %{{.*}} : tensor<4x64xi1>, tensor<4x64xi32>
// CHECK: %[[C8:.*]] = arith.trunci %[[CODE]] : tensor<4x64xi32> to tensor<4x64xi8>
// CHECK: tile.store %[[C8]], %[[A]]{{.*}} : tensor<4x64xi8>, !tile.ptr<i8>
// CHECK-NOT: f8E4M3FN
func.func @narrow_e4m3(%x: !tile.ptr<f32>, %a: !tile.ptr<f8E4M3FN>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x64xf32>
  %1 = tile.convert %0 : tensor<4x64xf32> -> tensor<4x64xf8E4M3FN>
  tile.store %1, %a[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf8E4M3FN>, !tile.ptr<f8E4M3FN>
  return
}

// -----

// f16 stored into e5m2: widened to f32 first (exact), then the one rounding; e5m2 saturates
// from 57344 (0x47600000) to 0x7B.
// CHECK-LABEL: func.func @narrow_f16_e5m2
// CHECK-SAME: (%[[H:[a-z0-9]+]]: !tile.ptr<f16>, %[[B:[a-z0-9]+]]: !tile.ptr<i8>
// CHECK: %[[L:.*]] = tile.load %[[H]]{{.*}} : !tile.ptr<f16> -> tensor<4x64xf16>
// CHECK: %[[W:.*]] = arith.extf %[[L]] : tensor<4x64xf16> to tensor<4x64xf32>
// CHECK: arith.bitcast %[[W]] : tensor<4x64xf32> to tensor<4x64xi32>
// CHECK: arith.constant dense<123> : tensor<4x64xi32>
// CHECK: arith.constant dense<1197473792> : tensor<4x64xi32>
// CHECK: %[[C8:.*]] = arith.trunci %{{.*}} : tensor<4x64xi32> to tensor<4x64xi8>
// CHECK: tile.store %[[C8]], %[[B]]{{.*}} : tensor<4x64xi8>, !tile.ptr<i8>
// CHECK-NOT: f8E5M2
func.func @narrow_f16_e5m2(%h: !tile.ptr<f16>, %b: !tile.ptr<f8E5M2>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %h[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x64xf16>
  %1 = tile.convert %0 : tensor<4x64xf16> -> tensor<4x64xf8E5M2>
  tile.store %1, %b[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf8E5M2>, !tile.ptr<f8E5M2>
  return
}

// -----

// fp8 to fp8 and to the other types: e5m2 through f32 into e4m3 (both rules, no fp8 left
// between them), e4m3 to f16 (exact: truncf of the widened value) and to i32 (the saturating
// float -> i32 rule, on the code widened again).
// CHECK-LABEL: func.func @between
// CHECK-SAME: (%[[X:[a-z0-9]+]]: !tile.ptr<i8>, %[[A:[a-z0-9]+]]: !tile.ptr<i8>, %[[H:[a-z0-9]+]]: !tile.ptr<f16>, %[[I:[a-z0-9]+]]: !tile.ptr<i32>
// CHECK: %[[L:.*]] = tile.load %[[X]]{{.*}} : !tile.ptr<i8> -> tensor<4x64xi8>
// CHECK: arith.extui %[[L]] : tensor<4x64xi8> to tensor<4x64xi32>
// CHECK: arith.constant dense<112> : tensor<4x64xi32>
// CHECK: %[[WIDE:.*]] = arith.bitcast %{{.*}} : tensor<4x64xi32> to tensor<4x64xf32>
// CHECK: arith.bitcast %[[WIDE]] : tensor<4x64xf32> to tensor<4x64xi32>
// CHECK: arith.constant dense<1138753536> : tensor<4x64xi32>
// CHECK: %[[C8:.*]] = arith.trunci %{{.*}} : tensor<4x64xi32> to tensor<4x64xi8>
// CHECK: tile.store %[[C8]], %[[A]]{{.*}} : tensor<4x64xi8>, !tile.ptr<i8>
// CHECK: %[[L2:.*]] = tile.load %[[A]]{{.*}} : !tile.ptr<i8> -> tensor<4x64xi8>
// CHECK: arith.extui %[[L2]]
// CHECK: %[[W2:.*]] = arith.bitcast %{{.*}} : tensor<4x64xi32> to tensor<4x64xf32>
// CHECK: %[[F16:.*]] = arith.truncf %[[W2]] : tensor<4x64xf32> to tensor<4x64xf16>
// CHECK: tile.store %[[F16]], %[[H]]
// CHECK: arith.fptosi %{{.*}} : tensor<4x64xf32> to tensor<4x64xi32>
// CHECK: tile.store %{{.*}}, %[[I]]
// CHECK-NOT: f8E
func.func @between(%x: !tile.ptr<f8E5M2>, %a: !tile.ptr<f8E4M3FN>, %h: !tile.ptr<f16>, %i: !tile.ptr<i32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f8E5M2> -> tensor<4x64xf8E5M2>
  %1 = tile.convert %0 : tensor<4x64xf8E5M2> -> tensor<4x64xf8E4M3FN>
  tile.store %1, %a[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf8E4M3FN>, !tile.ptr<f8E4M3FN>
  %2 = tile.load %a[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f8E4M3FN> -> tensor<4x64xf8E4M3FN>
  %3 = tile.convert %2 : tensor<4x64xf8E4M3FN> -> tensor<4x64xf16>
  tile.store %3, %h[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf16>, !tile.ptr<f16>
  %4 = tile.convert %2 : tensor<4x64xf8E4M3FN> -> tensor<4x64xi32>
  tile.store %4, %i[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xi32>, !tile.ptr<i32>
  return
}

// -----

// A scalar load (an index in every dimension): the 0-d tile and its element are i8, the
// conversion is the same arithmetic on scalars.
// CHECK-LABEL: func.func @scalar
// CHECK: %[[L:.*]] = tile.load %{{.*}} : !tile.ptr<i8> -> tensor<i8>
// CHECK: %[[E:.*]] = tensor.extract %[[L]][] : tensor<i8>
// CHECK: arith.extui %[[E]] : i8 to i32
// CHECK: %[[V:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: tile.splat %[[V]] : tensor<4x64xf32>
// CHECK-NOT: f8E5M2
func.func @scalar(%x: !tile.ptr<f8E5M2>, %y: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c3] extents[%ni, %c64] {lens = array<i64: 1, 1>, masked = array<i1: true, false>, squeezed = array<i1: true, true>} : !tile.ptr<f8E5M2> -> tensor<f8E5M2>
  %e = tensor.extract %0[] : tensor<f8E5M2>
  %1 = tile.convert %e : f8E5M2 -> f32
  %2 = tile.splat %1 : tensor<4x64xf32>
  tile.store %2, %y[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32>, !tile.ptr<f32>
  return
}

// -----

// A module without fp8 is left as it is.
// CHECK-LABEL: func.func @no_fp8
// CHECK-SAME: (%{{.*}}: !tile.ptr<f16>, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32)
// CHECK-NEXT: arith.constant 0 : index
// CHECK: tile.convert %{{.*}} : tensor<4x64xf16> -> tensor<4x64xf32>
func.func @no_fp8(%x: !tile.ptr<f16>, %y: !tile.ptr<f32>, %n: i32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %ni = arith.index_cast %n : i32 to index
  %0 = tile.load %x[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x64xf16>
  %1 = tile.convert %0 : tensor<4x64xf16> -> tensor<4x64xf32>
  tile.store %1, %y[%c0, %c0] extents[%ni, %c64] {lens = array<i64: 4, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<4x64xf32>, !tile.ptr<f32>
  return
}
