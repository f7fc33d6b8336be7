// What `@grid(...)`'s extents tell the masks of slices by ctx.block (frontend/lib/elab/Grid.cpp,
// gridInside; Slices.cpp, maskNeeded), seen in the tile IR, and that the masks left out are
// sound: the interpreter stops on an unmasked access outside a tensor, and the CPU target agrees
// with it at sizes that are not multiples of the blocks.
// REQUIRES: mlir

// gqa_prefill's head index: `@grid(N / BR, H)` runs ctx.block.y over [0, H), the extent of Q's
// and O's first dimension, so `Q[h, ...]` and `O[h, ...] = ` need no mask along it (they kept
// one before). The rows keep theirs: ceil(N / BR) blocks of BR pass N unless BR divides N.
// RUN: ph emit %s --stage tile --kernel head_index | %FileCheck %s --check-prefix=HEAD
// RUN: ph run %s --kernel head_index --target interp --size N=77 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel head_index --target cpu --size N=77 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// HEAD-LABEL: func.func @head_index
// HEAD: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// HEAD: tile.store {{.*}}masked = array<i1: false, true, false>
// RUNO-NOT: out of range
// RUNO: check    O: {{.*}} ok
@autotune(BR in [16])
@grid(N / BR, H)
kernel head_index(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = Q[h, row :+ BR, :] * 2.0
}

// `@aligned(N = BR)` with `@grid(N / BR, ...)`: the row blocks end at N exactly, and no
// dimension keeps a mask, as when the grid is inferred.
// RUN: ph emit %s --stage tile --kernel head_index_aligned | %FileCheck %s --check-prefix=ALIGNED
// RUN: ph run %s --kernel head_index_aligned --target cpu --size N=80 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// ALIGNED-LABEL: func.func @head_index_aligned
// ALIGNED: tile.load %arg0{{.*}}masked = array<i1: false, false, false>
// ALIGNED: tile.store {{.*}}masked = array<i1: false, false, false>
@autotune(BR in [16])
@aligned(N = BR)
@grid(N / BR, H)
kernel head_index_aligned(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = Q[h, row :+ BR, :] * 2.0
}

