// A @tensorcore dot whose N gives each warp an odd number of 8-column blocks (N = 24) runs
// on mma.sync: ldmatrix.x4 reads B two 8-column blocks at a time and ldmatrix.x2 the last
// one (its two 8-deep halves of a K step). It ran on the SIMT policy with a warning before
// (difftest seed 200634, docs/reliability.md differential bug 9); tests/gpu/Inputs/tc_paths.ph's
// tc_odd_n checks the numbers on a GPU (dot and dot_t, 24 and 40 columns).
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=BUILD
// BUILD-NOT: warning
// BUILD: n24 [BR=64,BC=16]: sm_80, {{.*}}(TileGPU, mma.sync)
// RUN: ph emit %s --stage tilegpu --target sm_80 | %FileCheck %s
// CHECK: policy mma
// RUN: ph emit %s --stage ptx --target sm_80 | %FileCheck %s --check-prefix=PTX
// The K loop's B slice [16, 24]: one .x4 and one .x2 (the third block), both transposed.
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}
// PTX-DAG: ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%r{{[0-9]+}}, %r{{[0-9]+}}}
// PTX-NOT: fma.rn.f32
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
