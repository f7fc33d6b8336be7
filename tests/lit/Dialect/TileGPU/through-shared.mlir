// RUN: ph-opt %s --split-input-file --tilegpu-through-shared --tilegpu-allocate-shared | %FileCheck %s
// REQUIRES: mlir
// The SIMT policy's dot reads its operands from shared memory: each is stored where
// it is made (q once, before the loop; k in each iteration), between two barriers,
// and the dot becomes tilegpu.fma_dot over the two buffers (issue 16). Rows of 256
// bytes get a 16-byte pad (4 f32): fma_dot reads them along K in 16-byte vectors.

#bl = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#bq = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>

// CHECK-LABEL: func.func @fma
// CHECK-SAME: tilegpu.shared_bytes = 17408 : i64
// CHECK-DAG: %[[K:.*]] = tilegpu.local_alloc {offset = {{[0-9]+}} : i64} : !tilegpu.memdesc<32x64xf32, #[[PAD16:shared[0-9]*]]>
// CHECK-DAG: %[[Q:.*]] = tilegpu.local_alloc {offset = {{[0-9]+}} : i64} : !tilegpu.memdesc<32x64xf32, #[[PAD16]]>
// CHECK: %[[QV:.*]] = tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %[[QV]], %[[Q]]
// CHECK-NEXT: tilegpu.barrier
// CHECK: scf.for
// CHECK: %[[KV:.*]] = tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %[[KV]], %[[K]]
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.fma_dot %[[Q]], %[[K]], %{{.*}} {transB}
// CHECK-NOT: tilegpu.convert_layout
// CHECK-NOT: tilegpu.dot %
func.func @fma(%Q: !tile.ptr<f32>, %n: i32) -> tensor<32x32xf32, #bl> {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %N = arith.index_cast %n : i32 to index
  %zero = arith.constant dense<0.0> : tensor<32x32xf32, #bl>
  %q = tile.load %Q[%c0, %c0] extents[%N, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #bq>
  %qa = tilegpu.convert_layout %q : tensor<32x64xf32, #bq> -> tensor<32x64xf32, #bl>
  %r = scf.for %i = %c0 to %c128 step %c32 iter_args(%acc = %zero) -> (tensor<32x32xf32, #bl>) {
    %k = tile.load %Q[%i, %c0] extents[%N, %c64] {lens = array<i64: 32, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<32x64xf32, #bq>
    %kb = tilegpu.convert_layout %k : tensor<32x64xf32, #bq> -> tensor<32x64xf32, #bl>
    %s = tilegpu.dot %qa, %kb, %acc {transB} : tensor<32x64xf32, #bl>, tensor<32x64xf32, #bl> -> tensor<32x32xf32, #bl>
    scf.yield %s : tensor<32x32xf32, #bl>
  }
  return %r : tensor<32x32xf32, #bl>
}

// -----

// A row statistic of one blocked layout meeting a tile of another: barrier, store in
// the source layout, barrier, load in the destination layout. The conversion that
// renames registers (an mma accumulator into the next dot's A operand) stays.

#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#opA = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

// CHECK-LABEL: func.func @rows
// CHECK-SAME: tilegpu.shared_bytes = 128 : i64
// CHECK: %[[BUF:.*]] = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<32x1xf32, #{{.*}}>
// CHECK: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %{{.*}}, %[[BUF]] : tensor<32x1xf32, #{{.*}}>
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: %{{.*}} = tilegpu.local_load %[[BUF]] : {{.*}} -> tensor<32x1xf32, #{{.*}}>
// CHECK: tilegpu.convert_layout %{{.*}} : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #{{.*}}>
func.func @rows(%m: tensor<32x1xf32, #a>, %p: tensor<64x32xf16, #mma>) -> (tensor<32x1xf32, #b>, tensor<64x32xf16, #opA>) {
  %x = tilegpu.convert_layout %m : tensor<32x1xf32, #a> -> tensor<32x1xf32, #b>
  %y = tilegpu.convert_layout %p : tensor<64x32xf16, #mma> -> tensor<64x32xf16, #opA>
  return %x, %y : tensor<32x1xf32, #b>, tensor<64x32xf16, #opA>
}

// -----

// An operand widened on its way to the dot (a cache's f16 keys) is stored narrow: the
// FMA dot widens as it reads. One that tilegpu-pipeline copied into a ring is read from
// its stage in place: no store, and the ring read, the widening and the conversion go.

#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#bk = #tilegpu.blocked<{sizePerThread = [1, 8], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#ring = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// CHECK-LABEL: func.func @narrow
// CHECK: %[[Q:.*]] = tilegpu.local_alloc {{.*}} : !tilegpu.memdesc<4x128xf16, #{{.*}}>
// CHECK: %[[QV:.*]] = tile.load
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_store %[[QV]], %[[Q]] : tensor<4x128xf16, #{{.*}}>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ACC:.*]] = %{{.*}})
// CHECK-NEXT: %[[ST:.*]] = arith.remsi
// CHECK-NEXT: tilegpu.fma_dot %[[Q]], %[[RING:.*]][%[[ST]]], %[[ACC]] {transB} : !tilegpu.memdesc<4x128xf16, #{{.*}}>, !tilegpu.memdesc<3x64x128xf16, #{{.*}}> -> tensor<4x64xf32, #{{.*}}>
// CHECK-NEXT: scf.yield
// CHECK-NOT: tile.convert
// CHECK-NOT: tilegpu.local_load
func.func @narrow(%Q: !tile.ptr<f16>, %n: index) -> tensor<4x64xf32, #bl> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c128 = arith.constant 128 : index
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<3x64x128xf16, #ring>
  %zero = arith.constant dense<0.0> : tensor<4x64xf32, #bl>
  %q = tile.load %Q[%c0, %c0] extents[%c4, %c128] {lens = array<i64: 4, 128>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : !tile.ptr<f16> -> tensor<4x128xf16, #bk>
  %qf = tile.convert %q : tensor<4x128xf16, #bk> -> tensor<4x128xf32, #bk>
  %qa = tilegpu.convert_layout %qf : tensor<4x128xf32, #bk> -> tensor<4x128xf32, #bl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<4x64xf32, #bl>) {
    %st = arith.remsi %i, %c3 : index
    %k = tilegpu.local_load %ring[%st] : !tilegpu.memdesc<3x64x128xf16, #ring> -> tensor<64x128xf16, #bk>
    %kf = tile.convert %k : tensor<64x128xf16, #bk> -> tensor<64x128xf32, #bk>
    %kb = tilegpu.convert_layout %kf : tensor<64x128xf32, #bk> -> tensor<64x128xf32, #bl>
    %s = tilegpu.dot %qa, %kb, %acc {transB} : tensor<4x128xf32, #bl>, tensor<64x128xf32, #bl> -> tensor<4x64xf32, #bl>
    scf.yield %s : tensor<4x64xf32, #bl>
  }
  return %r : tensor<4x64xf32, #bl>
}

