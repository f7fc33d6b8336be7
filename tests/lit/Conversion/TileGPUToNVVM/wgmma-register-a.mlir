// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=COUNT
// RUN: ph-opt %s --convert-tilegpu-to-nvvm="wgmma-operands-before-fence=1" | %FileCheck %s --check-prefix=FENCE
// REQUIRES: mlir
// Attention on wgmma (examples/flash_attention.ph, D = 64, BR = 64, BC = 32, after
// tilegpu-assign-layouts arch=sm_90a, tilegpu-pipeline and tilegpu-allocate-shared):
// S = Q K^T is four m64n32k16 wgmmas with both operands read by descriptor (K
// K-major: B col), committed, waited for, and its registers tied through an
// empty asm after the wait; P V is two m64n64k16 wgmmas with A, P's f16 pairs,
// from four registers ("RS", written as PTX: MLIR 22's nvvm.wgmma.mma_async
// takes A only by descriptor), the 32 accumulator registers tied in and out,
// B (V, N-major) by descriptor with imm-trans-b = 1.
// wgmma-operands-before-fence (FENCE): P V's 32 accumulators and P's eight pairs (two K steps of
// four) pass through empty asms before its fence, and no pair is built between the fence and the
// commit (where LLVM would sink them, and ptxas would fence again: C7519).

// CHECK-LABEL: gpu.func @flash_attention
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}}<m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK-NEXT: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,=f,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
// CHECK: gpu.shuffle  xor
// CHECK: nvvm.wgmma.fence.aligned
// CHECK: llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, $1,
// CHECK-SAME: $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}", "=f,
// CHECK-SAME: ,0,1,
// CHECK-SAME: ,30,31,r,r,r,r,l,r"
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK-NEXT: nvvm.wgmma.wait.group.sync.aligned 0

// FENCE-LABEL: gpu.func @flash_attention
// FENCE: gpu.shuffle  xor
// FENCE: llvm.inline_asm has_side_effects asm_dialect = att "", "=f,{{.*}},=f,0,1,{{.*}},30,31"
// FENCE: llvm.inline_asm has_side_effects asm_dialect = att "", "=r,=r,=r,=r,=r,=r,=r,=r,0,1,2,3,4,5,6,7"
// FENCE: nvvm.wgmma.fence.aligned
// FENCE-NOT: llvm.bitcast
// FENCE: wgmma.mma_async.sync.aligned.m64n64k16
// FENCE-NOT: llvm.bitcast
// FENCE: wgmma.mma_async.sync.aligned.m64n64k16
// FENCE-NOT: llvm.bitcast
// FENCE: nvvm.wgmma.commit.group.sync.aligned

