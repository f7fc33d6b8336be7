// Which loads of a loop over blocks need a mask along the looped dimension (the integer facts
// of frontend/lib/elab/Slices.cpp, maskNeeded), seen in the tile IR.
// REQUIRES: mlir
// RUN: ph emit %s --stage tile --kernel whole_blocks | %FileCheck %s --check-prefix=WHOLE
// RUN: ph emit %s --stage tile --kernel negative_start | %FileCheck %s --check-prefix=NEG
// RUN: ph run %s --kernel negative_start --target cpu --size N=128 --check 2>&1 | %FileCheck %s --check-prefix=NEGCPU
// RUN: ph run %s --kernel whole_blocks --target cpu --size N=5 --size C=200 --check | %FileCheck %s --check-prefix=CHECK-CPU

// `for c in range(0, extent(X, 1) / BC * BC, BC)`: c + BC never passes the whole blocks' end,
// which never passes the extent (cross_entropy.ph's loop), so the loop's load is unmasked along
// the columns; the ragged last block after it keeps its mask. A start that is not known to be
// >= 0, or an end of k blocks with k wider than the step, would not be (below).
// WHOLE-LABEL: func.func @whole_blocks
// WHOLE: scf.for
// WHOLE: tile.load %arg0{{.*}}masked = array<i1: true, false>
// WHOLE: scf.if
// WHOLE: tile.load %arg0{{.*}}masked = array<i1: true, true>
// CHECK-CPU: check    S: {{.*}} ok
@autotune(BC in [64])
kernel whole_blocks(X: tensor<f32>[N, C], S: tensor<f32>[N, 1]) {
  let r = ctx.block.x * 4
  var s: tile<f32>[4, 1] = 0.0
  let full = extent(X, 1) / BC * BC
  for c in range(0, full, BC) {
    s += rowsum(X[r :+ 4, c :+ BC])
  }
  if full < extent(X, 1) {
    s += rowsum(X[r :+ 4, full :+ BC])
  }
  S[r :+ 4, 0 :+ 1] = s
}

// A loop that starts a block before the tensor (k0 - 64 is -64, folded to a constant start): its load is
// masked along the rows although the end is the extent and the step divides the alignment. It
// was not (the rule looked only at the start's divisor), and the interpreter stopped on the
// unmasked load at row -64; now the rows before the tensor read zeros.
// NEG-LABEL: func.func @negative_start
// NEG: scf.for %{{.*}} = %c-64_i32
// NEG: tile.load %arg0{{.*}}masked = array<i1: true, false>
// NEGCPU-NOT: out of range
// NEGCPU: check    Y: {{.*}} ok
@aligned(N = 64)
kernel negative_start(X: tensor<f32>[N, 1], Y: tensor<f32>[1, 1]) {
  var s: tile<f32>[64, 1] = 0.0
  for k0 in range(0, 64, 64) {
    for c in range(k0 - 64, extent(X, 0), 64) {
      s += X[c :+ 64, 0 :+ 1]
    }
  }
  Y[0 :+ 1, 0 :+ 1] = colsum(s)
}

// Integers the compiler knows nothing about (`i32` of a float, a scalar `where`) are not 0:
// a start `ctx.block.x * 64 + i32(s) * 64` is not known to be >= 0 (the loop's load keeps its
// mask) and a block `ctx.block.x * 64 + i32(s) * 64 :+ 64` is not known to be inside N (the
// slice keeps its mask). Both read as the block id alone before (differential review,
// 2026-12-06), and the interpreter stopped on the unmasked loads at s = -1 and s = 1.
// RUN: ph emit %s --stage tile --kernel unknown_start | %FileCheck %s --check-prefix=UNKNOWN
// RUN: ph run %s --kernel unknown_start --target cpu --size N=128 --arg s=-1.0 --check 2>&1 | %FileCheck %s --check-prefix=UNKNOWNCPU
// RUN: ph run %s --kernel unknown_start --target cpu --size N=128 --arg s=1.0 --check 2>&1 | %FileCheck %s --check-prefix=UNKNOWNCPU
// UNKNOWN-LABEL: func.func @unknown_start
// UNKNOWN: scf.for
// UNKNOWN: tile.load %arg0{{.*}}masked = array<i1: true, false>
// UNKNOWN: scf.yield
// UNKNOWN: tile.load %arg0{{.*}}masked = array<i1: true, false>
// UNKNOWNCPU-NOT: out of range
// UNKNOWNCPU: check    Y: {{.*}} ok
@aligned(N = 64)
kernel unknown_start(X: tensor<f32>[N, 1], s: f32, Y: tensor<f32>[N, 1]) {
  var acc: tile<f32>[64, 1] = 0.0
  for c in range(ctx.block.x * 64 + i32(s) * 64, extent(X, 0), 64) {
    acc += X[c :+ 64, 0 :+ 1]
  }
  acc += X[ctx.block.x * 64 + i32(s) * 64 :+ 64, 0 :+ 1]
  Y[ctx.block.x * 64 :+ 64, 0 :+ 1] = acc
}
