// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=COUNT
// REQUIRES: mlir
// A [64, 32] x [32, 64] dot on mma.sync with 2x2 warps, operands through shared memory:
// cp.async of 16-byte chunks, ldmatrix (.trans for B stored [K, N]), and per warp
// (32x32 of C) 2 K blocks x 2 row blocks x 4 column blocks = 16 nvvm.mma.sync, made directly:
// the fragments are ldmatrix's registers as <2 x half> (no vector dialect op, no nvgpu op
// for to-nvvm to convert), the accumulator four f32 in and out.

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [2, 2], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @dot
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.commit.group
// CHECK: nvvm.cp.async.wait.group 0
// CHECK: gpu.barrier
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<row>, num = 4 : i32
// CHECK: nvvm.ldmatrix %{{.*}} {eltType = #nvvm.ld_st_matrix_elt_type<b16>, layout = #nvvm.mma_layout<col>, num = 4 : i32
// CHECK-NOT: vector.
// CHECK: nvvm.mma.sync A[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  B[%{{.*}}, %{{.*}}]  C[%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}]  {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (vector<2xf16>, vector<2xf16>, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NEXT: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32, f32, f32, f32)>
// CHECK-NOT: vector.
// CHECK-NOT: nvgpu.
// COUNT-COUNT-16: nvvm.mma.sync
// COUNT-NOT: nvvm.mma.sync
func.func @dot(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %a = tile.load %A[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x32xf16, #bl>
  %ca = tilegpu.convert_layout %a : tensor<64x32xf16, #bl> -> tensor<64x32xf16, #opA>
  %b = tile.load %B[%c0, %c0] extents[%c32, %c64] {lens = array<i64: 32, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<32x64xf16, #bl>
  %cb = tilegpu.convert_layout %b : tensor<32x64xf16, #bl> -> tensor<32x64xf16, #opB>
  %d = tilegpu.dot %ca, %cb, %zero : tensor<64x32xf16, #opA>, tensor<32x64xf16, #opB> -> tensor<64x64xf32, #mma>
  tile.store %d, %C[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x64xf32, #mma>, !tile.ptr<f32>
  return
}
