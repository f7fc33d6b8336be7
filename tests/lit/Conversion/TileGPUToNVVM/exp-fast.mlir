// RUN: ph-opt %s --convert-tilegpu-to-nvvm | %FileCheck %s
// RUN: ph-opt %s --convert-tilegpu-to-nvvm="wgmma-fast-exp=0" | %FileCheck %s --check-prefix=EXPF
// RUN: ph-opt %s --convert-tilegpu-to-nvvm="exp-ftz=1" | %FileCheck %s --check-prefix=FTZ
// REQUIRES: mlir
// exp of an f32 tile in the mma.sync accumulator layout (attention's scores) or a blocked one
// (the SIMT policy's softmax rows) is 2^(x log2 e): a multiply and math.exp2 per register
// (ex2.approx.f32); other element types stay math.exp (libdevice). So is wgmma's accumulator layout
// (version 3: attention's scores on sm_90a), unless wgmma-fast-exp=0 (EXPF), which keeps
// libdevice's expf there for A/B runs. exp(a - b) keeps its subtract (@softmax: folded into an
// FMA with the multiply, a mask's -1e30 in both a and b would lose the difference). With
// exp-ftz=1 (FTZ) the 2^y in wgmma's accumulator layout is ex2.approx.ftz.f32 (one MUFU.EX2;
// ex2.approx.f32 adds a compare and two predicated multiplies to keep results below 2^-126); the
// mma.sync and blocked layouts keep ex2.approx.f32 (a SIMT kernel's exp may want its subnormals).

// FTZ-LABEL: gpu.func @scores
// FTZ-COUNT-8: math.exp2
// FTZ-NOT: ex2.approx.ftz
// FTZ-LABEL: gpu.func @wgmma_scores
// FTZ-COUNT-8: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// FTZ-NOT: math.exp2
// FTZ-LABEL: gpu.func @blocked
// FTZ-COUNT-2: math.exp2
// FTZ-NOT: ex2.approx.ftz
// FTZ-LABEL: gpu.func @softmax
// FTZ-NOT: ex2.approx.ftz
// FTZ: gpu.return

#mma = #tilegpu.mma<{version = 2, warpsPerCTA = [4, 1], instrShape = [16, 8]}>
#wgmma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 16]}>
#bl = #tilegpu.blocked<{sizePerThread = [1, 2], threadsPerWarp = [1, 32], warpsPerCTA = [1, 1], order = [1, 0]}>

// CHECK-LABEL: gpu.func @scores
// CHECK: %[[L:.*]] = arith.constant 1.44269502 : f32
// CHECK-COUNT-8: math.exp2
// CHECK-NOT: math.exp %
// CHECK: gpu.return
func.func @scores(%o: !tile.ptr<f32>, %x: f32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.splat %x : tensor<64x16xf32, #mma>
  %e = math.exp %s : tensor<64x16xf32, #mma>
  tile.store %e, %o[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 16>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x16xf32, #mma>, !tile.ptr<f32>
  return
}

// CHECK-LABEL: gpu.func @wgmma_scores
// CHECK-COUNT-8: math.exp2 %{{.*}} : f32
// CHECK-NOT: math.exp %
// CHECK: gpu.return
// EXPF-LABEL: gpu.func @wgmma_scores
// EXPF-NOT: math.exp2
// EXPF-COUNT-8: math.exp %{{.*}} : f32
// EXPF-NOT: math.exp2
// EXPF: gpu.return
func.func @wgmma_scores(%o: !tile.ptr<f32>, %x: f32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.splat %x : tensor<64x16xf32, #wgmma>
  %e = math.exp %s : tensor<64x16xf32, #wgmma>
  tile.store %e, %o[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 16>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x16xf32, #wgmma>, !tile.ptr<f32>
  return
}

// CHECK-LABEL: gpu.func @blocked
// CHECK-COUNT-2: math.exp2 %{{.*}} : f32
// CHECK-NOT: math.exp %
func.func @blocked(%o: !tile.ptr<f32>, %x: f32) attributes {tile.threads = 32 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = tile.splat %x : tensor<1x64xf32, #bl>
  %e = math.exp %s : tensor<1x64xf32, #bl>
  tile.store %e, %o[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x64xf32, #bl>, !tile.ptr<f32>
  return
}

// CHECK-LABEL: gpu.func @blocked_f16
// CHECK-COUNT-2: math.exp %{{.*}} : f16
// CHECK-NOT: math.exp2
func.func @blocked_f16(%o: !tile.ptr<f16>, %x: f16) attributes {tile.threads = 32 : i32} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %s = tile.splat %x : tensor<1x64xf16, #bl>
  %e = math.exp %s : tensor<1x64xf16, #bl>
  tile.store %e, %o[%c0, %c0] extents[%c1, %c64] {lens = array<i64: 1, 64>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<1x64xf16, #bl>, !tile.ptr<f16>
  return
}

// The softmax's exp(s - m), m a row's broadcast: per register the subtract, the multiply by log2 e
// and one ex2 of it, no FMA.
// CHECK-LABEL: gpu.func @softmax
// CHECK-NOT: math.fma
// CHECK: %[[D:.*]] = arith.subf
// CHECK: %[[Y:.*]] = arith.mulf %[[D]], %{{.*}} : f32
// CHECK-NEXT: math.exp2 %[[Y]]
// CHECK-NOT: math.fma
// CHECK: gpu.return
func.func @softmax(%o: !tile.ptr<f32>, %x: f32, %y: f32) attributes {tile.threads = 128 : i32} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.splat %x : tensor<64x16xf32, #mma>
  %m = tile.splat %y : tensor<64x16xf32, #mma>
  %d = arith.subf %s, %m : tensor<64x16xf32, #mma>
  %e = math.exp %d : tensor<64x16xf32, #mma>
  tile.store %e, %o[%c0, %c0] extents[%c64, %c64] {lens = array<i64: 64, 16>, masked = array<i1: false, false>, squeezed = array<i1: false, false>} : tensor<64x16xf32, #mma>, !tile.ptr<f32>
  return
}