// -----

// One query row over 4 warps (decode with one query head per key-value head): the 4 warps
// hold the same scores, so the dot gets a buffer of partial sums, [4, 1, 64], and splits K
// between them (FMA.cpp).

#bl = #tilegpu.blocked<{sizePerThread = [1, 1], threadsPerWarp = [1, 32], warpsPerCTA = [4, 1], order = [1, 0]}>
#ring = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 1, pad = 8, order = [1, 0]}>

// CHECK-LABEL: func.func @one_row
// CHECK: %[[PART:.*]] = tilegpu.local_alloc {{.*}} : !tilegpu.memdesc<4x1x64xf32
// CHECK: tilegpu.fma_dot %{{.*}}, %{{.*}}[%{{.*}}], %{{.*}} partials %[[PART]] : !tilegpu.memdesc<4x1x64xf32, #{{.*}}> {transB}
func.func @one_row(%q: tensor<1x128xf32, #bl>, %n: index) -> tensor<1x64xf32, #bl> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<3x64x128xf16, #ring>
  %zero = arith.constant dense<0.0> : tensor<1x64xf32, #bl>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %zero) -> (tensor<1x64xf32, #bl>) {
    %st = arith.remsi %i, %c3 : index
    %k = tilegpu.local_load %ring[%st] : !tilegpu.memdesc<3x64x128xf16, #ring> -> tensor<64x128xf16, #bl>
    %kf = tile.convert %k : tensor<64x128xf16, #bl> -> tensor<64x128xf32, #bl>
    %s = tilegpu.dot %q, %kf, %acc {transB} : tensor<1x128xf32, #bl>, tensor<64x128xf32, #bl> -> tensor<1x64xf32, #bl>
    scf.yield %s : tensor<1x64xf32, #bl>
  }
  return %r : tensor<1x64xf32, #bl>
}
