// Two stores of one slice in two layouts (the dot's accumulator in the mma layout, then a
// load's blocked tile) are different threads' writes of each address: without a barrier
// between them the first may land last (difftest seed 202261 on sm_90a: its output was off by
// 665; tests/differential/cases/seed202261-gpu-store-race). tilegpu-insert-barriers puts
// one there, and none between the stores of the other output, which keep one layout.
// REQUIRES: mlir
// RUN: ph emit %s --stage tilegpu --target sm_80 | %FileCheck %s
// CHECK: policy mma
// CHECK: tile.store %{{[a-z0-9]+}}, %[[O:arg[0-9]+]]
// CHECK-NOT: tile.store
// CHECK: tilegpu.barrier
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[O]]
// CHECK-NEXT: tile.store %{{[a-z0-9]+}}, %[[P:arg[0-9]+]]
// CHECK-NOT: tilegpu.barrier
// CHECK: tile.store %{{[a-z0-9]+}}, %[[P]]
// CHECK-NOT: tilegpu.barrier
// CHECK: return
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD: twice []: sm_80
@tensorcore
kernel twice(A: tensor<f16>[M, 32], B: tensor<f16>[32, 64], X: tensor<f32>[M, 64], O: tensor<f32>[M, 64],
             P: tensor<f32>[M, 64]) {
  let row = ctx.block.x * 64
  let c: tile<f32>[64, 64] = dot(A[row :+ 64, :], B[:, :])
  let x = X[row :+ 64, :]
  O[row :+ 64, :] = c
  O[row :+ 64, :] = x
  P[row :+ 64, :] = x
  P[row :+ 64, :] = x * 2.0
}
