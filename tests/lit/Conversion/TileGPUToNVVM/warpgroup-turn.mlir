// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// REQUIRES: mlir
// tilegpu.warpgroup_turn on named barriers 2 and 3, 256 threads each: warpgroup w = tid / 128
// waits on 2 + w (bar.sync) and passes to 3 - w (bar.arrive); `init` is warpgroup 1's arrival
// on barrier 2, `fini` warpgroup 0's bar.sync on it, each under a branch on w.

// CHECK-LABEL: gpu.func @turns
// CHECK: %[[T0:.*]] = gpu.thread_id  x
// CHECK: %[[W0:.*]] = arith.divui %[[T0]], %c128
// CHECK: %[[WG0:.*]] = arith.index_cast %[[W0]] : index to i32
// CHECK: %[[IS1:.*]] = arith.cmpi eq, %[[WG0]], %c1_i32
// CHECK-NEXT: scf.if %[[IS1]] {
// CHECK-NEXT: nvvm.barrier.arrive id = %c2_i32 number_of_threads = %c256_i32
// CHECK-NEXT: }
// CHECK: %[[WG1:.*]] = arith.index_cast
// CHECK: %[[OWN:.*]] = arith.addi %{{.*}}, %[[WG1]] : i32
// CHECK-NEXT: nvvm.barrier id = %[[OWN]] number_of_threads = %{{.*}}
// CHECK: %[[WG2:.*]] = arith.index_cast
// CHECK: %[[C3:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[OTHER:.*]] = arith.subi %[[C3]], %[[WG2]] : i32
// CHECK-NEXT: nvvm.barrier.arrive id = %[[OTHER]] number_of_threads = %{{.*}}
// CHECK: %[[WG3:.*]] = arith.index_cast
// CHECK: %[[C2:.*]] = arith.constant 2 : i32
// CHECK: %[[IS0:.*]] = arith.cmpi eq, %[[WG3]], %c0_i32
// CHECK-NEXT: scf.if %[[IS0]] {
// CHECK-NEXT: nvvm.barrier id = %[[C2]] number_of_threads = %{{.*}}
// CHECK-NEXT: }
// CHECK-NEXT: gpu.return
func.func @turns() attributes {tile.threads = 256 : i32} {
  tilegpu.warpgroup_turn "init" {barrier = 2 : i32}
  tilegpu.warpgroup_turn "wait" {barrier = 2 : i32}
  tilegpu.warpgroup_turn "pass" {barrier = 2 : i32}
  tilegpu.warpgroup_turn "fini" {barrier = 2 : i32}
  return
}
