// An op the TileGPU conversion has no pattern for (here the ldmatrix of a B operand one
// 8-column block wide per warp) is E0504 at that op: the B slice's range, from the
// location the op carries, under PH_GPU_LOWERING=tilegpu. Without it, the legacy
// tensor-core emitter takes the kernel (the second build).
// REQUIRES: mlir
// RUN: env PH_GPU_LOWERING=tilegpu not ph build %s --target sm_80 -o %t --no-cache --json > %t.json
// RUN: python3 %S/../Inputs/diag_ranges.py < %t.json | %FileCheck %s
// RUN: ph build %s --target sm_80 -o %t.auto --no-cache 2>&1 | %FileCheck %s --check-prefix=AUTO
// AUTO: g []: sm_80
@tensorcore
@aligned(M = 64, N = 8, K = 32)
kernel g(A: tensor<f16>[M, K], B: tensor<f16>[K, N], O: tensor<f32>[M, N]) {
  let row = ctx.block.x * 64
  let col = ctx.block.y * 8
  var acc: tile<f32>[64, 8] = 0.0
  for k in range(0, K, 32) {
    // CHECK: E0504 narrow-b.ph:[[@LINE+3]]:39-[[@LINE+3]]:{{[0-9]+}} the GPU lowering cannot lower this: failed to legalize operation 'tilegpu.local_load'
    // CHECK-NEXT: note narrow-b.ph:10:1-{{.*}} in kernel `g`
    // CHECK-NOT: {{^E0}}
    acc += dot(A[row :+ 64, k :+ 32], B[k :+ 32, col :+ 8])
  }
  O[row :+ 64, col :+ 8] = acc
}
