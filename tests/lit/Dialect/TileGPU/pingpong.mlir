// RUN: ph-opt %s --tilegpu-pingpong --split-input-file | %FileCheck %s
// RUN: ph-opt %s --tilegpu-pingpong="barrier=5" --split-input-file | %FileCheck %s --check-prefix=BAR5
// RUN: not ph-opt %s --tilegpu-pingpong="barrier=15" --split-input-file 2>&1 | %FileCheck %s --check-prefix=BAD
// REQUIRES: mlir
// Two warpgroups (256 threads) whose key loop waits for two wgmma dots (attention's S = Q K^T
// and P V) take turns: each dot becomes async between a `wait` and a `pass`, then waits for
// its own group; `init` before the loop lets warpgroup 0 go first, `fini` after it takes the
// last pass.

#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 8]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>
#dot_op = #tilegpu.dot_op<{opIdx = 0, parent = #mma, kWidth = 2}>

// CHECK-LABEL: func.func @attention
// CHECK: tilegpu.warpgroup_turn "init" {barrier = 2 : i32}
// CHECK-NEXT: scf.for
// CHECK: tilegpu.warpgroup_turn "wait" {barrier = 2 : i32}
// CHECK-NEXT: %[[S:.*]] = tilegpu.warpgroup_dot {{.*}} {async, transB}
// CHECK-NEXT: tilegpu.warpgroup_turn "pass" {barrier = 2 : i32}
// CHECK-NEXT: %[[SW:.*]] = tilegpu.warpgroup_wait 0 %[[S]]
// CHECK: arith.mulf %[[SW]]
// CHECK: tilegpu.warpgroup_turn "wait"
// CHECK-NEXT: %[[O:.*]] = tilegpu.warpgroup_dot {{.*}} {async}
// CHECK-NEXT: tilegpu.warpgroup_turn "pass"
// CHECK-NEXT: %[[OW:.*]] = tilegpu.warpgroup_wait 0 %[[O]]
// CHECK-NEXT: scf.yield %[[OW]]
// CHECK: tilegpu.warpgroup_turn "fini" {barrier = 2 : i32}
// CHECK-NEXT: return
// BAR5: tilegpu.warpgroup_turn "init" {barrier = 5 : i32}
// BAD: tilegpu-pingpong needs barrier in [1, 14], not 15
func.func @attention(%n: i32, %scale: f32) -> tensor<128x128xf32, #mma> attributes {tile.threads = 256 : i32} {
  %v = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<3x64x128xf16, #shared>
  %k = tilegpu.local_alloc {offset = 49152 : i64} : !tilegpu.memdesc<3x64x128xf16, #shared>
  %q = tilegpu.local_alloc {offset = 98304 : i64} : !tilegpu.memdesc<128x128xf16, #shared>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %s0 = arith.constant 0 : index
  %zero = arith.constant dense<0.0> : tensor<128x128xf32, #mma>
  %zs = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r = scf.for %kt = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x128xf32, #mma>) : i32 {
    %s = tilegpu.warpgroup_dot %q, %k[%s0], %zs {transB} : !tilegpu.memdesc<128x128xf16, #shared>, !tilegpu.memdesc<3x64x128xf16, #shared> -> tensor<128x64xf32, #mma>
    %sc = tile.splat %scale : tensor<128x64xf32, #mma>
    %ss = arith.mulf %s, %sc : tensor<128x64xf32, #mma>
    %p = tile.convert %ss : tensor<128x64xf32, #mma> -> tensor<128x64xf16, #mma>
    %pa = tilegpu.convert_layout %p : tensor<128x64xf16, #mma> -> tensor<128x64xf16, #dot_op>
    %o = tilegpu.warpgroup_dot %pa, %v[%s0], %acc : tensor<128x64xf16, #dot_op>, !tilegpu.memdesc<3x64x128xf16, #shared> -> tensor<128x128xf32, #mma>
    scf.yield %o : tensor<128x128xf32, #mma>
  }
  return %r : tensor<128x128xf32, #mma>
}

// -----

// One warpgroup (128 threads) has no one to take turns with: unchanged.
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [4, 1], instrShape = [64, 8]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @one_warpgroup
// CHECK-NOT: tilegpu.warpgroup_turn
// CHECK-NOT: async
// CHECK: return
func.func @one_warpgroup(%n: i32) -> tensor<64x64xf32, #mma> attributes {tile.threads = 128 : i32} {
  %b = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<64x64xf16, #shared>
  %a = tilegpu.local_alloc {offset = 8192 : i64} : !tilegpu.memdesc<64x64xf16, #shared>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<64x64xf32, #mma>
  %r = scf.for %kt = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<64x64xf32, #mma>) : i32 {
    %s = tilegpu.warpgroup_dot %a, %b, %acc : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    %o = tilegpu.warpgroup_dot %a, %b, %s : !tilegpu.memdesc<64x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<64x64xf32, #mma>
    scf.yield %o : tensor<64x64xf32, #mma>
  }
  return %r : tensor<64x64xf32, #mma>
}

// -----

// A dot under an `scf.if` would make the turns depend on a condition, and an async dot (a
// GEMM's K loop keeps its group in flight) has nothing to overlap: both loops are left alone,
// and so is a single dot (nothing to take turns between in the loop).
#mma = #tilegpu.mma<{version = 3, warpsPerCTA = [8, 1], instrShape = [64, 8]}>
#shared = #tilegpu.shared<{vec = 8, perPhase = 1, maxPhase = 8, pad = 0, order = [1, 0]}>

// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: tilegpu.warpgroup_turn
// CHECK: return
func.func @left_alone(%n: i32, %c: i1) -> (tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>) attributes {tile.threads = 256 : i32} {
  %b = tilegpu.local_alloc {offset = 0 : i64} : !tilegpu.memdesc<64x64xf16, #shared>
  %a = tilegpu.local_alloc {offset = 8192 : i64} : !tilegpu.memdesc<128x64xf16, #shared>
  %c0 = arith.constant 0 : i32
  %c64 = arith.constant 64 : i32
  %zero = arith.constant dense<0.0> : tensor<128x64xf32, #mma>
  %r1 = scf.for %kt = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tilegpu.warpgroup_dot %a, %b, %acc : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<128x64xf32, #mma>
    %o = scf.if %c -> (tensor<128x64xf32, #mma>) {
      %d = tilegpu.warpgroup_dot %a, %b, %s : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<128x64xf32, #mma>
      scf.yield %d : tensor<128x64xf32, #mma>
    } else {
      scf.yield %s : tensor<128x64xf32, #mma>
    }
    scf.yield %o : tensor<128x64xf32, #mma>
  }
  %r2 = scf.for %kt = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tilegpu.warpgroup_dot %a, %b, %acc {async} : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<128x64xf32, #mma>
    %o = tilegpu.warpgroup_dot %a, %b, %s {async} : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<128x64xf32, #mma>
    scf.yield %o : tensor<128x64xf32, #mma>
  }
  %r3 = scf.for %kt = %c0 to %n step %c64 iter_args(%acc = %zero) -> (tensor<128x64xf32, #mma>) : i32 {
    %s = tilegpu.warpgroup_dot %a, %b, %acc : !tilegpu.memdesc<128x64xf16, #shared>, !tilegpu.memdesc<64x64xf16, #shared> -> tensor<128x64xf32, #mma>
    scf.yield %s : tensor<128x64xf32, #mma>
  }
  return %r1, %r2, %r3 : tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>, tensor<128x64xf32, #mma>
}
