//! The FlashAttention forward kernels' body (FlashAttention-2's schedule on
//! the SM80 instructions): each block takes `flash_bm(D)` query rows of one
//! (batch, head), keeps its Q tile in shared memory, and streams K and V
//! through shared memory `flash_bn(D)` keys at a time (`cp.async`, the next
//! tile's copy overlapping this one's math). Per tile: S = Q·Kᵀ by
//! `mma.sync`, the causal and key-edge masks, the online softmax (row
//! maxima and sums by shuffles over the lanes the C layout says share a
//! row), then O += P·V with P taken from S's registers. Every offset comes
//! from [`crate::maps`] (`maps/attention.rs`, checked thread by thread on the
//! CPU); the entry points are in `entry.rs`.

use crate::maps::{
    flash_bm, flash_bn, flash_copy, flash_copy_xor, flash_frag_o, flash_frag_s, flash_ldsm_k,
    flash_ldsm_q, flash_ldsm_v, flash_mma_m, flash_o_coord, flash_s_coord_base,
    flash_s_coord_delta, FlashAtom, FLASH_THREADS,
};
use layout_core::atom::accumulator::{
    acc_rows, convert_layout_acc_aregs, AccAsA, AccRows, AccumulatorFacts,
};
use layout_core::atom::{SM75_U16x8_LDSM_T, SM75_U32x4_LDSM_N};
use layout_core::instantiate;
use layout_device::{
    block_idx_xyz, cp_async_commit, cp_async_wait_all, each, f16x2, grid_dim, in_loop, in_loop_u32,
    longest_first, shfl_xor_reduce, sync_threads, thread_idx, trap, warp_any, Global, GlobalColumn,
    GlobalMut, LdsmInstr, MmaInstr, OnlineSoftmax, Sequence, Sequences, SharedBuffer, Smem, F4,
};

/// Word `i` of a window of `len` words (a power of two) as an `ldmatrix`
/// row address (16 bytes): `i` rounded down to 4 words and masked into the
/// window, so that the compiler knows the access inside it and drops its
/// check. The maps' addresses, taken from the window's start, are such rows
/// already (the tests check each); the mask changes none of them.
#[inline(always)]
pub(crate) fn row16(i: usize, len: usize) -> usize {
    debug_assert!(len.is_power_of_two());
    i & (len - 4)
}

/// `f(x, i, j)` for each accumulator value `x` of each of a thread's `M`
/// M-atoms `i` and `N` N-atoms `j` (an S or O fragment's coordinates), as
/// straight code.
#[inline(always)]
fn each_value<const M: usize, const N: usize>(mut f: impl FnMut(usize, usize, usize)) {
    each::<M>(
        #[inline(always)]
        |i| {
            each::<N>(
                #[inline(always)]
                |j| {
                    each::<4>(
                        #[inline(always)]
                        |x| f(x, i, j),
                    )
                },
            )
        },
    )
}

/// Which of a thread's S values share a row, and the lanes holding the
/// rest of it: derived from the atom's C layout at compile time.
pub(crate) const ROWS: AccRows = acc_rows::<FlashAtom>();
/// Rows of S (and O) a thread holds at head dimension `d`: its M-atoms'
/// rows (the `R` of the steps below).
const fn thread_rows(d: usize) -> usize {
    flash_mma_m(d) * ROWS.rows
}
/// Where each value of an A fragment sits among the accumulators (the
/// facts `convert_layout_acc_aregs` checks).
pub(crate) const TO_A: AccAsA = match <FlashAtom as AccumulatorFacts>::ACC_AS_A {
    Ok(f) => f,
    Err(e) => panic!("{}", e.as_str()),
};

/// The row slot (of [`thread_rows`]) of a thread's value `v` of M-atom `i`.
#[inline(always)]
fn slot(v: usize, i: usize) -> usize {
    i * ROWS.rows + ROWS.row_of[v]
}

