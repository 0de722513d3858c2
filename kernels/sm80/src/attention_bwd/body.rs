//! The FlashAttention backward kernels' bodies (see the module's plan):
//! FlashAttention-2's products on the SM80 instructions, every fragment
//! address from the backward's maps (`crate::maps`: the tiles are rows of
//! halves swizzled as the forward's), every gradient but the atomic dQ
//! summed by one block.

use super::{
    bwd_dq_coord, bwd_frag, bwd_kv_coord, bwd_ldsm_ds_a, bwd_ldsm_keys_b, bwd_ldsm_keys_v,
    bwd_ldsm_ps_t, bwd_ldsm_rows_a, bwd_ldsm_rows_b, bwd_ps_at, bwd_s_coord, BWD_CONVERT_THREADS,
    BWD_DOT_THREADS, BWD_KEYS, BWD_ROWS, BWD_STAGES, BWD_THREADS,
};
use crate::attention::body::{copy_tile, mma_pair, narrow, row16, FlashProblem};
use crate::maps::{flash_copy, flash_copy_xor, FLASH_THREADS};
use layout_core::atom::{SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N};
use layout_core::instantiate;
use layout_device::{
    block_dim, block_idx_xyz, cp_async_commit, cp_async_wait, cp_async_wait_all, each, exp2, f16x2,
    f32x2_of_f16x2, fma, grid_dim, in_loop_u32, sync_threads, thread_idx, trap, Global, GlobalMut,
    LdsmInstr, SharedBuffer, Smem, F4,
};

const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// Where `(head h, row i)` of a sequence's LSE and Dot lies: (batch,
/// heads, seq_q) in planes, (heads, total rows) packed (the forward's).
#[inline(always)]
fn stat_at(p: &FlashProblem, b: usize, q0: usize, h: usize, i: usize) -> usize {
    if p.cu_q.is_empty() {
        (b * p.heads + h) * p.seq_q + i
    } else {
        h * p.seq_q + q0 + i
    }
}

/// The sequence's first rows of Q (and O, dO, dQ) and of K (V, dK, dV) in
/// the tensors' rows of heads: `b * seq` in planes, its offsets packed.
#[inline(always)]
fn starts(p: &FlashProblem, b: usize, q0: usize, k0: usize) -> (usize, usize) {
    if p.cu_q.is_empty() {
        (b * p.seq_q, b * p.seq_k)
    } else {
        (q0, k0)
    }
}

/// The checks both gradient kernels make of the launch: 32-bit sequences,
/// kv_heads dividing heads.
#[inline(always)]
fn check_problem(p: &FlashProblem) {
    if p.seq_q > i32::MAX as usize
        || p.seq_k > i32::MAX as usize
        || p.kv_heads == 0
        || p.heads % p.kv_heads != 0
    {
        trap()
    }
}

/// Whether query `qi` sees key `kj` (the forward's mask: keys `qi + lower
/// ..= qi + offset` when causal, all otherwise), both in the sequence.
#[inline(always)]
fn visible<const CAUSAL: bool>(
    (qi, kj): (usize, usize),
    (seq_q, seq_k): (usize, usize),
    (offset, lower): (i32, i32),
) -> bool {
    let inside = qi < seq_q && kj < seq_k;
    if CAUSAL {
        let (q, k) = (qi as i64, kj as i64);
        inside && k <= q + offset as i64 && k >= q + lower as i64
    } else {
        inside
    }
}

/// Head `h` of a sequence's rows `start ..` (`rows` of them) in a (rows,
/// heads, D) f16 tensor, as a matrix of `D / 8` chunks a row, checked once.
#[inline(always)]
#[instantiate((64), (128))]
fn head_matrix<const D: usize>(
    x: Global<F4>,
    start: usize,
    rows: u32,
    (heads, h): (usize, usize),
) -> layout_device::GlobalRows<F4> {
    x.rows((start * heads + h) * D / 8, rows, heads * D / 8, D / 8)
}

