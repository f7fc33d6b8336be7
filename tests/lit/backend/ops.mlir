// RUN: ph-opt %s | ph-opt | %FileCheck %s
// REQUIRES: mlir
// Every tile op parses, verifies and prints back in its custom form.

// CHECK-LABEL: func.func @block_and_slices
// CHECK-SAME: (%[[P:[a-z0-9]+]]: !tile.ptr<f16>, %[[N:[a-z0-9]+]]: index
func.func @block_and_slices(%p: !tile.ptr<f16>, %n: index, %o: index) {
  // CHECK: tile.block_id 2
  %b = tile.block_id 2
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // CHECK: %[[T:.*]] = tile.load %[[P]][%{{.*}}, %{{.*}}] extents[%[[N]], %{{.*}}] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x64xf16>
  %t = tile.load %p[%o, %c0] extents [%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x64xf16>
  // CHECK: tile.store %[[T]], %[[P]]
  // CHECK-SAME: : tensor<32x64xf16>, !tile.ptr<f16>
  tile.store %t, %p[%o, %c0] extents [%n, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<32x64xf16>, !tile.ptr<f16>
  return
}

// CHECK-LABEL: func.func @squeezed_load
func.func @squeezed_load(%p: !tile.ptr<f32>, %t: index) -> tensor<8x64xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  // CHECK: tile.load {{.*}} -> tensor<8x64xf32>
  %x = tile.load %p[%t, %c0, %c1] extents [%t, %c64, %c2] {lens = array<i64: 8, 64, 1>, masked = array<i1: true, false, false>, squeezed = array<i1: false, false, true>} : !tile.ptr<f32> -> tensor<8x64xf32>
  return %x : tensor<8x64xf32>
}

// CHECK-LABEL: func.func @compute
func.func @compute(%q: tensor<64x64xf16>, %k: tensor<32x64xf16>, %v: tensor<32x64xf16>, %n: i32, %x: f32) -> tensor<64x64xf32> {
  // CHECK: tile.dot %{{.*}}, %{{.*}} {transB} : tensor<64x64xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
  %s = tile.dot %q, %k {transB} : tensor<64x64xf16>, tensor<32x64xf16> -> tensor<64x32xf32>
  // CHECK: tile.mask_cols %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf32>
  %m = tile.mask_cols %s, %n, %x : tensor<64x32xf32>
  // CHECK: tile.causal_mask %{{.*}}, %{{.*}}, %{{.*}} : tensor<64x32xf32>
  %c = tile.causal_mask %m, %n, %n : tensor<64x32xf32>
  // CHECK: tile.rowargmax %{{.*}} : tensor<64x32xf32> -> tensor<64x1xi32>
  %am = tile.rowargmax %c : tensor<64x32xf32> -> tensor<64x1xi32>
  // CHECK: tile.rowmax %{{.*}} : tensor<64x32xf32> -> tensor<64x1xf32>
  %r = tile.rowmax %c : tensor<64x32xf32> -> tensor<64x1xf32>
  // CHECK: tile.rowsum %{{.*}} : tensor<64x32xf32> -> tensor<64x1xf32>
  %l = tile.rowsum %c : tensor<64x32xf32> -> tensor<64x1xf32>
  // CHECK: tile.broadcast %{{.*}} : tensor<64x1xf32> -> tensor<64x32xf32>
  %b = tile.broadcast %r : tensor<64x1xf32> -> tensor<64x32xf32>
  // CHECK: tile.splat %{{.*}} : tensor<64x32xf32>
  %sp = tile.splat %x : tensor<64x32xf32>
  %e = arith.subf %b, %sp : tensor<64x32xf32>
  // CHECK: tile.convert %{{.*}} : tensor<64x32xf32> -> tensor<64x32xf16>
  %h = tile.convert %e : tensor<64x32xf32> -> tensor<64x32xf16>
  // CHECK: tile.dot %{{.*}}, %{{.*}} : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  %o = tile.dot %h, %v : tensor<64x32xf16>, tensor<32x64xf16> -> tensor<64x64xf32>
  return %o : tensor<64x64xf32>
}

// CHECK-LABEL: func.func @extract_insert
func.func @extract_insert(%x: tensor<8x128xf32>, %i: index) -> tensor<8x128xf32> {
  %c64 = arith.constant 64 : index
  // CHECK: tile.extract %{{.*}}[%{{.*}}, %{{.*}}] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x128xf32> -> tensor<8x64xf32>
  %a = tile.extract %x[%i, %c64] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x128xf32> -> tensor<8x64xf32>
  // CHECK: tile.insert %{{.*}} into %{{.*}}[%{{.*}}, %{{.*}}] {{.*}} : tensor<8x64xf32> into tensor<8x128xf32>
  %y = tile.insert %a into %x[%i, %i] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x64xf32> into tensor<8x128xf32>
  return %y : tensor<8x128xf32>
}

// CHECK-LABEL: func.func @scalar_convert
func.func @scalar_convert(%i: i32) -> f32 {
  // CHECK: tile.convert %{{.*}} : i32 -> f32
  %f = tile.convert %i : i32 -> f32
  return %f : f32
}
