//! `flash_attn_fwd_sm90`'s body for head dimension `D`, causal or not, with
//! `S` stages per K/V ring, in its steps: the block's plan in shared memory
//! ([`attention_body`]); the producer warpgroup's TMA loads of Q and of
//! each K and V tile ([`produce`]); each consumer warpgroup's loop
//! ([`consume`]) of S = Q·Kᵀ ([`s_gemm`]), the masks and the online softmax
//! ([`softmax`]), P packed as A fragments ([`pack`]) and O += P·V
//! ([`pv_gemm`]); and the epilogue's O / sum and log-sum-exp
//! ([`epilogue`]).

use super::{
    barriers_at, bm, consumer_registers, consumers, first_row, k_at, k_desc, kv_bytes, kv_tiles,
    max_seq_q, o_row, q_bytes, q_desc, smem_bytes, v_at, v_desc, PvAtom256, SAtom, BN, CHUNK,
    HAND_WORDS, PRODUCER_REGISTERS, P_OF_S, S_ROWS,
};
use layout_core::atom::MmaAtom;
use layout_core::instantiate;
use layout_device::{
    block_idx, each, f16x2, fence_tensormap_acquire, grid_dim, setmaxnreg_dec, setmaxnreg_inc,
    shfl_xor_reduce, sync_threads_divergent, thread_idx, tma_load_3d, trap, warp_any,
    wgmma_commit_group, wgmma_fence, wgmma_m64n128k16_f32_f16, wgmma_m64n128k16_f32_f16_rs,
    wgmma_m64n256k16_f32_f16_rs, wgmma_m64n64k16_f32_f16_rs, wgmma_wait_group, GlobalMut, Mbarrier,
    OnlineSoftmax, PipelineTmaAsync, Sequences, SharedBuffer, Smem,
};

/// Rows of S (and O) a consumer thread holds: its accumulator's row slots.
const ROWS: usize = S_ROWS.rows;

/// A consumer thread's place: its warpgroup's 64 rows of the block
/// (`warpgroup` = 0, 1 or 2) and its thread in it `wg_thread`, the plan's
/// shared address, and where the thread's S values lie: S's C layout is the
/// thread's offset plus the value's (a layout is additive over its modes),
/// the offset row + 64 column, so the thread's first row `row_t` and key column `key_t` and a
/// value's constant offsets give each value's row and key.
#[derive(Clone, Copy)]
struct Consumer {
    warpgroup: u32,
    wg_thread: usize,
    base: u32,
    m0: i32,
    row_t: i32,
    key_t: u32,
}

/// The block's sequence and head: its rows and keys (`seq_q`, `seq_k`),
/// where they are (`plane`, the first row `q0` and key `k0` in it, planes
/// of `rows` query rows), the head and the mask's bounds.
#[derive(Clone, Copy)]
struct Problem {
    seq_q: usize,
    seq_k: usize,
    rows: usize,
    plane: usize,
    q0: usize,
    heads: usize,
    h: usize,
    /// The masked entries' upper bound: query i sees keys up to i + offset.
    offset: i32,
    /// Their lower bound (a sliding window): keys from i + lower
    /// (`i32::MIN`: none).
    lower: i32,
}

/// Each of a thread's 64 S values by a constant index: value 16 i + j.
#[inline(always)]
fn each_s(mut f: impl FnMut(usize)) {
    each::<4>(
        #[inline(always)]
        |i| {
            each::<16>(
                #[inline(always)]
                |j| f(16 * i + j),
            )
        },
    )
}

/// One unit of a launch's work: a block of `bm(D)` query rows of one
/// (sequence, head), its first row `m0` (-bm(D) < m0 < seq_q) and the K/V
/// tiles `first..tiles` it reads.
#[derive(Clone, Copy)]
struct Item {
    sq: layout_device::Sequence,
    h: usize,
    h_kv: usize,
    m0: i32,
    first: usize,
    tiles: usize,
}