// Negative: the y extent is another size, HK, not Q's and O's H: HK may be larger than H (run
// here with H = 2, HK = 3), so the head index into Q and O keeps its mask; into K, whose first
// dimension is HK, it needs none.
// RUN: ph emit %s --stage tile --kernel other_size | %FileCheck %s --check-prefix=OTHER
// RUN: ph run %s --kernel other_size --target interp --size N=77 --size H=2 --size HK=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel other_size --target cpu --size N=77 --size H=2 --size HK=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// OTHER-LABEL: func.func @other_size
// OTHER: tile.load %arg0{{.*}}masked = array<i1: true, true, false>
// OTHER: tile.load %arg1{{.*}}masked = array<i1: false, true, false>
// OTHER: tile.store {{.*}}masked = array<i1: true, true, false>
@autotune(BR in [16])
@grid(N / BR, HK)
kernel other_size(Q: tensor<f32>[H, N, 4], K: tensor<f32>[HK, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = Q[h, row :+ BR, :] + K[h, row :+ BR, :]
}

// A constant extent: ctx.block.y in [0, 4) is inside a dimension of 4, not one of 3 (negative)
// nor a run-time size (negative: H may be below 4).
// RUN: ph emit %s --stage tile --kernel constant_axis | %FileCheck %s --check-prefix=CONST
// RUN: ph run %s --kernel constant_axis --target interp --size N=40 --size H=2 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// CONST-LABEL: func.func @constant_axis
// CONST: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// CONST: tile.load %arg1{{.*}}masked = array<i1: true, true, false>
// CONST: tile.load %arg2{{.*}}masked = array<i1: true, true, false>
// CONST: tile.store {{.*}}masked = array<i1: false, true, false>
@autotune(BR in [16])
@grid(N / BR, 4)
kernel constant_axis(A: tensor<f32>[4, N, 4], B: tensor<f32>[3, N, 4], C: tensor<f32>[H, N, 4],
                     O: tensor<f32>[4, N, 4]) {
  let h = ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = A[h, row :+ BR, :] + B[h, row :+ BR, :] + C[h, row :+ BR, :]
}

// The grid's divisor against the slice's length (N aligned to 16 in both): ceil(N / 32) blocks
// of 16 end inside N (the upper half of X is not read: no output checked), ceil(N / 8) blocks
// of 16 run past it to about 2N (negative: the slice keeps its mask, and the blocks past N read
// zeros and write nothing).
// RUN: ph emit %s --stage tile --kernel coarse_grid | %FileCheck %s --check-prefix=COARSE
// RUN: ph emit %s --stage tile --kernel fine_grid | %FileCheck %s --check-prefix=FINE
// RUN: ph run %s --kernel fine_grid --target interp --size N=48 --check 2>&1 | %FileCheck %s --check-prefix=RUNY
// RUN: ph run %s --kernel fine_grid --target cpu --size N=48 --check 2>&1 | %FileCheck %s --check-prefix=RUNY
// COARSE-LABEL: func.func @coarse_grid
// COARSE: tile.load %arg0{{.*}}masked = array<i1: false, false>
// FINE-LABEL: func.func @fine_grid
// FINE: tile.load %arg0{{.*}}masked = array<i1: true, false>
// FINE: tile.store {{.*}}masked = array<i1: true, false>
// RUNY-NOT: out of range
// RUNY: check    Y: {{.*}} ok
@aligned(N = 16)
@grid(N / 32)
kernel coarse_grid(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  Y[ctx.block.x * 16 :+ 16, :] = X[ctx.block.x * 16 :+ 16, :]
}

@aligned(N = 16)
@grid(N / 8)
kernel fine_grid(X: tensor<f32>[N, 4], Y: tensor<f32>[N, 4]) {
  Y[ctx.block.x * 16 :+ 16, :] = X[ctx.block.x * 16 :+ 16, :]
}

// gqa_prefill's row counted from the end, ((N + BR - 1) / BR - 1 - ctx.block.x) * BR under
// `@grid(N / BR, ...)`: ceil(N / BR) - 1 - ctx.block.x runs over [0, ceil(N / BR)) as the block
// id does (IntFacts::mirror). Unaligned, the first block is the ragged one: the rows and the
// loop over keys up to `row + BR` keep their masks.
// RUN: ph emit %s --stage tile --kernel from_the_end | %FileCheck %s --check-prefix=END
// RUN: ph run %s --kernel from_the_end --target interp --size N=77 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel from_the_end --target cpu --size N=77 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// END-LABEL: func.func @from_the_end
// END: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// END: scf.for
// END: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// END: tile.store {{.*}}masked = array<i1: false, true, false>
@autotune(BR in [16], BC in [8])
@grid(N / BR, H)
kernel from_the_end(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ((extent(Q, 1) + BR - 1) / BR - 1 - ctx.block.x) * BR
  var acc: tile<f32>[BR, 4] = Q[h, row :+ BR, :]
  for kt in range(0, row + BR, BC) {
    acc += colsum(Q[h, kt :+ BC, :])
  }
  O[h, row :+ BR, :] = acc
}

// The same with `@aligned(N = BR)`: the blocks end at N, and so does the loop's end `row + BR`
// (a multiple of BC, which divides BR): no mask along N is left (gqa_prefill's aligned twin).
// RUN: ph emit %s --stage tile --kernel from_the_end_aligned | %FileCheck %s --check-prefix=ENDAL
// RUN: ph run %s --kernel from_the_end_aligned --target interp --size N=80 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel from_the_end_aligned --target cpu --size N=80 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// ENDAL-LABEL: func.func @from_the_end_aligned
// ENDAL: tile.load %arg0{{.*}}masked = array<i1: false, false, false>
// ENDAL: scf.for
// ENDAL: tile.load %arg0{{.*}}masked = array<i1: false, false, false>
// ENDAL: tile.store {{.*}}masked = array<i1: false, false, false>
@autotune(BR in [16], BC in [8])
@aligned(N = BR)
@grid(N / BR, H)
kernel from_the_end_aligned(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ((extent(Q, 1) + BR - 1) / BR - 1 - ctx.block.x) * BR
  var acc: tile<f32>[BR, 4] = Q[h, row :+ BR, :]
  for kt in range(0, row + BR, BC) {
    acc += colsum(Q[h, kt :+ BC, :])
  }
  O[h, row :+ BR, :] = acc
}

// Negative: counted from the end of ceil(N / 16) blocks while the grid runs ceil(N / 8): the
// later blocks start below 0 (rows -16, -32, ... at N = 48, reading zeros and writing nothing),
// so every mask along N stays.
// RUN: ph emit %s --stage tile --kernel from_the_end_other_grid | %FileCheck %s --check-prefix=ENDNEG
// RUN: ph run %s --kernel from_the_end_other_grid --target interp --size N=48 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// RUN: ph run %s --kernel from_the_end_other_grid --target cpu --size N=48 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// ENDNEG-LABEL: func.func @from_the_end_other_grid
// ENDNEG: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// ENDNEG: scf.for
// ENDNEG: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// ENDNEG: tile.store {{.*}}masked = array<i1: false, true, false>
@aligned(N = 16)
@grid(N / 8, H)
kernel from_the_end_other_grid(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ((extent(Q, 1) + 15) / 16 - 1 - ctx.block.x) * 16
  var acc: tile<f32>[16, 4] = Q[h, row :+ 16, :]
  for kt in range(0, row + 16, 8) {
    acc += colsum(Q[h, kt :+ 8, :])
  }
  O[h, row :+ 16, :] = acc
}

// The head counted from the end, H - 1 - ctx.block.y under `@grid(..., H)`, is in [0, H) too.
// RUN: ph emit %s --stage tile --kernel head_from_the_end | %FileCheck %s --check-prefix=HEADEND
// RUN: ph run %s --kernel head_from_the_end --target interp --size N=40 --size H=3 --check 2>&1 | %FileCheck %s --check-prefix=RUNO
// HEADEND-LABEL: func.func @head_from_the_end
// HEADEND: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// HEADEND: tile.store {{.*}}masked = array<i1: false, true, false>
@autotune(BR in [16])
@grid(N / BR, H)
kernel head_from_the_end(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = H - 1 - ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = Q[h, row :+ BR, :] * 2.0
}

// Without `@grid` nothing changes: the grid inferred from the head index is H, and from the
// rows ceil(N / BR).
// RUN: ph emit %s --stage tile --kernel inferred | %FileCheck %s --check-prefix=INFERRED
// INFERRED-LABEL: func.func @inferred
// INFERRED: tile.load %arg0{{.*}}masked = array<i1: false, true, false>
// INFERRED: tile.store {{.*}}masked = array<i1: false, true, false>
@autotune(BR in [16])
kernel inferred(Q: tensor<f32>[H, N, 4], O: tensor<f32>[H, N, 4]) {
  let h = ctx.block.y
  let row = ctx.block.x * BR
  O[h, row :+ BR, :] = Q[h, row :+ BR, :] * 2.0
}
