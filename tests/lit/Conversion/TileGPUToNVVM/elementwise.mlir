// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// The kernel becomes a gpu.func kernel (tensors as !llvm.ptr<1>); a tile in a blocked
// layout is a struct of the elements a thread holds (here 2: [1, 2] per thread over
// 32 lanes along 64 columns), and an elementwise op is its scalar op per register.

#bl = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK: gpu.module @ph_kernels
// CHECK: gpu.func @add(%[[X:.*]]: !llvm.ptr<1>, %[[Y:.*]]: !llvm.ptr<1>, %{{.*}}: i32) kernel
// CHECK-SAME: known_block_size = array<i32: 32, 1, 1>
// CHECK: %[[A:.*]] = llvm.load {{.*}} : !llvm.ptr<1> -> vector<2xf32>
// CHECK: %[[A0:.*]] = llvm.extractelement %[[A]]
// CHECK: %[[A1:.*]] = llvm.extractelement %[[A]]
// An op reads the elements the op before it packed, not extractvalue ops of the struct (which
// to-nvvm would fold, walking the insertvalue chain each time).
// CHECK-NOT: llvm.extractvalue
// CHECK: %[[S0:.*]] = arith.addf %[[A0]], %[[A0]] : f32
// CHECK: %[[S1:.*]] = arith.addf %[[A1]], %[[A1]] : f32
// CHECK-NOT: llvm.extractvalue
// CHECK: arith.mulf %[[S0]], %{{.*}} : f32
// CHECK: arith.mulf %[[S1]], %{{.*}} : f32
// CHECK-NOT: llvm.extractvalue
// CHECK: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: tile.
// CHECK-NOT: tensor<
func.func @add(%x: !tile.ptr<f32>, %y: !tile.ptr<f32>, %n: i32) attributes {tile.threads = 32 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %a = tile.load %x[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<1x64xf32, #bl>
  %two = arith.constant dense<2.0> : tensor<1x64xf32, #bl>
  %s = arith.addf %a, %a : tensor<1x64xf32, #bl>
  %t = arith.mulf %s, %two : tensor<1x64xf32, #bl>
  tile.store %t, %y[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x64xf32, #bl>, !tile.ptr<f32>
  return
}
