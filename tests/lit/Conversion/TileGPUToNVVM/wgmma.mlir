// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pipeline --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=COUNT
// REQUIRES: mlir
// A [128, 64] x [64, 128] dot on wgmma with one warpgroup: cp.async into
// 128-byte-swizzled buffers (chunk c of row r at c ^ r % 8), the async-proxy
// fence before the barrier, then per 16-deep K step one m64n128k16 wgmma for
// each of the two 64-row strips (4 x 2 = 8), both operands read through
// shared-memory descriptors, committed and waited for.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 128]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#opB = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @dot
// CHECK: arith.xori
// CHECK: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg
// CHECK: nvvm.cp.async.wait.group 0
// CHECK-NEXT: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: gpu.barrier
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: nvvm.wgmma.mma_async {{.*}}, <m = 64, n = 128, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// COUNT-COUNT-8: nvvm.wgmma.mma_async
// COUNT-NOT: nvvm.wgmma.mma_async
// COUNT-NOT: nvvm.ldmatrix
func.func @dot(%A: !tile.ptr<f16>, %B: !tile.ptr<f16>, %C: !tile.ptr<f32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %a = tile.load %A[%c0, %c0] extents[%c128, %c64] {lens = array<i64: 128, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<128x64xf16, #bl>
  %ca = tilegpu.convert_layout %a : tensor<128x64xf16, #bl> -> tensor<128x64xf16, #opA>
  %b = tile.load %B[%c0, %c0] extents[%c64, %c128] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16, #bl>
  %cb = tilegpu.convert_layout %b : tensor<64x128xf16, #bl> -> tensor<64x128xf16, #opB>
  %d = tilegpu.dot %ca, %cb, %zero : tensor<128x64xf16, #opA>, tensor<64x128xf16, #opB> -> tensor<128x128xf32, #mma>
  tile.store %d, %C[%c0, %c0] extents[%c128, %c128] {lens = array<i64: 128, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<128x128xf32, #mma>, !tile.ptr<f32>
  return
}