/// A thread's copies of K's and V's tiles, in the few registers they may
/// hold across the key loop: tile 0's map `c` (only its constant steps are
/// read), the thread's column of K and of V (each matrix checked once, when
/// the block starts), and its first row and shared offset as 32-bit numbers
/// (the host keeps sequences below 2^31).
#[derive(Clone, Copy)]
struct KvCopy {
    c: crate::maps::FlashCopy,
    k: GlobalColumn<F4>,
    v: GlobalColumn<F4>,
    row: u32,
    shared: u32,
}

/// `x` as 32 bits; traps when it does not fit.
#[inline(always)]
pub(crate) fn narrow(x: usize) -> u32 {
    if x > u32::MAX as usize {
        trap()
    }
    x as u32
}

impl KvCopy {
    /// The same, as values the optimiser recomputes from in each iteration
    /// rather than hoisting what it derives from them.
    #[inline(always)]
    fn in_loop(self) -> Self {
        KvCopy {
            row: in_loop_u32(self.row),
            shared: in_loop_u32(self.shared),
            ..self
        }
    }
}

/// A thread's `N` chunks of a tile (map `c`, its rows from `row`, its
/// shared offset `shared`) from the column `src` into the shared tile at
/// word `at`, the rows past the matrix as zeros: one `cp.async` each, no
/// branch. The odd chunks' shared offsets have `X` (`flash_copy_xor`)
/// XORed in: the window starts at the lower of the two offsets, and each
/// chunk is a constant past it or past it plus `X`.
#[inline(always)]
pub(crate) fn copy_tile<B: SharedBuffer, const N: usize, const X: usize>(
    c: crate::maps::FlashCopy,
    src: GlobalColumn<F4>,
    row: u32,
    shared: u32,
    at: usize,
) {
    let (shared, x) = (shared as usize, X);
    let lo = shared & !x;
    let w = Smem::window::<B>(at + lo / 2, ((N - 1) * c.shared_step + x) / 2 + 4);
    each::<N>(
        #[inline(always)]
        |v| {
            let s = if v % 2 == 1 { shared ^ x } else { shared };
            w.cp_async16_row_or_zero(
                ((s & x) + v * c.shared_step) / 2,
                src,
                row + (v * c.row_step) as u32,
            )
        },
    );
}

/// Tile `n` of K (or V, `v`) into the shared tile at word `at`, rows past
/// seq_k as zeros.
#[inline(always)]
#[instantiate((64), (128), (256))]
fn load_kv<B: SharedBuffer, const D: usize>(kv: KvCopy, v: bool, at: usize, n: u32) {
    // Chunks per thread: the tile's 16-byte chunks over the threads.
    const { assert!(flash_bn(D) * D / 8 % FLASH_THREADS == 0) };
    copy_tile::<B, { flash_bn(D) * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
        kv.c,
        if v { kv.v } else { kv.k },
        kv.row + n * flash_bn(D) as u32,
        kv.shared,
        at,
    );
}

/// `acc += a · b` for a warp's M-atoms and the pair of N-atoms `j2` whose
/// B fragments one `ldmatrix.x4` delivered (registers 0-1 atom `2 j2`, 2-3
/// atom `2 j2 + 1`): the accumulators in `acc` at `at(value, m-atom,
/// n-atom)` (a fragment's layout). Both GEMMs' inner step.
#[inline(always)]
pub(crate) fn mma_pair<const M: usize>(
    acc: &mut [f32],
    at: impl Fn(usize, usize, usize) -> usize,
    a: &[[u32; 4]; M],
    b: [u32; 4],
    j2: usize,
) {
    each::<M>(
        #[inline(always)]
        |i| {
            each::<2>(
                #[inline(always)]
                |h| {
                    let j = 2 * j2 + h;
                    let c = [0, 1, 2, 3].map(|x| acc[at(x, i, j)]);
                    let d = FlashAtom::mma(a[i], [b[2 * h], b[2 * h + 1]], c);
                    each::<4>(
                        #[inline(always)]
                        |x| acc[at(x, i, j)] = d[x],
                    );
                },
            )
        },
    )
}

/// The (row block, head, batch) of the block at `block` of the grid. Causal
/// blocks grow with their row: the longest over the whole grid are
/// launched first.
#[inline(always)]
fn row_block<const CAUSAL: bool>(block: (usize, usize, usize)) -> (usize, usize, usize) {
    if CAUSAL {
        longest_first(block, grid_dim())
    } else {
        block
    }
}