/// Dot = rowsum(dO ∘ O) of each (row, head) of `rows` rows of `heads`
/// heads of dimension `d` (f16, rows of heads · d), into `dot` as LSE is
/// laid out: (batch, heads, seq_q) for planes of `seq_q` rows, (heads,
/// rows) for packed sequences (`seq_q` 0). Thread t of the grid takes row
/// t / heads, head t % heads.
/// With a `dq_acc` of rows · heads · `d` floats (the atomic dQ's sums, Q's
/// layout, 16-byte aligned), each warp also zeroes its threads' rows and
/// heads' of them (an empty `dq_acc`: nothing).
#[inline(always)]
pub fn flash_bwd_dot(
    (o, d_o): (Global<F4>, Global<F4>),
    (dot, dq_acc): (GlobalMut<f32>, GlobalMut<f32>),
    (rows, heads, d, seq_q): (usize, usize, usize, usize),
) {
    if d % 8 != 0 || block_dim().0 != BWD_DOT_THREADS {
        trap()
    }
    let t = block_idx_xyz().0 * BWD_DOT_THREADS + thread_idx();
    if !dq_acc.is_empty() {
        // The warp's 32 (row, head) pairs' sums, zeroed together: lane l
        // takes 16-byte words l, l + 32, ... of them (coalesced).
        let acc = dq_acc.cast::<F4>();
        let first = t - t % 32;
        let end = (first + 32).min(rows * heads) * d / 4;
        let mut i = first * d / 4 + t % 32;
        while i < end {
            acc.st(i, F4::default());
            i += 32;
        }
    }
    if heads == 0 || t >= rows * heads {
        return;
    }
    let (row, h) = (t / heads, t % heads);
    let base = (row * heads + h) * d / 8;
    let mut s = 0f32;
    for c in 0..d / 8 {
        let (x, y) = (o.ld(base + c), d_o.ld(base + c));
        each::<4>(|k| {
            let (a, b) = (
                f32x2_of_f16x2(x.0[k].to_bits()),
                f32x2_of_f16x2(y.0[k].to_bits()),
            );
            s += a.0 * b.0 + a.1 * b.1;
        });
    }
    let at = match row.checked_div(seq_q) {
        Some(plane) => (plane * heads + h) * seq_q + row % seq_q,
        None => h * rows + row,
    };
    dot.st(at, s);
}

/// `acc[p]` (a warp's 32 x 32: 2 x 4 atoms of [`BwdRowsMma`]) = A·Bᵀ over
/// `D` for each of the `P` products `tiles[p]`: A from the swizzled
/// [`BWD_ROWS`] x `D` tile (Q or dO), B from the swizzled [`BWD_KEYS`] x
/// `D` tile (K or V) as it lies. The products share their addresses and
/// run interleaved, k-step by k-step (more MMAs in flight a warp). The
/// thread's `ldmatrix` rows are derived from `tid` here (a k-step by XOR,
/// an atom by a constant added to the row masked into its block), so that
/// none is held across the tile loop.
#[inline(always)]
#[instantiate((64, 1), (64, 2), (128, 1), (128, 2))]
fn rows_times_keys<const D: usize, const P: usize>(
    acc: &mut [[f32; 32]; P],
    tiles: [(Smem, Smem); P],
    tid: u32,
) {
    let t = in_loop_u32(tid) as usize;
    let (la, lb) = (bwd_ldsm_rows_a::<D>(t, 0, 0), bwd_ldsm_keys_b::<D>(t, 0, 0));
    each::<{ D / 16 }>(
        #[inline(always)]
        |s| {
            let (a0, b0) = (
                row16((la ^ (16 * s)) / 2, 16 * D),
                row16((lb ^ (16 * s)) / 2, 32 * D),
            );
            each::<P>(
                #[inline(always)]
                |p| {
                    let (wa, wb) = tiles[p];
                    let mut fa = [[0u32; 4]; 2];
                    each::<2>(
                        #[inline(always)]
                        |i| fa[i] = SM75_U32x4_LDSM_N::ldsm(wa, a0 + i * 16 * D),
                    );
                    each::<2>(
                        #[inline(always)]
                        |j2| {
                            let b = SM75_U32x4_LDSM_N::ldsm(wb, b0 + j2 * 32 * D);
                            mma_pair(&mut acc[p], bwd_frag, &fa, b, j2);
                        },
                    );
                },
            );
        },
    );
}

