// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// rowargmax in one pass: each thread combines the (value, column) pairs of its registers
// of a row, then the quad of the mma layout exchanges both halves of the pair with two
// butterfly shuffles each (per row group the thread holds); no second reduction (no
// arith.maximumf).

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>

// CHECK-LABEL: gpu.func @rowargmax
// CHECK-NOT: arith.maximumf
// CHECK: arith.extf %{{.*}} : f16 to f32
// CHECK: arith.cmpi slt
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpf uno
// CHECK: arith.cmpf ord
// CHECK: %[[V1:.*]], %{{.*}} = gpu.shuffle  xor %[[PV:.*]], %[[C1:.*]], %{{.*}} : f32
// CHECK: %[[I1:.*]], %{{.*}} = gpu.shuffle  xor %[[PI:.*]], %[[C1]], %{{.*}} : i32
// CHECK: arith.cmpi slt, %[[I1]], %[[PI]] : i32
// CHECK: arith.cmpf ogt, %[[V1]], %[[PV]] : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C2:.*]], %{{.*}} : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %[[C2]], %{{.*}} : i32
// CHECK-NOT: arith.maximumf
// CHECK: llvm.store
func.func @rowargmax(%x: !tile.ptr<f16>, %y: !tile.ptr<i32>) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c32 = arith.constant 32 : index
  %s = tile.load %x[%c0, %c0] extents[%c64, %c32] {lens = array<i64: 64, 32>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x32xf16, #mma>
  %a = tile.rowargmax %s : tensor<64x32xf16, #mma> -> tensor<64x1xi32, #mma>
  tile.store %a, %y[%c0, %c0] extents[%c64, %c1] {lens = array<i64: 64, 1>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x1xi32, #mma>, !tile.ptr<i32>
  return
}