/// The problem of one launch.
#[derive(Clone, Copy)]
pub struct FlashProblem {
    /// Planes of the tensors: the batch size, or 1 for packed sequences.
    pub batch: usize,
    /// Query rows per plane (per sequence, or in all when packed).
    pub seq_q: usize,
    /// Keys per plane.
    pub seq_k: usize,
    /// Query heads.
    pub heads: usize,
    /// K/V heads, dividing `heads`: query head h reads K/V head h / (heads
    /// / kv_heads) (grouped-query attention).
    pub kv_heads: usize,
    /// Cumulative query offsets of packed sequences (grid z + 1 of them),
    /// or empty for planes of equal lengths (`layout_device::Sequences`).
    pub cu_q: Global<i32>,
    /// Cumulative key offsets (empty with `cu_q`).
    pub cu_k: Global<i32>,
    /// The masked entries' upper bound: query i sees keys up to i + offset
    /// of its sequence, from the top-left diagonal (0: causal) or, with
    /// `bottom_right`, the bottom-right one (i + seq_k - seq_q).
    pub offset: i32,
    /// Their lower bound (a sliding window): keys from i + lower
    /// (`i32::MIN`: none), aligned as `offset`.
    pub lower: i32,
    /// Whether the bounds count from the bottom-right diagonal.
    pub bottom_right: bool,
    /// The softmax scale (of Q·Kᵀ).
    pub scale: f32,
}

impl FlashProblem {
    /// Sequence `b` (`None`: past the offsets, or an offset out of place).
    #[inline(always)]
    pub(crate) fn sequence(&self, b: usize) -> Option<Sequence> {
        let seqs = Sequences {
            seq_q: self.seq_q,
            seq_k: self.seq_k,
            cu_q: self.cu_q,
            cu_k: self.cu_k,
        };
        seqs.get(b, (self.offset, self.lower), self.bottom_right)
    }
}

/// O = softmax(scale · Q·Kᵀ) · V for the block's rows, head dimension `D`,
/// shared memory `B` (at least `flash_smem_bytes(D)`), top-left causal
/// mask when `CAUSAL`. Q, K, V as `F4` chunks (8 halves); `outputs`
/// makes O (f16 pairs) and LSE (f32) for the epilogue (the launch contract of `maps/attention.rs`).
#[inline(always)]
#[instantiate((64, false), (64, true), (128, false), (128, true), (256, false), (256, true))]
pub fn flash_attn_fwd<
    B: SharedBuffer,
    Out: FnOnce(&FlashProblem) -> (GlobalMut<u32>, GlobalMut<f32>),
    const D: usize,
    const CAUSAL: bool,
