// Rotary position embeddings of adjacent pairs (GPT-J, llama.cpp), rotated in X itself.
kernel rotary_pairs(X: tensor<f32>[T, 64, 2], Cos: tensor<f32>[T, 64, 1], Sin: tensor<f32>[T, 64, 1]) {
  let t = ctx.block.x * 8
  rope_pairs(X[t :+ 8, :, 0], X[t :+ 8, :, 1], Cos[t :+ 8, :, 0], Sin[t :+ 8, :, 0])
}
