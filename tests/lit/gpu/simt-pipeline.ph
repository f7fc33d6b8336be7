// The SIMT policy's streaming loop with one query row (vector FMA dots; docs/tilegpu.md, "The
// legacy SIMT emitter, deleted"): K's block is read into registers a block ahead (the first
// block before the loop, only when it runs; the next one inside it, after this block went to
// shared memory for its two dots), and the kernel asks for four CTAs an SM. A query of several
// rows keeps a cp.async ring (ROWS).
// REQUIRES: mlir
// RUN: ph emit %s --kernel stream --stage gpu | %FileCheck %s --implicit-check-not=nvvm.cp.async
// RUN: ph emit %s --kernel stream_rows --stage gpu | %FileCheck %s --check-prefix=ROWS
// A loop that also stores keeps its ring (tilegpu-prefetch-loads does not read past a store,
// so the blocks would otherwise be waited for in place): STORE. With 256 threads, as many CTAs
// as 64K registers hold at the carried blocks' registers and 64 more (three here): WIDE.
// RUN: ph emit %s --kernel stream_store --stage gpu | %FileCheck %s --check-prefix=STORE
// RUN: ph emit %s --kernel stream_wide --stage gpu | %FileCheck %s --check-prefix=WIDE

// CHECK-LABEL: gpu.func @stream
// CHECK-SAME: nvvm.minctasm = 4
// CHECK: scf.if
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: scf.for {{.*}} iter_args(
// CHECK-NEXT: gpu.barrier
// CHECK: llvm.store %{{.*}} : f16, !llvm.ptr<3>
// CHECK: gpu.barrier
// CHECK: llvm.load %{{.*}} : !llvm.ptr<1> -> vector<8xf16>
// CHECK: math.exp2
// CHECK: scf.yield

// STORE-LABEL: gpu.func @stream_store
// STORE-NOT: minctasm
// STORE: scf.for
// STORE: nvvm.cp.async.shared.global

// WIDE-LABEL: gpu.func @stream_wide
// WIDE-SAME: nvvm.minctasm = 3
// WIDE-NOT: nvvm.cp.async

// ROWS-LABEL: gpu.func @stream_rows
// ROWS-NOT: minctasm
// ROWS: nvvm.cp.async.shared.global
// ROWS: nvvm.cp.async.commit.group
// ROWS: scf.for
// ROWS: nvvm.cp.async.wait.group 0
// ROWS-NEXT: gpu.barrier
// ROWS: nvvm.cp.async.shared.global
// ROWS: scf.yield
kernel stream(Q: tensor<f32>[1, 64], K: tensor<f16>[N, 64], O: tensor<f32>[1, 64]) {
  let q = Q[0 :+ 1, :]
  var acc: tile<f32>[1, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[1, 32] = dot_t(q, k)
    s = exp(s * 0.5)
    acc = acc * 0.9 + dot(s, k)
  }
  O[0 :+ 1, :] = acc
}

kernel stream_rows(Q: tensor<f32>[4, 64], K: tensor<f16>[N, 64], O: tensor<f32>[4, 64]) {
  let q = Q[0 :+ 4, :]
  var acc: tile<f32>[4, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[4, 32] = dot_t(q, k)
    s = exp(s * 0.5)
    acc = acc * 0.9 + dot(s, k)
  }
  O[0 :+ 4, :] = acc
}

kernel stream_store(Q: tensor<f32>[1, 64], K: tensor<f16>[N, 64], S: tensor<f32>[1, N], O: tensor<f32>[1, 64]) {
  let q = Q[0 :+ 1, :]
  var acc: tile<f32>[1, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[1, 32] = dot_t(q, k)
    S[0 :+ 1, kt :+ 32] = s
    acc = acc + dot(s, k)
  }
  O[0 :+ 1, :] = acc
}

@launch(256)
kernel stream_wide(Q: tensor<f32>[1, 64], K: tensor<f16>[N, 64], O: tensor<f32>[1, 64]) {
  let q = Q[0 :+ 1, :]
  var acc: tile<f32>[1, 64] = 0.0
  for kt in range(0, N, 32) {
    let k = K[kt :+ 32, :]
    var s: tile<f32>[1, 32] = dot_t(q, k)
    acc = acc + dot(exp(s), k)
  }
  O[0 :+ 1, :] = acc
}