>(
    p: FlashProblem,
    (q, k, v): (Global<F4>, Global<F4>, Global<F4>),
    outputs: Out,
) {
    let FlashProblem {
        heads,
        kv_heads,
        scale,
        ..
    } = p;
    let tid = thread_idx();
    let (mb, h, b) = row_block::<CAUSAL>(block_idx_xyz());
    let (m0, ld, ld_kv) = (mb * flash_bm(D), heads * D, kv_heads * D);
    let Some(sq) = p.sequence(b) else { trap() };
    let (seq_q, seq_k, offset, lower) = (sq.seq_q, sq.seq_k, sq.offset, sq.lower);
    // What the epilogue needs of a packed sequence: its first row in the
    // tensors and its rows (planes: recomputed there).
    let rows = if p.cu_q.is_empty() {
        (0, 0)
    } else {
        (sq.q0, narrow(seq_q))
    };
    if p.cu_q.is_empty() {
        // Planes. The masks compare 32-bit coordinates (and identity
        // tensors hold 2^31 rows a mode): longer sequences are refused; a
        // block past the rows, or no key, is a launch error.
        if m0 >= seq_q
            || seq_k == 0
            || seq_q > i32::MAX as usize
            || seq_k > i32::MAX as usize
            || kv_heads == 0
            || heads % kv_heads != 0
        {
            trap()
        }
    } else {
        // Packed: the same limits on the whole plane, enough blocks for
        // the longest sequence, those past this one's rows done.
        if p.seq_q > i32::MAX as usize
            || p.seq_k > i32::MAX as usize
            || kv_heads == 0
            || heads % kv_heads != 0
            || seq_q > grid_dim().0 * flash_bm(D)
        {
            trap()
        }
        if m0 >= seq_q {
            return;
        }
        if seq_k == 0 {
            // No key: no row sees one (O = 0, LSE = -inf, as
            // FlashAttention defines them).
            let mut sm = OnlineSoftmax::<{ thread_rows(D) }>::new(scale);
            epilogue::<D, CAUSAL, { thread_rows(D) }, Out>(
                &[0f32; flash_bm(D) * D / FLASH_THREADS],
                &mut sm,
                &p,
                outputs,
                (narrow(m0), narrow(tid)),
                rows,
            );
            return;
        }
    }
    // Grouped-query attention: K/V head h / (heads / kv_heads).
    let h_kv = h / (heads / kv_heads);
    // Head h of the sequence: the seq x D matrix from F4 (start * heads +
    // h) * D / 8 (its first row: b * seq in planes, its offset packed),
    // rows ld / 8 F4s apart; each checked once here, so that the tiles'
    // copies check only their rows.
    let (seq_q32, seq_k32) = (narrow(seq_q), narrow(seq_k));
    let matrix = |x: Global<F4>, start: usize, rows: u32, (heads, h): (usize, usize)| {
        x.rows((start * heads + h) * D / 8, rows, heads * D / 8, D / 8)
    };
    let (q_start, k_start) = if p.cu_q.is_empty() {
        (b * seq_q, b * seq_k)
    } else {
        (sq.q0, sq.k0)
    };
    let (qm, km, vm) = (
        matrix(q, q_start, seq_q32, (heads, h)),
        matrix(k, k_start, seq_k32, (kv_heads, h_kv)),
        matrix(v, k_start, seq_k32, (kv_heads, h_kv)),
    );
    // Shared memory (words): Q's tile, K's, V's.
    let (k_at, v_at) = (flash_bm(D) * D / 2, (flash_bm(D) + flash_bn(D)) * D / 2);

    // Q's tile, and K's first.
    let cq = flash_copy::<{ flash_bm(D) }, D>(seq_q, ld, mb, tid);
    copy_tile::<B, { flash_bm(D) * D / 8 / FLASH_THREADS }, { flash_copy_xor(D) }>(
        cq,
        qm.column(cq.col),
        narrow(cq.row),
        narrow(cq.shared),
        0,
    );
    let c = flash_copy::<{ flash_bn(D) }, D>(seq_k, ld_kv, 0, tid);
    let kv = KvCopy {
        c,
        k: km.column(c.col),
        v: vm.column(c.col),
        row: narrow(c.row),
        shared: narrow(c.shared),
    };
    // A sliding window's lower bound: the tiles wholly below the block's
    // first row's keys are skipped.
    let first = if CAUSAL {
        let from = m0 as i64 + lower as i64;
        if from > 0 {
            from as usize / flash_bn(D)
        } else {
            0
        }
    } else {
        0
    };
    let all_tiles = seq_k.div_ceil(flash_bn(D));
    load_kv::<B, D>(kv, false, k_at, narrow(first.min(all_tiles - 1)));
    cp_async_commit();

    let tiles = if CAUSAL {
        // Query i sees keys 0..=i + offset: the block's last row bounds
        // the keys (none when it sees none).
        let last = if m0 + flash_bm(D) < seq_q {
            m0 + flash_bm(D)
        } else {
            seq_q
        } as i64
            + offset as i64;
        let last = if last > 0 { last as usize } else { 0 };
        let t = last.div_ceil(flash_bn(D));
        if t < all_tiles {
            t
        } else {
            all_tiles
        }
    } else {
        all_tiles
    };
    // The online softmax (layout_device::OnlineSoftmax): S's row maxima
    // are taken on the unscaled scores, each exponential one FFMA with
    // |scale| · log2 e; with a negative scale S is negated first (a branch
    // the whole block takes alike).
    let mut sm = OnlineSoftmax::<{ thread_rows(D) }>::new(scale);
    // The thread's ldmatrix rows (halves), k-step 0 / pair 0: the others
    // by XOR (a k-step moves the swizzled chunk) and add (an atom).
    // (Offsets in a 64 KiB buffer: 32-bit, one register each.)
    let (lq, lk, lv) = (
        flash_ldsm_q::<D>(tid, 0, 0) as u32,
        flash_ldsm_k::<D>(tid, 0, 0) as u32,
        flash_ldsm_v::<D>(tid, 0, 0) as u32,
    );

    let mut acc_o = const { [0f32; flash_bm(D) * D / FLASH_THREADS] };
    // The loop's counters and the block's first row in 32 bits (one
    // register each; the host keeps sequences below 2^31).
    let (tiles, m0, tid32) = (narrow(tiles), narrow(m0), narrow(tid));
    let first = narrow(first);
    for n in first..tiles {
        // What derives from the tile's index is computed from it afresh
        // (not kept as induction variables of its own, 64-bit).
        let n = in_loop_u32(n);
        // The ldmatrix rows' k-step and pair addresses are recomputed per
        // tile (a XOR each): held across the loop they would not fit.
        let (lq, lk, lv) = (
            in_loop_u32(lq) as usize,
            in_loop_u32(lk) as usize,
            in_loop_u32(lv) as usize,
        );
        // So are the copies' chunk addresses.
        let kv = kv.in_loop();
        // K's tile n (and Q) landed; every warp is done with V's tile n - 1.
        cp_async_wait_all();
        sync_threads();
        load_kv::<B, D>(kv, true, v_at, n);
        cp_async_commit();

        // The tiles as windows of constant place and size. An ldmatrix row
        // is masked into a block of the tile (row16): one block per M-atom
        // of Q (64 rows), per N-atom pair of K and per k-block of V (16
        // rows); the block's start is a constant added to the masked row,
        // so no access needs a check, each row address is masked once and
        // serves every block at a constant offset, and the blocks share
        // their tile's base register.
        // S = Q·Kᵀ, the masks, the online softmax and P.
        let mut s = const { [0f32; flash_bm(D) * flash_bn(D) / FLASH_THREADS] };
        s_gemm::<B, D>(&mut s, (lq, lk), k_at);
        mask::<D, CAUSAL>(
            &mut s,
            n,
            sm.negative(),
            (seq_k32, m0, tid32),
            (offset, lower),
        );
        // V's tile n landed; every warp is done with K's tile n: fetch
        // K's next while this one's softmax and P·V run.
        cp_async_wait_all();
        sync_threads();
        if n + 1 < tiles {
            load_kv::<B, D>(kv, false, k_at, n + 1);
        }
        cp_async_commit();
        let mut pr = const { [[[0u32; 4]; flash_mma_m(D)]; flash_bn(D) / 16] };
        softmax::<D, { flash_mma_m(D) }, { thread_rows(D) }>(&s, &mut sm, &mut acc_o, &mut pr);
        pv_gemm::<B, D, { flash_mma_m(D) }>(&mut acc_o, &pr, lv, v_at);
    }
    epilogue::<D, CAUSAL, { thread_rows(D) }, Out>(&acc_o, &mut sm, &p, outputs, (m0, tid32), rows);
}

