// A tile the TileGPU lowering cannot lay out in registers (extents that are
// neither a multiple nor a divisor of the layout's pass) is refused at build,
// at the tile, saying why (it used to run out of memory converting it).
// REQUIRES: mlir
// RUN: not ph build %s --kernel cols --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=COLS
// RUN: not ph build %s --kernel ids --target sm_90a -o %t 2>&1 | %FileCheck %s --check-prefix=IDS
// RUN: ph build %s --kernel fine --target sm_80 -o %t 2>&1 | %FileCheck %s --check-prefix=FINE
// 16-bit reductions shuffle 32-bit values (nvvm.shfl.sync takes no f16): widened, rounded once.
// RUN: ph emit %s --kernel fine --stage gpu --target sm_80 | %FileCheck %s --check-prefix=HALF
// HALF: arith.extf %{{.*}} : f16 to f32
// HALF: gpu.shuffle xor {{.*}} : f32
// HALF: arith.truncf %{{.*}} : f32 to f16

kernel cols(X: tensor<f16>[N, 24], Y: tensor<f32>[1, 24]) {
  // COLS: no-register-layout.ph:[[@LINE+1]]:11: the tile `tensor<6x24xf16>` has no register layout on the GPU (extent 24 along dimension 1 does not divide the layout's 512); use power-of-two extents
  let x = X[0 :+ 6, :]
  Y[0 :+ 1, :] = colsum(x)
}

kernel ids(X: tensor<f16>[N, 24], Y: tensor<f32>[N, 24]) {
  // IDS: no-register-layout.ph:[[@LINE+1]]:11: the tile `tensor<6x24xf16>` has no register layout on the GPU
  let x = X[0 :+ 6, :]
  Y[0 :+ 6, :] = where(col_ids(x) < 3, x, 0.0)
}

kernel fine(X: tensor<f16>[N, 32], Y: tensor<f32>[1, 32]) {
  // FINE: fine []: sm_80
  let x = X[0 :+ 8, :]
  Y[0 :+ 1, :] = colsum(x) + colmax(x)
}