/// `acc[p]` (a warp's 32 keys by `D / 2`: 2 x `D / 16` atoms of
/// [`BwdKeysMma`]) += Aᵀ·B over the tile's rows for both products
/// `tiles[p]` (dV += Pᵀ·dO, dK += dSᵀ·Q), interleaved: A from the
/// swizzled shared P or dS tile (rows of query) read transposed, B from
/// the swizzled [`BWD_ROWS`] x `D` tile (dO or Q) read transposed.
#[inline(always)]
#[instantiate((64), (128))]
fn keys_times_rows<const D: usize>(acc: [&mut [f32]; 2], tiles: [(Smem, Smem); 2], tid: u32) {
    let t = in_loop_u32(tid) as usize;
    let (la, lb) = (bwd_ldsm_ps_t(t, 0, 0), bwd_ldsm_rows_b::<D>(t, 0, 0));
    let [acc0, acc1] = acc;
    each::<{ BWD_ROWS / 16 }>(
        #[inline(always)]
        |kk| {
            let mut fa = [[[0u32; 4]; 2]; 2];
            each::<2>(
                #[inline(always)]
                |p| {
                    each::<2>(
                        #[inline(always)]
                        |i| {
                            let at = row16((la ^ (64 * i)) / 2, 8 * BWD_KEYS) + kk * 8 * BWD_KEYS;
                            fa[p][i] = SM75_U16x8_LDSM_T::ldsm(tiles[p].0, at)
                        },
                    )
                },
            );
            each::<{ D / 32 }>(
                #[inline(always)]
                |j2| {
                    let at = row16((lb ^ (32 * j2)) / 2, 8 * D) + kk * 8 * D;
                    let (b0, b1) = (
                        SM75_U16x8_LDSM_T::ldsm(tiles[0].1, at),
                        SM75_U16x8_LDSM_T::ldsm(tiles[1].1, at),
                    );
                    mma_pair(acc0, bwd_frag, &fa[0], b0, j2);
                    mma_pair(acc1, bwd_frag, &fa[1], b1, j2);
                },
            );
        },
    );
}

/// `acc` (a warp's 32 rows by `D / 4`: 2 x `D / 32` atoms of
/// [`BwdRowsMma`]) = dS·K over the block's keys: dS from its swizzled
/// shared tile, K from the swizzled [`BWD_KEYS`] x `D` tile `wk` read
/// transposed.
#[inline(always)]
#[instantiate((64), (128))]
fn ds_times_keys<const D: usize>(acc: &mut [f32], (wds, wk): (Smem, Smem), tid: u32) {
    let t = in_loop_u32(tid) as usize;
    let (la, lb) = (bwd_ldsm_ds_a(t, 0, 0), bwd_ldsm_keys_v::<D>(t, 0, 0));
    each::<{ BWD_KEYS / 16 }>(|kk| {
        let a0 = row16((la ^ (16 * kk)) / 2, 16 * BWD_KEYS);
        let mut fa = [[0u32; 4]; 2];
        each::<2>(|i| fa[i] = SM75_U32x4_LDSM_N::ldsm(wds, a0 + i * 16 * BWD_KEYS));
        each::<{ D / 64 }>(|j2| {
            let at = row16((lb ^ (64 * j2)) / 2, 8 * D) + kk * 8 * D;
            let b = SM75_U16x8_LDSM_T::ldsm(wk, at);
            mma_pair(acc, bwd_frag, &fa, b, j2);
        });
    });
}

/// Accumulator `a`'s (value, M-atom, N-atom) in a [`bwd_frag`] fragment.
#[inline(always)]
const fn frag_of(a: usize) -> (usize, usize, usize) {
    (a % 4, (a / 4) % 2, a / 8)
}

/// A thread's S-shaped values (P or dS) as f16 pairs (`pairs[t]`: values
/// `2 t` and `2 t + 1`, one row's adjacent keys) into the swizzled shared
/// tile `w` (rows of query, [`BWD_KEYS`] halves), at [`bwd_ps_at`]: the
/// thread's first, an N-atom by XOR and an M-atom or a row half by a
/// constant.
#[inline(always)]
fn store_ps(w: Smem, pairs: &[u32; 16], tid: u32) {
    let base = bwd_ps_at(in_loop_u32(tid) as usize, (0, 0, 0));
    each::<16>(|t| {
        let (x, i, j) = frag_of(2 * t);
        let at = (base ^ (32 * j)) + BWD_KEYS * (8 * (x / 2) + 32 * i);
        w.st(
            (at / 2) & (BWD_ROWS * BWD_KEYS / 2 - 1),
            f32::from_bits(pairs[t]),
        );
    });
}

/// `vals` as f16 pairs (values `2 t` and `2 t + 1`).
#[inline(always)]
fn pack(vals: &[f32; 32]) -> [u32; 16] {
    let mut out = [0u32; 16];
    each::<16>(|t| out[t] = f16x2(vals[2 * t], vals[2 * t + 1]));
    out
}

/// Where a tile of S lies and what masks it: its first query row and key
/// (`at`), the sequence's lengths, the mask's bounds (the forward's:
/// query i sees keys i + lower ..= i + offset when causal) and scale ·
/// log2 e.
#[derive(Clone, Copy)]
struct Tile {
    at: (usize, usize),
    seq: (usize, usize),
    bounds: (i32, i32),
    scale_log2: f32,
}

