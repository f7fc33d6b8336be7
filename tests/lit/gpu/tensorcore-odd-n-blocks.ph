// A @tensorcore dot whose N gives each warp an odd number of 8-column blocks (N = 24) runs
// on the SIMT policy, with a warning saying why: mma.sync's B operand is read by ldmatrix.x4
// two 8-column blocks at a time, and the mma policy's build failed (`a B operand with an odd
// number of 8-column blocks per warp`, then `failed to legalize operation
// 'tilegpu.local_load'`; difftest seed 200634, docs/reliability.md differential bug 9).
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD: n24 [BR=64,BC=16]: sm_80
// RUN: ph emit %s --stage tilegpu --target sm_80 | %FileCheck %s
// CHECK: policy simt
// CHECK: odd-n-blocks.ph:[[@LINE+8]]:12: a dot with N = 24 over 1 warp column(s) cannot run on mma.sync: each warp's columns must be an even number of 8-column blocks
@tensorcore
@autotune(BR in [64], BC in [16])
@aligned(K = BC)
kernel n24(A: tensor<f16>[M, K], B: tensor<f16>[K, 24], O: tensor<f32>[M, 24]) {
  let row = ctx.block.x * BR
  var acc: tile<f32>[BR, 24] = 0.0
  for k in range(0, K, BC) {
    acc += dot(A[row :+ BR, k :+ BC], B[k :+ BC, :])
  }
  O[row :+ BR, :] = where(col_ids(acc) < 3, acc, acc - rowmax(acc))
}
