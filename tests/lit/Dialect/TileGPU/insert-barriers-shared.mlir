// RUN: ph-opt %s --split-input-file --tilegpu-insert-barriers | %FileCheck %s
// REQUIRES: mlir
// tilegpu-insert-barriers on shared buffers: a buffer stored in one layout and read
// in another needs a barrier between; disjoint windows (tilegpu-through-shared's
// parts of tiles) do not; the pipeline's rings (buffers with stages) order
// themselves and are left alone.

#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @convert
// CHECK: tilegpu.local_store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load
func.func @convert(%v: tensor<32x64xf32, #a>) -> tensor<32x64xf32, #b> {
  %buf = tilegpu.local_alloc : !tilegpu.memdesc<32x64xf32, #sh>
  tilegpu.local_store %v, %buf : tensor<32x64xf32, #a>, !tilegpu.memdesc<32x64xf32, #sh>
  %x = tilegpu.local_load %buf : !tilegpu.memdesc<32x64xf32, #sh> -> tensor<32x64xf32, #b>
  return %x : tensor<32x64xf32, #b>
}

// -----

// Two parts at columns 0 and 16 (16 wide) meet nowhere; the whole tile read back
// meets both.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @windows
// CHECK: tilegpu.local_store
// CHECK-NEXT: tilegpu.local_store
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load
func.func @windows(%p: tensor<32x16xf32, #a>, %q: tensor<32x16xf32, #b>) -> tensor<32x32xf32, #a> {
  %buf = tilegpu.local_alloc : !tilegpu.memdesc<32x32xf32, #sh>
  tilegpu.local_store %p, %buf {tilegpu.squeezed = array<i1: false, false>, tilegpu.window = array<i64: 0, 0>} : tensor<32x16xf32, #a>, !tilegpu.memdesc<32x32xf32, #sh>
  tilegpu.local_store %q, %buf {tilegpu.squeezed = array<i1: false, false>, tilegpu.window = array<i64: 0, 16>} : tensor<32x16xf32, #b>, !tilegpu.memdesc<32x32xf32, #sh>
  %x = tilegpu.local_load %buf : !tilegpu.memdesc<32x32xf32, #sh> -> tensor<32x32xf32, #a>
  return %x : tensor<32x32xf32, #a>
}

// -----

// A ring (a buffer with stages) is the pipeline's: no barrier from this pass.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#b = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [2, 16], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @ring
// CHECK-NOT: tilegpu.barrier
// CHECK: return
func.func @ring(%v: tensor<32x64xf32, #a>, %s: index) -> tensor<32x64xf32, #b> {
  %buf = tilegpu.local_alloc : !tilegpu.memdesc<2x32x64xf32, #sh>
  tilegpu.local_store %v, %buf[%s] : tensor<32x64xf32, #a>, !tilegpu.memdesc<2x32x64xf32, #sh>
  %x = tilegpu.local_load %buf[%s] : !tilegpu.memdesc<2x32x64xf32, #sh> -> tensor<32x64xf32, #b>
  return %x : tensor<32x64xf32, #b>
}

// -----

// Two buffers placed over each other (tilegpu-allocate-shared's `reuse`) share bytes:
// reading one after writing the other needs a barrier; buffers apart need none.
#a = #tilegpu.blocked<{sizePerThread = [1, 4], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>
#sh = #tilegpu.shared<{vec = 1, perPhase = 1, maxPhase = 1, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @reuse
// CHECK: tilegpu.local_store %{{[a-z0-9]+}}, %[[X:[a-z0-9]+]]
// CHECK-NEXT: tilegpu.local_load %[[Z:[a-z0-9]+]]
// CHECK-NEXT: tilegpu.barrier
// CHECK-NEXT: tilegpu.local_load %[[Y:[a-z0-9]+]]
func.func @reuse(%v: tensor<32x64xf32, #a>) -> (tensor<32x64xf32, #a>, tensor<32x64xf32, #a>) {
  %x = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<32x64xf32, #sh>
  %y = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<32x64xf32, #sh>
  %z = tilegpu.local_alloc {offset = 8192 : i64} : !tilegpu.memdesc<32x64xf32, #sh>
  tilegpu.local_store %v, %x : tensor<32x64xf32, #a>, !tilegpu.memdesc<32x64xf32, #sh>
  %p = tilegpu.local_load %z : !tilegpu.memdesc<32x64xf32, #sh> -> tensor<32x64xf32, #a>
  %q = tilegpu.local_load %y : !tilegpu.memdesc<32x64xf32, #sh> -> tensor<32x64xf32, #a>
  return %p, %q : tensor<32x64xf32, #a>, tensor<32x64xf32, #a>
}