impl Tile {
    /// Whether every query row of the [`BWD_ROWS`] x [`BWD_KEYS`]
    /// tile sees every key of it (no mask to compute).
    #[inline(always)]
    fn whole<const CAUSAL: bool>(&self) -> bool {
        let ((m0, n0), (seq_q, seq_k), (offset, lower)) = (self.at, self.seq, self.bounds);
        m0 + BWD_ROWS <= seq_q
            && n0 + BWD_KEYS <= seq_k
            && (!CAUSAL || {
                let (q_lo, q_hi) = (m0 as i64, (m0 + BWD_ROWS - 1) as i64);
                let (k_lo, k_hi) = (n0 as i64, (n0 + BWD_KEYS - 1) as i64);
                k_hi <= q_lo + offset as i64 && k_lo >= q_hi + lower as i64
            })
    }
}

/// A tile's P and dS as f16 pairs ([`pack`]), both kernels' common step:
/// S = Q·Kᵀ (tiles `wq`, `wk`), P = exp(scale · S - LSE) where the query
/// sees the key and 0 elsewhere, dP = dO·Vᵀ (`wo`, `wv`), dS = P ∘ (dP -
/// Dot), P rounded to f16 first (as the products take it; 16 registers,
/// not 32, live while dP is computed). `lse` (times log2 e) and `dot`:
/// the thread's rows', value x's at `2 i + x / 2` of M-atom i. The
/// thread's value x lies at its value 0 plus thread 0's value x.
#[inline(always)]
#[instantiate((64, false), (64, true), (128, false), (128, true))]
fn p_and_ds<const D: usize, const CAUSAL: bool>(
    (wq, wk, wo, wv): (Smem, Smem, Smem, Smem),
    (lse, dot): ([f32; 4], [f32; 4]),
    tile: Tile,
    tid: u32,
) -> ([u32; 16], [u32; 16]) {
    let ((m0, n0), seq, bounds) = (tile.at, tile.seq, tile.bounds);
    let (row0, key0) = bwd_s_coord(in_loop_u32(tid) as usize, (0, 0, 0));
    // At d = 64 S and dP run interleaved (S's 32 floats live beside dP's);
    // at 128 dP runs after P is packed into 16 registers.
    let mut sp = [[0f32; 32]; 2];
    if D <= 64 {
        rows_times_keys::<D, 2>(&mut sp, [(wq, wk), (wo, wv)], tid);
    } else {
        let mut s1 = [[0f32; 32]; 1];
        rows_times_keys::<D, 1>(&mut s1, [(wq, wk)], tid);
        sp[0] = s1[0];
    }
    let [mut pr, mut ds] = sp;
    // One FFMA and one exp2 a value; the mask only where the tile is not
    // whole (a branch the block takes alike).
    let p_of = |a: usize, s: f32| {
        let (x, i, _) = frag_of(a);
        exp2(fma(s, tile.scale_log2, -lse[2 * i + x / 2]))
    };
    if tile.whole::<CAUSAL>() {
        each::<32>(|a| pr[a] = p_of(a, pr[a]));
    } else {
        each::<32>(|a| {
            let (dr, dc) = bwd_s_coord(0, frag_of(a));
            let seen = visible::<CAUSAL>((m0 + row0 + dr, n0 + key0 + dc), seq, bounds);
            pr[a] = if seen { p_of(a, pr[a]) } else { 0.0 };
        });
    }
    let pp = pack(&pr);
    if D > 64 {
        let mut d1 = [[0f32; 32]; 1];
        rows_times_keys::<D, 1>(&mut d1, [(wo, wv)], tid);
        ds = d1[0];
    }
    each::<32>(|a| {
        let (x, i, _) = frag_of(a);
        let (p0, p1) = f32x2_of_f16x2(pp[a / 2]);
        ds[a] = if a % 2 == 0 { p0 } else { p1 } * (ds[a] - dot[2 * i + x / 2]);
    });
    (pp, pack(&ds))
}

/// A thread's dK or dV accumulators ([`BwdKeysMma`]) times `scale`, as f16
/// pairs into the rows `row0 + r < rows` of `out` (rows of `ld` halves,
/// column `col0`).
#[inline(always)]
#[instantiate((64), (128))]
fn store_keys<const D: usize>(
    acc: &[f32],
    scale: f32,
    out: GlobalMut<u32>,
    (row0, rows, ld, col0): (usize, usize, usize, usize),
    tid: usize,
) {
    let (r0, c0) = bwd_kv_coord::<D>(tid, (0, 0, 0));
    each::<{ D / 4 }>(|t| {
        let (x, i, j) = frag_of(2 * t);
        let (dr, dc) = bwd_kv_coord::<D>(0, (x, i, j));
        let (r, c) = (r0 + dr, c0 + dc);
        if r < rows.saturating_sub(row0) {
            let v = f16x2(acc[2 * t] * scale, acc[2 * t + 1] * scale);
            out.st(((row0 + r) * ld + col0 + c) / 2, v);
        }
    });
}

