// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent | %FileCheck %s --check-prefix=WRAP
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1 stages=4" | %FileCheck %s --check-prefix=FOUR
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1 once-after-prologue=1" | %FileCheck %s --check-prefix=AFTER
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-through-shared --tilegpu-allocate-shared --tilegpu-insert-barriers --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// REQUIRES: mlir
// tilegpu-persistent (docs/tilegpu.md, "Persistent CTAs"): a kernel whose tiles all do the same
// work walks the grid's tiles from its CTA's linear id, the launched CTAs apart; the grid comes
// from `tilegpu.grid` (x = ceil(N / 64) from the second size, y = H from the first, z = 1), and
// each block id becomes the tile's coordinate. tilegpu-pipeline then sets the K/V ring's
// mbarriers up once, before the tile loop, counts its stages and phases over all the CTA's tiles
// (the tile's number among them times the key loop's iterations), runs the prologue in the first
// tile only (or in every tile where the loop has fewer iterations than the copies run ahead: its
// copies are then the ring's next uses, not stages 0 .. D-1),
// issues the next tile's first stage in this tile's last iteration (its head index recomputed
// for the next tile id), and copies the next tile's Q after the barrier that ends this tile's
// loop, under the epilogue. A causal kernel (the key loop's bound depends on the query block)
// a kernel whose key loop's bound an scf.if yields from a block id, and a kernel without
// `tilegpu.grid` are left as they are.

// WRAP-LABEL: func.func @mha(
// WRAP: %[[GX:.*]] = arith.ceildivui %arg5, %c64_i32
// WRAP: %[[GY:.*]] = arith.ceildivui %arg4, %c1_i32
// WRAP: %[[PLANE:.*]] = arith.muli %[[GX]], %[[GY]]
// WRAP: %[[TILES:.*]] = arith.muli %[[PLANE]], %c1_i32
// WRAP: gpu.grid_dim x
// WRAP: %[[BX0:.*]] = arith.index_cast %block_id_x
// WRAP-NEXT: %[[FIRST:.*]] = arith.addi %[[BX0]], %{{.*}} : i32
// WRAP-NEXT: %[[CTAS:.*]] = arith.muli
// WRAP: scf.for %[[T:.*]] = %[[FIRST]] to %[[TILES]] step %[[CTAS]] : i32 {
// WRAP-NEXT: %[[BX:.*]] = arith.remui %[[T]], %[[GX]]
// WRAP-NEXT: %[[Q:.*]] = arith.divui %[[T]], %[[GX]]
// WRAP-NEXT: %[[BY:.*]] = arith.remui %[[Q]], %[[GY]]
// WRAP-NOT: tile.block_id
// WRAP: tile.store
// WRAP: } {tilegpu.tile_loop}
// WRAP-NEXT: return
// WRAP-LABEL: func.func @mha_causal(
// WRAP-NOT: tilegpu.tile_loop
// WRAP: tile.block_id 0
// WRAP-LABEL: func.func @mha_no_grid(
// WRAP-NOT: tilegpu.tile_loop
// WRAP: tile.block_id 0
// A loop bound that an scf.if yields from a block id: the tiles differ.
// WRAP-LABEL: func.func @mha_yielded(
// WRAP-NOT: tilegpu.tile_loop
// WRAP: tile.block_id 0