/// S = Q·Kᵀ for the tile in shared memory: Q's and K's fragments by
/// `ldmatrix` from the thread's rows (`lq`, `lk`: k-step 0, pair 0; the
/// others by XOR and add), multiplied by `mma.sync` into S's fragment
/// (layout `fs`).
#[instantiate((64), (128), (256))]
#[inline(always)]
fn s_gemm<B: SharedBuffer, const D: usize>(s: &mut [f32], (lq, lk): (usize, usize), k_at: usize) {
    let fs = flash_frag_s::<D>();
    let wq = Smem::window::<B>(0, flash_bm(D) * D / 2);
    let wk = Smem::window::<B>(k_at, flash_bn(D) * D / 2);
    each::<{ D / 16 }>(
        #[inline(always)]
        |ks| {
            let (q0, k0) = (
                row16((lq ^ (16 * ks)) / 2, 32 * D),
                row16((lk ^ (16 * ks)) / 2, 8 * D),
            );
            let mut fa = [[0u32; 4]; flash_mma_m(D)];
            each::<{ flash_mma_m(D) }>(
                #[inline(always)]
                |i| fa[i] = SM75_U32x4_LDSM_N::ldsm(wq, q0 + i * 32 * D),
            );
            if D >= 128 {
                // K's fragments of the whole k-step first, then the
                // MMAs M-atom by M-atom (FlashAttention-2's order): each
                // fragment serves two MMAs four apart, and ptxas loads
                // them ahead (taken pair by pair, each is loaded just
                // before its MMAs at d = 128).
                let mut fb = [[0u32; 4]; flash_bn(D) / 16];
                each::<{ flash_bn(D) / 16 }>(
                    #[inline(always)]
                    |j2| fb[j2] = SM75_U32x4_LDSM_N::ldsm(wk, k0 + j2 * 8 * D),
                );
                each::<{ flash_mma_m(D) }>(
                    #[inline(always)]
                    |i| {
                        each::<{ flash_bn(D) / 16 }>(
                            #[inline(always)]
                            |j2| mma_pair(s, |x, _, j| fs.crd2idx((x, i, j)), &[fa[i]], fb[j2], j2),
                        )
                    },
                )
            } else {
                // K's fragments a pair of N-atoms at a time, the next
                // pair's loaded before this one's MMAs: 8 registers
                // live (at d = 64 ptxas keeps that order).
                let mut fb = SM75_U32x4_LDSM_N::ldsm(wk, k0);
                each::<{ flash_bn(D) / 16 }>(
                    #[inline(always)]
                    |j2| {
                        let next = if j2 + 1 < flash_bn(D) / 16 {
                            SM75_U32x4_LDSM_N::ldsm(wk, k0 + (j2 + 1) * 8 * D)
                        } else {
                            fb
                        };
                        mma_pair(s, |x, i, j| fs.crd2idx((x, i, j)), &fa, fb, j2);
                        fb = next;
                    },
                )
            }
        },
    );
}