/// dK and dV of the block's [`BWD_KEYS`] keys of one K/V head (grid x:
/// key block, y: K/V head, z: sequence), summed over every
/// [`BWD_ROWS`]-row query tile of every query head of its group; head
/// dimension `D`, shared memory `B` (`bwd_kv_smem_bytes(D)`),
/// [`BWD_THREADS`] threads. With `DQ`, each query tile's dQ terms of
/// the block's keys (dS·K, unscaled) are added into `dq_acc` (f32, Q's
/// layout) by atomics; without, `dq_acc` is not touched.
#[inline(always)]
#[instantiate(
    (64, false, false),
    (64, true, false),
    (128, false, false),
    (128, true, false),
    (64, false, true),
    (64, true, true),
    (128, false, true),
    (128, true, true)
)]
pub fn flash_bwd_dkdv<B: SharedBuffer, const D: usize, const CAUSAL: bool, const DQ: bool>(
    p: FlashProblem,
    (q, k, v, d_o): (Global<F4>, Global<F4>, Global<F4>, Global<F4>),
    (lse, dot): (Global<f32>, Global<f32>),
    (dk, dv): (GlobalMut<u32>, GlobalMut<u32>),
    dq_acc: GlobalMut<f32>,
) {
    if block_dim().0 != BWD_THREADS {
        trap()
    }
    let tid = thread_idx();
    let (nb, h_kv, b) = block_idx_xyz();
    check_problem(&p);
    let Some(sq) = p.sequence(b) else { trap() };
    let (seq_q, seq_k, offset, lower) = (sq.seq_q, sq.seq_k, sq.offset, sq.lower);
    let n0 = nb * BWD_KEYS;
    if n0 >= seq_k {
        if p.cu_q.is_empty() || seq_k > grid_dim().0 * BWD_KEYS {
            // Planes: a block past the keys is a launch error; packed: so
            // is a grid short of the longest sequence.
            trap()
        }
        return;
    }
    let group = p.heads / p.kv_heads;
    let (q_start, k_start) = starts(&p, b, sq.q0, sq.k0);
    let (ld, ld_kv) = (p.heads * D, p.kv_heads * D);
    let (seq_q32, seq_k32) = (narrow(seq_q), narrow(seq_k));
    // Shared memory (words): K's tile, V's, three stages of Q's, three of
    // dO's, P, dS, then three stages of LSE (times log2 e) and Dot.
    let (kw, rw, pw) = (BWD_KEYS * D / 2, BWD_ROWS * D / 2, BWD_ROWS * BWD_KEYS / 2);
    let (k_at, v_at) = (0, kw);
    let q_at = |s: usize| 2 * kw + s * rw;
    let o_at = |s: usize| 2 * kw + (BWD_STAGES + s) * rw;
    let wp = Smem::window::<B>(2 * kw + 2 * BWD_STAGES * rw, pw);
    let wds = Smem::window::<B>(2 * kw + 2 * BWD_STAGES * rw + pw, pw);
    let stats = 2 * kw + 2 * BWD_STAGES * rw + 2 * pw;
    let ws = |s: usize| Smem::window::<B>(stats + s * 2 * BWD_ROWS, 2 * BWD_ROWS);
    let (wk, wv) = (Smem::window::<B>(k_at, kw), Smem::window::<B>(v_at, kw));
    // Warps 0-3 copy K's tile and then Q's, warps 4-7 V's and dO's, each
    // half by the forward's map of its 128 threads.
    let (half, ct) = (tid / FLASH_THREADS, tid % FLASH_THREADS);
    let ck = flash_copy::<BWD_KEYS, D>(seq_k, ld_kv, nb, ct);
    let kv_src = head_matrix::<D>(
        if half == 0 { k } else { v },
        k_start,
        seq_k32,
        (p.kv_heads, h_kv),
    );
    copy_tile::<B, { BWD_KEYS * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
        ck,
        kv_src.column(ck.col),
        narrow(ck.row),
        narrow(ck.shared),
        if half == 0 { k_at } else { v_at },
    );
    cp_async_commit();

    // The query tiles that see a key of the block: from the first row
    // whose upper bound reaches n0, to the last whose lower bound is at
    // most the block's last key.
    let q_tiles = seq_q.div_ceil(BWD_ROWS);
    let (first, end) = if CAUSAL {
        let from = n0 as i64 - offset as i64;
        let first = if from > 0 {
            from as usize / BWD_ROWS
        } else {
            0
        };
        let end = if lower == i32::MIN {
            q_tiles
        } else {
            let to = (n0 + BWD_KEYS - 1) as i64 - lower as i64;
            if to < 0 {
                0
            } else {
                (to as usize / BWD_ROWS + 1).min(q_tiles)
            }
        };
        (first.min(end), end)
    } else {
        (0, q_tiles)
    };
    let per_head = end - first;
    // (A sequence without rows has no query tile: the map of one row
    // stands in, unused.)
    let cq = flash_copy::<BWD_ROWS, D>(seq_q.max(1), ld, 0, ct);
    // Q's (or dO's) rows of the sequence, every head: checked once, a
    // tile's head then a column of it.
    let q_rows = (if half == 0 { q } else { d_o }).rows(q_start * ld / 8, seq_q32, ld / 8, ld / 8);
    let mut acc_dk = [0f32; D / 2];
    let mut acc_dv = [0f32; D / 2];
    // This thread's LSE (threads 0-63) or Dot (64-127) row of a tile.
    let (r, which) = (tid % BWD_ROWS, tid / BWD_ROWS);
    let scale_log2 = p.scale * LOG2_E;
    let tid32 = narrow(tid);
    // Step i fetches query tile i (its Q and dO by cp.async into stage i %
    // 3, one group, and this thread's LSE or Dot value into the stage's
    // rows; a row past the sequence reads nothing: its P is masked) and,
    // from step 1 on, computes tile i - 1 once its group is in. The stage
    // it fetches into was left by tile i - 3, computed in step i - 2,
    // which every warp finished before the first sync of step i - 1 (so
    // no sync ends a step); P and dS are written after a step's first
    // sync, which every warp reaches only once done with the last step's.
    let total = group * per_head;
    for i in 0..total + 1 {
        let s = i % BWD_STAGES;
        let x = if i < total {
            let (g, m) = (i / per_head, first + i % per_head);
            let h = h_kv * group + g;
            copy_tile::<B, { BWD_ROWS * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
                cq,
                q_rows.column(h * D / 8 + cq.col),
                narrow(cq.row + m * BWD_ROWS),
                narrow(cq.shared),
                if half == 0 { q_at(s) } else { o_at(s) },
            );
            let row = m * BWD_ROWS + r;
            match (row < seq_q, which) {
                (true, 0) => lse.ld(stat_at(&p, b, sq.q0, h, row)) * LOG2_E,
                (true, 1) => dot.ld(stat_at(&p, b, sq.q0, h, row)),
                _ => 0.0,
            }
        } else {
            0.0
        };
        cp_async_commit();
        if which < 2 {
            ws(s).st(which * BWD_ROWS + r, x);
        }
        let Some(n) = i.checked_sub(1) else {
            continue;
        };
        let (s, m) = (n % BWD_STAGES, first + n % per_head);
        let h = h_kv * group + n / per_head;
        let (wq, wo, ws) = (
            Smem::window::<B>(q_at(s), rw),
            Smem::window::<B>(o_at(s), rw),
            ws(s),
        );
        // Tile n (and K and V) landed, its LSE and Dot stored.
        cp_async_wait::<1>();
        sync_threads();
        let m0 = m * BWD_ROWS;
        // The thread's rows' LSE and Dot (value x's row: x / 2 and the
        // M-atom), read once.
        let row0 = bwd_s_coord(in_loop_u32(tid32) as usize, (0, 0, 0)).0;
        let stat = |a: usize, from: usize| {
            let (dr, _) = bwd_s_coord(0, (2 * (a % 2), a / 2, 0));
            ws.ld((from + row0 + dr) & (2 * BWD_ROWS - 1))
        };
        let stats = (
            [0, 1, 2, 3].map(|a| stat(a, 0)),
            [0, 1, 2, 3].map(|a| stat(a, BWD_ROWS)),
        );
        let tile = Tile {
            at: (m0, n0),
            seq: (seq_q, seq_k),
            bounds: (offset, lower),
            scale_log2,
        };
        let (pp, dsp) = p_and_ds::<D, CAUSAL>((wq, wk, wo, wv), stats, tile, tid32);
        store_ps(wp, &pp, tid32);
        store_ps(wds, &dsp, tid32);
        // The tile's P and dS are whole.
        sync_threads();
        // dV += Pᵀ·dO, dK += dSᵀ·Q.
        keys_times_rows::<D>([&mut acc_dv, &mut acc_dk], [(wp, wo), (wds, wq)], tid32);
        if DQ {
            // dQ += dS·K, by atomics; rows past seq_q are left out (their
            // dS is 0).
            let mut acc = [0f32; D / 4];
            ds_times_keys::<D>(&mut acc, (wds, wk), tid32);
            // Each of the thread's 4 rows (value x / 2 and the M-atom) is
            // checked once and added into as a run of the row's D sums,
            // its columns masked into it (they lie in it).
            let (qr, qc) = bwd_dq_coord::<D>(in_loop_u32(tid32) as usize, (0, 0, 0));
            each::<4>(|r| {
                let (x, i) = (2 * (r % 2), r / 2);
                let row = m0 + qr + bwd_dq_coord::<D>(0, (x, i, 0)).0;
                if row < seq_q {
                    let run = dq_acc.add_run::<D>(((q_start + row) * p.heads + h) * D);
                    each::<{ D / 32 }>(|j| {
                        each::<2>(|e| {
                            let dc = bwd_dq_coord::<D>(0, (x + e, i, j)).1;
                            run.atomic_add((qc + dc) & (D - 1), acc[bwd_frag(x + e, i, j)]);
                        })
                    });
                }
            });
        }
    }
    // (Without a query tile, K's and V's copies may still be in flight.)
    cp_async_wait_all();
    let at = (k_start + n0, seq_k + k_start, ld_kv, h_kv * D);
    store_keys::<D>(&acc_dk, p.scale, dk, at, tid);
    store_keys::<D>(&acc_dv, 1.0, dv, at, tid);
}

