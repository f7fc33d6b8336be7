// RUN: ph-opt %s --tilegpu-fragments-at-use | %FileCheck %s
// RUN: ph-opt %s --tilegpu-fragments-at-use="max-hoisted-regs=8" | %FileCheck %s --check-prefix=AGAIN
// REQUIRES: mlir
// mha.ph's key loop (D = 64, BR = 64, BC = 32) as tilegpu-pipeline left it on mbarriers: K's and
// V's ring reads at the top. V's read moves down to just before P V (past the softmax, not past
// the free mbarrier's arrive after it); K's is already next to its dot. Q, read once before the
// loop (16 registers a thread), stays there; with max-hoisted-regs=8 it is read in the loop.

// CHECK-LABEL: func.func @mha_f16
// CHECK: %[[Q:.*]] = tilegpu.local_load %4 : {{.*}} -> tensor<64x64xf16, #dot_op>
// CHECK: scf.for
// CHECK: tilegpu.mbarrier_wait
// CHECK: %[[K:.*]] = tilegpu.local_load %1[%{{.*}}] : {{.*}} -> tensor<32x64xf16, #dot_op1>
// CHECK-NOT: tilegpu.local_load
// CHECK: tilegpu.dot %[[Q]], %[[K]]
// CHECK: tile.rowmax
// CHECK: tilegpu.convert_layout
// CHECK-NEXT: %[[V:.*]] = tilegpu.local_load %0[%{{.*}}] : {{.*}} -> tensor<32x64xf16, #dot_op2>
// CHECK-NEXT: tilegpu.dot %{{.*}}, %[[V]], %{{.*}} :
// CHECK-NEXT: tilegpu.mbarrier_arrive %2

