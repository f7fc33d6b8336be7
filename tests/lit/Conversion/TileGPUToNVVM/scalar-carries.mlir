// RUN: ph-opt %s --tilegpu-scalar-carries | %FileCheck %s
// REQUIRES: mlir
// A loop-carried struct read only by extractvalue becomes one block argument per element: the
// entry passes a constant's elements, the latch the values its insertvalue chain inserted (the
// chain goes), and the reads after the loop read the arguments. (PH_GPU_SCALAR_CARRIES=1 runs
// it at the end of to-nvvm; off by default: the PTX's registers come out in another order.)

// CHECK-LABEL: llvm.func @carry
// CHECK: llvm.extractvalue %{{.*}}[0] : !llvm.struct<(f32, f32)>
// CHECK: llvm.br ^[[HEAD:.*]](%{{.*}}, %{{.*}}, %{{.*}} : i32, f32, f32)
// CHECK: ^[[HEAD]](%[[I:.*]]: i32, %[[A:.*]]: f32, %[[B:.*]]: f32):
// CHECK-NOT: llvm.extractvalue
// CHECK: %[[A2:.*]] = llvm.fadd %[[A]], %{{.*}} : f32
// CHECK: %[[B2:.*]] = llvm.fmul %[[B]], %{{.*}} : f32
// CHECK-NOT: llvm.insertvalue
// CHECK: llvm.br ^[[HEAD]](%{{.*}}, %[[A2]], %[[B2]] : i32, f32, f32)
// CHECK: llvm.fadd %[[A]], %[[B]] : f32
llvm.func @carry(%n: i32, %x: f32) -> f32 {
  %c0 = llvm.mlir.constant(0 : i32) : i32
  %c1 = llvm.mlir.constant(1 : i32) : i32
  %zero = llvm.mlir.zero : !llvm.struct<(f32, f32)>
  llvm.br ^head(%c0, %zero : i32, !llvm.struct<(f32, f32)>)
^head(%i: i32, %acc: !llvm.struct<(f32, f32)>):
  %done = llvm.icmp "sge" %i, %n : i32
  llvm.cond_br %done, ^exit, ^body
^body:
  %a = llvm.extractvalue %acc[0] : !llvm.struct<(f32, f32)>
  %b = llvm.extractvalue %acc[1] : !llvm.struct<(f32, f32)>
  %a2 = llvm.fadd %a, %x : f32
  %b2 = llvm.fmul %b, %x : f32
  %u = llvm.mlir.undef : !llvm.struct<(f32, f32)>
  %s0 = llvm.insertvalue %a2, %u[0] : !llvm.struct<(f32, f32)>
  %s1 = llvm.insertvalue %b2, %s0[1] : !llvm.struct<(f32, f32)>
  %next = llvm.add %i, %c1 : i32
  llvm.br ^head(%next, %s1 : i32, !llvm.struct<(f32, f32)>)
^exit:
  %ra = llvm.extractvalue %acc[0] : !llvm.struct<(f32, f32)>
  %rb = llvm.extractvalue %acc[1] : !llvm.struct<(f32, f32)>
  %r = llvm.fadd %ra, %rb : f32
  llvm.return %r : f32
}

// A struct something else reads (here the return) stays a struct.
// CHECK-LABEL: llvm.func @kept
// CHECK: ^{{.*}}(%{{.*}}: !llvm.struct<(f32, f32)>):
llvm.func @kept(%s: !llvm.struct<(f32, f32)>) -> !llvm.struct<(f32, f32)> {
  llvm.br ^next(%s : !llvm.struct<(f32, f32)>)
^next(%t: !llvm.struct<(f32, f32)>):
  llvm.return %t : !llvm.struct<(f32, f32)>
}
