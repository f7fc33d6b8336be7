// RUN: ph-opt %s --split-input-file --tilegpu-direct-vector-to-llvm | %FileCheck %s
// REQUIRES: mlir
// tilegpu-direct-vector-to-llvm: the vector ops the GPU lowerings make (from_elements of rank 1
// or 2, the rank-2 ones unrolled first; extract and insert of rank 1 or 2; bitcast of rank 1) go
// to the conversion patterns after the ops nobody uses are erased, without the greedy rewrite
// step of convert-vector-to-llvm (which also folds constants: an `arith.addi` of two constants
// stays here). A module with any other vector op (a broadcast) takes that greedy step first,
// as upstream does, folding included.

// CHECK-LABEL: func.func @direct
// CHECK-NOT: arith.muli
// CHECK: %[[SUM:.*]] = arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: llvm.insertelement
// CHECK: llvm.insertelement
// CHECK: llvm.bitcast %{{.*}} : vector<2xf16> to vector<1xi32>
// CHECK: llvm.extractelement
// CHECK-NOT: vector.
// CHECK: return
func.func @direct(%a: f16, %b: f16, %x: i32) -> (i32, i32) {
  %dead = arith.addi %x, %x : i32
  %dead2 = arith.muli %dead, %x : i32
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %v = vector.from_elements %a, %b : vector<2xf16>
  %w = vector.bitcast %v : vector<2xf16> to vector<1xi32>
  %e = vector.extract %w[0] : i32 from vector<1xi32>
  return %e, %s : i32, i32
}

// -----

// CHECK-LABEL: func.func @fallback
// CHECK-NOT: arith.addi
// CHECK: llvm.shufflevector
// CHECK-NOT: vector.broadcast
// CHECK: return
func.func @fallback(%a: f32) -> (vector<4xf32>, i32) {
  %c1 = arith.constant 1 : i32
  %c2 = arith.constant 2 : i32
  %s = arith.addi %c1, %c2 : i32
  %v = vector.broadcast %a : f32 to vector<4xf32>
  return %v, %s : vector<4xf32>, i32
}

// -----

// mma.sync's A fragment, vector<4x2xf16>: unrolled into rows and converted here, no vector op
// left; a dead op inside a region-holding op that is itself dead (an `scf.if` without results)
// is not freed twice (ops with regions are left to the later passes).
// CHECK-LABEL: func.func @fragment
// CHECK-NOT: vector.
// CHECK: llvm.insertvalue
// CHECK: scf.if
// CHECK: return
func.func @fragment(%a: f16, %b: f16, %c: i1, %x: i32) -> vector<2xf16> {
  %f = vector.from_elements %a, %b, %a, %b, %b, %a, %b, %a : vector<4x2xf16>
  %r = vector.extract %f[2] : vector<2xf16> from vector<4x2xf16>
  scf.if %c {
    %d = arith.addi %x, %x : i32
    %e = arith.muli %d, %x : i32
  }
  return %r : vector<2xf16>
}