/// The launch's units of work: `row_blocks` x `heads` x the sequences
/// (`batch`), unit `w` the row block `w % row_blocks` of head `w /
/// row_blocks % heads` of sequence `w / (row_blocks heads)` (a causal
/// row block's cost falls with its index: [`first_row`]).
#[derive(Clone, Copy)]
struct Work {
    seqs: Sequences,
    row_blocks: u32,
    heads: u32,
    kv_heads: u32,
    batch: u32,
    bounds: (i32, i32),
    bottom_right: bool,
}

impl Work {
    /// The units in all (a count past 31 bits traps).
    #[inline(always)]
    fn count(&self) -> u32 {
        let n = self.row_blocks as u64 * self.heads as u64 * self.batch as u64;
        if n >= u32::MAX as u64 / 2 {
            trap()
        }
        n as u32
    }

    /// Unit `w` (below [`Work::count`]), or `None` for a packed
    /// sequence's row block past its rows (nothing to do); the launch's
    /// checks, each a trap.
    #[inline(always)]
    fn item<const D: usize, const CAUSAL: bool>(&self, w: u32) -> Option<Item> {
        let (rb, heads) = (self.row_blocks, self.heads);
        let (bx, h, b) = (
            (w % rb) as usize,
            (w / rb % heads) as usize,
            (w / (rb * heads)) as usize,
        );
        let seqs = self.seqs;
        // Grouped-query attention: query head h reads K/V head h / (heads /
        // kv_heads) (kv_heads = heads: one each; 1: multi-query).
        if self.kv_heads == 0 || heads % self.kv_heads != 0 {
            trap()
        }
        let h_kv = h / (heads / self.kv_heads) as usize;
        let Some(sq) = seqs.get(b, self.bounds, self.bottom_right) else {
            trap()
        };
        let (seq_q, seq_k) = (sq.seq_q, sq.seq_k);
        // Packed: enough row blocks for the longest sequence, those past
        // this one's rows done (and a sequence may have no key).
        if seqs.packed() {
            if seq_q > self.row_blocks as usize * bm(D) {
                trap()
            }
            if bx >= seq_q.div_ceil(bm(D)) {
                return None;
            }
        }
        let m0 = first_row(bx, bm(D), seq_q, CAUSAL);
        // The masks compare 32-bit coordinates (a block's rows up to m0 +
        // bm(D) among them, past a packed sequence's start), TMA's are i32;
        // planes: other than ceil(seq_q / bm) row blocks, or no key, is a
        // launch error.
        if (!seqs.packed() && (self.row_blocks as usize != seq_q.div_ceil(bm(D)) || seq_k == 0))
            || m0 >= seq_q as isize
            || m0 + bm(D) as isize <= 0
            || seqs.seq_q > max_seq_q(D)
            || seqs.seq_k > i32::MAX as usize
        {
            trap()
        }
        let tiles = kv_tiles(m0, bm(D), (seq_q, seq_k), CAUSAL, sq.offset as isize);
        // A sliding window's lower bound (query i sees no key below i +
        // lower): the tiles wholly below the block's first row's are
        // skipped.
        let first = if CAUSAL {
            let from = m0 as i64 + sq.lower as i64;
            let first = if from > 0 { from as usize / BN } else { 0 };
            if first < tiles {
                first
            } else {
                tiles
            }
        } else {
            0
        };
        // -bm(D) < m0 < seq_q: an i32 (rows before 0 read zeros, are never
        // stored).
        Some(Item {
            sq,
            h,
            h_kv,
            m0: m0 as i32,
            first,
            tiles,
        })
    }
}

/// The unit of work that block `block` of `blocks` takes in its round
/// `round` (`None` past the last unit): the rounds hand out units in order,
/// one to each block, its blocks in turn and in reverse in turn, so that
/// where a unit's cost falls along its row blocks (causal), a block that
/// took a long one takes a short one next ([`Work`]). Every block works
/// it out from its index and the launch's sizes: uniform values, so that
/// ptxas sees the `wgmma`s' control flow as uniform (a unit's index read
/// from memory makes it serialize them).
#[inline(always)]
fn unit_of(block: u32, blocks: u32, round: u32, units: u32) -> Option<u32> {
    let at = if round % 2 == 0 {
        block
    } else {
        blocks - 1 - block
    };
    let w = round as u64 * blocks as u64 + at as u64;
    if w < units as u64 {
        Some(w as u32)
    } else {
        None
    }
}

