// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90 policy=simt" | %FileCheck %s --check-prefix=LAYOUT
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90 policy=simt" --tilegpu-pipeline="stages=3" --tilegpu-through-shared | %FileCheck %s --check-prefix=RING
// RUN: ph-opt %s --tilegpu-assign-layouts="arch=sm_90 policy=simt" --tilegpu-pipeline="stages=3" --tilegpu-through-shared --tilegpu-allocate-shared --tilegpu-insert-barriers --convert-tilegpu-to-nvvm | %FileCheck %s --check-prefix=NVVM
// REQUIRES: mlir
// Decode attention (one query row group of G = 4 against 64 keys a block) under the SIMT
// policy, as flash-decoding's split kernel has it (issue 14: the SIMT policy at the legacy
// emitter's speed).
// Layouts: both dots take fmaBlocked: one element per thread per pass, all 32 lanes along
// the keys (or D) and the 4 warps along the rows, so the scores' rowmax/rowsum stay in a
// warp, the [4, 1] statistics share the layout and P.V needs no conversion of its result.
// Rings: K and V go by cp.async into 3-stage rings two blocks ahead; the FMA dots read the
// rings' stages in place (f16, widened as they are read); only P goes through a buffer, and
// P.V accumulates into acc * corr.
// Lowered: rows read along K move as 16-byte vectors (K^T's f16 rows, q's and P's f32 rows).

// LAYOUT-DAG: #[[FMA:blocked[0-9]*]] = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
// LAYOUT: tilegpu.dot %{{.*}}, %{{.*}}, %{{.*}} {transB} : tensor<4x128xf32, #[[FMA]]>, tensor<64x128xf32, #[[FMA]]> -> tensor<4x64xf32, #[[FMA]]>
// LAYOUT-NEXT: arith.subi
// LAYOUT-NEXT: tile.mask_cols %{{.*}} : tensor<4x64xf32, #[[FMA]]>
// LAYOUT-NEXT: tile.rowmax %{{.*}} : tensor<4x64xf32, #[[FMA]]> -> tensor<4x1xf32, #[[FMA]]>
// LAYOUT: tilegpu.dot %{{.*}}, %{{.*}}, %{{.*}} : tensor<4x64xf32, #[[FMA]]>, tensor<64x128xf32, #[[FMA]]> -> tensor<4x128xf32, #[[FMA]]>
// LAYOUT-NEXT: scf.yield

// RING-DAG: %[[P:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x64xf32
// RING-DAG: %[[Q:.*]] = tilegpu.local_alloc : !tilegpu.memdesc<4x128xf32
// RING-DAG: %[[VR:[0-9]+]] = tilegpu.local_alloc : !tilegpu.memdesc<3x64x128xf16
// RING-DAG: %[[KR:[0-9]+]] = tilegpu.local_alloc : !tilegpu.memdesc<3x64x128xf16
// RING: scf.for
// RING: %[[ST:.*]] = arith.remui %{{.*}}, %c3 : index
// RING-NEXT: tilegpu.async_wait {pending = 1 : i32}
// RING-NEXT: tilegpu.barrier
// RING: tilegpu.async_copy {{.*}} into %[[KR]]
// RING: tilegpu.async_copy {{.*}} into %[[VR]]
// RING: tilegpu.fma_dot %[[Q]], %[[KR]][%[[ST]]], %{{.*}} {transB}
// RING: tilegpu.barrier
// RING-NEXT: tilegpu.local_store %{{.*}}, %[[P]]
// RING-NEXT: tilegpu.barrier
// RING: tile.broadcast
// RING-NEXT: %[[AC:.*]] = arith.mulf
// RING-NEXT: tilegpu.fma_dot %[[P]], %[[VR]][%[[ST]]], %[[AC]] :
// RING-NEXT: scf.yield
// RING-NOT: tilegpu.convert_layout
// RING-NOT: tile.convert

// NVVM-COUNT-32: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<{{[48]}}xf{{16|32}}>
// NVVM: llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// NVVM: llvm.load %{{.*}} {alignment = 2 : i64} : !llvm.ptr<3> -> f16
// NVVM-NOT: tilegpu.
func.func @decode(%Q: !tile.ptr<f32>, %K: !tile.ptr<f16>, %V: !tile.ptr<f16>, %O: !tile.ptr<f32>, %n: i32, %lo: i32, %hi: i32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %N = arith.index_cast %n : i32 to index
  %ninf = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %q = tile.load %Q[%c0, %c0] extents[%c4, %c128] {lens = array<i64: 4, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<4x128xf32>
  %acc0 = tile.splat %zero : tensor<4x128xf32>
  %m0 = tile.splat %ninf : tensor<4x1xf32>
  %l0 = tile.splat %zero : tensor<4x1xf32>
  %c64i = arith.constant 64 : i32
  %r:3 = scf.for %kt = %lo to %hi step %c64i iter_args(%acc = %acc0, %m = %m0, %l = %l0) -> (tensor<4x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>) : i32 {
    %ki = arith.index_cast %kt : i32 to index
    %k = tile.load %K[%ki, %c0] extents[%N, %c128] {lens = array<i64: 64, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %v = tile.load %V[%ki, %c0] extents[%N, %c128] {lens = array<i64: 64, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<64x128xf16>
    %kf = tile.convert %k : tensor<64x128xf16> -> tensor<64x128xf32>
    %s = tile.dot %q, %kf {transB} : tensor<4x128xf32>, tensor<64x128xf32> -> tensor<4x64xf32>
    %left = arith.subi %n, %kt : i32
    %sm = tile.mask_cols %s, %left, %ninf : tensor<4x64xf32>
    %mx = tile.rowmax %sm : tensor<4x64xf32> -> tensor<4x1xf32>
    %mn = arith.maximumf %m, %mx : tensor<4x1xf32>
    %mb = tile.broadcast %mn : tensor<4x1xf32> -> tensor<4x64xf32>
    %d = arith.subf %sm, %mb : tensor<4x64xf32>
    %p = math.exp %d : tensor<4x64xf32>
    %dm = arith.subf %m, %mn : tensor<4x1xf32>
    %corr = math.exp %dm : tensor<4x1xf32>
    %lc = arith.mulf %l, %corr : tensor<4x1xf32>
    %ps = tile.rowsum %p : tensor<4x64xf32> -> tensor<4x1xf32>
    %ln = arith.addf %lc, %ps : tensor<4x1xf32>
    %cb = tile.broadcast %corr : tensor<4x1xf32> -> tensor<4x128xf32>
    %ac = arith.mulf %acc, %cb : tensor<4x128xf32>
    %vf = tile.convert %v : tensor<64x128xf16> -> tensor<64x128xf32>
    %pv = tile.dot %p, %vf : tensor<4x64xf32>, tensor<64x128xf32> -> tensor<4x128xf32>
    %an = arith.addf %ac, %pv : tensor<4x128xf32>
    scf.yield %an, %mn, %ln : tensor<4x128xf32>, tensor<4x1xf32>, tensor<4x1xf32>
  }
  tile.store %r#0, %O[%c0, %c0] extents[%c4, %c128] {lens = array<i64: 4, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<4x128xf32>, !tile.ptr<f32>
  return
}