/// dQ of the block's [`BWD_ROWS`] query rows of one head (grid x: row
/// tile, y: head, z: sequence) over its [`BWD_KEYS`]-key blocks; head
/// dimension `D`, shared memory `B` (`bwd_smem_bytes(D)`),
/// [`BWD_THREADS`] threads. Each key block's P and dS as the dK/dV
/// kernels compute them ([`p_and_ds`]), dS through shared memory, dQ +=
/// dS·K in registers (2 x 4 warps over the rows and `D`).
#[inline(always)]
#[instantiate((64, false), (64, true), (128, false), (128, true))]
pub fn flash_bwd_dq<B: SharedBuffer, const D: usize, const CAUSAL: bool>(
    p: FlashProblem,
    (q, k, v, d_o): (Global<F4>, Global<F4>, Global<F4>, Global<F4>),
    (lse, dot): (Global<f32>, Global<f32>),
    dq: GlobalMut<u32>,
) {
    if block_dim().0 != BWD_THREADS {
        trap()
    }
    let tid = thread_idx();
    let (mb, h, b) = block_idx_xyz();
    check_problem(&p);
    let Some(sq) = p.sequence(b) else { trap() };
    let (seq_q, seq_k, offset, lower) = (sq.seq_q, sq.seq_k, sq.offset, sq.lower);
    let m0 = mb * BWD_ROWS;
    if m0 >= seq_q {
        if p.cu_q.is_empty() || seq_q > grid_dim().0 * BWD_ROWS {
            trap()
        }
        return;
    }
    let h_kv = h / (p.heads / p.kv_heads);
    let (q_start, k_start) = starts(&p, b, sq.q0, sq.k0);
    let (ld, ld_kv) = (p.heads * D, p.kv_heads * D);
    let (seq_q32, seq_k32) = (narrow(seq_q), narrow(seq_k));
    // Shared memory (words): Q's tile, dO's, two stages of K's, two of
    // V's, then dS.
    let (kw, rw, pw) = (BWD_KEYS * D / 2, BWD_ROWS * D / 2, BWD_ROWS * BWD_KEYS / 2);
    let (q_at, o_at) = (0, rw);
    let k_at = |s: usize| 2 * rw + s * kw;
    let v_at = |s: usize| 2 * rw + (2 + s) * kw;
    let (wq, wo) = (Smem::window::<B>(q_at, rw), Smem::window::<B>(o_at, rw));
    let wds = Smem::window::<B>(2 * rw + 4 * kw, pw);
    // Warps 0-3 copy Q's tile and then K's, warps 4-7 dO's and V's.
    let (half, ct) = (tid / FLASH_THREADS, tid % FLASH_THREADS);
    let cq = flash_copy::<BWD_ROWS, D>(seq_q, ld, mb, ct);
    let src = head_matrix::<D>(
        if half == 0 { q } else { d_o },
        q_start,
        seq_q32,
        (p.heads, h),
    );
    copy_tile::<B, { BWD_ROWS * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
        cq,
        src.column(cq.col),
        narrow(cq.row),
        narrow(cq.shared),
        if half == 0 { q_at } else { o_at },
    );
    cp_async_commit();
    // The thread's rows' LSE (times log2 e) and Dot, value x's row at
    // x / 2 and the M-atom (0 past the sequence: those rows are masked).
    let row0 = bwd_s_coord(tid, (0, 0, 0)).0;
    let stat = |a: usize, from: Global<f32>| {
        let (dr, _) = bwd_s_coord(0, (2 * (a % 2), a / 2, 0));
        let r = m0 + row0 + dr;
        if r < seq_q {
            from.ld(stat_at(&p, b, sq.q0, h, r))
        } else {
            0.0
        }
    };
    let stats = (
        [0, 1, 2, 3].map(|a| stat(a, lse) * LOG2_E),
        [0, 1, 2, 3].map(|a| stat(a, dot)),
    );

    // The key blocks the block's rows see: up to its last row's bound,
    // from its first row's lower bound.
    let all = seq_k.div_ceil(BWD_KEYS);
    let (first, end) = if CAUSAL {
        let last = (m0 + BWD_ROWS).min(seq_q) as i64 + offset as i64;
        let end = if last > 0 {
            (last as usize).div_ceil(BWD_KEYS).min(all)
        } else {
            0
        };
        let from = if lower == i32::MIN {
            0
        } else {
            m0 as i64 + lower as i64
        };
        let first = if from > 0 {
            from as usize / BWD_KEYS
        } else {
            0
        };
        (first.min(end), end)
    } else {
        (0, all)
    };
    // (Without a key, no block: the map of one key stands in, unused.)
    let ck = flash_copy::<BWD_KEYS, D>(seq_k.max(1), ld_kv, 0, ct);
    let kv_src = head_matrix::<D>(
        if half == 0 { k } else { v },
        k_start,
        seq_k32,
        (p.kv_heads, h_kv),
    );
    let (scale_log2, tid32) = (p.scale * LOG2_E, narrow(tid));
    let mut acc = [0f32; D / 4];
    // Step i fetches key block first + i (K and V by cp.async into stage
    // i % 2, one group) and, from step 1 on, computes the block before it
    // once its group is in; the stage fetched into was left by the block
    // two before, finished before the sync that ends the last step.
    let blocks = end - first;
    for i in 0..blocks + 1 {
        if i < blocks {
            copy_tile::<B, { BWD_KEYS * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
                ck,
                kv_src.column(ck.col),
                narrow(ck.row + (first + i) * BWD_KEYS),
                narrow(ck.shared),
                if half == 0 { k_at(i % 2) } else { v_at(i % 2) },
            );
        }
        cp_async_commit();
        let Some(t) = i.checked_sub(1) else {
            continue;
        };
        let (wk, wv) = (
            Smem::window::<B>(k_at(t % 2), kw),
            Smem::window::<B>(v_at(t % 2), kw),
        );
        // Key block t (and Q, dO) landed.
        cp_async_wait::<1>();
        sync_threads();
        let tile = Tile {
            at: (m0, (first + t) * BWD_KEYS),
            seq: (seq_q, seq_k),
            bounds: (offset, lower),
            scale_log2,
        };
        let (_, dsp) = p_and_ds::<D, CAUSAL>((wq, wk, wo, wv), stats, tile, tid32);
        store_ps(wds, &dsp, tid32);
        // The block's dS is whole: dQ += dS·K.
        sync_threads();
        ds_times_keys::<D>(&mut acc, (wds, wk), tid32);
        // Every warp is done with this stage and dS before they are
        // written again.
        sync_threads();
    }
    cp_async_wait_all();
    let (r0, c0) = bwd_dq_coord::<D>(tid, (0, 0, 0));
    each::<{ D / 8 }>(|t| {
        let (x, i, j) = frag_of(2 * t);
        let (dr, dc) = bwd_dq_coord::<D>(0, (x, i, j));
        let r = m0 + r0 + dr;
        if r < seq_q {
            let v = f16x2(acc[2 * t] * p.scale, acc[2 * t + 1] * p.scale);
            dq.st(((q_start + r) * ld + h * D + c0 + dc) / 2, v);
        }
    });
}

/// dQ = f16(scale · `dq_acc`): thread t of the grid converts floats 2t and
/// 2t + 1 into the f16 pair `dq[t]` (`dq_acc` holds 2 · `dq.len()`).
#[inline(always)]
pub fn flash_bwd_dq_convert(dq_acc: Global<f32>, dq: GlobalMut<u32>, scale: f32) {
    if block_dim().0 != BWD_CONVERT_THREADS {
        trap()
    }
    let t = block_idx_xyz().0 * BWD_CONVERT_THREADS + thread_idx();
    if t < dq.len() {
        let (a, b) = (dq_acc.ld(2 * t), dq_acc.ld(2 * t + 1));
        dq.st(t, f16x2(a * scale, b * scale));
    }
}