// CHECK-LABEL: func.func @mha(
// CHECK: tilegpu.mbarrier_init %[[FULL:[0-9]+]] count 2 {tma}
// CHECK-NEXT: tilegpu.mbarrier_init %[[FREE:[0-9]+]] count 128
// CHECK-NEXT: scf.for %[[T:.*]] = %[[FIRST:[0-9]+]] to %[[TILES:[0-9]+]] step %[[CTAS:[0-9]+]] : i32 {
// Q: the barrier that retires the previous tile's reads, this tile's own copy in the first tile only.
// CHECK: tilegpu.barrier
// CHECK-NEXT: %[[ISFIRST:.*]] = arith.cmpi eq, %[[T]], %[[FIRST]]
// CHECK-NEXT: scf.if %[[ISFIRST]] {
// CHECK-NEXT: tilegpu.async_copy %arg0
// CHECK: tilegpu.async_commit_group
// CHECK-NEXT: tilegpu.async_wait {pending = 0 : i32}
// The iterations before this tile's: (t - first) / ctas * trips.
// CHECK: %[[NTH:.*]] = arith.divui
// CHECK: %[[TRIPS:.*]] = arith.ceildivui
// CHECK: %[[BEFORE:.*]] = arith.muli %[[NTH]], %[[TRIPS]]
// CHECK: %[[CROSS:.*]] = arith.cmpi uge, %[[TRIPS]], %c1
// The prologue (first tile, or every tile where the loop is shorter than the copies run ahead):
// the ring's (before + s)-th use, into that use's stage, after its free phase.
// CHECK: scf.if
// CHECK: %[[P0:.*]] = arith.addi %[[BEFORE]], %c0
// CHECK-NEXT: %[[PS0:.*]] = arith.remui %[[P0]], %c3
// CHECK: tilegpu.mbarrier_wait %[[FREE]][%[[PS0]]]
// CHECK: tilegpu.tma_copy %arg7{{.*}} into %{{[0-9]+}}[%[[PS0]]]
// CHECK: scf.for
// CHECK: %[[G:.*]] = arith.addi %[[BEFORE]], %{{.*}} : index
// CHECK: %[[ST:.*]] = arith.remui %[[G]], %c3
// CHECK: tilegpu.mbarrier_wait %[[FULL]][%[[ST]]]
// The next tile's first stage: its head recomputed from t + ctas.
// CHECK: %[[NEXT:.*]] = arith.addi %[[T]], %[[CTAS]] : i32
// CHECK: scf.if
// CHECK: arith.divui %[[NEXT]]
// CHECK: tilegpu.mbarrier_wait %[[FREE]]
// CHECK: tilegpu.tma_copy %arg7
// CHECK: tilegpu.tma_copy %arg8
// CHECK: tilegpu.warpgroup_dot
// CHECK: tilegpu.mbarrier_arrive %[[FREE]]
// CHECK: }
// CHECK-NEXT: tilegpu.barrier
// The next tile's Q, under this tile's epilogue.
// CHECK-NEXT: %[[NQ:.*]] = arith.addi %[[T]], %[[CTAS]] : i32
// CHECK-NEXT: %[[HAS:.*]] = arith.cmpi slt, %[[NQ]], %[[TILES]]
// CHECK-NEXT: scf.if %[[HAS]] {
// CHECK: tilegpu.async_copy %arg0
// CHECK: tilegpu.async_commit_group
// CHECK: tile.store
// CHECK: } {tilegpu.tile_loop}

// Four stages (copies two ahead): the prologue's second copy is the ring's (before + 1)-th use.
// FOUR-LABEL: func.func @mha(
// FOUR: %[[TRIPS:.*]] = arith.ceildivui {{.*}} : index
// FOUR-NEXT: %[[BEFORE:.*]] = arith.muli %{{.*}}, %[[TRIPS]] : index
// FOUR: %[[P1:.*]] = arith.addi %[[BEFORE]], %c1
// FOUR-NEXT: %[[PS1:.*]] = arith.remui %[[P1]], %c4
// FOUR: tilegpu.tma_copy %arg7{{.*}} into %{{[0-9]+}}[%[[PS1]]]
// FOUR: scf.for
// FOUR: arith.cmpi uge, %{{.*}}, %{{.*}} : index

// With once-after-prologue, Q's wait follows the prologue in every tile.
// AFTER-LABEL: func.func @mha(
// AFTER: scf.if
// AFTER-NEXT: tilegpu.async_copy %arg0
// AFTER: tilegpu.async_commit_group
// AFTER-NOT: tilegpu.async_wait
// AFTER: tilegpu.tma_copy %arg7
// AFTER: tilegpu.async_wait {pending = 0 : i32}
// AFTER-NEXT: tilegpu.fence_async_shared
// AFTER-NEXT: tilegpu.barrier
// AFTER-NEXT: scf.for

// NVVM: gpu.func @mha
// NVVM: nvvm.mbarrier.init
// NVVM: scf.for
// NVVM: nvvm.cp.async.bulk.tensor.shared.cluster.global
// NVVM: nvvm.wgmma.mma_async
// NVVM: nvvm.cp.async.shared.global

