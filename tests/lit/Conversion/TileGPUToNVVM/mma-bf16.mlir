// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// mma.mlir's dot on bf16: nvvm.mma.sync takes bf16 pairs packed in i32, and the fragments
// read by ldmatrix are its i32 registers as they come (no unpacking into halves and
// packing back, no bitcast, no vector op for to-nvvm to convert).

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @dot
// CHECK: %[[A:.*]] = llvm.extractvalue %{{.*}}[0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK: %[[LDB:.*]] = nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>
// CHECK-NEXT: %[[B:.*]] = llvm.extractvalue %[[LDB]][0] : !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT: vector.
// CHECK: nvvm.mma.sync A[%[[A]], %{{.*}}, %{{.*}}, %{{.*}}]  B[%[[B]], %{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  {{{.*}}multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>{{.*}}} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: vector.
func.func @dot(%A: !tile.ptr<bf16>, %B: !tile.ptr<bf16>, %C: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %a = tile.load %A[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<bf16> -> tensor<64x32xbf16, #bl>
  %ca = tilegpu.convert_layout %a : tensor<64x32xbf16, #bl> -> tensor<64x32xbf16, #opA>
  %b = tile.load %B[%c0, %c0] extents[%c32, %c64] {lens = array<i64: 32, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<bf16> -> tensor<32x64xbf16, #bl>
  %cb = tilegpu.convert_layout %b : tensor<32x64xbf16, #bl> -> tensor<32x64xbf16, #opB>
  %d = tilegpu.dot %ca, %cb, %zero : tensor<64x32xbf16, #opA>, tensor<32x64xbf16, #opB> -> tensor<64x64xf32, #mma>
  tile.store %d, %C[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x64xf32, #mma>, !tile.ptr<f32>
  return
}