/// The block, persistent: the plan from the buffer's first 1024-byte
/// boundary and the barriers initialised; then warpgroup 0's first thread
/// loads each of the block's units' Q, K and V (`unit_of`), while the
/// consumers compute them. A unit's Q is loaded once the consumers are
/// done reading the last one's (`q_free`: before their last P·V and
/// epilogue), its K/V tiles as the rings free, so the next unit's loads
/// run under this one's end. With as many blocks as units, each block
/// computes one; not `PERSISTENT`, the launch must have as many, and the
/// code is that of one unit (the packed sequences' entries: their per-unit
/// values, read from memory, would not fit the consumers' registers
/// across a loop of units). The mask's bounds are taken from the top-left
/// diagonal, or from the bottom-right one when `bottom_right`.
#[instantiate(
    (64, false, 4, true), (64, true, 4, true), (128, false, 2, true), (128, true, 2, true),
    (256, false, 1, true), (256, true, 1, true), (64, false, 4, false), (64, true, 4, false),
    (128, false, 2, false), (128, true, 2, false), (256, false, 1, false), (256, true, 1, false)
)]
#[inline(always)]
pub fn attention_body<
    B: SharedBuffer,
    const D: usize,
    const CAUSAL: bool,
    const S: usize,
    const PERSISTENT: bool,
>(
    (map_q, map_k, map_v): (u64, u64, u64),
    (o, lse): (GlobalMut<u16>, GlobalMut<f32>),
    (seqs, heads, kv_heads): (Sequences, u32, u32),
    (offset, lower, bottom_right, scale): (i32, i32, bool, f32),
    (row_blocks, batch): (u32, u32),
) {
    let t = thread_idx();
    let work = Work {
        seqs,
        row_blocks,
        heads,
        kv_heads,
        batch,
        bounds: (offset, lower),
        bottom_right,
    };
    let units = work.count();
    let (block, blocks) = (block_idx().0 as u32, grid_dim().0 as u32);
    // Not `PERSISTENT`: one unit, the block's (the loops below run once).
    let unit_of = |round: u32| {
        if PERSISTENT || round == 0 {
            unit_of(block, blocks, round, units)
        } else {
            None
        }
    };
    // (`B` is `smem_bytes(D)` bytes: the launch gives that.)
    let all = Smem::window::<B>(0, smem_bytes(D) / 4);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let base = all.address() + 4 * skip as u32;
    let bars = skip + barriers_at(D) / 4;
    type Ring<const S: usize> = PipelineTmaAsync<S>;
    let q_full = Mbarrier::at(Smem::window::<B>(bars, 2), 0);
    let q_free = Mbarrier::at(Smem::window::<B>(bars + 2, 2), 0);
    let rings = bars + HAND_WORDS;
    let kpipe = Ring::<S>::at(Smem::window::<B>(rings, Ring::<S>::WORDS));
    let vpipe = Ring::<S>::at(Smem::window::<B>(
        rings + Ring::<S>::WORDS,
        Ring::<S>::WORDS,
    ));
    if t == 0 {
        q_full.init(1);
        // Each consumer warp arrives once (lane 0), as it releases a stage.
        q_free.init(4 * consumers(D) as u32);
        kpipe.init(4 * consumers(D) as u32);
        vpipe.init(4 * consumers(D) as u32);
    }
    sync_threads_divergent();
    if t < 128 {
        setmaxnreg_dec::<PRODUCER_REGISTERS>();
        if t == 0 {
            fence_tensormap_acquire(map_q);
            fence_tensormap_acquire(map_k);
            fence_tensormap_acquire(map_v);
            let (mut kp, mut vp) = (kpipe.producer(), vpipe.producer());
            let (mut round, mut done) = (0, 0u32);
            while let Some(w) = unit_of(round) {
                round += 1;
                // (A packed sequence's row block past its rows: nothing.)
                let Some(unit) = work.item::<D, CAUSAL>(w) else {
                    continue;
                };
                // The consumers are done reading the last unit's Q.
                if done > 0 {
                    q_free.wait((done - 1) & 1);
                }
                produce::<B, D, S>(
                    (map_q, map_k, map_v),
                    (skip, &unit),
                    q_full,
                    (&mut kp, &mut vp),
                );
                done += 1;
            }
        }
        return;
    }
    setmaxnreg_inc::<{ consumer_registers(D) }>();
    let (warpgroup, wg_thread) = ((t / 128 - 1) as u32, t % 128);
    let s_offset = <SAtom as MmaAtom>::CLayout::default().crd2idx((wg_thread, 0usize));
    let (mut kc, mut vc) = (kpipe.consumer(), vpipe.consumer());
    let (mut round, mut done) = (0, 0u32);
    while let Some(w) = unit_of(round) {
        round += 1;
        let Some(unit) = work.item::<D, CAUSAL>(w) else {
            continue;
        };
        let m0 = unit.m0;
        let c = Consumer {
            warpgroup,
            wg_thread,
            base,
            m0,
            row_t: m0 + 64 * warpgroup as i32 + (s_offset % 64) as i32,
            key_t: (s_offset / 64) as u32,
        };
        let sq = unit.sq;
        let p = Problem {
            seq_q: sq.seq_q,
            seq_k: sq.seq_k,
            rows: seqs.seq_q,
            plane: sq.plane,
            q0: sq.q0,
            heads: heads as usize,
            h: unit.h,
            offset: sq.offset,
            lower: sq.lower,
        };
        q_full.wait(done & 1);
        consume::<D, CAUSAL, S>(
            &c,
            &p,
            (unit.first, unit.tiles),
            scale,
            (&mut kc, &mut vc),
            q_free,
            (o, lse),
        );
        done += 1;
    }
}