/// S negated for a negative scale (`negative`); the keys past seq_k, and
/// (masked) past the row's (key > row + offset, or key < row + lower), to
/// -inf.
#[instantiate((64, false), (64, true), (128, false), (128, true), (256, false), (256, true))]
#[inline(always)]
fn mask<const D: usize, const CAUSAL: bool>(
    s: &mut [f32],
    n: u32,
    negative: bool,
    (seq_k32, m0, tid32): (u32, u32, u32),
    (offset, lower): (i32, i32),
) {
    let fs = flash_frag_s::<D>();
    if negative {
        each_value::<{ flash_mma_m(D) }, { flash_bn(D) / 8 }>(
            #[inline(always)]
            |x, i, j| s[fs.crd2idx((x, i, j))] = -s[fs.crd2idx((x, i, j))],
        );
    }
    // Keys past seq_k, and (causal) past the row, count for nothing.
    // 32-bit: the sequences fit (the host refuses longer ones).
    let (n0, bn) = (n * flash_bn(D) as u32, flash_bn(D) as u32);
    // (Clamped to ±2^30: a value's dk and dr, below 128, then add without
    // overflow, and a bound past every key stays past it.)
    let to_i32 = |x: i64| x.clamp(-(1 << 30), 1 << 30) as i32;
    if n0 + bn > seq_k32
        || (CAUSAL
            && ((n0 + bn) as i64 > m0 as i64 + 1 + offset as i64
                || (n0 as i64) < m0 as i64 + flash_bm(D) as i64 - 1 + lower as i64))
    {
        // Value x is at (row0 + dr, key0 + dk): masked when key0 + dk
        // >= seq_k - n0 or (causal) key0 + dk > m0 - n0 + row0 + dr,
        // each a comparison of one number with a constant.
        let (row0, key0) = flash_s_coord_base::<D>(in_loop_u32(tid32) as usize);
        let m0 = in_loop_u32(m0);
        let keys_left = seq_k32 as i32 - (n0 + key0 as u32) as i32;
        let ahead = to_i32((n0 + key0 as u32) as i64 - (m0 + row0 as u32) as i64 - offset as i64);
        let behind = to_i32((n0 + key0 as u32) as i64 - (m0 + row0 as u32) as i64 - lower as i64);
        each_value::<{ flash_mma_m(D) }, { flash_bn(D) / 8 }>(
            #[inline(always)]
            |x, i, j| {
                let (dr, dk) = flash_s_coord_delta::<D>((x, i, j));
                let (dr, dk) = (dr as i32, dk as i32);
                if dk >= keys_left || (CAUSAL && (ahead + dk > dr || behind + dk < dr)) {
                    s[fs.crd2idx((x, i, j))] = f32::NEG_INFINITY;
                }
            },
        );
    }
}

