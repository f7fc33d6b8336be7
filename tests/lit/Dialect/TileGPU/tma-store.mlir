// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store="shared-per-block=232448" | %FileCheck %s
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store="shared-per-block=232448" --tilegpu-allocate-shared | %FileCheck %s --check-prefix=ALLOC
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store="shared-per-block=65536" | %FileCheck %s --check-prefix=LIMIT
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store="shared-per-block=232448" --tilegpu-allocate-shared | %FileCheck %s --check-prefix=PERSIST
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store --tilegpu-through-shared --tilegpu-allocate-shared --tilegpu-insert-barriers --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90a policy=wgmma" --tilegpu-persistent --tilegpu-pipeline="mbarriers=1 tma=1" --tilegpu-tma-store --canonicalize | %FileCheck %s --check-prefix=CANON
// REQUIRES: mlir
// tilegpu-tma-store (docs/tilegpu.md, "The epilogue by TMA"): a GEMM's output tile goes from the
// accumulator's registers into a swizzled shared buffer (a barrier first: the other warpgroups may
// still read the rings whose bytes it takes), is fenced for the async proxy, and after a second
// barrier thread 0 stores it with one TMA box per 64-column block of the 128-byte swizzle, through
// a third tensor map appended after the rings' two. The kernel waits for the store's reads of
// shared memory before it returns. The buffer takes the bytes of the K loop's rings (offset 0,
// `tilegpu.after_dead`), so the CTA's shared memory does not grow. In a persistent kernel the
// rings live across the tile loop: the buffer gets bytes of its own, and each tile waits for the
// last tile's store before it writes the buffer again. Where the buffer would pass
// `shared-per-block`, where the output's rows are no whole 16-byte chunks, and where the kernel
// also reads the output tensor, the store stays as it is.

// CHECK-LABEL: func.func @gemm(
// CHECK-SAME: %arg9: !tile.ptr<i8>
// CHECK-SAME: tilegpu.tma = [{box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 0 : i64}, {box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 1 : i64}, {box = array<i64: 64, 64>, swizzle = 128 : i64, tensor = 3 : i64}]
// CHECK: %[[OUT:.*]] = tilegpu.local_alloc {tilegpu.after_dead} : !tilegpu.memdesc<64x128xf16, #shared>
// CHECK: scf.for
// CHECK: tilegpu.warpgroup_wait 0
// CHECK-NOT: tile.store
// CHECK: %[[V:.*]] = tile.convert {{.*}} -> tensor<64x128xf16, #mma>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %[[V]], %[[OUT]] : tensor<64x128xf16, #mma>, !tilegpu.memdesc<64x128xf16, #shared>
// CHECK-NEXT: tilegpu.fence_async_shared
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.tma_store %[[OUT]] into %arg9[{{.*}}, {{.*}}] {squeezed = array<i1: false, false>}
// CHECK-NEXT: tilegpu.tma_store_wait
// CHECK-NEXT: return

// CHECK-LABEL: func.func @gemm_unaligned(
// CHECK-NOT: tilegpu.tma_store
// CHECK: tile.store
// CHECK-LABEL: func.func @gemm_reads_out(
// CHECK-NOT: tilegpu.tma_store
// CHECK: tile.store

// ALLOC-LABEL: func.func @gemm(
// ALLOC-SAME: tilegpu.shared_bytes = 98336
// ALLOC-DAG: tilegpu.local_alloc {offset = 0 : i64, tilegpu.after_dead} : !tilegpu.memdesc<64x128xf16, #shared>
// ALLOC-DAG: tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<4x64x128xf16, #shared>

// LIMIT-LABEL: func.func @gemm(
// LIMIT-NOT: tilegpu.tma_store
// LIMIT: tile.store

// PERSIST-LABEL: func.func @gemm(
// PERSIST-SAME: tilegpu.shared_bytes = 114720
// PERSIST: tilegpu.local_alloc {offset = 98304 : i64, tilegpu.after_dead} : !tilegpu.memdesc<64x128xf16, #shared>
// PERSIST: scf.for {{.*}} : i32 {
// PERSIST: tilegpu.tma_store_wait
// PERSIST-NEXT: tilegpu.barrier
// PERSIST-NEXT: tilegpu.local_store
// PERSIST-NEXT: tilegpu.fence_async_shared
// PERSIST-NEXT: tilegpu.barrier
// PERSIST-NEXT: tilegpu.tma_store
// PERSIST-NEXT: } {tilegpu.tile_loop}
// PERSIST-NEXT: tilegpu.tma_store_wait
// PERSIST-NEXT: return

// The waits have no result and name no buffer; the canonicalizer keeps them (they write shared
// memory as far as MLIR knows).
// CANON-LABEL: func.func @gemm(
// CANON: tilegpu.tma_store_wait
// CANON-NEXT: tilegpu.barrier
// CANON: tilegpu.tma_store
// CANON: } {tilegpu.tile_loop}
// CANON-NEXT: tilegpu.tma_store_wait
// CANON-NEXT: return