// AGAIN-LABEL: func.func @mha_f16
// AGAIN-NOT: tilegpu.local_load %4
// AGAIN: scf.for
// AGAIN: %[[Q:.*]] = tilegpu.local_load %4 : {{.*}} -> tensor<64x64xf16, #dot_op>
// AGAIN-NEXT: %[[K:.*]] = tilegpu.local_load %1
// AGAIN-NEXT: tilegpu.dot %[[Q]], %[[K]]
// AGAIN-NOT: tilegpu.local_load %4

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>
#shared1 = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
#dot_op1 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2, trans = 1}>
#dot_op2 = #tilegpu.dot_op<{opIdx = 1, parent = #mma, kWidth = 2}>
module {
  func.func @mha_f16(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32, %arg7: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 1, 1, 64, 1>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.policy = "mma", tilegpu.shared_bytes = 37016 : i64} {
    %0 = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<3x32x64xf16, #shared>
    %1 = tilegpu.local_alloc {offset = 13824 : i64} : !tilegpu.memdesc<3x32x64xf16, #shared>
    %2 = tilegpu.local_alloc {offset = 36864 : i64} : !tilegpu.memdesc<3xi64, #shared1>
    %3 = tilegpu.local_alloc {offset = 36992 : i64} : !tilegpu.memdesc<3xi64, #shared1>
    %4 = tilegpu.local_alloc {offset = 27648 : i64} : !tilegpu.memdesc<64x64xf16, #shared>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant -1.000000e+30 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c64_i32 = arith.constant 64 : i32
    %5 = tile.block_id 0
    %6 = arith.muli %5, %c64_i32 : i32
    %7 = tile.block_id 1
    %8 = tile.block_id 2
    %9 = arith.index_cast %8 : i32 to index
    %10 = arith.index_cast %7 : i32 to index
    %11 = arith.index_cast %6 : i32 to index
    %12 = arith.index_cast %arg4 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = arith.index_cast %arg6 : i32 to index
    tilegpu.async_copy %arg0[%9, %10, %11, %c0] extents[%12, %13, %14, %c64] into %4 {lens = array<i64: 1, 1, 64, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.barrier
    %15 = tilegpu.local_load %4 : !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf16, #dot_op>
    %16 = tile.splat %cst_0 : tensor<64x64xf32, #mma>
    %17 = tile.splat %cst : tensor<64x1xf32, #mma>
    %18 = tile.splat %cst_0 : tensor<64x1xf32, #mma>
    %c3 = arith.constant 3 : index
    tilegpu.mbarrier_init %3 count 128 : !tilegpu.memdesc<3xi64, #shared1>
    tilegpu.mbarrier_init %2 count 128 : !tilegpu.memdesc<3xi64, #shared1>
    %c0_i32_1 = arith.constant 0 : i32
    %19 = arith.muli %c32_i32, %c0_i32_1 : i32
    %20 = arith.addi %c0_i32, %19 : i32
    %c0_2 = arith.constant 0 : index
    %21 = arith.cmpi slt, %20, %arg6 : i32
    scf.if %21 {
      %26 = arith.index_cast %20 : i32 to index
      tilegpu.async_copy %arg1[%9, %10, %26, %c0] extents[%12, %13, %14, %c64] into %1[%c0_2] {lens = array<i64: 1, 1, 32, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<3x32x64xf16, #shared>
      %27 = arith.index_cast %20 : i32 to index
      tilegpu.async_copy %arg2[%9, %10, %27, %c0] extents[%12, %13, %14, %c64] into %0[%c0_2] {lens = array<i64: 1, 1, 32, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<3x32x64xf16, #shared>
      tilegpu.mbarrier_arrive %3[%c0_2] {copies} : !tilegpu.memdesc<3xi64, #shared1>
    }
    %22:3 = scf.for %arg8 = %c0_i32 to %arg6 step %c32_i32 iter_args(%arg9 = %16, %arg10 = %17, %arg11 = %18) -> (tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>)  : i32 {
      %26 = arith.subi %arg8, %c0_i32 : i32
      %27 = arith.divsi %26, %c32_i32 : i32
      %28 = arith.index_cast %27 : i32 to index
      %29 = arith.remsi %28, %c3 : index
      %c2 = arith.constant 2 : index
      %30 = arith.divui %28, %c3 : index
      %31 = arith.remui %30, %c2 : index
      tilegpu.mbarrier_wait %3[%29], %31 : !tilegpu.memdesc<3xi64, #shared1>
      %c1_i32 = arith.constant 1 : i32
      %32 = arith.muli %c32_i32, %c1_i32 : i32
      %33 = arith.addi %arg8, %32 : i32
      %c1 = arith.constant 1 : index
      %34 = arith.addi %28, %c1 : index
      %35 = arith.remsi %34, %c3 : index
      %36 = arith.cmpi slt, %33, %arg6 : i32
      scf.if %36 {
        %c1_4 = arith.constant 1 : index
        %c2_5 = arith.constant 2 : index
        %60 = arith.divui %34, %c3 : index
        %61 = arith.remui %60, %c2_5 : index
        %62 = arith.xori %61, %c1_4 : index
        tilegpu.mbarrier_wait %2[%35], %62 : !tilegpu.memdesc<3xi64, #shared1>
        %63 = arith.index_cast %33 : i32 to index
        tilegpu.async_copy %arg1[%9, %10, %63, %c0] extents[%12, %13, %14, %c64] into %1[%35] {lens = array<i64: 1, 1, 32, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<3x32x64xf16, #shared>
        %64 = arith.index_cast %33 : i32 to index
        tilegpu.async_copy %arg2[%9, %10, %64, %c0] extents[%12, %13, %14, %c64] into %0[%35] {lens = array<i64: 1, 1, 32, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<3x32x64xf16, #shared>
        tilegpu.mbarrier_arrive %3[%35] {copies} : !tilegpu.memdesc<3xi64, #shared1>
      }
      %37 = arith.index_cast %arg8 : i32 to index
      %38 = tilegpu.local_load %1[%29] : !tilegpu.memdesc<3x32x64xf16, #shared> -> tensor<32x64xf16, #dot_op1>
      %39 = tilegpu.local_load %0[%29] : !tilegpu.memdesc<3x32x64xf16, #shared> -> tensor<32x64xf16, #dot_op2>
      %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
      %40 = tilegpu.dot %15, %38, %cst_3 {transB} : tensor<64x64xf16, #dot_op>, tensor<32x64xf16, #dot_op1> -> tensor<64x32xf32, #mma>
      %41 = tile.splat %arg7 : tensor<64x32xf32, #mma>
      %42 = arith.mulf %40, %41 : tensor<64x32xf32, #mma>
      %43 = arith.subi %arg6, %arg8 : i32
      %44 = tile.mask_cols %42, %43, %cst : tensor<64x32xf32, #mma>
      %45 = tile.rowmax %44 : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
      %46 = arith.maximumf %arg10, %45 : tensor<64x1xf32, #mma>
      %47 = tile.broadcast %46 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
      %48 = arith.subf %44, %47 : tensor<64x32xf32, #mma>
      %49 = math.exp %48 : tensor<64x32xf32, #mma>
      %50 = arith.subf %arg10, %46 : tensor<64x1xf32, #mma>
      %51 = math.exp %50 : tensor<64x1xf32, #mma>
      %52 = arith.mulf %arg11, %51 : tensor<64x1xf32, #mma>
      %53 = tile.rowsum %49 : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
      %54 = arith.addf %52, %53 : tensor<64x1xf32, #mma>
      %55 = tile.broadcast %51 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %56 = arith.mulf %arg9, %55 : tensor<64x64xf32, #mma>
      %57 = tile.convert %49 : tensor<64x32xf32, #mma> -> tensor<64x32xf16, #mma>
      %58 = tilegpu.convert_layout %57 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
      %59 = tilegpu.dot %58, %39, %56 : tensor<64x32xf16, #dot_op>, tensor<32x64xf16, #dot_op2> -> tensor<64x64xf32, #mma>
      tilegpu.mbarrier_arrive %2[%29] : !tilegpu.memdesc<3xi64, #shared1>
      scf.yield %59, %46, %54 : tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>
    }
    tilegpu.barrier
    %23 = tile.broadcast %22#2 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %24 = arith.divf %22#0, %23 : tensor<64x64xf32, #mma>
    %25 = tile.convert %24 : tensor<64x64xf32, #mma> -> tensor<64x64xf16, #mma>
    tile.store %25, %arg3[%9, %10, %11, %c0] extents[%12, %13, %14, %c64] {lens = array<i64: 1, 1, 64, 64>, masked = array<i1: false, false, false, false>, squeezed = array<i1: true, true, false, false>} : tensor<64x64xf16, #mma>, !tile.ptr<f16>
    return
  }
}