// COUNT-COUNT-4: nvvm.wgmma.mma_async
// COUNT-NOT: nvvm.wgmma.mma_async
// COUNT-NOT: nvvm.ldmatrix
// COUNT: wgmma.mma_async.sync.aligned.m64n64k16
// COUNT: wgmma.mma_async.sync.aligned.m64n64k16
// COUNT-NOT: wgmma.mma_async.sync.aligned

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 8]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>
module {
  func.func @flash_attention(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 1, 1>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.policy = "wgmma", tilegpu.shared_bytes = 40960 : i64} {
    %0 = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<4x32x64xf16, #shared>
    %1 = tilegpu.local_alloc {offset = 16384 : i64} : !tilegpu.memdesc<4x32x64xf16, #shared>
    %2 = tilegpu.local_alloc {offset = 32768 : i64} : !tilegpu.memdesc<64x64xf16, #shared>
    %c32_i32 = arith.constant 32 : i32
    %c0_i32 = arith.constant 0 : i32
    %cst = arith.constant -1.000000e+30 : f32
    %cst_0 = arith.constant 0.000000e+00 : f32
    %c64 = arith.constant 64 : index
    %c0 = arith.constant 0 : index
    %c64_i32 = arith.constant 64 : i32
    %3 = tile.block_id 0
    %4 = arith.muli %3, %c64_i32 : i32
    %5 = arith.index_cast %4 : i32 to index
    %6 = arith.index_cast %arg4 : i32 to index
    tilegpu.async_copy %arg0[%5, %c0] extents[%6, %c64] into %2 {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<64x64xf16, #shared>
    tilegpu.async_commit_group
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.fence_async_shared
    tilegpu.barrier
    %7 = tile.splat %cst_0 : tensor<64x64xf32, #mma>
    %8 = tile.splat %cst : tensor<64x1xf32, #mma>
    %9 = tile.splat %cst_0 : tensor<64x1xf32, #mma>
    %c0_i32_1 = arith.constant 0 : i32
    %10 = arith.muli %c32_i32, %c0_i32_1 : i32
    %11 = arith.addi %c0_i32, %10 : i32
    %c0_2 = arith.constant 0 : index
    %12 = arith.cmpi slt, %11, %arg5 : i32
    scf.if %12 {
      %20 = arith.index_cast %11 : i32 to index
      %21 = arith.index_cast %arg5 : i32 to index
      tilegpu.async_copy %arg1[%20, %c0] extents[%21, %c64] into %1[%c0_2] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
      %22 = arith.index_cast %11 : i32 to index
      %23 = arith.index_cast %arg5 : i32 to index
      tilegpu.async_copy %arg2[%22, %c0] extents[%23, %c64] into %0[%c0_2] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
    }
    tilegpu.async_commit_group
    %c1_i32 = arith.constant 1 : i32
    %13 = arith.muli %c32_i32, %c1_i32 : i32
    %14 = arith.addi %c0_i32, %13 : i32
    %c1 = arith.constant 1 : index
    %15 = arith.cmpi slt, %14, %arg5 : i32
    scf.if %15 {
      %20 = arith.index_cast %14 : i32 to index
      %21 = arith.index_cast %arg5 : i32 to index
      tilegpu.async_copy %arg1[%20, %c0] extents[%21, %c64] into %1[%c1] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
      %22 = arith.index_cast %14 : i32 to index
      %23 = arith.index_cast %arg5 : i32 to index
      tilegpu.async_copy %arg2[%22, %c0] extents[%23, %c64] into %0[%c1] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
    }
    tilegpu.async_commit_group
    %16:3 = scf.for %arg7 = %c0_i32 to %arg5 step %c32_i32 iter_args(%arg8 = %7, %arg9 = %8, %arg10 = %9) -> (tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>)  : i32 {
      %20 = arith.subi %arg7, %c0_i32 : i32
      %21 = arith.divsi %20, %c32_i32 : i32
      %22 = arith.index_cast %21 : i32 to index
      %c4 = arith.constant 4 : index
      %23 = arith.remsi %22, %c4 : index
      tilegpu.async_wait {pending = 1 : i32}
      tilegpu.fence_async_shared
      tilegpu.barrier
      %c2_i32 = arith.constant 2 : i32
      %24 = arith.muli %c32_i32, %c2_i32 : i32
      %25 = arith.addi %arg7, %24 : i32
      %c2 = arith.constant 2 : index
      %26 = arith.addi %22, %c2 : index
      %27 = arith.remsi %26, %c4 : index
      %28 = arith.cmpi slt, %25, %arg5 : i32
      scf.if %28 {
        %51 = arith.index_cast %25 : i32 to index
        %52 = arith.index_cast %arg5 : i32 to index
        tilegpu.async_copy %arg1[%51, %c0] extents[%52, %c64] into %1[%27] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
        %53 = arith.index_cast %25 : i32 to index
        %54 = arith.index_cast %arg5 : i32 to index
        tilegpu.async_copy %arg2[%53, %c0] extents[%54, %c64] into %0[%27] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16>, !tilegpu.memdesc<4x32x64xf16, #shared>
      }
      tilegpu.async_commit_group
      %29 = arith.index_cast %arg7 : i32 to index
      %30 = arith.index_cast %arg5 : i32 to index
      %cst_3 = arith.constant dense<0.000000e+00> : tensor<64x32xf32, #mma>
      %31 = tilegpu.warpgroup_dot %2, %1[%23], %cst_3 {transB} : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<4x32x64xf16, #shared> -> tensor<64x32xf32, #mma>
      %32 = tile.splat %arg6 : tensor<64x32xf32, #mma>
      %33 = arith.mulf %31, %32 : tensor<64x32xf32, #mma>
      %34 = arith.subi %arg5, %arg7 : i32
      %35 = tile.mask_cols %33, %34, %cst : tensor<64x32xf32, #mma>
      %36 = tile.rowmax %35 : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
      %37 = arith.maximumf %arg9, %36 : tensor<64x1xf32, #mma>
      %38 = tile.broadcast %37 : tensor<64x1xf32, #mma> -> tensor<64x32xf32, #mma>
      %39 = arith.subf %35, %38 : tensor<64x32xf32, #mma>
      %40 = math.exp %39 : tensor<64x32xf32, #mma>
      %41 = arith.subf %arg9, %37 : tensor<64x1xf32, #mma>
      %42 = math.exp %41 : tensor<64x1xf32, #mma>
      %43 = arith.mulf %arg10, %42 : tensor<64x1xf32, #mma>
      %44 = tile.rowsum %40 : tensor<64x32xf32, #mma> -> tensor<64x1xf32, #mma>
      %45 = arith.addf %43, %44 : tensor<64x1xf32, #mma>
      %46 = tile.broadcast %42 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
      %47 = arith.mulf %arg8, %46 : tensor<64x64xf32, #mma>
      %48 = tile.convert %40 : tensor<64x32xf32, #mma> -> tensor<64x32xf16, #mma>
      %49 = tilegpu.convert_layout %48 : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #dot_op>
      %50 = tilegpu.warpgroup_dot %49, %0[%23], %47 : tensor<64x32xf16, #dot_op>, !tilegpu.memdesc<4x32x64xf16, #shared> -> tensor<64x64xf32, #mma>
      scf.yield %50, %37, %45 : tensor<64x64xf32, #mma>, tensor<64x1xf32, #mma>, tensor<64x1xf32, #mma>
    }
    tilegpu.async_wait {pending = 0 : i32}
    tilegpu.barrier
    %17 = tile.broadcast %16#2 : tensor<64x1xf32, #mma> -> tensor<64x64xf32, #mma>
    %18 = arith.divf %16#0, %17 : tensor<64x64xf32, #mma>
    %19 = tile.convert %18 : tensor<64x64xf32, #mma> -> tensor<64x64xf16, #mma>
    tile.store %19, %arg3[%5, %c0] extents[%6, %c64] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x64xf16, #mma>, !tile.ptr<f16>
    return
  }
}

