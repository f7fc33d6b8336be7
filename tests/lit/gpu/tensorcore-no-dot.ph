// A `@tensorcore` kernel without a dot has nothing for the tensor cores: it takes the TileGPU
// SIMT policy as any dot-less kernel does, with W0501 saying so. The legacy tensor-core route
// took it before and left the `ctx.block.y` read inside the loop unlowered: `cannot be
// converted to LLVM IR: missing LLVMTranslationDialectInterface registration ... tile.block_id`
// on a check-clean program (docs/reliability.md, differential bug 15): seed 303809's program
// as generated (a smaller kernel with the same loop did not fail).
// REQUIRES: mlir
// RUN: ph build %s --target sm_80 -o %t 2>&1 | %FileCheck %s
// RUN: ph build %s --target sm_90a -o %t90 2>&1 | %FileCheck %s
// CHECK: warning[W0501]
// CHECK: k303809 [BR=32,D=32]: sm_
// CHECK-NOT: error

@tensorcore
@launch(64)
@autotune(BR in [32], D in [32])
kernel k303809(X1: tensor<f32>[M, 33], X5: tensor<f16>[M, D, 2], X6: tensor<f16>[H, M, D], X7: tensor<f32>[M, 40], X8: tensor<f32>[M, 1], X10: tensor<f32>[M, D, 2], X11: tensor<f32>[M, D], X12: tensor<f16>[M, D], O14: tensor<f32>[H, M, D]) {
  let row = ctx.block.x * BR
  var v2 = tmax(X1[row + 5 :+ BR, 1 :+ 32], -1.5)
  var acc4: tile<f32>[BR, D] = 0.25
  for k3 in range(0, 4, 1) {
    let t9 = X8[row + 7 :+ BR, :] + X7[row :+ BR, 7 :+ D] - -2.0
    acc4 = acc4 * 0.75 + tmin(X5[row :+ BR, :, 0], X6[ctx.block.y, row + 1 :+ BR, :])
  }
  var v13 = tmin(X10[row :+ BR, :, 1], X11[row :+ BR, :]) / (abs(X12[row + 3 :+ BR, :]) + 1.0)
  O14[ctx.block.y, row :+ BR, :] = acc4
}
