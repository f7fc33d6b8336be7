// Types and shapes: every message names both shapes, symbolic and concrete.
// RUN: not ph check %s 2>&1 | %FileCheck %s

@autotune(D in [64], BR in [64], BC in [32])
kernel shapes(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], O: tensor<f16>[N, D], B: tensor<bf16>[N, D]) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  let k = K[0 :+ BC, :]
  // CHECK: shapes.ph:[[@LINE+3]]:30: error[E0302]: `dot` of `tile<f16>[BR, D] = [64, 64]` and `tile<f16>[BC, D] = [32, 64]`: inner dimensions D and BC differ
  // CHECK: note: `dot_t` takes the second operand transposed, as [N, K]
  // CHECK: help: use `dot_t`
  var s: tile<f32>[BR, BC] = dot(q, k)
  // CHECK: shapes.ph:[[@LINE+1]]:7: error[E0301]: cannot add `tile<f32>[BR, BC] = [64, 32]` and `tile<f16>[BR, D] = [64, 64]`: shapes do not broadcast
  s = s + q
  var acc: tile<f32>[BR, D] = 0.0
  // CHECK: shapes.ph:[[@LINE+1]]:21: error[E0303]: cannot store `tile<f32>[BR, BC] = [64, 32]` into `O[row :+ BR, :]: tile<f16>[BR, D] = [64, 64]`
  O[row :+ BR, :] = s
  // CHECK: shapes.ph:[[@LINE+1]]:9: error[E0304]: cannot assign `tile<f32>[BR, BC] = [64, 32]` to `acc` of type `tile<f32>[BR, D] = [64, 64]`
  acc = s
  // CHECK: shapes.ph:[[@LINE+1]]:12: error[E0305]: `O` has rank 2, but the slice has 3 index(es)
  let o = O[0, 0, 0]
  // CHECK: shapes.ph:[[@LINE+1]]:18: error[E0306]: a slice length must be known at compile time, found `row`
  let p = Q[0 :+ row, :]
  // CHECK: shapes.ph:[[@LINE+1]]:11: error[E0308]: expected a tensor or a tile variable to slice, found `i32`
  let r = row[0]
  // CHECK: shapes.ph:[[@LINE+1]]:13: error[E0309]: an index must be an integer, found `float`
  let u = Q[1.5 :+ BR, :]
  var h: tile<f16>[BR, D] = 0.0
  // CHECK: shapes.ph:[[@LINE+1]]:7: error[E0310]: cannot assign `tile<f32>[BR, D]` to `h` of type `tile<f16>[BR, D]`: narrowing happens only when storing into a tensor
  h = acc
  // CHECK: shapes.ph:[[@LINE+1]]:18: error[E0311]: `rowmax` needs a 2-D tile, found `i32`
  var m = rowmax(row)
  // CHECK: shapes.ph:[[@LINE+1]]:12: error[E0312]: `for` iterates over `range(start, end, step)`, found `row`
  for i in row {
  }
  // CHECK: shapes.ph:[[@LINE+1]]:9: error[E0313]: `K` is a tensor in global memory: slice it (e.g. `K[i :+ n, :]`) to get a tile
  acc = K * 2.0
  // CHECK: shapes.ph:[[@LINE+1]]:18: error[E0314]: the extent of a slice of `Q` must be positive, found 0
  let z = Q[0 :+ 0, :]
  // CHECK: shapes.ph:[[@LINE+1]]:25: error[E0315]: the step of `range` must be a positive compile-time integer, found `row`
  for j in range(0, 10, row) {
  }
  // CHECK: shapes.ph:[[@LINE+1]]:18: error[E0316]: slice `60 :+ 8` reaches past dimension 1 of `acc` (extent 64)
  let w = acc[:, 60 :+ 8]
  // CHECK: shapes.ph:[[@LINE+1]]:23: error[E0317]: `extent` dimension 2 is out of range for `acc` of rank 2
  let e = extent(acc, 2)
  // CHECK: shapes.ph:[[@LINE+1]]:13: error[E0211]: `mask_cols` changes its first argument in place: it must be a tile variable, found `row` (i32)
  mask_cols(row, 3, 0.0)
  // CHECK: shapes.ph:[[@LINE+1]]:22: error[E0318]: the end of `range` must be a scalar, found `tile<f32>[BR, D]`
  for t2 in range(0, acc, 8) {
  }
  // CHECK: shapes.ph:[[@LINE+2]]:9: error[E0320]: cannot multiply `tile<f16>[BR, D]` and `tile<bf16>[BR, D]`: element types differ
  let bf = B[row :+ BR, :]
  acc = q * bf
  O[row :+ BR, :] = acc
}

fn bad_tile(x, n) {
  // CHECK: shapes.ph:[[@LINE+2]]:20: error[E0307]: inside a `fn`, a tile type may use only the function's parameters and literals; `k` is not a parameter of `bad_tile`
  var k = 4
  var t: tile<f32>[k, n] = 0.0
  x = x + t
}

@autotune(BR in [16])
kernel call_bad(X: tensor<f32>[N, 8]) {
  var x = X[ctx.block.x * 16 :+ 16, :]
  // CHECK: note: in the call to `bad_tile` here
  bad_tile(x, 8)
  X[ctx.block.x * 16 :+ 16, :] = x
  let u = BR
}

kernel warn_scores(Q: tensor<f16>[N, 64], K: tensor<f16>[N, 64], O: tensor<f32>[N, 32]) {
  let q = Q[ctx.block.x * 64 :+ 64, :]
  let k = K[0 :+ 32, :]
  // CHECK: shapes.ph:[[@LINE+2]]:11: warning[W0301]: `dot_t` of f16 operands accumulates in f16; declare `s: tile<f32>[64, 32]` to accumulate in f32
  // CHECK: help: declare `s: tile<f32>[64, 32]`
  var s = dot_t(q, k)
  O[ctx.block.x * 64 :+ 64, :] = s
}