/// The producer's loads of one unit: Q's tile from its first row, then
/// each K and V tile into its ring's next stage, as boxes of 64 columns
/// of head h's D (K/V head `h_kv`'s for K and V) and 128 rows of the
/// unit's plane (rows outside the plane read zeros; rows of the next
/// packed sequence are masked or never stored).
#[instantiate((64, 4), (128, 2), (256, 1))]
#[inline(always)]
fn produce<B: SharedBuffer, const D: usize, const S: usize>(
    (map_q, map_k, map_v): (u64, u64, u64),
    (skip, unit): (usize, &Item),
    q_full: Mbarrier,
    (kp, vp): (
        &mut layout_device::Producer<S>,
        &mut layout_device::Producer<S>,
    ),
) {
    let sq = unit.sq;
    let (b, q_row, k_row) = (sq.plane, sq.q0 as i32 + unit.m0, sq.k0 as i32);
    // Box c of a tile at `box_bytes` c, from the head at column `col0`.
    let (q_col0, kv_col0) = ((unit.h * D) as i32, (unit.h_kv * D) as i32);
    let load = |at: usize, box_bytes: usize, map: u64, (col0, row): (i32, i32), bar: Mbarrier| {
        each::<{ D / CHUNK }>(|c| {
            let window = Smem::window::<B>(skip + (at + c * box_bytes) / 4, box_bytes / 4);
            let col = col0 + (c * CHUNK) as i32;
            tma_load_3d(window, box_bytes, map, (col, row, b as i32), bar);
        });
    };
    q_full.arrive_expect_tx(q_bytes(D) as u32);
    load(0, bm(D) * 128, map_q, (q_col0, q_row), q_full);
    for n in unit.first..unit.tiles {
        let row = k_row + (n * BN) as i32;
        let slot = kp.acquire();
        let full = slot.barrier();
        full.arrive_expect_tx(kv_bytes(D) as u32);
        load(
            k_at(D, slot.stage() as usize),
            BN * 128,
            map_k,
            (kv_col0, row),
            full,
        );
        let slot = vp.acquire();
        let full = slot.barrier();
        full.arrive_expect_tx(kv_bytes(D) as u32);
        load(
            v_at(D, slot.stage() as usize),
            BN * 128,
            map_v,
            (kv_col0, row),
            full,
        );
    }
}

