// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// What issue 16's kernels compute masks with, per register of a blocked layout
// ([1, 2] per thread, 32 lanes along 64 columns: 2 registers): the column index
// (tile.iota 1: the register's column as i32), i32 arithmetic, comparisons
// (arith.cmpi, arith.cmpf), && (arith.andi on i1 registers), arith.select, and the
// i32 -> f32 conversion; a scalar read `L[0, 0]` is one load every thread makes.

#bl = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @mask
// CHECK: %[[LAB:.*]] = llvm.load %{{.*}} : !llvm.ptr<1> -> i32
// CHECK: %[[TID:.*]] = gpu.thread_id x
// CHECK-COUNT-2: arith.index_cast %{{.*}} : index to i32
// CHECK-COUNT-2: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-2: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK-COUNT-2: arith.cmpf ogt, %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-2: arith.andi %{{.*}}, %{{.*}} : i1
// CHECK-COUNT-2: arith.select %{{.*}}, %{{.*}}, %{{.*}} : f32
// CHECK-COUNT-2: arith.sitofp %{{.*}} : i32 to f32
// CHECK: llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<1>
// CHECK-NOT: tile.
// CHECK-NOT: tensor.extract
func.func @mask(%x: !tile.ptr<f32>, %L: !tile.ptr<i32>, %y: !tile.ptr<f32>) attributes {tile.threads = 32 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %l = tile.load %L[%c0, %c0] extents[%c1, %c1] {lens = array<i64: 1, 1>, masked = array<i1: true, true>, squeezed = array<i1: true, true>} : !tile.ptr<i32> -> tensor<i32>
  %lab = tensor.extract %l[] : tensor<i32>
  %a = tile.load %x[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<1x64xf32, #bl>
  %j = tile.iota 1 : tensor<1x64xi32, #bl>
  %labs = tile.splat %lab : tensor<1x64xi32, #bl>
  %jl = arith.addi %j, %labs : tensor<1x64xi32, #bl>
  %n = arith.constant dense<40> : tensor<1x64xi32, #bl>
  %inside = arith.cmpi slt, %jl, %n : tensor<1x64xi32, #bl>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32, #bl>
  %pos = arith.cmpf ogt, %a, %zero : tensor<1x64xf32, #bl>
  %both = arith.andi %inside, %pos : tensor<1x64xi1, #bl>
  %s = arith.select %both, %a, %zero : tensor<1x64xi1, #bl>, tensor<1x64xf32, #bl>
  %jf = tile.convert %jl : tensor<1x64xi32, #bl> -> tensor<1x64xf32, #bl>
  %r = arith.addf %s, %jf : tensor<1x64xf32, #bl>
  tile.store %r, %y[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x64xf32, #bl>, !tile.ptr<f32>
  return
}
