// RUN: ph-opt %s --tilegpu-allocate-shared --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// tilegpu.tma_copy: thread `issuer` alone announces the stage's bytes on its full
// mbarrier (64 rows x 256 halves = 32768) and issues one cp.async.bulk.tensor per
// 64-column block of the 128-byte-swizzled tile, each block 64 x 128 bytes (8192)
// after the last, the column coordinate 64 further; coordinates innermost first;
// the map (a kernel argument in global memory) by its generic address, the destination
// in shared::cluster (address space 7), as the PTX 8.0 form has it. An init of
// TMA-completed barriers fences itself (fence.mbarrier_init) before the bar.sync.

#sw = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
#bar = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [0]}>

// CHECK-LABEL: gpu.func @copy(
// CHECK: nvvm.mbarrier.init
// CHECK-COUNT-3: nvvm.mbarrier.init
// CHECK-NEXT: nvvm.fence.mbarrier.init
// CHECK: gpu.barrier
// CHECK: %[[TID:.*]] = {{.*}}thread_id
// CHECK: %[[MINE:.*]] = arith.cmpi eq, %{{.*}}, %c128
// CHECK: scf.if %[[MINE]] {
// CHECK: nvvm.mbarrier.arrive.expect_tx %{{.*}}, %c32768_i32
// CHECK: %[[MAP:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<1> to !llvm.ptr
// CHECK: %[[D0:.*]] = llvm.addrspacecast %{{.*}} : !llvm.ptr<3> to !llvm.ptr<7>
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %[[D0]], %[[MAP]], %[[BAR:.*]], box[%[[COL:[^,]*]], %[[ROW:[a-z0-9_]*]]]
// CHECK: %[[C1:.*]] = arith.addi %[[COL]], %c64_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %[[MAP]], %[[BAR]], box[%[[C1]], %[[ROW]]]
// CHECK: arith.addi %[[COL]], %c128_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: arith.addi %[[COL]], %c192_i32
// CHECK: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK-NOT: nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK: }
func.func @copy(%B: !tile.ptr<f16>, %map: !tile.ptr<i8>, %k: index, %n: index, %s: index) attributes {tile.threads = 256 : i32} {
  %ring = tilegpu.local_alloc : !tilegpu.memdesc<4x64x256xf16, #sw>
  %full = tilegpu.local_alloc : !tilegpu.memdesc<4xi64, #bar>
  tilegpu.mbarrier_init %full count 1 {tma} : !tilegpu.memdesc<4xi64, #bar>
  tilegpu.tma_copy %map[%k, %n] into %ring[%s] on %full[%s] {squeezed = array<i1: false, false>, issuer = 128 : i64} : !tile.ptr<i8>, !tilegpu.memdesc<4x64x256xf16, #sw>, !tilegpu.memdesc<4xi64, #bar>
  return
}
