// std/kvcache.ph: the key-value cache of autoregressive decoding.
// Keys and values of earlier tokens are kept so that each new token attends to them without
// recomputing them; decode attention reads the cache, a memory-bound pass.

/// Appends one step's keys `k` and values `v` (`[T, D]` tiles: T new tokens) to a cache at
/// row `pos`: rows `pos .. pos + T` of `Kc` and `Vc` (`[N, D]` views of one sequence and head,
/// e.g. `Kcache[b, h, :, :]`) become `k` and `v`. Rows past the cache's capacity are not written.
fn kv_append(Kc, Vc, k, v, pos) {
  Kc[pos :+ extent(k, 0), :] = k
  Vc[pos :+ extent(v, 0), :] = v
}

/// Decode attention of the query rows `q` (`[G, D]`) over the cache rows `lo .. hi` of `K`
/// and `V` (`[N, D]` views), `BC` keys a step, as one split of flash-decoding.
///
/// The rows of `q` are the `G` query heads that share one key-value head (grouped-query
/// attention; `G` = 1 is plain multi-head attention). Keys at or past `len`, the cache's
/// current length, are masked. The running state is that of `online_softmax`: `m` and `l`
/// (`[G, 1]`) start at `-1.0e30` and 0, `acc` (`[G, D]`, f32) at 0; they are left
/// unnormalized so that splits can be combined with `combine_splits`.
fn decode_attention(acc, m, l, q, K, V, scale, lo, hi, len, G, BC) {
  for kt in range(lo, hi, BC) {
    let k = K[kt :+ BC, :]
    let v = V[kt :+ BC, :]
    var s: tile<f32>[G, BC] = dot_t(q, k)
    s = s * scale
    mask_cols(s, len - kt, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
}

/// Decode attention over a paged cache, as vLLM keeps it: the keys of a sequence live in
/// pages of `PS` rows, `Kp` and `Vp` (`[P, PS, D]` views: every page of one key-value head),
/// and `pages` (a `[NP]` view of the block table) lists the sequence's pages in order. Pages
/// `p0 .. p1` of the sequence are read; keys at or past `len` are masked. `q`, `acc`, `m`,
/// `l` and `G` are as in `decode_attention`.
fn paged_decode_attention(acc, m, l, q, Kp, Vp, pages, scale, p0, p1, len, G, PS) {
  for p in range(p0, p1, 1) {
    let page = pages[p]
    let k = Kp[page, :, :]
    let v = Vp[page, :, :]
    var s: tile<f32>[G, PS] = dot_t(q, k)
    s = s * scale
    mask_cols(s, len - p * PS, -1.0e30)
    online_softmax(acc, m, l, s, v)
  }
}

/// Combines the partial results of flash-decoding's splits into the output row `o`
/// (`[1, D]`, f32): `Op` (`[S, D]`) holds each split's unnormalized output and `Mp`, `Lp`
/// (`[1, S]`) its row maximum and denominator. Each split is weighted by `exp(m_s - max m)`,
/// so a split that saw only masked keys counts for nothing.
fn combine_splits(o, Op, Mp, Lp) {
  let mmax = rowmax(Mp)
  var w = exp(Mp - mmax)
  let denom = rowsum(w * Lp)
  o = dot(w, Op)
  o = o / denom
}
