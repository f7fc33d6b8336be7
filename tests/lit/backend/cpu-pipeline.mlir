// RUN: ph-opt %s --tile-to-linalg --convert-elementwise-to-linalg --tile-bufferize | %FileCheck %s --check-prefix=BUF
// RUN: ph-opt %s --tile-to-loops | %FileCheck %s --check-prefix=LOOPS
// RUN: ph-opt %s --tile-to-llvm | %FileCheck %s --check-prefix=LLVM
// RUN: ph-opt %s --tile-to-loops | ph-opt --tile-loops-to-llvm | %FileCheck %s --check-prefix=LLVM
// REQUIRES: mlir
// The CPU pipelines on examples/rotary.ph's tile stage (`ph emit --stage tile`):
// tile-bufferize, tile-to-loops and tile-loops-to-llvm.

// tile-bufferize: loads fill fresh buffers; `var a = x[...]` copies with
// linalg.copy (never memref.copy, which would need a runtime library); the
// slice assignments write into x's buffer in place.
// BUF-LABEL: func.func private @rotary_cta
// BUF: %[[X:.*]] = memref.alloc() {{.*}} : memref<8x128xf32>
// BUF: linalg.map outs(%[[X]] : memref<8x128xf32>)
// BUF: %[[XA:.*]] = memref.subview %[[X]][%{{.*}}, %{{.*}}] [8, 64] [1, 1]
// BUF: %[[A:.*]] = memref.alloc() {{.*}} : memref<8x64xf32>
// BUF: linalg.copy ins(%[[XA]] : {{.*}}) outs(%[[A]] : memref<8x64xf32>)
// BUF-NOT: memref.copy
// BUF-NOT: tensor.
// BUF: linalg.copy ins(%{{.*}} : memref<8x64xf32>) outs(%{{.*}} : memref<8x64xf32, strided<[128, 1], offset: ?>>)
// BUF: linalg.copy ins(%{{.*}} : memref<8x64xf32>) outs(%{{.*}} : memref<8x64xf32, strided<[128, 1], offset: ?>>)
// BUF-NOT: tensor.
// BUF-LABEL: func.func @rotary(

// tile-to-loops: only loops, buffers and scalar ops remain; every buffer is freed.
// LOOPS-LABEL: func.func private @rotary_cta
// LOOPS-NOT: tensor.
// LOOPS-NOT: linalg.
// LOOPS-NOT: bufferization.
// LOOPS: memref.alloc
// LOOPS: scf.for
// LOOPS: llvm.load
// LOOPS: llvm.store
// LOOPS: memref.dealloc
// LOOPS-NOT: linalg.
// LOOPS-LABEL: func.func @rotary(
// LOOPS: func.call @rotary_cta

// tile-loops-to-llvm: LLVM dialect only, buffers from malloc/free.
// LLVM-NOT: scf.
// LLVM-NOT: memref.
// LLVM-NOT: func.func
// LLVM-DAG: llvm.func @malloc(i64) -> !llvm.ptr
// LLVM-DAG: llvm.func @free(!llvm.ptr)
// LLVM-DAG: llvm.func @rotary_cta(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LLVM-DAG: llvm.func @rotary(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32)
// LLVM-NOT: scf.
// LLVM-NOT: memref.

module {
  func.func @rotary(%arg0: !tile.ptr<f32>, %arg1: !tile.ptr<f32>, %arg2: !tile.ptr<f32>, %arg3: !tile.ptr<f32>, %arg4: i32) attributes {tile.threads = 128 : i32} {
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %c0 = arith.constant 0 : index
    %c8_i32 = arith.constant 8 : i32
    %0 = tile.block_id 0
    %1 = arith.muli %0, %c8_i32 : i32
    %2 = arith.index_cast %1 : i32 to index
    %3 = arith.index_cast %arg4 : i32 to index
    %4 = tile.load %arg0[%2, %c0] extents[%3, %c128] {lens = array<i64: 8, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<8x128xf32>
    %5 = tile.extract %4[%c0, %c0] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x128xf32> -> tensor<8x64xf32>
    %6 = tile.extract %4[%c0, %c64] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x128xf32> -> tensor<8x64xf32>
    %7 = tile.load %arg1[%2, %c0] extents[%3, %c64] {lens = array<i64: 8, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<8x64xf32>
    %8 = arith.mulf %5, %7 : tensor<8x64xf32>
    %9 = tile.load %arg2[%2, %c0] extents[%3, %c64] {lens = array<i64: 8, 64>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : !tile.ptr<f32> -> tensor<8x64xf32>
    %10 = arith.mulf %6, %9 : tensor<8x64xf32>
    %11 = arith.subf %8, %10 : tensor<8x64xf32>
    %12 = tile.insert %11 into %4[%c0, %c0] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x64xf32> into tensor<8x128xf32>
    %13 = arith.mulf %6, %7 : tensor<8x64xf32>
    %14 = arith.mulf %5, %9 : tensor<8x64xf32>
    %15 = arith.addf %13, %14 : tensor<8x64xf32>
    %16 = tile.insert %15 into %12[%c0, %c64] {lens = array<i64: 8, 64>, squeezed = array<i1: false, false>} : tensor<8x64xf32> into tensor<8x128xf32>
    tile.store %16, %arg3[%2, %c0] extents[%3, %c128] {lens = array<i64: 8, 128>, masked = array<i1: true, false>, squeezed = array<i1: false, false>} : tensor<8x128xf32>, !tile.ptr<f32>
    return
  }
}

