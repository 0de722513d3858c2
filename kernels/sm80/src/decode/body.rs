//! The decode kernels' bodies: attention of a few query rows over a paged
//! KV cache, split along the context and merged by the block that
//! finishes its rows last (`decode_attn`), and the append of new tokens'
//! K and V to their cache slots (`kv_append`).
//! The attention takes its tiles, `ldmatrix` rows and fragments from the
//! FlashAttention kernel's maps (`crate::attention`): the block's 16 rows
//! are the first M-atom of that kernel's Q tile, and warp `w` takes the
//! K/V tile's N-atom pairs (and P·V's k-blocks) `w * T / 64 ..`.

use super::{decode_stages, decode_tile, DECODE_ROWS, DECODE_THREADS, MERGE_AT};
use crate::attention::body::{mma_pair, ROWS, TO_A};
use crate::maps::{
    flash_copy, flash_ldsm_k, flash_ldsm_q, flash_ldsm_v, flash_o_coord, flash_s_coord,
    flash_swizzle, FlashAtom,
};
use layout_core::atom::accumulator::convert_layout_acc_aregs;
use layout_core::atom::{SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N};
use layout_core::{instantiate, layout};
use layout_device::{
    block_idx_xyz, cp_async_commit, cp_async_wait, cp_async_wait_all, each, exp2, f16x2,
    fence_acq_rel_gpu, grid_dim, log2, shfl_idx, shfl_xor_reduce, sync_threads, thread_idx, trap,
    warp_any, Global, GlobalColumn, GlobalMut, LdsmInstr, OnlineSoftmax, SharedBuffer, Smem, F4,
};

const LOG2_E: f32 = core::f32::consts::LOG2_E;

/// One decode launch's sizes and options.
#[derive(Clone, Copy)]
pub struct DecodeProblem {
    /// Sequences.
    pub batch: usize,
    /// New queries per sequence (1 to 16).
    pub q_len: usize,
    /// Query heads.
    pub q_heads: usize,
    /// K/V heads, dividing `q_heads`.
    pub kv_heads: usize,
    /// Blocks of the caches.
    pub blocks: usize,
    /// Tokens per block (a power of two, 16 to 256).
    pub block_size: usize,
    /// Entries per row of the block table.
    pub max_blocks: usize,
    /// Keys per split (a multiple of the tile).
    pub split_keys: usize,
    /// The causal mask within the last `q_len` positions.
    pub causal: bool,
    /// The softmax scale.
    pub scale: f32,
}

/// The tensors of a launch, as checked buffers (the entry made them).
#[derive(Clone, Copy)]
pub struct DecodeIo {
    /// Q, (batch, q_len, q_heads, d) f16 as 16-byte chunks.
    pub q: Global<F4>,
    /// The K cache, (blocks, block_size, kv_heads, d) f16 as chunks.
    pub k: Global<F4>,
    /// The V cache, as K's.
    pub v: Global<F4>,
    /// The block table, (batch, max_blocks).
    pub table: Global<i32>,
    /// The context lengths, (batch).
    pub lens: Global<i32>,
    /// O as f16 pairs.
    pub o: GlobalMut<u32>,
    /// LSE (batch, q_heads, q_len), or empty for none.
    pub lse: GlobalMut<f32>,
    /// The splits' O, (splits, batch, q_len, q_heads, d) f32 (more than one
    /// split), or empty.
    pub o_part: GlobalMut<f32>,
    /// The splits' LSE, (splits, batch, q_heads, q_len), or empty.
    pub lse_part: GlobalMut<f32>,
    /// One counter of finished splits per (row block, sequence, K/V head),
    /// (grid y, grid z), zeros before the launch and after it (more than
    /// one split), or empty.
    pub count: GlobalMut<u32>,
}