// NVVM-LABEL: gpu.func @gemm(
// NVVM: nvvm.wgmma.wait.group.sync.aligned 0
// NVVM: llvm.store {{.*}} {alignment = 4 : i64} : vector<2xf16>, !llvm.ptr<3>
// NVVM: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// NVVM-NEXT: gpu.barrier
// NVVM: scf.if
// NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}]
// NVVM: nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}]
// NVVM-NEXT: nvvm.cp.async.bulk.commit.group
// NVVM: nvvm.cp.async.bulk.wait_group 0 {read}
// NVVM: gpu.return
func.func @gemm(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 64, 128>, tile.tensorcore, tile.threads = 128 : i32, tilegpu.grid = array<i64: 1, 0, 64, 1, 1, 2, 128, 1, 0, 0, 1, 1>} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c128_i32 : i32
  %4 = tile.splat %cst : tensor<64x128xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %4) -> (tensor<64x128xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%17, %21] extents[%19, %22] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %24 = tile.dot %20, %23 : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x128xf32>
    scf.yield %25 : tensor<64x128xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %8 = tile.load %arg2[%c0, %6] extents[%c1, %7] {lens = array<i64: 1, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<1x128xf16>
  %9 = tile.convert %8 : tensor<1x128xf16> -> tensor<1x128xf32>
  %10 = tile.broadcast %9 : tensor<1x128xf32> -> tensor<64x128xf32>
  %11 = arith.addf %5, %10 : tensor<64x128xf32>
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %14 = arith.maximumf %11, %4 : tensor<64x128xf32>
  %15 = tile.convert %14 : tensor<64x128xf32> -> tensor<64x128xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x128xf16>, !tile.ptr<f16>
  return
}

// N of no known divisibility: the output's rows may end inside a 16-byte chunk.
func.func @gemm_unaligned(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 64, 1>, tile.tensorcore, tile.threads = 128 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c128_i32 : i32
  %4 = tile.splat %cst : tensor<64x128xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %4) -> (tensor<64x128xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%17, %21] extents[%19, %22] {lens = array<i64: 64, 128>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %24 = tile.dot %20, %23 : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x128xf32>
    scf.yield %25 : tensor<64x128xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %15 = tile.convert %5 : tensor<64x128xf32> -> tensor<64x128xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 128>, masked = array<i1: false, true>, squeezed = array<i1: false, false>} : tensor<64x128xf16>, !tile.ptr<f16>
  return
}

// The output is read too (a residual): TMA's write would be invisible to the barriers' analysis.
func.func @gemm_reads_out(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %arg2: !tile.ptr<f16>, %arg3: !tile.ptr<f16>, %arg4: i32, %arg5: i32, %arg6: i32) attributes {tile.divisibility = array<i64: 1, 1, 1, 1, 64, 64, 128>, tile.tensorcore, tile.threads = 128 : i32} {
  %c0_i32 = arith.constant 0 : i32
  %cst = arith.constant 0.000000e+00 : f32
  %c128_i32 = arith.constant 128 : i32
  %c64_i32 = arith.constant 64 : i32
  %0 = tile.block_id 0
  %1 = arith.muli %0, %c64_i32 : i32
  %2 = tile.block_id 1
  %3 = arith.muli %2, %c128_i32 : i32
  %4 = tile.splat %cst : tensor<64x128xf32>
  %5 = scf.for %arg7 = %c0_i32 to %arg5 step %c64_i32 iter_args(%arg8 = %4) -> (tensor<64x128xf32>)  : i32 {
    %16 = arith.index_cast %1 : i32 to index
    %17 = arith.index_cast %arg7 : i32 to index
    %18 = arith.index_cast %arg4 : i32 to index
    %19 = arith.index_cast %arg5 : i32 to index
    %20 = tile.load %arg0[%16, %17] extents[%18, %19] {lens = array<i64: 64, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x64xf16>
    %21 = arith.index_cast %3 : i32 to index
    %22 = arith.index_cast %arg6 : i32 to index
    %23 = tile.load %arg1[%17, %21] extents[%19, %22] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %24 = tile.dot %20, %23 : tensor<64x64xf16>, tensor<64x128xf16> -> tensor<64x128xf32>
    %25 = arith.addf %arg8, %24 : tensor<64x128xf32>
    scf.yield %25 : tensor<64x128xf32>
  }
  %6 = arith.index_cast %3 : i32 to index
  %7 = arith.index_cast %arg6 : i32 to index
  %12 = arith.index_cast %1 : i32 to index
  %13 = arith.index_cast %arg4 : i32 to index
  %r = tile.load %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
  %rf = tile.convert %r : tensor<64x128xf16> -> tensor<64x128xf32>
  %s = arith.addf %5, %rf : tensor<64x128xf32>
  %15 = tile.convert %s : tensor<64x128xf32> -> tensor<64x128xf16>
  tile.store %15, %arg3[%12, %6] extents[%13, %7] {lens = array<i64: 64, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x128xf16>, !tile.ptr<f16>
  return
}