func.func @mha(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 1, 64, 1>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.grid = array<i64: 1, 1, 64, 1, 1, 0, 1, 1, 0, 0, 1, 1>} {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant -1.000000e+30 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = arith.index_cast %1 : i32 to index
  %h = tile.block_id 1
  %hi = arith.index_cast %h : i32 to index
  %H = arith.index_cast %arg4 : i32 to index
  %3 = arith.index_cast %arg5 : i32 to index
  %4 = tile.load %arg0[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
  %5 = tile.splat %cst_0 : tensor<64x64xf32>
  %6 = tile.splat %cst : tensor<64x1xf32>
  %7 = tile.splat %cst_0 : tensor<64x1xf32>
  %8:3 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %5, %arg9 = %6, %arg10 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>)  : i32 {
    %12 = arith.index_cast %arg7 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = tile.load %arg1[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %15 = tile.load %arg2[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %16 = tile.dot %4, %14 {transB} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %17 = tile.splat %arg6 : tensor<64x64xf32>
    %18 = arith.mulf %16, %17 : tensor<64x64xf32>
    %21 = tile.rowmax %18 : tensor<64x64xf32> -> tensor<64x1xf32>
    %22 = arith.maximumf %arg9, %21 : tensor<64x1xf32>
    %23 = tile.broadcast %22 : tensor<64x1xf32> -> tensor<64x64xf32>
    %24 = arith.subf %18, %23 : tensor<64x64xf32>
    %25 = math.exp %24 : tensor<64x64xf32>
    %26 = arith.subf %arg9, %22 : tensor<64x1xf32>
    %27 = math.exp %26 : tensor<64x1xf32>
    %28 = arith.mulf %arg10, %27 : tensor<64x1xf32>
    %29 = tile.rowsum %25 : tensor<64x64xf32> -> tensor<64x1xf32>
    %30 = arith.addf %28, %29 : tensor<64x1xf32>
    %31 = tile.broadcast %27 : tensor<64x1xf32> -> tensor<64x64xf32>
    %32 = arith.mulf %arg8, %31 : tensor<64x64xf32>
    %33 = tile.convert %25 : tensor<64x64xf32> -> tensor<64x64xf16>
    %34 = tile.dot %33, %15 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %35 = arith.addf %32, %34 : tensor<64x64xf32>
    scf.yield %35, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}

func.func @mha_causal(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 1, 64, 1>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.grid = array<i64: 1, 1, 64, 1, 1, 0, 1, 1, 0, 0, 1, 1>} {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant -1.000000e+30 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = arith.index_cast %1 : i32 to index
  %h = tile.block_id 1
  %hi = arith.index_cast %h : i32 to index
  %H = arith.index_cast %arg4 : i32 to index
  %3 = arith.index_cast %arg5 : i32 to index
  %4 = tile.load %arg0[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
  %5 = tile.splat %cst_0 : tensor<64x64xf32>
  %6 = tile.splat %cst : tensor<64x1xf32>
  %7 = tile.splat %cst_0 : tensor<64x1xf32>
  %8:3 = scf.for %arg7 = %c0_i32 to %1 step %c64_i32 iter_args(%arg8 = %5, %arg9 = %6, %arg10 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>)  : i32 {
    %12 = arith.index_cast %arg7 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = tile.load %arg1[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %15 = tile.load %arg2[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %16 = tile.dot %4, %14 {transB} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %17 = tile.splat %arg6 : tensor<64x64xf32>
    %18 = arith.mulf %16, %17 : tensor<64x64xf32>
    %21 = tile.rowmax %18 : tensor<64x64xf32> -> tensor<64x1xf32>
    %22 = arith.maximumf %arg9, %21 : tensor<64x1xf32>
    %23 = tile.broadcast %22 : tensor<64x1xf32> -> tensor<64x64xf32>
    %24 = arith.subf %18, %23 : tensor<64x64xf32>
    %25 = math.exp %24 : tensor<64x64xf32>
    %26 = arith.subf %arg9, %22 : tensor<64x1xf32>
    %27 = math.exp %26 : tensor<64x1xf32>
    %28 = arith.mulf %arg10, %27 : tensor<64x1xf32>
    %29 = tile.rowsum %25 : tensor<64x64xf32> -> tensor<64x1xf32>
    %30 = arith.addf %28, %29 : tensor<64x1xf32>
    %31 = tile.broadcast %27 : tensor<64x1xf32> -> tensor<64x64xf32>
    %32 = arith.mulf %arg8, %31 : tensor<64x64xf32>
    %33 = tile.convert %25 : tensor<64x64xf32> -> tensor<64x64xf16>
    %34 = tile.dot %33, %15 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %35 = arith.addf %32, %34 : tensor<64x64xf32>
    scf.yield %35, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}

func.func @mha_no_grid(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 1, 64, 1>, tile.tensorcore, tile.threads = 128 : i32} {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant -1.000000e+30 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = arith.index_cast %1 : i32 to index
  %h = tile.block_id 1
  %hi = arith.index_cast %h : i32 to index
  %H = arith.index_cast %arg4 : i32 to index
  %3 = arith.index_cast %arg5 : i32 to index
  %4 = tile.load %arg0[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
  %5 = tile.splat %cst_0 : tensor<64x64xf32>
  %6 = tile.splat %cst : tensor<64x1xf32>
  %7 = tile.splat %cst_0 : tensor<64x1xf32>
  %8:3 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %5, %arg9 = %6, %arg10 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>)  : i32 {
    %12 = arith.index_cast %arg7 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = tile.load %arg1[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %15 = tile.load %arg2[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %16 = tile.dot %4, %14 {transB} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %17 = tile.splat %arg6 : tensor<64x64xf32>
    %18 = arith.mulf %16, %17 : tensor<64x64xf32>
    %21 = tile.rowmax %18 : tensor<64x64xf32> -> tensor<64x1xf32>
    %22 = arith.maximumf %arg9, %21 : tensor<64x1xf32>
    %23 = tile.broadcast %22 : tensor<64x1xf32> -> tensor<64x64xf32>
    %24 = arith.subf %18, %23 : tensor<64x64xf32>
    %25 = math.exp %24 : tensor<64x64xf32>
    %26 = arith.subf %arg9, %22 : tensor<64x1xf32>
    %27 = math.exp %26 : tensor<64x1xf32>
    %28 = arith.mulf %arg10, %27 : tensor<64x1xf32>
    %29 = tile.rowsum %25 : tensor<64x64xf32> -> tensor<64x1xf32>
    %30 = arith.addf %28, %29 : tensor<64x1xf32>
    %31 = tile.broadcast %27 : tensor<64x1xf32> -> tensor<64x64xf32>
    %32 = arith.mulf %arg8, %31 : tensor<64x64xf32>
    %33 = tile.convert %25 : tensor<64x64xf32> -> tensor<64x64xf16>
    %34 = tile.dot %33, %15 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %35 = arith.addf %32, %34 : tensor<64x64xf32>
    scf.yield %35, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}

func.func @mha_yielded(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: f32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 1, 64, 1>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.grid = array<i64: 1, 1, 64, 1, 1, 0, 1, 1, 0, 0, 1, 1>} {
  %c32_i32 = arith.constant 32 : i32
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant -1.000000e+30 : f32
  %cst_0 = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = arith.index_cast %1 : i32 to index
  %h = tile.block_id 1
  %hi = arith.index_cast %h : i32 to index
  %H = arith.index_cast %arg4 : i32 to index
  %3 = arith.index_cast %arg5 : i32 to index
  %4 = tile.load %arg0[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
  %5 = tile.splat %cst_0 : tensor<64x64xf32>
  %6 = tile.splat %cst : tensor<64x1xf32>
  %7 = tile.splat %cst_0 : tensor<64x1xf32>
  %odd = arith.cmpi ugt, %0, %c0_i32 : i32
  %nb = scf.if %odd -> (i32) {
    scf.yield %1 : i32
  } else {
    scf.yield %arg5 : i32
  }
  %8:3 = scf.for %arg7 = %c0_i32 to %nb step %c64_i32 iter_args(%arg8 = %5, %arg9 = %6, %arg10 = %7) -> (tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>)  : i32 {
    %12 = arith.index_cast %arg7 : i32 to index
    %13 = arith.index_cast %arg5 : i32 to index
    %14 = tile.load %arg1[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %15 = tile.load %arg2[%hi, %12, %c0] extents[%H, %13, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %16 = tile.dot %4, %14 {transB} : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %17 = tile.splat %arg6 : tensor<64x64xf32>
    %18 = arith.mulf %16, %17 : tensor<64x64xf32>
    %21 = tile.rowmax %18 : tensor<64x64xf32> -> tensor<64x1xf32>
    %22 = arith.maximumf %arg9, %21 : tensor<64x1xf32>
    %23 = tile.broadcast %22 : tensor<64x1xf32> -> tensor<64x64xf32>
    %24 = arith.subf %18, %23 : tensor<64x64xf32>
    %25 = math.exp %24 : tensor<64x64xf32>
    %26 = arith.subf %arg9, %22 : tensor<64x1xf32>
    %27 = math.exp %26 : tensor<64x1xf32>
    %28 = arith.mulf %arg10, %27 : tensor<64x1xf32>
    %29 = tile.rowsum %25 : tensor<64x64xf32> -> tensor<64x1xf32>
    %30 = arith.addf %28, %29 : tensor<64x1xf32>
    %31 = tile.broadcast %27 : tensor<64x1xf32> -> tensor<64x64xf32>
    %32 = arith.mulf %arg8, %31 : tensor<64x64xf32>
    %33 = tile.convert %25 : tensor<64x64xf32> -> tensor<64x64xf16>
    %34 = tile.dot %33, %15 : tensor<64x64xf16>, tensor<64x64xf16> -> tensor<64x64xf32>
    %35 = arith.addf %32, %34 : tensor<64x64xf32>
    scf.yield %35, %22, %30 : tensor<64x64xf32>, tensor<64x1xf32>, tensor<64x1xf32>
  }
  %9 = tile.broadcast %8#2 : tensor<64x1xf32> -> tensor<64x64xf32>
  %10 = arith.divf %8#0, %9 : tensor<64x64xf32>
  %11 = tile.convert %10 : tensor<64x64xf32> -> tensor<64x64xf16>
  tile.store %11, %arg3[%hi, %2, %c0] extents[%H, %3, %c64] {lens = array<i64: 1, 64, 64>, masked = array<i1: false, false, false>, squeezed = array<i1: true, false, false>} : tensor<64x64xf16>, !tile.ptr<f16>
  return
}

