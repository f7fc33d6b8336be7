// Appends one decoding step's keys and values (one token per sequence and head) to the cache
// at each sequence's current length.
@autotune(D in [128])
kernel kv_append_step(Knew: tensor<f16>[B, H, 1, D], Vnew: tensor<f16>[B, H, 1, D],
                      Kcache: tensor<f16>[B, H, N, D], Vcache: tensor<f16>[B, H, N, D],
                      Lens: tensor<i32>[B]) {
  let b = ctx.block.y
  let h = ctx.block.x
  let pos = Lens[b]
  kv_append(Kcache[b, h, :, :], Vcache[b, h, :, :], Knew[b, h, :, :], Vnew[b, h, :, :], pos)
}