/// A consumer warpgroup's loop, FlashAttention-3's order within it: tile
/// n's S = Q·Kᵀ and tile n - 1's O += P·V are in flight together; S's
/// softmax runs while P·V does, and O is rescaled once P·V is done. (Each
/// `wgmma` issued unconditionally in its stretch: ptxas serializes them
/// where it cannot tell which group is in flight.)
#[instantiate((64, false, 4), (64, true, 4), (128, false, 2), (128, true, 2), (256, false, 1), (256, true, 1))]
#[inline(always)]
fn consume<const D: usize, const CAUSAL: bool, const S: usize>(
    c: &Consumer,
    p: &Problem,
    (first, tiles): (usize, usize),
    scale: f32,
    (kc, vc): (
        &mut layout_device::Consumer<S>,
        &mut layout_device::Consumer<S>,
    ),
    q_free: Mbarrier,
    out: (GlobalMut<u16>, GlobalMut<f32>),
) {
    // Q read for the last time: the producer may load the next unit's.
    let q_done = || {
        if c.wg_thread % 32 == 0 {
            q_free.arrive();
        }
    };
    let mut acc_o = const { [0f32; D / 2] };
    let mut sm = OnlineSoftmax::<ROWS>::new(scale);
    let mut s = const { [0f32; 64] };
    let mut pf = const { [[0u32; 4]; BN / 16] };
    if D == 256 {
        // O's 128 accumulators leave no registers for tile n's S beside
        // tile n - 1's P: each tile's S, softmax and P·V in turn (the
        // producer loads the next K while they run).
        for n in first..tiles {
            let kslot = kc.wait();
            wgmma_fence();
            s_gemm::<D>(&mut s, kslot.stage(), c);
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            if c.wg_thread % 32 == 0 {
                kc.release(kslot);
            }
            let (grown, corr) = softmax::<CAUSAL>(&mut s, n, &mut sm, c, p);
            if grown {
                rescale::<D>(&mut acc_o, &corr);
            }
            pack(&s, &mut pf);
            let vslot = vc.wait();
            wgmma_fence();
            pv_gemm::<D>(&mut acc_o, &pf, vslot.stage(), c);
            wgmma_commit_group();
            wgmma_wait_group::<0>();
            if c.wg_thread % 32 == 0 {
                vc.release(vslot);
            }
        }
        q_done();
        epilogue::<D>(&acc_o, &mut sm, out, c, p);
        return;
    }
    if first >= tiles {
        // No row of the block sees a key (a bottom-right mask on fewer
        // keys than queries): O = 0 and the log-sum-exp -inf, as
        // FlashAttention defines them.
        q_done();
        epilogue::<D>(&acc_o, &mut sm, out, c, p);
        return;
    }
    let slot = kc.wait();
    wgmma_fence();
    s_gemm::<D>(&mut s, slot.stage(), c);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    if c.wg_thread % 32 == 0 {
        kc.release(slot);
    }
    // O is 0 yet: its rescale is moot.
    let _ = softmax::<CAUSAL>(&mut s, first, &mut sm, c, p);
    pack(&s, &mut pf);
    for n in first + 1..tiles {
        let kslot = kc.wait();
        wgmma_fence();
        s_gemm::<D>(&mut s, kslot.stage(), c);
        wgmma_commit_group();
        let vslot = vc.wait();
        pv_gemm::<D>(&mut acc_o, &pf, vslot.stage(), c);
        wgmma_commit_group();
        // S is done (groups complete in order); P·V may not be.
        wgmma_wait_group::<1>();
        if c.wg_thread % 32 == 0 {
            kc.release(kslot);
        }
        let (grown, corr) = softmax::<CAUSAL>(&mut s, n, &mut sm, c, p);
        wgmma_wait_group::<0>();
        if c.wg_thread % 32 == 0 {
            vc.release(vslot);
        }
        // O (through tile n - 1) against the reference tile n moved to.
        if grown {
            rescale::<D>(&mut acc_o, &corr);
        }
        pack(&s, &mut pf);
    }
    // Every S = Q·Kᵀ is done (waited for above).
    q_done();
    let slot = vc.wait();
    wgmma_fence();
    pv_gemm::<D>(&mut acc_o, &pf, slot.stage(), c);
    wgmma_commit_group();
    wgmma_wait_group::<0>();
    if c.wg_thread % 32 == 0 {
        vc.release(slot);
    }
    epilogue::<D>(&acc_o, &mut sm, out, c, p);
}

