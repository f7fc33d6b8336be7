// An error found inside a `fn` body points into the body, with a note naming the call.
// RUN: not ph check %s 2>&1 | %FileCheck %s

@autotune(D in [64], BR in [64], BC in [32])
kernel wrong_v(Q: tensor<f16>[N, D], K: tensor<f16>[N, D], V: tensor<f16>[N, 32], O: tensor<f16>[N, D], scale: f32) {
  let row = ctx.block.x * BR
  let q = Q[row :+ BR, :]
  var acc: tile<f32>[BR, D] = 0.0
  // V has 32 columns, so acc ([BR, D]) cannot take dot(s, v) ([BR, 32]).
  // CHECK: attention.ph:20:3: error[E0301]: cannot add `tile<f32>[BR, D] = [64, 64]` and `tile<f32>[BR, 32] = [64, 32]`: shapes do not broadcast
  // CHECK-NEXT: acc += dot(s, v)
  // CHECK: attention.ph:39:5: note: in the call to `online_softmax` here
  // CHECK: fn-call-note.ph:[[@LINE+1]]:3: note: in the call to `attention` here
  attention(acc, q, K, V, scale, BR, BC)
  O[row :+ BR, :] = acc
}