/// The online softmax of tile n's S: each row's maximum, one chain a row
/// (the registers are S's and O's: partial maxima would spill at these
/// tiles); the reference moves, rescaling the rows' sums and O, only when
/// some row of the warp outgrew it by more than RESCALE_SLACK. Then P =
/// exp2(S · |scale| log2 e - max), packed to f16 as the A fragments of O +=
/// P·V's k-blocks (`pr[kk][i]`: convert_layout_acc_aregs: A value x of
/// M-atom i, k-block kk is S value TO_A.value[x] of an N-atom, in its row).
#[instantiate((64, 2, 4), (128, 2, 4), (256, 1, 2))]
#[inline(always)]
fn softmax<const D: usize, const M: usize, const R: usize>(
    s: &[f32],
    sm: &mut OnlineSoftmax<R>,
    acc_o: &mut [f32],
    pr: &mut [[[u32; 4]; M]],
) {
    const { assert!(M == flash_mma_m(D) && R == thread_rows(D)) };
    let (fs, fo) = (flash_frag_s::<D>(), flash_frag_o::<D>());
    let pa = convert_layout_acc_aregs(FlashAtom::default(), fs);
    let mut row_max = const { [f32::NEG_INFINITY; R] };
    each_value::<M, { flash_bn(D) / 8 }>(
        #[inline(always)]
        |x, i, j| {
            let r = slot(x, i);
            row_max[r] = row_max[r].max(s[fs.crd2idx((x, i, j))]);
        },
    );
    let lanes = |m: f32| shfl_xor_reduce(m, ROWS.xor(), f32::max);
    sm.update(
        row_max,
        lanes,
        warp_any,
        #[inline(always)]
        |corr| {
            each_value::<M, { D / 8 }>(
                #[inline(always)]
                |x, i, j| acc_o[fo.crd2idx((x, i, j))] *= corr[slot(x, i)],
            )
        },
    );
    // S's registers are free after it.
    each::<{ flash_bn(D) / 16 }>(
        #[inline(always)]
        |kk| {
            each::<M>(
                #[inline(always)]
                |i| {
                    each::<4>(
                        #[inline(always)]
                        |r| {
                            let e = [2 * r, 2 * r + 1].map(
                                #[inline(always)]
                                |x| {
                                    let row = slot(TO_A.value[x], i);
                                    sm.p(s[pa.crd2idx((x, i, kk))], row)
                                },
                            );
                            pr[kk][i][r] = f16x2(e[0], e[1]);
                        },
                    )
                },
            )
        },
    );
}

