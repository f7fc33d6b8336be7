// Rotary position embeddings, rotate-half form (GPT-NeoX, LLaMA), 8 positions per CTA.
kernel rotary(X: tensor<f32>[T, 128], Cos: tensor<f32>[T, 64], Sin: tensor<f32>[T, 64], Y: tensor<f32>[T, 128]) {
  let t = ctx.block.x * 8
  var x = X[t :+ 8, :]
  rope(x, Cos[t :+ 8, :], Sin[t :+ 8, :])
  Y[t :+ 8, :] = x
}
