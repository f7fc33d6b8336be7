// RUN: ph-opt %s | ph-opt | %FileCheck %s
// RUN: ph-opt %s --canonicalize | %FileCheck %s --check-prefix=FOLD
// REQUIRES: mlir
// The layouts, the shared-buffer type and every TileGPU op parse, verify and print back.

#blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#opBt = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, trans = 1}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// CHECK-DAG: #blocked = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
// CHECK-DAG: #mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
// CHECK-DAG: #dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
// CHECK-DAG: #dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, trans = 1}>
// CHECK-DAG: #shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// CHECK-LABEL: func.func @mainloop
func.func @mainloop(%A: !tile.ptr<f16>, %m: index, %k: index, %s: index) -> tensor<64x64xf32, #mma> {
  %c0 = arith.constant 0 : index
  // CHECK: %[[BUF:.*]] = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<3x64x32xf16, #{{.*}}>
  %buf = tilegpu.local_alloc {offset = 0} : !tilegpu.memdesc<3x64x32xf16, #shared>
  // CHECK: tilegpu.async_copy %{{.*}}[%{{.*}}, %{{.*}}] extents[%{{.*}}, %{{.*}}] into %[[BUF]][%{{.*}}] {lens = array<i64: 64, 32>
  tilegpu.async_copy %A[%c0, %c0] extents [%m, %k] into %buf[%s] {lens = array<i64: 64, 32>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<3x64x32xf16, #shared>
  // CHECK: tilegpu.async_commit_group
  tilegpu.async_commit_group
  // CHECK: tilegpu.async_wait {pending = 1 : i32}
  tilegpu.async_wait {pending = 1 : i32}
  // CHECK: tilegpu.barrier
  tilegpu.barrier
  // CHECK: tilegpu.local_load %[[BUF]][%{{.*}}] : !tilegpu.memdesc<3x64x32xf16, #{{.*}}> -> tensor<64x32xf16, #{{.*}}>
  %a = tilegpu.local_load %buf[%s] : !tilegpu.memdesc<3x64x32xf16, #shared> -> tensor<64x32xf16, #opA>
  %bt = tilegpu.local_load %buf[%s] : !tilegpu.memdesc<3x64x32xf16, #shared> -> tensor<64x32xf16, #opBt>
  %z = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  // CHECK: tilegpu.dot %{{.*}}, %{{.*}}, %{{.*}} {transB} : tensor<64x32xf16, #{{.*}}>, tensor<64x32xf16, #{{.*}}> -> tensor<64x64xf32, #mma>
  %d = tilegpu.dot %a, %bt, %z {transB} : tensor<64x32xf16, #opA>, tensor<64x32xf16, #opBt> -> tensor<64x64xf32, #mma>
  // CHECK: tilegpu.convert_layout %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %e = tilegpu.convert_layout %d : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #blocked>
  %single = tilegpu.local_alloc : !tilegpu.memdesc<64x64xf32, #shared>
  // CHECK: tilegpu.local_store %{{.*}}, %{{.*}} : tensor<64x64xf32, #blocked>, !tilegpu.memdesc<64x64xf32
  tilegpu.local_store %e, %single : tensor<64x64xf32, #blocked>, !tilegpu.memdesc<64x64xf32, #shared>
  return %d : tensor<64x64xf32, #mma>
}

// A conversion to the same layout folds away.
// FOLD-LABEL: func.func @fold
// FOLD-NOT: convert_layout
// FOLD: return %arg0
func.func @fold(%x: tensor<64x64xf32, #mma>) -> tensor<64x64xf32, #mma> {
  %y = tilegpu.convert_layout %x : tensor<64x64xf32, #mma> -> tensor<64x64xf32, #mma>
  return %y : tensor<64x64xf32, #mma>
}
