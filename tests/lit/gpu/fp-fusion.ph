// PH_GPU_FP_FUSION=1 (an experiment, off by default; docs/compile.md) lets NVPTX fuse a multiply
// into the add that uses it: `x * 3.0 + y` is one fma.rn.f32 a register. By default each rounds on
// its own (mul.rn.f32, then add.rn.f32), as the GPU runs measured it.
// REQUIRES: mlir
// RUN: ph emit %s --stage ptx --target sm_90 | %FileCheck %s --check-prefix=OFF
// OFF: mul.rn.f32
// OFF: add.rn.f32
// OFF-NOT: fma.rn.f32
// RUN: env PH_GPU_FP_FUSION=1 ph emit %s --stage ptx --target sm_90 | %FileCheck %s --check-prefix=ON
// ON: fma.rn.f32
// ON-NOT: mul.rn.f32
kernel axpy(X: tensor<f32>[N, 128], Y: tensor<f32>[N, 128], O: tensor<f32>[N, 128]) {
  let r = ctx.block.x * 4
  O[r :+ 4, :] = X[r :+ 4, :] * 3.0 + Y[r :+ 4, :]
}
