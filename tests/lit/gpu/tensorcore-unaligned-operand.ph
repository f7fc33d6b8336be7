// A @tensorcore dot operand whose rows are not known to be 16-byte aligned (A is a bf16
// [M, K] tensor, K a size without @aligned) stays a register load: tilegpu-through-shared
// stores it for ldmatrix. tilegpu-pipeline made it a cp.async, which has no lowering for
// rows that are not whole aligned 16-byte chunks: `failed to legalize operation
// 'tilegpu.async_copy'` on a check-clean program (difftest seeds 200634, 201575;
// docs/reliability.md, differential bug 8). B ([K, 64], rows of 128 bytes) keeps its cp.async.
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD: b8 [BR=64,BC=16]: sm_80
// RUN: ph emit %s --stage tilegpu --target sm_80 | %FileCheck %s
// CHECK-NOT: tilegpu.async_copy %arg0
// CHECK: tilegpu.async_copy %arg1
// CHECK-NOT: tilegpu.async_copy %arg0
@tensorcore
@autotune(BR in [64], BC in [16])
kernel b8(A: tensor<bf16>[M, K], B: tensor<bf16>[K, 64], O: tensor<f32>[M, 64]) {
  let row = ctx.block.x * BR
  var acc: tile<f32>[BR, 64] = 0.0
  for k in range(0, K, BC) {
    acc += dot(A[row :+ BR, k :+ BC], B[k :+ BC, :])
  }
  O[row :+ BR, :] = where(col_ids(acc) < 3, acc, acc - rowmax(acc))
}
