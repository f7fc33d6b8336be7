// The SIMT lowering of a loop that streams row blocks whose rows are proven in range
// (`@aligned(M = BR)`, or one row): the body's load is issued an iteration ahead, and its
// row offset (unmasked) used to be cloned first inside the fast path's scf.if and then
// reused by the slow path: `operand #0 does not dominate this use`, a check-clean program
// refused by `ph build` (difftest bug 2, 95 of 2,000 programs). Every operand of a
// prefetched load is now computed before the branch.
// That was the legacy SIMT emitter (deleted on 2026-12-06); the kernels stay, on the TileGPU SIMT policy.
// REQUIRES: mlir
// RUN: ph emit %s --kernel rows --stage gpu --target sm_80 | %FileCheck %s
// RUN: ph emit %s --kernel sums --stage gpu --target sm_80 | %FileCheck %s --check-prefix=SUMS
// RUN: ph emit %s --kernel one --stage gpu --target sm_80 | %FileCheck %s --check-prefix=ONE
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD-DAG: rows [BR=8,BC=8]: sm_80
// BUILD-DAG: sums [BR=8,BC=8]: sm_80
// BUILD-DAG: one [BC=16]: sm_80

// The first iteration's loads before the loop, then the loop carrying them.
// CHECK-LABEL: gpu.func @rows
// CHECK: scf.if
// CHECK: scf.for {{.*}} iter_args(
// CHECK: gpu.return
@autotune(BR in [8], BC in [8])
@aligned(M = BR)
kernel rows(X2: tensor<f32>[K, 4], X4: tensor<i32>[M, K], O5: tensor<f32>[H, M, 1]) {
  let row = ctx.block.x * BR
  var acc3: tile<f32>[BR, 1] = -1.0
  for k1 in range(0, extent(X2, 0), BC) {
    acc3 = tmax(acc3, rowmax(abs(X4[row :+ BR, k1 :+ BC])))
  }
  O5[ctx.block.y, row :+ BR, :] = acc3
}

// SUMS-LABEL: gpu.func @sums
// SUMS: scf.for
@autotune(BR in [8], BC in [8])
@aligned(M = BR)
kernel sums(X: tensor<f16>[M, K], O: tensor<f32>[M, 1]) {
  let row = ctx.block.x * BR
  var acc: tile<f32>[BR, 1] = 0.0
  for k in range(0, K, BC) {
    acc += rowsum(X[row :+ BR, k :+ BC])
  }
  O[row :+ BR, :] = acc
}

// ONE-LABEL: gpu.func @one
// ONE: scf.for
@autotune(BC in [16])
kernel one(X: tensor<f32>[M, K], O: tensor<f32>[M, 1]) {
  let row = ctx.block.x
  var acc: tile<f32>[1, 1] = 0.0
  for k in range(0, K, BC) {
    acc += rowsum(X[row :+ 1, k :+ BC])
  }
  O[row :+ 1, :] = acc
}