/// Where row `r` of the block's rows lands: (query, head), or `None` for a
/// padding row past `q_len * group`.
#[inline(always)]
fn row_of(p: &DecodeProblem, row0: usize, r: usize, h_kv: usize) -> Option<(usize, usize)> {
    let group = p.q_heads / p.kv_heads;
    let rr = row0 + r;
    if rr < p.q_len * group {
        Some((rr / group, h_kv * group + rr % group))
    } else {
        None
    }
}

/// Attention of the block's 16 rows over its split of the context
/// (`DecodeProblem`'s contract), head dimension `D`, shared memory `B`.
#[inline(always)]
#[instantiate((64), (128))]
pub fn decode_attn<B: SharedBuffer, const D: usize>(p: DecodeProblem, io: DecodeIo) {
    let tid = thread_idx();
    let (w, lane) = (tid / 32, tid % 32);
    let (split, slab, bg) = block_idx_xyz();
    if p.kv_heads == 0
        || p.q_heads % p.kv_heads != 0
        || !super::block_size_ok(p.block_size)
        || p.split_keys % decode_tile(D) != 0
        || bg >= p.batch * p.kv_heads
    {
        trap()
    }
    let (b, h_kv) = (bg / p.kv_heads, bg % p.kv_heads);
    let row0 = slab * DECODE_ROWS;
    let t = decode_tile(D);
    let ctx = io.lens.ld(b);
    if ctx < 0 || ctx as usize > p.max_blocks * p.block_size {
        trap()
    }
    let ctx = ctx as usize;
    // The splits must cover the context (the host plans them from the
    // longest one).
    if ctx > grid_dim().0 * p.split_keys {
        trap()
    }
    // Row slot rs of this thread (rows lane / 4 and 8 below): the last key
    // it sees (i64: -1 for none), from the split's end, the context and
    // the causal diagonal.
    let k_lo = split * p.split_keys;
    let split_end = (k_lo + p.split_keys).min(ctx);
    // Where row r's keys end (exclusive; i64: at most k_lo for none): the
    // split's end, the context and the causal diagonal; padding rows see
    // none.
    let row_end = |r: usize| match row_of(&p, row0, r, h_kv) {
        Some((qi, _)) if p.causal => {
            (split_end as i64).min(ctx as i64 - p.q_len as i64 + qi as i64 + 1)
        }
        Some(_) => split_end as i64,
        None => k_lo as i64,
    };
    // This thread's row slots' last key (values 0-1 and 2-3 of a C atom),
    // and the block's keys, which end where its last row's do.
    let mut last = [0i64; 2];
    each::<2>(|rs| {
        let (r, _) = flash_s_coord::<D>(lane, (2 * rs, 0, 0));
        debug_assert_eq!(ROWS.row_of[2 * rs], rs);
        last[rs] = row_end(r) - 1;
    });
    let k_end = (0..DECODE_ROWS).fold(k_lo, |e, r| e.max(row_end(r).max(0) as usize));
    let tiles = (k_end - k_lo).div_ceil(t);

    // Shared memory (words): Q's 16 rows, the stages of K, those of V.
    const { assert!(decode_stages(D) >= 2) };
    let qw = DECODE_ROWS * D / 2;
    let tw = t * D / 2;
    let k_at = |s: usize| qw + s * tw;
    let v_at = |s: usize| qw + (decode_stages(D) + s) * tw;

    // The caches as matrices of (blocks x block_size) token rows of this
    // K/V head's D / 8 chunks: checked once here.
    let rows = p.blocks * p.block_size;
    if rows > u32::MAX as usize {
        trap()
    }
    let c = flash_copy::<{ decode_tile(D) }, D>(t, D, 0, tid);
    let (kc, vc): (GlobalColumn<F4>, GlobalColumn<F4>) = {
        let m = |x: Global<F4>| {
            x.rows(h_kv * D / 8, rows as u32, p.kv_heads * D / 8, D / 8)
                .column(c.col)
        };
        (m(io.k), m(io.v))
    };
    let shift = p.block_size.trailing_zeros();
    // Tile n of K and V into stage s: each chunk's token through the block
    // table (a key past the block's keys reads zeros).
    // The block-table entries of tile n's chunks, read a step before the
    // copies that use them: the copies then wait on no load (a token past
    // the block's keys reads none). The G = D / 8 lanes of a copy row
    // share its CH tokens, so each entry is read once, by one lane: lane L
    // reads chunk L % CH of the warp's copy row L / CH, checks that the
    // entry lies in the cache (a table entry outside it traps), and the
    // copies take it from that lane (`shfl_idx`).
    const CH: usize = decode_tile(D) * D / 8 / DECODE_THREADS;
    const G: usize = D / 8;
    const { assert!(32 % G == 0 && (32 / G) * CH <= 32) };
    let token = |n: usize, x: usize| k_lo + n * t + c.row + x * c.row_step;
    let page = |n: usize| -> i32 {
        let (row, x) = (c.row - lane / G + lane / CH, lane % CH);
        let tk = k_lo + n * t + row + x * c.row_step;
        if lane < (32 / G) * CH && tk < k_end {
            let page = io.table.ld(b * p.max_blocks + (tk >> shift));
            if page < 0 || page as usize >= p.blocks {
                trap()
            }
            page
        } else {
            0
        }
    };
    // Tile n of K and V into stage s from the entries `pg` (each lane's
    // one): each chunk's row through the block table (a key past the
    // block's keys reads zeros).
    let load = |n: usize, s: usize, pg: i32| {
        let (wk, wv) = (
            Smem::window::<B>(k_at(s), tw),
            Smem::window::<B>(v_at(s), tw),
        );
        each::<CH>(|x| {
            let tk = token(n, x);
            // The lane that read this chunk's entry (every lane shuffles).
            let page = shfl_idx(pg as u32, ((lane / G) * CH + x) as u32) as usize;
            let phys = if tk < k_end {
                (page << shift | (tk & (p.block_size - 1))) as u32
            } else {
                u32::MAX
            };
            let at = (c.shared + x * c.shared_step) / 2;
            wk.cp_async16_row_or_zero(at, kc, phys);
            wv.cp_async16_row_or_zero(at, vc, phys);
        });
        cp_async_commit();
    };
    // Q's rows into shared memory with tile 0's group (zeros for padding
    // rows): Q as a matrix of (batch x q_len x q_heads) rows of D / 8
    // chunks, this thread's column of it.
    let rows_q = p.batch * p.q_len * p.q_heads;
    if rows_q > u32::MAX as usize {
        trap()
    }
    const { assert!(DECODE_THREADS % (D / 8) == 0) };
    let wq = Smem::window::<B>(0, qw);
    let q_col = tid % (D / 8);
    let qc = io.q.rows(0, rows_q as u32, D / 8, D / 8).column(q_col);
    each::<{ DECODE_ROWS * D / 8 / DECODE_THREADS }>(|u| {
        let r = (tid + DECODE_THREADS * u) / (D / 8);
        let row = match row_of(&p, row0, r, h_kv) {
            Some((qi, h)) => ((b * p.q_len + qi) * p.q_heads + h) as u32,
            None => u32::MAX,
        };
        wq.cp_async16_row_or_zero(flash_swizzle::<D>(r * D + 8 * q_col) / 2, qc, row);
    });

    // Warp w's keys: t / 4 of them, N-atom pairs w * t / 64 ...
    const { assert!(decode_tile(D) % 64 == 0) };
    let mut sm = OnlineSoftmax::<2>::new(p.scale);
    let mut o = [0f32; D / 2];
    let fs = layout!(((2, 2), 1, C<{ decode_tile(D) / 32 }>):((1, 2), 0, 4));
    let pa = convert_layout_acc_aregs(FlashAtom::default(), fs);
    // Step j reads tile j's table entries, loads tile j - 1 into stage
    // (j - 1) % stages with the entries read a step before (a group is
    // committed at every step from 1 on, empty past the last tile, so that
    // each wait counts the same) and, from step stages on, computes on
    // tile n = j - stages once its group (and Q's, with tile 0) is in.
    // The stage it loads was left by tile j - 1 - stages, which every warp
    // finished before the sync that ends its step.
    // The warp's K and V fragments' offsets lie in a stage: checked once
    // here, so that the loop's `ldmatrix`es need no check of their own.
    each::<{ decode_tile(D) / 64 }>(|jl| {
        let kk = w * (t / 64) + jl;
        each::<{ D / 16 }>(|x| {
            let (ik, iv) = (
                flash_ldsm_k::<D>(tid, kk, x) / 2,
                flash_ldsm_v::<D>(tid, x, kk) / 2,
            );
            if ik + 4 > tw || iv + 4 > tw {
                trap()
            }
        })
    });
    let mut qa = [[0u32; 4]; D / 16];
    let mut pg = 0i32;
    for j in 0..tiles + decode_stages(D) {
        let read = if j < tiles { page(j) } else { 0 };
        if let Some(l) = j.checked_sub(1) {
            if l < tiles {
                load(l, l % decode_stages(D), pg);
            } else {
                cp_async_commit();
            }
        }
        pg = read;
        let Some(n) = j.checked_sub(decode_stages(D)) else {
            continue;
        };
        let s = n % decode_stages(D);
        cp_async_wait::<{ decode_stages(D) as u32 - 1 }>();
        sync_threads();
        if n == 0 {
            // Q's fragments, in registers for the whole loop.
            each::<{ D / 16 }>(|s| {
                qa[s] = SM75_U32x4_LDSM_N::ldsm(wq, flash_ldsm_q::<D>(lane, 0, s) / 2)
            });
        }
        let (wk, wv) = (
            Smem::window::<B>(k_at(s), tw),
            Smem::window::<B>(v_at(s), tw),
        );
        // S = Q·Kᵀ for the warp's keys.
        let mut sv = [0f32; decode_tile(D) / 8];
        each::<{ decode_tile(D) / 64 }>(|jl| {
            let j2 = w * (t / 64) + jl;
            each::<{ D / 16 }>(|ks| {
                let kb = SM75_U32x4_LDSM_N::ldsm(wk, flash_ldsm_k::<D>(tid, j2, ks) / 2);
                mma_pair(&mut sv, |x, _, j| j * 4 + x, &[qa[ks]], kb, jl);
            });
        });
        // Masks: a key past the row's last is -inf; negated for a negative
        // scale. Only a tile that reaches past one of the thread's rows'
        // last keys compares each key (the warp's keys are key0 to key0 +
        // t / 4 - 1).
        let key0 = (k_lo + n * t + w * (t / 4)) as i64;
        let mut row_max = [f32::NEG_INFINITY; 2];
        let masked = key0 + (t / 4) as i64 - 1 > last[0].min(last[1]);
        let mut scores = |mask: bool| {
            each::<{ decode_tile(D) / 32 }>(|j| {
                each::<4>(|x| {
                    let (_, k) = flash_s_coord::<D>(lane, (x, 0, j));
                    let rs = ROWS.row_of[x];
                    let v = &mut sv[j * 4 + x];
                    if sm.negative() {
                        *v = -*v;
                    }
                    if mask && key0 + k as i64 > last[rs] {
                        *v = f32::NEG_INFINITY;
                    }
                    row_max[rs] = row_max[rs].max(*v);
                })
            })
        };
        if masked {
            scores(true)
        } else {
            scores(false)
        }
        sm.update(
            row_max,
            |m| shfl_xor_reduce(m, ROWS.xor(), f32::max),
            warp_any,
            |corr| each::<{ D / 8 }>(|j| each::<4>(|x| o[j * 4 + x] *= corr[ROWS.row_of[x]])),
        );
        // P as A fragments, then O += P·V over the warp's k-blocks.
        each::<{ decode_tile(D) / 64 }>(|kl| {
            let mut a = [0u32; 4];
            each::<4>(|r| {
                let e = [2 * r, 2 * r + 1].map(|x| {
                    let rs = ROWS.row_of[TO_A.value[x]];
                    sm.p(sv[pa.crd2idx((x, 0usize, kl))], rs)
                });
                a[r] = f16x2(e[0], e[1]);
            });
            let kk = w * (t / 64) + kl;
            each::<{ D / 16 }>(|j2| {
                let vb = SM75_U16x8_LDSM_T::ldsm(wv, flash_ldsm_v::<D>(tid, j2, kk) / 2);
                mma_pair(&mut o, |x, _, j| j * 4 + x, &[a], vb, j2);
            });
        });
        // Every warp is done with stage s before it is loaded again.
        sync_threads();
    }
    // (Without a tile, Q's copies may still be in flight.)
    cp_async_wait_all();
    // Each warp's rows normalized, and their log-sum-exps.
    let inv = sm.finish(|x| shfl_xor_reduce(x, ROWS.xor(), |a, b| a + b));
    // The warps' results through shared memory (the stages are free): O
    // (16 x D f32 a warp) from word qw, the LSEs after them.
    let wo = Smem::window::<B>(qw, 4 * DECODE_ROWS * D + 4 * DECODE_ROWS);
    each::<{ D / 8 }>(|j| {
        each::<4>(|x| {
            let (r, col) = flash_o_coord::<D>(lane, (x, 0, j));
            wo.st(
                (w * DECODE_ROWS + r) * D + col,
                o[j * 4 + x] * inv[ROWS.row_of[x]],
            );
        })
    });
    if (lane as u32) & ROWS.lane_bits() == 0 {
        each::<2>(|rs| {
            let (r, _) = flash_s_coord::<D>(lane, (2 * rs, 0, 0));
            wo.st(4 * DECODE_ROWS * D + w * DECODE_ROWS + r, sm.lse(rs));
        });
    }
    sync_threads();
    // Merged by log-sum-exp: thread tid takes column pairs tid, tid + 128,
    // ... of the 16 x D tile.
    let splits = grid_dim().0;
    let plane = p.batch * p.q_len * p.q_heads;
    // Row r's place: its element in O (column 0) and in LSE.
    let at = |r: usize| {
        row_of(&p, row0, r, h_kv).map(|(qi, h)| {
            (
                ((b * p.q_len + qi) * p.q_heads + h) * D,
                (b * p.q_heads + h) * p.q_len + qi,
            )
        })
    };
    // Pair u of this thread: (row, column) of the 16 x D tile.
    const PAIRS: usize = DECODE_ROWS * D / 2 / DECODE_THREADS;
    let pair_at = |u: usize| {
        let e = tid + DECODE_THREADS * u;
        (e / (D / 2), 2 * (e % (D / 2)))
    };
    let write = |(out, lse_at): (usize, usize), col: usize, [o0, o1]: [f32; 2], lse: f32| {
        io.o.st((out + col) / 2, f16x2(o0, o1));
        if col == 0 && !io.lse.is_empty() {
            io.lse.st(lse_at, lse);
        }
    };
    each::<PAIRS>(|u| {
        let (r, col) = pair_at(u);
        let Some((out, lse_at)) = at(r) else {
            return;
        };
        let (pair, lse) = merge_by_lse(
            4,
            |w| wo.ld(4 * DECODE_ROWS * D + w * DECODE_ROWS + r),
            |w| [0, 1].map(|i| wo.ld((w * DECODE_ROWS + r) * D + col + i)),
        );
        if splits == 1 {
            write((out, lse_at), col, pair, lse);
        } else {
            io.o_part.st(split * plane * D + out + col, pair[0]);
            io.o_part.st(split * plane * D + out + col + 1, pair[1]);
            if col == 0 {
                io.lse_part.st(split * plane + lse_at, lse);
            }
        }
    });
    if splits == 1 {
        return;
    }
    // The splits of these rows count themselves once their partials are
    // written: every thread fences its writes, the barrier orders them
    // before thread 0's fence and count (a release), and the block that
    // counts last sees them after its fences (an acquire). The counter wraps to 0
    // at the last count, ready for the next launch. One launch a step: no
    // merge kernel waits for this one to drain.
    fence_acq_rel_gpu();
    sync_threads();
    let group = slab * grid_dim().2 + bg;
    let flag = Smem::window::<B>(0, 1);
    if tid == 0 {
        fence_acq_rel_gpu();
        let before = io.count.atomic_inc(group, (splits - 1) as u32) as usize;
        fence_acq_rel_gpu();
        flag.st(0, if before + 1 == splits { 1.0 } else { 0.0 });
    }
    sync_threads();
    if flag.ld(0) == 0.0 {
        return;
    }
    fence_acq_rel_gpu();
    // The merge, with the stages' shared memory (words from
    // MERGE_AT, after the flag): the splits' LSEs of the block's rows,
    // (splits, 16), made into weights e^(lse_s - LSE) in place, then each
    // row's LSE. 1. The LSEs, four reads in flight a thread.
    let cells = splits * DECODE_ROWS;
    let wsm = Smem::window::<B>(MERGE_AT, cells + DECODE_ROWS);
    // (Cell i is row i % 16 of split i / 16: a thread's cells are all of
    // its row, tid % 16, as 16 divides the threads.)
    const { assert!(DECODE_THREADS % DECODE_ROWS == 0) };
    let my_row = at(tid % DECODE_ROWS);
    let mut i0 = tid;
    while i0 < cells {
        let mut v = [f32::NEG_INFINITY; 4];
        each::<4>(|x| {
            let i = i0 + x * DECODE_THREADS;
            if let Some((_, lse_at)) = my_row.filter(|_| i < cells) {
                v[x] = io.lse_part.ld(i / DECODE_ROWS * plane + lse_at);
            }
        });
        each::<4>(|x| {
            let i = i0 + x * DECODE_THREADS;
            if i < cells {
                wsm.st(i, v[x]);
            }
        });
        i0 += 4 * DECODE_THREADS;
    }
    sync_threads();
    // 2. Warp w takes rows w, w + 4, ...; its lanes the splits lane, lane
    // + 32, ...: the max and the sum by shuffles (a row no split saw gets
    // weights 0 and LSE -inf).
    const LANES: [u32; 5] = [16, 8, 4, 2, 1];
    const {
        assert!(
            DECODE_THREADS == 128 && DECODE_ROWS % 4 == 0,
            "4 warps take the rows"
        )
    };
    each::<{ DECODE_ROWS / 4 }>(|k| {
        let r = w + 4 * k;
        let mut m = f32::NEG_INFINITY;
        let mut sp = lane;
        while sp < splits {
            m = m.max(wsm.ld(sp * DECODE_ROWS + r));
            sp += 32;
        }
        let m = shfl_xor_reduce(m, &LANES, f32::max);
        let weight = |l: f32| {
            if m == f32::NEG_INFINITY {
                0.0
            } else {
                exp2((l - m) * LOG2_E)
            }
        };
        let mut sum = 0f32;
        sp = lane;
        while sp < splits {
            sum += weight(wsm.ld(sp * DECODE_ROWS + r));
            sp += 32;
        }
        let sum = shfl_xor_reduce(sum, &LANES, |a, b| a + b);
        let inv = if sum > 0.0 { 1.0 / sum } else { 0.0 };
        sp = lane;
        while sp < splits {
            let at = sp * DECODE_ROWS + r;
            wsm.st(at, weight(wsm.ld(at)) * inv);
            sp += 32;
        }
        if lane == 0 {
            let lse = if m == f32::NEG_INFINITY {
                m
            } else {
                lse_of(m, sum)
            };
            wsm.st(cells + r, lse);
        }
    });
    sync_threads();
    // 3. O: this thread's column pairs (as above), the splits four at a
    // time, every read of a batch issued before any is used (a batch's
    // slots past the last split re-read it with weight 0).
    let mut places = [None; PAIRS];
    each::<PAIRS>(|u| places[u] = at(pair_at(u).0));
    let mut acc = [[0f32; 2]; PAIRS];
    let mut s0 = 0;
    while s0 < splits {
        let mut x = [[[0f32; 2]; PAIRS]; 4];
        each::<4>(|j| {
            let sp = (s0 + j).min(splits - 1);
            each::<PAIRS>(|u| {
                if let Some((out, _)) = places[u] {
                    let col = pair_at(u).1;
                    x[j][u] = [0, 1].map(|i| io.o_part.ld(sp * plane * D + out + col + i));
                }
            })
        });
        each::<4>(|j| {
            if s0 + j < splits {
                each::<PAIRS>(|u| {
                    let wv = wsm.ld((s0 + j) * DECODE_ROWS + pair_at(u).0);
                    each::<2>(|i| acc[u][i] += wv * x[j][u][i]);
                })
            }
        });
        s0 += 4;
    }
    each::<PAIRS>(|u| {
        let (r, col) = pair_at(u);
        if let Some(place) = places[u] {
            write(place, col, acc[u], wsm.ld(cells + r));
        }
    });
}

