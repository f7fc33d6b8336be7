// rowargmax is one reduction on the GPU: tile.rowargmax in the mma accumulator's layout (a
// dot's scores, greedy decoding over a vocabulary block) and in a blocked SIMT layout, each
// thread's (value, column) pairs combined, then the lanes sharing a row with butterfly
// shuffles of the value and the column; the legacy emitters do not take it, TileGPU does.
// REQUIRES: mlir
// RUN: ph emit %s --kernel logits_argmax --stage tilegpu --target sm_80 | %FileCheck %s --check-prefix=MMA
// MMA: policy mma
// MMA: tile.rowargmax %{{.*}} : tensor<64x64xf32, #mma> -> tensor<64x1xi32, #mma>
// MMA-NOT: tile.rowmax
// RUN: ph emit %s --kernel logits_argmax --stage ptx --target sm_80 | %FileCheck %s --check-prefix=PTX
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX: shfl.sync.bfly.b32
// RUN: ph emit %s --kernel rows_argmax --stage tilegpu --target sm_90a | %FileCheck %s --check-prefix=SIMT
// SIMT: policy simt
// SIMT: tile.rowargmax %{{.*}} : tensor<4x256xf16, #blocked{{[0-9]*}}> -> tensor<4x1xi32, #blocked{{[0-9]*}}>
// RUN: ph run %s --kernel logits_argmax --target cpu --size N=100 --size V=64 --seed 3 --check | %FileCheck %s --check-prefix=CPU
// RUN: ph run %s --kernel rows_argmax --target cpu --size N=9 --seed 4 --check | %FileCheck %s --check-prefix=CPU
// CPU: check {{.*}} ok

@tensorcore
@autotune(BR in [64], BC in [64], D in [64])
kernel logits_argmax(Q: tensor<f16>[N, D], W: tensor<f16>[V, D], Out: tensor<i32>[N, 1]) {
  let r = ctx.block.x * BR
  let q = Q[r :+ BR, :]
  let w = W[0 :+ BC, :]
  var s: tile<f32>[BR, BC] = dot_t(q, w)
  Out[r :+ BR, 0 :+ 1] = rowargmax(s)
}

kernel rows_argmax(X: tensor<f16>[N, 256], Out: tensor<i32>[N, 1]) {
  let r = ctx.block.x * 4
  Out[r :+ 4, 0 :+ 1] = rowargmax(X[r :+ 4, :])
}