/// O += P·V for the V tile in shared memory, 16 keys at a time, V's
/// fragments pair by pair from the thread's rows (`lv`).
#[instantiate((64, 2), (128, 2), (256, 1))]
#[inline(always)]
fn pv_gemm<B: SharedBuffer, const D: usize, const M: usize>(
    acc_o: &mut [f32],
    pr: &[[[u32; 4]; M]],
    lv: usize,
    v_at: usize,
) {
    let fo = flash_frag_o::<D>();
    let wv = Smem::window::<B>(v_at, flash_bn(D) * D / 2);
    each::<{ flash_bn(D) / 16 }>(
        #[inline(always)]
        |kk| {
            // V's fragments pair by pair, the next pair's loaded before
            // this one's MMAs.
            let ldv = |j2: usize| {
                SM75_U16x8_LDSM_T::ldsm(wv, row16((lv ^ (16 * j2)) / 2, 8 * D) + kk * 8 * D)
            };
            let mut fb = ldv(0);
            each::<{ D / 16 }>(
                #[inline(always)]
                |j2| {
                    let next = if j2 + 1 < D / 16 { ldv(j2 + 1) } else { fb };
                    mma_pair(acc_o, |x, i, j| fo.crd2idx((x, i, j)), &pr[kk], fb, j2);
                    fb = next;
                },
            )
        },
    );
}

/// The epilogue: the rows' sums (each lane held its columns' share), O /
/// sum as f16 pairs, and the log-sum-exp of the rows inside Q.
#[instantiate(
    (64, false, 4),
    (64, true, 4),
    (128, false, 4),
    (128, true, 4),
    (256, false, 2),
    (256, true, 2)
)]
#[inline(always)]
fn epilogue<const D: usize, const CAUSAL: bool, const R: usize, Out>(
    acc_o: &[f32],
    sm: &mut OnlineSoftmax<R>,
    p: &FlashProblem,
    outputs: Out,
    (m0, tid32): (u32, u32),
    (row0, seq_q): (usize, u32),
) where
    Out: FnOnce(&FlashProblem) -> (GlobalMut<u32>, GlobalMut<f32>),
{
    let heads = p.heads;
    let fo = flash_frag_o::<D>();
    let (m0, tid) = (m0 as usize, tid32 as usize);
    let inv = sm.finish(|x| shfl_xor_reduce(x, ROWS.xor(), |a, b| a + b));
    // Recomputed here from the block's index, not kept across the loop.
    let (_, h, b) = {
        let (x, y, z) = block_idx_xyz();
        row_block::<CAUSAL>((in_loop(x), in_loop(y), in_loop(z)))
    };
    // Planes: recomputed from the block's index and the parameters (the
    // values passed are then not held across the loop). Row r of the
    // sequence is row row0 + r of the tensors; its log-sum-exp is in head
    // h's rows of the plane: (batch, heads, rows) for planes, (heads,
    // rows) packed.
    let (o, lse) = outputs(p);
    let (o_base, lse_base, seq_q) = if p.cu_q.is_empty() {
        (b * p.seq_q * heads + h, (b * heads + h) * p.seq_q, p.seq_q)
    } else {
        (row0 * heads + h, h * p.seq_q + row0, seq_q as usize)
    };
    each::<{ flash_mma_m(D) }>(
        #[inline(always)]
        |i| {
            each::<{ D / 8 }>(
                #[inline(always)]
                |j| {
                    each::<2>(
                        #[inline(always)]
                        |pair| {
                            let x = 2 * pair;
                            let (row, col) = flash_o_coord::<D>(tid, (x, i, j));
                            let r = slot(x, i);
                            if m0 + row < seq_q {
                                let (lo, hi) = (
                                    acc_o[fo.crd2idx((x, i, j))] * inv[r],
                                    acc_o[fo.crd2idx((x + 1, i, j))] * inv[r],
                                );
                                o.st(((o_base + (m0 + row) * heads) * D + col) / 2, f16x2(lo, hi));
                            }
                        },
                    )
                },
            )
        },
    );
    // One lane of each row's group writes its log-sum-exp (natural log).
    if (tid % 32) as u32 & ROWS.lane_bits() == 0 {
        each::<{ flash_mma_m(D) }>(
            #[inline(always)]
            |i| {
                each::<4>(
                    #[inline(always)]
                    |x| {
                        // The first value of each row slot.
                        if x == 0 || ROWS.row_of[x] != ROWS.row_of[x - 1] {
                            let (row, _) = flash_o_coord::<D>(tid, (x, i, 0));
                            let r = slot(x, i);
                            if m0 + row < seq_q {
                                lse.st(lse_base + m0 + row, sm.lse(r));
                            }
                        }
                    },
                )
            },
        );
    }
}
