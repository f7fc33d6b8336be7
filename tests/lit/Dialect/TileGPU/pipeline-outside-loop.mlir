// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared=reuse=true | %FileCheck %s --check-prefix=REUSE
// REQUIRES: mlir
// A dot operand loaded once (attention's q) goes through one shared buffer:
// copy, commit, wait for everything, barrier, read. Each buffer has bytes of its
// own; with `reuse`, buffers that are not live together share them.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, trans = 1}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @once
// CHECK-SAME: tilegpu.shared_bytes = 18432 : i64
// REUSE: tilegpu.shared_bytes = 9216 : i64
// CHECK: tilegpu.async_copy {{.*}} into %{{[0-9a-z]+}} {
// CHECK-NEXT: tilegpu.async_commit_group
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load
func.func @once(%Q: !tile.ptr<f16>, %n: i32) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %N = arith.index_cast %n : i32 to index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %q = tile.load %Q[%c0, %c0] extents[%N, %c64] {lens = array<i64: 64, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16, #bl>
  %a = tilegpu.convert_layout %q : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #opA>
  %k = tile.load %Q[%c0, %c0] extents[%N, %c64] {lens = array<i64: 64, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16, #bl>
  %b = tilegpu.convert_layout %k : tensor<64x64xf16, #bl> -> tensor<64x64xf16, #opB>
  %s = tilegpu.dot %a, %b, %zero {transB} : tensor<64x64xf16, #opA>, tensor<64x64xf16, #opB> -> tensor<64x64xf32, #mma>
  return %s : tensor<64x64xf32, #mma>
}