/// O's accumulators against the reference the softmax moved to: each
/// times its row's factor.
#[instantiate(64, 128, 256)]
#[inline(always)]
fn rescale<const D: usize>(acc_o: &mut [f32], corr: &[f32; ROWS]) {
    each::<{ D / 32 }>(|i| {
        each::<16>(|j| {
            let v = 16 * i + j;
            acc_o[v] *= corr[o_row(v)];
        })
    });
}

/// S = Q·Kᵀ for the K tile in ring stage `stage`, issued (not waited for).
#[instantiate(64, 128, 256)]
#[inline(always)]
fn s_gemm<const D: usize>(s: &mut [f32; 64], stage: u32, c: &Consumer) {
    let k_addr = c.base + k_at(D, stage as usize) as u32;
    each::<{ D / 16 }>(|ks| {
        let ks = ks as u32;
        wgmma_m64n128k16_f32_f16(
            q_desc(c.base, bm(D) as u32, c.warpgroup, ks).bits(),
            k_desc(k_addr, ks).bits(),
            s,
            ks > 0,
        );
    });
}

/// O += P·V for the V tile in ring stage `stage` (N-major: the transpose
/// bit), issued; P's A fragment kk is 16 keys.
#[instantiate(64, 128, 256)]
#[inline(always)]
fn pv_gemm<const D: usize>(acc_o: &mut [f32], p: &[[u32; 4]; BN / 16], stage: u32, c: &Consumer) {
    let v_addr = c.base + v_at(D, stage as usize) as u32;
    each::<{ BN / 16 }>(|kk| {
        let dv = v_desc::<D>(v_addr, kk as u32).bits();
        // (Both forms type-check in each copy; the other is never taken.)
        match D {
            64 => match (&mut acc_o[..]).try_into() {
                Ok(acc) => wgmma_m64n64k16_f32_f16_rs::<true>(p[kk], dv, acc, true),
                Err(_) => trap(),
            },
            128 => match (&mut acc_o[..]).try_into() {
                Ok(acc) => wgmma_m64n128k16_f32_f16_rs::<true>(p[kk], dv, acc, true),
                Err(_) => trap(),
            },
            _ => match (&mut acc_o[..]).try_into() {
                Ok(acc) => wgmma_m64n256k16_f32_f16_rs::<true>(p[kk], dv, acc, true),
                Err(_) => trap(),
            },
        }
    });
}

