// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90" --verify-diagnostics | %FileCheck %s
// REQUIRES: mlir
// A dot whose rows cannot be split into 16-row blocks over the warps falls back to
// the SIMT policy, with a warning at the dot saying why.

// CHECK-LABEL: func.func @small
// CHECK-SAME: tilegpu.policy = "simt"
// CHECK-NOT: #tilegpu.mma
func.func @small(%q: !tile.ptr<f16>, %o: !tile.ptr<f32>, %n: i32) attributes {tile.tensorcore, tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c24 = arith.constant 24 : index
  %N = arith.index_cast %n : i32 to index
  %a = tile.load %q[%c0, %c0] extents[%N, %c24] {lens = array<i64: 24, 16>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<24x16xf16>
  %b = tile.load %q[%c0, %c0] extents[%N, %c24] {lens = array<i64: 16, 24>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<16x24xf16>
  // expected-warning @+1 {{tile 'tensor<24x24xf32>' cannot take the mma.sync register layout: no split of the 4 warps into 16-row and 8-column blocks fits every dot}}
  %s = tile.dot %a, %b : tensor<24x16xf16>, tensor<16x24xf16> -> tensor<24x24xf32>
  tile.store %s, %o[%c0, %c0] extents[%N, %c24] {lens = array<i64: 24, 24>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<24x24xf32>, !tile.ptr<f32>
  return
}