/// `n` partial results of one row merged by their log-sum-exps (part `s`'s
/// natural `lse(s)` and two values `pair(s)` of its normalized O): O = Σ
/// e^(lse_s - LSE) O_s and LSE = log Σ e^(lse_s), or O = 0 and LSE = -inf
/// when no part saw a key: the warps' merge.
#[inline(always)]
fn merge_by_lse(
    n: usize,
    lse: impl Fn(usize) -> f32,
    pair: impl Fn(usize) -> [f32; 2],
) -> ([f32; 2], f32) {
    let mut m = f32::NEG_INFINITY;
    for s in 0..n {
        m = m.max(lse(s));
    }
    if m == f32::NEG_INFINITY {
        return ([0.0; 2], f32::NEG_INFINITY);
    }
    let (mut sum, mut acc) = (0f32, [0f32; 2]);
    for s in 0..n {
        let f = exp2((lse(s) - m) * LOG2_E);
        sum += f;
        let x = pair(s);
        each::<2>(|i| acc[i] += f * x[i]);
    }
    let inv = 1.0 / sum;
    ([acc[0] * inv, acc[1] * inv], lse_of(m, sum))
}

/// The natural log-sum-exp of parts whose largest is `m` and whose
/// `e^(lse_s - m)` sum to `sum`: both merges' (the warps' and the
/// splits').
#[inline(always)]
fn lse_of(m: f32, sum: f32) -> f32 {
    m + log2(sum) / LOG2_E
}

/// `kv_append`: 16-byte chunk `blockIdx.x * 256 + tid` of the new tokens'
/// K and V, (tokens, kv_heads, d) f16, each `row_chunks` = kv_heads * d / 8
/// chunks a token, into the caches' row `slots[token]` (a negative slot:
/// the token is skipped, vLLM's padding; a slot past the caches' rows
/// traps).
#[inline(always)]
pub fn kv_append(
    (k_new, v_new, slots): (Global<F4>, Global<F4>, Global<i32>),
    (k_cache, v_cache): (GlobalMut<F4>, GlobalMut<F4>),
    (tokens, row_chunks, cache_rows): (usize, usize, usize),
) {
    let i = block_idx_xyz().0 * super::APPEND_THREADS + thread_idx();
    if row_chunks == 0 || i >= tokens * row_chunks {
        return;
    }
    let (token, chunk) = (i / row_chunks, i % row_chunks);
    let slot = slots.ld(token);
    if slot < 0 {
        return;
    }
    if slot as usize >= cache_rows {
        trap()
    }
    let at = slot as usize * row_chunks + chunk;
    k_cache.st(at, k_new.ld(i));
    v_cache.st(at, v_new.ld(i));
}