/// The online softmax of tile n's S, in place: the masks (keys past
/// seq_k, and when causal past the row, count for nothing), the row
/// maxima, the reference moved (the sums rescaled now, O by the returned
/// factors once its P·V is done) only when some row of the warp outgrew it
/// by `RESCALE_SLACK`, then S := P.
#[inline(always)]
fn softmax<const CAUSAL: bool>(
    s: &mut [f32; 64],
    n: usize,
    sm: &mut OnlineSoftmax<ROWS>,
    c: &Consumer,
    p: &Problem,
) -> (bool, [f32; ROWS]) {
    let (seq_k, offset, lower) = (p.seq_k, p.offset, p.lower);
    let cs = <SAtom as MmaAtom>::CLayout::default();
    if sm.negative() {
        each_s(|v| s[v] = -s[v]);
    }
    let n0 = (n * BN) as u32;
    let first_row = c.m0 + 64 * c.warpgroup as i32;
    // (n0 + BN - 1 < seq_k <= i32::MAX.)
    // Past a row's keys: key > row + offset, or (a window) key < row +
    // lower. The warpgroup's rows are first_row..first_row + 64.
    // (Clamped to ±2^30: a value's dk and dr, below 64 and 128, then add
    // without overflow, and a bound past every key stays past it.)
    let to_i32 = |x: i64| x.clamp(-(1 << 30), 1 << 30) as i32;
    if n0 + BN as u32 > seq_k as u32
        || (CAUSAL
            && ((n0 + BN as u32 - 1) as i64 > first_row as i64 + offset as i64
                || (n0 as i64) < first_row as i64 + 63 + lower as i64))
    {
        let keys_left = seq_k as i32 - (n0 + c.key_t) as i32;
        let ahead = to_i32((n0 + c.key_t) as i64 - c.row_t as i64 - offset as i64);
        let behind = to_i32((n0 + c.key_t) as i64 - c.row_t as i64 - lower as i64);
        each_s(|v| {
            let qv = cs.crd2idx((0usize, v));
            let (dr, dk) = ((qv % 64) as i32, (qv / 64) as i32);
            if dk >= keys_left || (CAUSAL && (ahead + dk > dr || behind + dk < dr)) {
                s[v] = f32::NEG_INFINITY;
            }
        });
    }
    let mut row_max = [f32::NEG_INFINITY; ROWS];
    each_s(|v| {
        let r = S_ROWS.row_of[v];
        row_max[r] = row_max[r].max(s[v]);
    });
    let mut corr = [1f32; ROWS];
    let lanes = |m: f32| shfl_xor_reduce(m, S_ROWS.xor(), f32::max);
    let grown = sm.update(row_max, lanes, warp_any, |f| corr = *f);
    each_s(|v| s[v] = sm.p(s[v], S_ROWS.row_of[v]));
    (grown, corr)
}

/// P as f16 pairs: A fragment kk of O += P·V is S's values
/// `P_OF_S.value[8 kk + x]` (derived from the two atoms' layouts).
#[inline(always)]
fn pack(s: &[f32; 64], p: &mut [[u32; 4]; BN / 16]) {
    each::<{ BN / 16 }>(|kk| {
        each::<4>(|r| {
            p[kk][r] = f16x2(
                s[P_OF_S.value[8 * kk + 2 * r]],
                s[P_OF_S.value[8 * kk + 2 * r + 1]],
            );
        })
    });
}

/// The epilogue: the rows' sums (each lane held its columns' share), O /
/// sum as f16 pairs (values v and v + 1, v even, are adjacent columns of
/// one row), the log-sum-exp of the rows inside Q.
#[instantiate(64, 128, 256)]
#[inline(always)]
fn epilogue<const D: usize>(
    acc_o: &[f32],
    sm: &mut OnlineSoftmax<ROWS>,
    (o, lse): (GlobalMut<u16>, GlobalMut<f32>),
    c: &Consumer,
    p: &Problem,
) {
    let inv = sm.finish(|x| shfl_xor_reduce(x, S_ROWS.xor(), |a, b| a + b));
    // O's C layout is S's on O's D / 2 values below d = 256 (`attention`'s
    // tests), its own P·V atom's at d = 256.
    let co = <SAtom as MmaAtom>::CLayout::default();
    let co256 = <PvAtom256 as MmaAtom>::CLayout::default();
    let o_at = |t: usize, v: usize| {
        if D == 256 {
            co256.crd2idx((t, v))
        } else {
            co.crd2idx((t, v))
        }
    };
    use layout_core::tensor::memory::Memory;
    let o32 = match Memory::window(o, 0, o.len() & !1) {
        Some(even) => even.cast::<u32>(),
        None => trap(),
    };
    let (seq_q, heads, h) = (p.seq_q, p.heads, p.h);
    // Row r of the sequence: row q0 + r of plane `plane`, of `rows` each.
    let (o_row0, lse_row0) = (
        p.plane * p.rows + p.q0,
        (p.plane * heads + h) * p.rows + p.q0,
    );
    // The sequence's rows of O and LSE lie in them: checked once, on values
    // every thread shares, so that the stores below need no check of their
    // own (`store_where` skips a store past the buffer).
    // (O's end: the last row's head h ends at ((row) heads + h + 1) D.)
    if seq_q == 0
        || ((o_row0 + seq_q - 1) * heads + h + 1) * D > o32.len() * 2
        || lse_row0 + seq_q > lse.len()
    {
        trap()
    }
    let o_offset = o_at(c.wg_thread, 0);
    // (Pinned: the stores' addresses are worked out here, after the K/V
    // loop, not before it, `layout_device::pin`.)
    let orow = layout_device::pin((c.m0 + 64 * c.warpgroup as i32) as u32) as i32;
    let (orow, ocol) = (orow + (o_offset % 64) as i32, o_offset / 64);
    each::<{ D / 32 }>(|i| {
        each::<8>(|j| {
            let v = 16 * i + 2 * j;
            let qv = o_at(0, v);
            let (row, col) = (orow + (qv % 64) as i32, ocol + qv / 64);
            // (Predicated stores: no branch before the next unit's
            // `wgmma`s, `GlobalMut::store_where`.)
            let inside = row >= 0 && row < seq_q as i32;
            let r = o_row(v);
            let word = f16x2(acc_o[v] * inv[r], acc_o[v + 1] * inv[r]);
            // (Wrapping: a row outside the sequence is not stored.)
            let at = (o_row0.wrapping_add(row as usize))
                .wrapping_mul(heads)
                .wrapping_add(h)
                .wrapping_mul(D)
                .wrapping_add(col);
            o32.store_where(inside, at / 2, word);
        })
    });
    // One lane of each row's group writes its log-sum-exp.
    let writes = (c.wg_thread % 32) as u32 & S_ROWS.lane_bits() == 0;
    each::<ROWS>(|r| {
        // The row of the first S value in row slot r.
        let mut v = 0;
        while S_ROWS.row_of[v] != r {
            v += 1;
        }
        let row = c.row_t + (co.crd2idx((0usize, v)) % 64) as i32;
        let inside = row >= 0 && row < seq_q as i32;
        let at = lse_row0.wrapping_add(row as usize);
        lse.store_where(writes && inside, at, sm.lse(r));
    });
}

#[cfg(test)]
mod tests {
    use super::unit_of;
    use std::vec;

    /// The rounds hand out every unit once, each block's units in order,
    /// and with a whole number of heads' row blocks a round, a block's
    /// units in rounds 2k and 2k + 1 are row blocks i and `row_blocks` -
    /// 1 - i (their causal costs add up alike).
    #[test]
    fn rounds_cover_every_unit_once_and_pair_row_blocks() {
        for (blocks, units) in [(1, 5), (4, 4), (4, 13), (132, 2816), (129, 2752), (7, 3)] {
            let mut seen = vec![0u8; units as usize];
            for block in 0..blocks {
                let mut round = 0;
                let mut last = None;
                while let Some(w) = unit_of(block, blocks, round, units) {
                    seen[w as usize] += 1;
                    assert!(
                        last.is_none_or(|l| l < w),
                        "{blocks} blocks: block {block}'s units in order"
                    );
                    last = Some(w);
                    round += 1;
                }
            }
            assert!(
                seen.iter().all(|&n| n == 1),
                "{blocks} blocks, {units} units: {seen:?}"
            );
        }
        let (row_blocks, blocks) = (43u32, 129u32);
        for block in 0..blocks {
            let a = unit_of(block, blocks, 0, 10_000).unwrap() % row_blocks;
            let b = unit_of(block, blocks, 1, 10_000).unwrap() % row_blocks;
            assert_eq!(a + b, row_blocks - 1, "block {block}");
        }
    }
}
