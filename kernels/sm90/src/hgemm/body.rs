//! The GEMM's body for the form `super::FORMS[I]`, inputs `In`, C's type
//! `Out` and an epilogue fusion, in its steps: the block's work in the
//! plan's shared memory ([`gemm_body`]), the producer warpgroup's TMA loads
//! ([`produce`]: the mainloop's producer), each consumer warpgroup's K-loop
//! of `wgmma`s ([`mma_tile`]: the mainloop's consumer) and its epilogue,
//! the fusion and store of its 64 rows of the tile, straight to global
//! memory ([`store_tile`]) or through shared memory by TMA
//! ([`store_tile_tma`]); in ping-pong ([`Turns`]) each consumer takes
//! whole tiles of its own. `hgemm_sm90` is [`hgemm_body`]: f16 in, f16 out,
//! no fusion, direct stores.

use super::{
    c_buffers, c_stage_at, ceil_div, desc, ATile, BTile, F16In, Form, Inputs, BN, B_BYTES,
};
use super::{
    handoff_at, EPILOGUE_CONSUMER_REGISTERS, EPILOGUE_WARPS_REGISTERS, WIDE_BUFS, WIDE_STAGES,
};
use super::{
    CONSUMER_REGISTERS, C_COLS, C_STAGE_BYTES, FORMS, LONE_CONSUMER_REGISTERS, LONE_STAGES,
    PRODUCER_REGISTERS, STAGES,
};
use super::{
    GROUPED_CONSUMER_REGISTERS, GROUPED_COOP_PRODUCER_REGISTERS, GROUPED_PRODUCER_REGISTERS,
};
use crate::smem::HGEMM_SMEM;
use layout_core::atom::{MmaAtom, SM90_64x256x16_F32F16F16_SS as Gmma};
use layout_device::epilogue::{Fusion, Hold, OutElem, Plain, F16};
use layout_device::{
    block_idx, cluster_ctarank, cluster_idx, cluster_sync, fence_tensormap_acquire, grid_dim,
    setmaxnreg_dec, setmaxnreg_inc, sync_threads_divergent, sync_warp, thread_idx, tma_load_2d,
    tma_load_2d_multicast, trap, wgmma_commit_group, wgmma_fence, wgmma_wait_group, Consumer,
    ConsumerSlot, GlobalMut, GmmaInstr, Mbarrier, PipelineTmaAsync, SharedBuffer, Smem,
};
use layout_device::{each, shfl_idx, F4};
use layout_device::{fence_proxy_async_shared, named_barrier, named_barrier_arrive, tma_store_2d};
use layout_device::{tma_store_commit, tma_store_wait};

/// Where C goes: global memory by each thread's stores, or a tensor map
/// (in global memory) for TMA stores from shared memory.
#[derive(Clone, Copy)]
pub enum COut {
    /// C's m x n elements, row-major.
    Global(GlobalMut<u16>),
    /// The map of C (m x n, row-major, 16-bit elements) with 64 x 64 boxes
    /// and the 128-byte swizzle.
    Tma(*const u64),
    /// A grouped GEMM's C: by TMA (`map`, as [`COut::Tma`]) where a
    /// consumer's 64 rows of a tile lie in its group, else by each thread
    /// (`c`), clipped at the group's last row (TMA clips only at C's).
    TmaGrouped {
        /// The map of C, as [`COut::Tma`]'s.
        map: *const u64,
        /// C's m x n elements, row-major.
        c: GlobalMut<u16>,
        /// The tail's running sums and flags ([`Groups::tail_splits`]):
        /// a region of `super::SPLIT_REGION` floats and a flag per
        /// consumer's 64 rows of each tail tile, as [`COut::Split`]'s.
        sums: GlobalMut<f32>,
        /// The flags, 0 before the launch and after it.
        flags: GlobalMut<u32>,
    },
    /// Split-K's C and its workspace ([`gemm_split_body`]): `sums`, the
    /// running sum of a tile's splits so far (a region of
    /// `super::SPLIT_REGION` floats per consumer's 64 rows of each tile,
    /// `super::split_sums`), and `flags`, one per region
    /// (`super::split_flags`): how many splits have added into it, back
    /// to 0 once the last has stored C.
    Split {
        /// C's m x n elements, row-major.
        c: GlobalMut<u16>,
        /// The running sums.
        sums: GlobalMut<f32>,
        /// The flags, 0 before the launch.
        flags: GlobalMut<u32>,
    },
}

/// The block's share of the work: the tiles as the clusters see them
/// (`cluster` tiles along M each, this block's the `rank`-th: past C's rows
/// for the last of an odd count, loads of zeros and no stores), the first
/// it takes and the stride to its next, and where the plan starts in
/// shared memory.
#[derive(Clone, Copy)]
struct Work {
    form: Form,
    tiles_m: usize,
    tiles_n: usize,
    tiles: usize,
    kblocks: usize,
    cluster: u32,
    rank: usize,
    first: usize,
    step: usize,
    /// Words from the buffer's start to the plan's (its first 1024-byte
    /// boundary), and the plan's shared address.
    skip: usize,
    base: u32,
    /// C's rows (the dense GEMM's m).
    m: usize,
    /// A grouped GEMM's groups (`None`: one dense problem).
    groups: Option<Groups>,
    /// Splits of K per tile (1: none): tile `t` of `tiles` is split
    /// `t / (tiles_m tiles_n)` of tile `t % (tiles_m tiles_n)`.
    splits: usize,
    /// A grouped GEMM's tail ([`Groups::tail_splits`]): its tiles from
    /// `tail.0` on, `tail.1` of them, each cut into `tail.2` units, unit
    /// `tail.0 + v` split `v / tail.1` of tile `tail.0 + v % tail.1`
    /// (`tiles` counts the units).
    tail: (usize, usize, usize),
}

/// A grouped GEMM's problems: group g is rows `offsets[g]..offsets[g + 1]`
/// of A and C and rows `g n..(g + 1) n` of B (its n x k matrix).
#[derive(Clone, Copy)]
pub struct Groups {
    /// `count + 1` nondecreasing row offsets from 0.
    pub offsets: layout_device::Global<i32>,
    /// The number of groups.
    pub count: usize,
    /// Every group's n.
    pub n: usize,
    /// Splits of K for the tiles of the last, partial round of the
    /// persistent grid (1: none): with `r` tiles left over after the full
    /// rounds of `clusters` tiles, and `tail_splits * r <= clusters`, each
    /// of those tiles is cut into `tail_splits` units that add up in turn
    /// as split-K's do, so that the last round lasts a fraction of a tile.
    pub tail_splits: usize,
}

impl Groups {
    /// Group g's first row and its end.
    #[inline(always)]
    fn rows(&self, g: usize) -> (usize, usize) {
        (self.offsets.ld(g) as usize, self.offsets.ld(g + 1) as usize)
    }
}

/// Where a tile's operands and C lie: A's first row (C's too), B's first
/// row, the end of the tile's problem's rows, and the tile's column of
/// tiles.
#[derive(Clone, Copy)]
struct Loc {
    a_row: usize,
    b_row: usize,
    m_end: usize,
    tn: usize,
    /// The K-blocks the tile's split covers, the split, and the tile's
    /// splits (a grouped GEMM's: 1, or its tail's).
    kb: (usize, usize),
    split: usize,
    of: usize,
    /// The tile's index among those whose splits hand on (split-K's: the
    /// tile within its split; a grouped GEMM's tail: among the tail's),
    /// which picks its flags ([`Work::flag`]).
    slot: usize,
}

impl Work {
    /// The flag (and region of the sums) of consumer `wg`'s 64 rows of
    /// the tile at `loc`, among those whose splits hand on: one per
    /// consumer of each block of the cluster.
    #[inline(always)]
    fn flag(&self, loc: &Loc, wg: usize) -> usize {
        (loc.slot * self.cluster as usize + self.rank) * self.form.consumers + wg
    }

    /// Tile `tile`'s operands: its row of tiles this block's (in a
    /// grouped GEMM, of its group, the groups' tiles one after another).
    #[inline(always)]
    fn locate(&self, tile: usize) -> Loc {
        let bm = self.form.bm();
        let row_of = |tm: usize| (self.cluster as usize * tm + self.rank) * bm;
        match self.groups {
            None => {
                let per_split = self.tiles_m * self.tiles_n;
                let (mn, split) = (tile % per_split, tile / per_split);
                let (tm, tn) = self.form.tile_of(mn, self.tiles_m, self.tiles_n);
                Loc {
                    a_row: row_of(tm),
                    b_row: tn * BN,
                    m_end: self.m,
                    tn,
                    kb: super::split_range(split, self.splits, self.kblocks),
                    split,
                    of: self.splits,
                    slot: mn,
                }
            }
            Some(gs) => {
                // The unit's tile and split: the tail's units split by
                // split.
                let (first, count, of) = self.tail;
                let (tile, split, of) = if tile < first {
                    (tile, 0, 1)
                } else {
                    let v = tile - first;
                    (first + v % count, v / count, of)
                };
                // The groups' tiles one after another: `left` is `tile`'s
                // index among the tiles from group g's first on.
                let (mut left, mut g, mut start) = (tile, 0, 0);
                loop {
                    let end = gs.offsets.ld(g + 1) as usize;
                    let tiles_m = ceil_div(end.saturating_sub(start), bm * self.cluster as usize);
                    if left < tiles_m * self.tiles_n || g + 1 == gs.count {
                        // Along the group's rows of tiles (its B's columns
                        // of tiles side by side).
                        let (tm, tn) = (left / self.tiles_n, left % self.tiles_n);
                        return Loc {
                            a_row: start + row_of(tm),
                            b_row: g * gs.n + tn * BN,
                            m_end: end,
                            tn,
                            kb: super::split_range(split, of, self.kblocks),
                            split,
                            of,
                            slot: tile.saturating_sub(first),
                        };
                    }
                    left -= tiles_m * self.tiles_n;
                    (g, start) = (g + 1, end);
                }
            }
        }
    }
}

/// `hgemm_sm90`'s form `I`: [`gemm_body`] of f16 into f16, no fusion.
#[inline(always)]
pub fn hgemm_body<const I: usize>(
    map_a: *const u64,
    map_b: *const u64,
    c: GlobalMut<u16>,
    mnk: (u32, u32, u32),
) {
    gemm_body::<I, F16In, F16, Plain, HGEMM_SMEM>(map_a, map_b, COut::Global(c), mnk, Plain)
}

/// C (m x n, `Out`) = fusion(A · Bᵀ) for A (m x k) and B (n x k) of `In`,
/// row-major, f32 accumulators: the form's consumer warpgroups, the
/// K-blocks' overlap or not, its tile order, its clusters along M (1 or 2:
/// the pair shares B's tile, each block loading half of it for both), and
/// whether a tile inside C is stored without clipping; the plan in the
/// dynamic shared buffer `Smem` (`HGEMM_SMEM`, or `GEMM_TMA_SMEM` with the
/// TMA-store epilogue's staging buffers for [`COut::Tma`]).
#[inline(always)]
pub fn gemm_body<const I: usize, In: Inputs, Out: OutElem, F: Fusion, Buf: SharedBuffer>(
    map_a: *const u64,
    map_b: *const u64,
    c: COut,
    mnk: (u32, u32, u32),
    fusion: F,
) {
    gemm_inner::<I, In, Out, F, Buf, false>(map_a, map_b, c, mnk, fusion, None, None)
}

/// [`gemm_body`] with [`WIDE_STAGES`](super::WIDE_STAGES) stages and a
/// whole tile of staging, four buffers a consumer: for a fusion with an
/// activation, C by TMA (`COut::Tma`) in a cooperative form `I`, a
/// consumer then hands its tile to the epilogue warps without waiting for
/// them (they have the whole next K-loop to apply the activation and
/// store). Other fusions and outputs run as [`gemm_body`]'s, in the
/// shorter ring.
#[inline(always)]
pub fn gemm_wide_body<const I: usize, In: Inputs, Out: OutElem, F: Fusion, Buf: SharedBuffer>(
    map_a: *const u64,
    map_b: *const u64,
    c: COut,
    mnk: (u32, u32, u32),
    fusion: F,
) {
    gemm_inner::<I, In, Out, F, Buf, true>(map_a, map_b, c, mnk, fusion, None, None)
}

/// Split-K: C (m x n, `Out`) = fusion(A · Bᵀ) as [`gemm_body`], with K
/// cut into `splits` (each (tile, split) pair a unit of work, split s
/// covering `super::split_range(s, splits, ..)` of the K-blocks, the pairs
/// split by split). The splits of a tile add up in turn, in the L2: split
/// s waits until s splits have added into `sums` (its consumer's flag),
/// adds their sum to its own, and hands on; the last stores C through the
/// fusion and sets the flag back to 0. So each value is
/// `((p0 + p1) + p2) + ...` in split order, the same bits every run, in
/// one launch. With one split, C is stored directly.
///
/// The launch: a grid of one block per (tile, split) pair, or fewer
/// blocks all resident at once (a split waits only on the one before it,
/// a pair of lower index); `flags` all 0.
#[inline(always)]
pub fn gemm_split_body<const I: usize, In: Inputs, Out: OutElem, F: Fusion, Buf: SharedBuffer>(
    map_a: *const u64,
    map_b: *const u64,
    (c, sums, flags): (GlobalMut<u16>, GlobalMut<f32>, GlobalMut<u32>),
    mnk: (u32, u32, u32),
    splits: u32,
    fusion: F,
) {
    // One flag per consumer of a tile: no cluster shares a tile's rows.
    const { assert!(FORMS[I].1.cluster == 1) };
    const { assert!(!FORMS[I].1.pingpong, "split-K runs cooperative forms") };
    let c = COut::Split { c, sums, flags };
    gemm_inner::<I, In, Out, F, Buf, false>(map_a, map_b, c, mnk, fusion, None, Some(splits))
}

/// A grouped GEMM (a mixture-of-experts layer): for each group g,
/// C_g = fusion(A_g · B_gᵀ) with A_g rows `offsets[g]..offsets[g + 1]` of
/// A (all groups' rows, row-major, k columns: `map_a`), B_g rows from
/// `g n` to `(g + 1) n` of B (the groups' n x k matrices stacked: `map_b`),
/// C_g the same rows of C (n columns); every group's tiles in one
/// persistent launch, a group of no rows taking none. As [`gemm_body`]
/// otherwise, C's rows the total of the groups'.
#[inline(always)]
pub fn gemm_grouped_body<const I: usize, In: Inputs, Out: OutElem, F: Fusion, Buf: SharedBuffer>(
    map_a: *const u64,
    map_b: *const u64,
    c: COut,
    groups: Groups,
    k: u32,
    fusion: F,
) {
    let m = groups.offsets.ld(groups.count) as u32;
    let mnk = (m, groups.n as u32, k);
    gemm_inner::<I, In, Out, F, Buf, false>(map_a, map_b, c, mnk, fusion, Some(groups), None)
}

/// [`gemm_body`], [`gemm_split_body`] and [`gemm_grouped_body`]: the
/// form's ring of [`STAGES`](super::STAGES) or
/// [`LONE_STAGES`](super::LONE_STAGES) stages (the pipeline's stage count
/// is a type parameter; the branch folds, one ring compiled per form).
#[inline(always)]
fn gemm_inner<
    const I: usize,
    In: Inputs,
    Out: OutElem,
    F: Fusion,
    Buf: SharedBuffer,
    const WIDE: bool,
>(
    map_a: *const u64,
    map_b: *const u64,
    c: COut,
    mnk: (u32, u32, u32),
    fusion: F,
    groups: Option<Groups>,
    splits: Option<u32>,
) {
    if WIDE {
        gemm_ring::<I, WIDE_STAGES, In, Out, F, Buf, true>(
            map_a, map_b, c, mnk, fusion, groups, splits,
        )
    } else if const { FORMS[I].1.stages == LONE_STAGES } {
        gemm_ring::<I, LONE_STAGES, In, Out, F, Buf, false>(
            map_a, map_b, c, mnk, fusion, groups, splits,
        )
    } else {
        gemm_ring::<I, STAGES, In, Out, F, Buf, false>(map_a, map_b, c, mnk, fusion, groups, splits)
    }
}

/// [`gemm_inner`] with the form's `S` stages.
#[inline(always)]
fn gemm_ring<
    const I: usize,
    const S: usize,
    In: Inputs,
    Out: OutElem,
    F: Fusion,
    Buf: SharedBuffer,
    const WIDE: bool,
>(
    map_a: *const u64,
    map_b: *const u64,
    c: COut,
    (m, n, k): (u32, u32, u32),
    fusion: F,
    groups: Option<Groups>,
    splits: Option<u32>,
) {
    // The wide form's ring is shorter (`gemm_wide_body`).
    let form = const {
        if WIDE {
            super::wide(FORMS[I].1)
        } else {
            FORMS[I].1
        }
    };
    // (`gemm_inner` instantiates every ring; the one it calls matches.)
    if S != form.stages {
        trap()
    }
    let (consumers, cluster) = (form.consumers as u32, form.cluster as u32);
    let (m, n, k) = (m as usize, n as usize, k as usize);
    let t = thread_idx();
    // The plan from the buffer's first 1024-byte boundary.
    let all = Smem::window::<Buf>(0, Buf::BYTES / 4);
    let skip = ((1024 - all.address() % 1024) % 1024 / 4) as usize;
    let base = all.address() + 4 * skip as u32;
    let pipe = PipelineTmaAsync::<S>::at(Smem::window::<Buf>(
        skip + form.barriers_at() / 4,
        PipelineTmaAsync::<S>::WORDS,
    ));
    // A fusion's activation runs in the epilogue warps (`activate_tiles`)
    // in the wide ring, where C goes by TMA in a cooperative form; else in
    // the consumers (measured faster: docs/gpu.md, Hopper HGEMM).
    let defer =
        const { F::ACTIVATION && !FORMS[I].1.pingpong && WIDE } && matches!(c, COut::Tma(_));
    // A consumer's staging buffers (for the TMA stores).
    let bufs = if WIDE { WIDE_BUFS } else { c_buffers(form) };
    let hand = if defer {
        Some(Handoff {
            window: Smem::window::<Buf>(skip + handoff_at(form) / 4, HANDOFF_WORDS),
        })
    } else {
        None
    };
    if t == 0 {
        if let Some(hand) = hand {
            hand.init();
        }
        // Each consumer warp that reads a stage, of each block of the
        // cluster, releases it once (lane 0).
        pipe.init(4 * form.readers() as u32 * cluster);
    }
    sync_threads_divergent();
    let (tiles_m, tiles_n) = (ceil_div(m, form.bm() * cluster as usize), ceil_div(n, BN));
    let (rank, first, step) = if cluster > 1 {
        // The peers' barriers are initialised before any block arrives at
        // them or multicasts into the others.
        cluster_sync();
        let (id, count) = cluster_idx();
        (cluster_ctarank() as usize, id as usize, count as usize)
    } else {
        (0, block_idx().0, grid_dim().0)
    };
    let splits = match splits {
        Some(0) => trap(),
        Some(s) => s as usize,
        None => 1,
    };
    let (tiles, tail) = match groups {
        None => (tiles_m * tiles_n * splits, (0, 1, 1)),
        Some(gs) => {
            let per_tile = form.bm() * cluster as usize;
            let tiles: usize = (0..gs.count)
                .map(|g| {
                    let (start, end) = gs.rows(g);
                    ceil_div(end.saturating_sub(start), per_tile) * tiles_n
                })
                .sum();
            // The tiles past the grid's full rounds, when they are split.
            let count = if gs.tail_splits > 1 { tiles % step } else { 0 };
            if count == 0 {
                (tiles, (tiles, 1, 1))
            } else {
                let first = tiles - count;
                (
                    first + count * gs.tail_splits,
                    (first, count, gs.tail_splits),
                )
            }
        }
    };
    let work = Work {
        form,
        tiles_m,
        tiles_n,
        tiles,
        kblocks: ceil_div(k, In::BK),
        cluster,
        rank,
        first,
        step,
        skip,
        base,
        m,
        groups,
        splits,
        tail,
    };
    if t < 128 {
        if defer {
            setmaxnreg_dec::<EPILOGUE_WARPS_REGISTERS>();
        } else if groups.is_none() {
            setmaxnreg_dec::<PRODUCER_REGISTERS>();
        } else if consumers == 2 {
            // The group lookup needs more than the plain producer's: the
            // two consumers give up some of theirs.
            setmaxnreg_dec::<GROUPED_COOP_PRODUCER_REGISTERS>();
        } else {
            setmaxnreg_dec::<GROUPED_PRODUCER_REGISTERS>();
        }
        if t == 0 {
            produce::<Buf, S>(&work, &pipe, (map_a as u64, map_b as u64), In::BK);
        } else if let (Some(hand), true, COut::Tma(map_c)) = (hand, t >= 128 - EPILOGUE_THREADS, c)
        {
            let stage = skip + c_stage_at(form) / 4;
            let ew = t - (128 - EPILOGUE_THREADS);
            activate_tiles::<Out, F, Buf>(&work, fusion, map_c as u64, (stage, bufs), hand, ew);
        }
        return;
    }
    if consumers == 1 {
        setmaxnreg_inc::<LONE_CONSUMER_REGISTERS>();
    } else if defer {
        setmaxnreg_inc::<EPILOGUE_CONSUMER_REGISTERS>();
    } else if groups.is_some() {
        setmaxnreg_inc::<GROUPED_CONSUMER_REGISTERS>();
    } else {
        setmaxnreg_inc::<CONSUMER_REGISTERS>();
    }
    // This consumer's 64 rows of the tile (a whole tile in ping-pong),
    // and its thread.
    let wg = t / 128 - 1;
    let rows = if form.pingpong { 0 } else { 64 * wg };
    let wg_thread = t % 128;
    let turns = Turns {
        on: form.pingpong,
        wg: wg as u32,
    };
    let mut consumer = pipe.consumer();
    // The tile loop is written in each arm: as one loop calling a store
    // closure, the consumers spilled 84 bytes and the instruction counts
    // the entries declare (`*_EXPECT_INSTRUCTIONS`) no longer held.
    match c {
        COut::Global(c) => {
            let c32 = words(c);
            let mut tile = turns.first(&work, &mut consumer);
            while tile < work.tiles {
                let loc = work.locate(tile);
                let held = hold_tile(fusion, (loc.a_row + rows, loc.tn * BN), wg_thread);
                turns.wait();
                let acc =
                    mma_tile::<In::Gmma, S>(&work, &mut consumer, (rows, false), wg_thread, loc.kb);
                turns.hand_over(&work, &mut consumer, tile);
                let (r0, c0) = (loc.a_row + rows, loc.tn * BN);
                store_tile::<Out, F>(
                    fusion,
                    &acc,
                    &held,
                    (c, c32),
                    (loc.m_end, n),
                    (r0, c0),
                    wg_thread,
                    form.fast_stores,
                );
                tile += turns.stride(&work);
            }
        }
        COut::Split { c, sums, flags } => {
            // Split-K runs cooperative forms (`gemm_split_body` checks it
            // at compile time).
            if form.pingpong {
                trap();
            }
            let c32 = words(c);
            let mut next = work.first;
            while next < work.tiles {
                let tile = next;
                next += work.step;
                let loc = work.locate(tile);
                let (r0, c0) = (loc.a_row + rows, loc.tn * BN);
                let held = hold_tile(fusion, (r0, c0), wg_thread);
                let mut acc =
                    mma_tile::<In::Gmma, S>(&work, &mut consumer, (rows, false), wg_thread, loc.kb);
                if loc.of > 1 && !hand_on(&mut acc, (sums, flags), &work, &loc, wg, wg_thread) {
                    continue;
                }
                store_tile::<Out, F>(
                    fusion,
                    &acc,
                    &held,
                    (c, c32),
                    (m, n),
                    (r0, c0),
                    wg_thread,
                    true,
                );
            }
        }
        COut::Tma(_) | COut::TmaGrouped { .. } => {
            // A grouped GEMM's tiles that end past their group's rows go
            // out by each thread (`edge`).
            let (map_c, edge, tail) = match c {
                COut::TmaGrouped {
                    map,
                    c,
                    sums,
                    flags,
                } => (map as u64, Some((c, words(c))), Some((sums, flags))),
                COut::Tma(map) => (map as u64, None, None),
                _ => trap(),
            };
            // This consumer's `bufs` staging buffers, and its named
            // barrier (1 or 2: barrier 0 is the block's).
            let stage = skip + (c_stage_at(form) + bufs * wg * C_STAGE_BYTES) / 4;
            if wg_thread == 0 && !defer {
                fence_tensormap_acquire(map_c);
            }
            let mut tile = turns.first(&work, &mut consumer);
            // This consumer's tiles stored so far (the wide form's
            // hand-off phases; the others' repeat every tile).
            let mut done = 0u32;
            while tile < work.tiles {
                let at = work.locate(tile);
                let held = hold_tile(fusion, (at.a_row + rows, at.tn * BN), wg_thread);
                turns.wait();
                // A grouped GEMM's consumer whose rows lie past its group's.
                let idle = work.groups.is_some() && at.a_row + rows >= at.m_end;
                let mut acc =
                    mma_tile::<In::Gmma, S>(&work, &mut consumer, (rows, idle), wg_thread, at.kb);
                turns.hand_over(&work, &mut consumer, tile);
                // A grouped GEMM's tile is located again rather than kept
                // through the K-loop, whose registers the accumulators fill
                // (its location is a walk over the groups: kept, it
                // spilled into the K-loop).
                let loc = if work.groups.is_some() {
                    work.locate(tile)
                } else {
                    at
                };
                let (r0, c0) = (loc.a_row + rows, loc.tn * BN);
                // A tail tile's split hands on as split-K's do.
                if let (Some(tail), true) = (tail, loc.of > 1) {
                    if !hand_on(&mut acc, tail, &work, &loc, wg, wg_thread) {
                        tile += turns.stride(&work);
                        continue;
                    }
                }
                match edge {
                    Some(c) if r0 + 64 > loc.m_end => store_tile::<Out, F>(
                        fusion,
                        &acc,
                        &held,
                        c,
                        (loc.m_end, n),
                        (r0, c0),
                        wg_thread,
                        false,
                    ),
                    _ if defer => store_tile_tma::<Out, F, Buf, true>(
                        fusion,
                        (&acc, &held),
                        map_c,
                        (stage, bufs),
                        (r0, c0),
                        (wg, wg_thread),
                        1 + wg as u32,
                        (hand, done),
                    ),
                    _ => store_tile_tma::<Out, F, Buf, false>(
                        fusion,
                        (&acc, &held),
                        map_c,
                        (stage, bufs),
                        (r0, c0),
                        (wg, wg_thread),
                        1 + wg as u32,
                        (hand, done),
                    ),
                }
                if WIDE {
                    done += 1;
                }
                tile += turns.stride(&work);
            }
            // The stores read their buffers before the block's shared
            // memory goes.
            if wg_thread == 0 {
                tma_store_wait::<0>();
            }
        }
    }
}

/// Ping-pong's turns (`super::Form::pingpong`): consumer `wg` takes
/// every other of the block's tiles (the first consumer the first), passes
/// the stages of the other's, and the consumers' K-loops run in turn,
/// handed over by named barriers 3 and 4 (consumer w waits at 3 + w, the
/// second consumer granting the first its first turn). Off (a cooperative
/// form), every tile is each consumer's and nothing waits.
#[derive(Clone, Copy)]
struct Turns {
    on: bool,
    wg: u32,
}

impl Turns {
    /// This consumer's first tile, the pipeline past the stages of any
    /// before it.
    #[inline(always)]
    fn first<const S: usize>(self, work: &Work, consumer: &mut Consumer<S>) -> usize {
        if !self.on {
            return work.first;
        }
        if self.wg == 1 && work.first < work.tiles {
            let kb = work.locate(work.first).kb;
            consumer.skip((kb.1 - kb.0) as u32);
            named_barrier_arrive(3, 256);
        }
        work.first + self.wg as usize * work.step
    }

    /// From one of this consumer's tiles to its next.
    #[inline(always)]
    fn stride(self, work: &Work) -> usize {
        if self.on {
            2 * work.step
        } else {
            work.step
        }
    }

    /// Before a K-loop: the other consumer's K-loop before it has waited
    /// for its last stage (and the producer is then at most a pass ahead of
    /// this one's first).
    #[inline(always)]
    fn wait(self) {
        if self.on {
            named_barrier(3 + self.wg, 256);
        }
    }

    /// After the K-loop of `tile`: the block's next tile, if any, is the
    /// other consumer's. It may start its K-loop, and this one passes its
    /// stages.
    #[inline(always)]
    fn hand_over<const S: usize>(self, work: &Work, consumer: &mut Consumer<S>, tile: usize) {
        let next = tile + work.step;
        if self.on && next < work.tiles {
            named_barrier_arrive(4 - self.wg, 256);
            let kb = work.locate(next).kb;
            consumer.skip((kb.1 - kb.0) as u32);
        }
    }
}

/// C as words (used when n is even), over its even-length prefix: the
/// cast traps on an odd number of halves.
#[inline(always)]
fn words(c: GlobalMut<u16>) -> GlobalMut<u32> {
    match layout_core::tensor::memory::Memory::window(c, 0, c.len() & !1) {
        Some(even) => even.cast::<u32>(),
        None => trap(),
    }
}

/// The producer (thread 0 of warpgroup 0): for each tile of the block, each
/// K-block's A tile and B tile (or this block's share of B, multicast to
/// the cluster) by TMA into the ring's next stage; K-blocks of `bk`
/// elements (128 bytes).
#[inline(always)]
fn produce<Buf: SharedBuffer, const S: usize>(
    work: &Work,
    pipe: &PipelineTmaAsync<S>,
    (ma, mb): (u64, u64),
    bk: usize,
) {
    let (a_bytes, b_at) = (work.form.a_bytes(), work.form.b_at());
    let cluster = work.cluster;
    fence_tensormap_acquire(ma);
    fence_tensormap_acquire(mb);
    let mut producer = pipe.producer();
    let mut tile = work.first;
    while tile < work.tiles {
        let loc = work.locate(tile);
        for kb in loc.kb.0..loc.kb.1 {
            let slot = producer.acquire();
            let s = slot.stage() as usize;
            let full = slot.barrier();
            full.arrive_expect_tx((a_bytes + B_BYTES) as u32);
            let kc = (kb * bk) as i32;
            let a = Smem::window::<Buf>(work.skip + (s * a_bytes) / 4, a_bytes / 4);
            tma_load_2d(a, a_bytes, ma, (kc, loc.a_row as i32), full);
            if cluster == 1 {
                let b = Smem::window::<Buf>(work.skip + (b_at + s * B_BYTES) / 4, B_BYTES / 4);
                tma_load_2d(b, B_BYTES, mb, (kc, loc.b_row as i32), full);
            } else {
                // This block's share of B, for every block of the cluster.
                let part = B_BYTES / cluster as usize;
                let b = Smem::window::<Buf>(
                    work.skip + (b_at + s * B_BYTES + work.rank * part) / 4,
                    part / 4,
                );
                let row = loc.b_row + work.rank * (BN / cluster as usize);
                let all = ((1u32 << cluster) - 1) as u16;
                tma_load_2d_multicast(b, part, mb, (kc, row as i32), full, all);
            }
        }
        tile += work.step;
    }
    if cluster > 1 {
        // The peers' consumers arrive at this block's barriers: it stays
        // until they have.
        producer.tail();
    }
}

/// One consumer warpgroup's tile: its 64 rows of C's 64 x 256 block,
/// accumulated over the K-blocks by four `G`s each (a K-step is 32 bytes),
/// every stage given back once the `wgmma`s reading it are done. With
/// `idle` (its rows all past the last row of C or of the tile's group,
/// which a cluster's tile of 256 rows can be in a grouped GEMM's small
/// group), no `wgmma` runs: the stages are waited for and given back, so
/// that the pipeline's counts hold, and the accumulators, never stored,
/// stay 0.
#[inline(always)]
fn mma_tile<G: GmmaInstr<Acc = [f32; 128], A = u64>, const S: usize>(
    work: &Work,
    consumer: &mut Consumer<S>,
    (rows, idle): (usize, bool),
    wg_thread: usize,
    (kb0, kb1): (usize, usize),
) -> [f32; 128] {
    let (a_bytes, b_at) = (work.form.a_bytes(), work.form.b_at());
    // From a constant: `[0f32; 128]` is written by a loop, whose run-time
    // index keeps the array in local memory.
    const ZERO: [f32; 128] = [0.0; 128];
    let mut acc = ZERO;
    // The stage the `wgmma`s in flight read, released once they are done.
    let mut reading: Option<ConsumerSlot> = None;
    for kb in kb0..kb1 {
        let slot = consumer.wait();
        if !idle {
            let s = slot.stage();
            let da = desc::<ATile>(work.base + s * a_bytes as u32 + 128 * rows as u32);
            let db = desc::<BTile>(work.base + (b_at + s as usize * B_BYTES) as u32);
            wgmma_fence();
            // The K-block's four K-steps, 32 bytes apart.
            let step =
                |d: layout_core::atom::gmma::GmmaDescriptor, ks: u32| d.advance(2 * ks).bits();
            G::gmma::<false>(step(da, 0), step(db, 0), &mut acc, kb > kb0);
            G::gmma::<false>(step(da, 1), step(db, 1), &mut acc, true);
            G::gmma::<false>(step(da, 2), step(db, 2), &mut acc, true);
            G::gmma::<false>(step(da, 3), step(db, 3), &mut acc, true);
            wgmma_commit_group();
            // The previous K-block's group is done: its stage goes back.
            if work.form.overlap {
                wgmma_wait_group::<1>();
            } else {
                wgmma_wait_group::<0>();
            }
        }
        if let Some(done) = reading.replace(slot) {
            if wg_thread % 32 == 0 {
                consumer.release_cluster(done, work.cluster);
            }
        }
    }
    wgmma_wait_group::<0>();
    if let Some(done) = reading.take() {
        if wg_thread % 32 == 0 {
            consumer.release_cluster(done, work.cluster);
        }
    }
    acc
}

/// Split `loc.split` of `loc.of` of consumer `wg`'s 64 rows of the tile at
/// `loc`, its accumulators in `acc`: waits until the splits before it have
/// added into its region of the sums (its flag, [`Work::flag`], reaching
/// the split; one thread waits, then the warpgroup's named barrier
/// `1 + wg`, barrier 0 being the block's), adds their sum to `acc`, and
/// unless it is the last split writes the sum back and hands on (the flag
/// to the next split; false: nothing to store). The last split sets the
/// flag back to 0 for the next launch and returns true: `acc` is the
/// tile's sum, ((p0 + p1) + p2) + ... in split order.
#[inline(always)]
fn hand_on(
    acc: &mut [f32; 128],
    (sums, flags): (GlobalMut<f32>, GlobalMut<u32>),
    work: &Work,
    loc: &Loc,
    wg: usize,
    wg_thread: usize,
) -> bool {
    let (split, splits, bar) = (loc.split, loc.of, 1 + wg as u32);
    let flag = work.flag(loc, wg);
    let region = sums_region(sums, flag);
    if split > 0 {
        if wg_thread == 0 {
            flags.wait_eq(flag, split as u32);
        }
        named_barrier(bar, 128);
        add_sums(acc, region, wg_thread);
    }
    if split + 1 < splits {
        store_sums(acc, region, wg_thread);
        named_barrier(bar, 128);
        if wg_thread == 0 {
            flags.store_release(flag, split as u32 + 1);
        }
        return false;
    }
    if wg_thread == 0 {
        flags.st(flag, 0);
    }
    true
}

/// The running sums of one consumer's 64 rows of a tile: its region of
/// split-K's workspace ([`super::SPLIT_REGION`] floats), in the
/// accumulators' order: values 4 g .. 4 g + 4 of the warpgroup's thread t
/// at F4 `128 g + t`, so that a warp's access is 512 contiguous bytes and
/// nothing is clipped (a partial tile's values past C are summed too).
#[inline(always)]
fn sums_region(sums: GlobalMut<f32>, region: usize) -> GlobalMut<F4> {
    let at = region * super::SPLIT_REGION;
    match layout_core::tensor::memory::Memory::window(sums, at, super::SPLIT_REGION) {
        Some(r) => r.cast::<F4>(),
        None => trap(),
    }
}

/// A consumer's 64 x 256 accumulators into its region of the sums
/// ([`sums_region`]).
#[inline(always)]
fn store_sums(acc: &[f32; 128], region: GlobalMut<F4>, wg_thread: usize) {
    each::<32>(|g| {
        let v = [acc[4 * g], acc[4 * g + 1], acc[4 * g + 2], acc[4 * g + 3]];
        region.st(128 * g + wg_thread, F4(v));
    });
}

/// The sums [`store_sums`] wrote, added to `acc`: the earlier splits' sum
/// plus this split's product. Eight 16-byte loads at a time, all issued
/// before their sums (one trip to the L2 per 32 values).
#[inline(always)]
fn add_sums(acc: &mut [f32; 128], region: GlobalMut<F4>, wg_thread: usize) {
    each::<4>(|h| {
        let mut got = [F4::default(); 8];
        each::<8>(|i| got[i] = region.ld(128 * (8 * h + i) + wg_thread));
        each::<8>(|i| {
            each::<4>(|j| {
                let v = 32 * h + 4 * i + j;
                acc[v] += got[i].0[j];
            })
        });
    });
}

/// Whether a fusion's values are all computed before any is stored
/// ([`fused_pairs`]): a fusion that reads memory it does not hold
/// ([`Fusion::READS_MEMORY`] without [`Fusion::HOLDS`]). Between the stores
/// to C each of its loads would wait for the store before it (C might
/// alias what they read); computed first, the loads go out together, at
/// the cost of holding the tile's values (64 more registers). A fusion that
/// holds its reads ([`hold_tile`], before the K-loop) stores as computed.
const fn eager<F: Fusion>() -> bool {
    F::READS_MEMORY && matches!(F::HOLDS, Hold::Nothing)
}

/// A consumer's words of a fusion that holds its reads ([`Fusion::hold`])
/// for its 64 rows of a tile (row `r0`, column `c0`), read before the
/// tile's K-loop, whose `wgmma`s hide the loads' latency; all 0, nothing
/// read, for a fusion that holds nothing. A thread's quads (values v to
/// v + 3, v a multiple of 4: rows r and r + 8 of columns c and c + 1, the
/// C layout's value modes (2,2,32):(64,8,512)) all lie in its two rows,
/// one word ([`Hold::Rows`]); their 32 column pairs, 4j + t % 4 for quad j
/// of thread t, are the warp's 128 (the tile's 256 columns), spread four a
/// lane: lane l holds pairs 32 i + l (coalesced loads) and [`held_word`]
/// fetches quad j's by a shuffle ([`Hold::Cols`]). Four registers through
/// the K-loop rather than 32.
#[inline(always)]
fn hold_tile<F: Fusion>(fusion: F, (r0, c0): (usize, usize), wg_thread: usize) -> [u32; 4] {
    match F::HOLDS {
        Hold::Nothing => [0; 4],
        Hold::Rows => {
            let at = <Gmma as MmaAtom>::CLayout::default().crd2idx((wg_thread, 0usize));
            [fusion.hold(r0 + at % 64), 0, 0, 0]
        }
        Hold::Cols => {
            let lane = wg_thread % 32;
            [0, 1, 2, 3].map(|i| fusion.hold(c0 + 2 * (32 * i + lane)))
        }
    }
}

/// Quad `j`'s word of [`hold_tile`]'s (the whole warp calls it, together:
/// [`Hold::Cols`] shuffles): pair 4j + t % 4 = 32 (j / 8) + 4 (j % 8) +
/// t % 4, which lane 4 (j % 8) + t % 4 holds as its word j / 8.
#[inline(always)]
fn held_word<F: Fusion>(held: &[u32; 4], j: usize, wg_thread: usize) -> u32 {
    match F::HOLDS {
        Hold::Nothing => 0,
        Hold::Rows => held[0],
        Hold::Cols => shfl_idx(held[j / 8], (4 * (j % 8) + wg_thread % 4) as u32),
    }
}

/// Quad `v` (values v to v + 3, v a multiple of 4) of a consumer's
/// accumulators through the fusion (before its activation, with `PRE`:
/// [`Fusion::pre_quad_held`]), the quad at (`r`, `col`), packed: rows r
/// and r + 8, each a word of two adjacent columns.
#[inline(always)]
fn fuse_quad<Out: OutElem, F: Fusion, const PRE: bool>(
    fusion: F,
    acc: &[f32; 128],
    v: usize,
    (r, col): (usize, usize),
    held: u32,
) -> (u32, u32) {
    let quad = [acc[v], acc[v + 1], acc[v + 2], acc[v + 3]];
    let x = if PRE {
        fusion.pre_quad_held(quad, r, col, held)
    } else {
        fusion.apply_quad_held(quad, r, col, held)
    };
    (Out::pack2(x[0], x[1]), Out::pack2(x[2], x[3]))
}

/// A consumer's 64 rows of a tile (row `r0`, column `c0`) through the
/// fusion (before its activation, with `PRE`), packed: word `v / 2` holds
/// values v and v + 1 (v even, C's adjacent columns of one row). Only an
/// [`eager`] fusion or `PRE` computes them here; otherwise the words are
/// all 0 and the stores compute each value in turn. Values v to v + 3 (v a multiple of 4) are a quad, rows r
/// and r + 8 of columns c and c + 1 (the C layout's value modes
/// (2,2,32):(64,8,512)), which a bias reads once.
#[inline(always)]
fn fused_pairs<Out: OutElem, F: Fusion, const PRE: bool>(
    fusion: F,
    acc: &[f32; 128],
    (r0, c0): (usize, usize),
    wg_thread: usize,
    held: &[u32; 4],
) -> [u32; 64] {
    let mut pairs = [0u32; 64];
    if const { !eager::<F>() && !PRE } {
        return pairs;
    }
    let cl = <Gmma as MmaAtom>::CLayout::default();
    // The thread's offset plus the value's, apart (as `store_tile`): the
    // value's row and column are then constants.
    let at = cl.crd2idx((wg_thread, 0usize));
    let (r0, c0) = (r0 + at % 64, c0 + at / 64);
    macro_rules! fuse {
        ($($v:literal)*) => {$(
            let q = cl.crd2idx((0usize, $v as usize));
            let (r, col) = (r0 + q % 64, c0 + q / 64);
            (pairs[$v / 2], pairs[$v / 2 + 1]) =
                fuse_quad::<Out, F, PRE>(fusion, acc, $v, (r, col), held_word::<F>(held, $v / 4, wg_thread));
        )*};
    }
    fuse!(0 4 8 12 16 20 24 28 32 36 40 44 48 52 56 60 64 68 72 76 80 84 88 92 96 100 104 108 112 116 120 124);
    pairs
}

/// A consumer's 64 rows of a tile into C (row `r0`, column `c0`), each
/// quad through the fusion (its words `held`, [`hold_tile`]): values v and
/// v + 1 (v even) are C's adjacent columns of one row, one word when both
/// lie in C and n is even; a tile inside C (with `fast`) stores without
/// clipping.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn store_tile<Out: OutElem, F: Fusion>(
    fusion: F,
    acc: &[f32; 128],
    held: &[u32; 4],
    (c, c32): (GlobalMut<u16>, GlobalMut<u32>),
    (m, n): (usize, usize),
    (r0, c0): (usize, usize),
    wg_thread: usize,
    fast: bool,
) {
    let cl = <Gmma as MmaAtom>::CLayout::default();
    if fast && r0 + 64 <= m && c0 + BN <= n && n % 2 == 0 {
        // A tile inside C: no clipping. The C layout's offset is the
        // thread's part plus the value's (a layout is additive over its
        // modes), and the thread's rows (< 56) plus the value's (0 or 8)
        // stay in the atom's 64: each word is this thread's first plus a
        // constant row (0 or 8 rows of n / 2 words) and column.
        let thread_offset = cl.crd2idx((wg_thread, 0usize));
        let half_n = n / 2;
        let first = ((r0 + thread_offset % 64) * n + c0 + thread_offset / 64) / 2;
        let pairs = fused_pairs::<Out, F, false>(fusion, acc, (r0, c0), wg_thread, held);
        // A held quad's lower word, from its upper one's step.
        let mut spare = 0u32;
        macro_rules! store_inside {
            ($($v:literal)*) => {$(
                let value_offset = cl.crd2idx((0usize, $v as usize));
                let pair = if const { eager::<F>() } {
                    pairs[$v / 2]
                } else {
                    let r = r0 + thread_offset % 64 + value_offset % 64;
                    let col = c0 + thread_offset / 64 + value_offset / 64;
                    let w = if $v % 4 == 0 { held_word::<F>(held, $v / 4, wg_thread) } else { 0 };
                    pair_word::<Out, F>(fusion, acc, $v, (r, col), w, &mut spare)
                };
                c32.st(first + (value_offset % 64) * half_n + value_offset / 64 / 2, pair);
            )*};
        }
        store_inside!(0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74 76 78 80 82 84 86 88 90 92 94 96 98 100 102 104 106 108 110 112 114 116 118 120 122 124 126);
    } else {
        let mut spare = 0u32;
        macro_rules! store {
            ($($v:literal)*) => {$(
                let offset = cl.crd2idx((wg_thread, $v as usize));
                let (r, col) = (r0 + offset % 64, c0 + offset / 64);
                // Outside the branch: the warp's lanes shuffle together.
                let w = if $v % 4 == 0 { held_word::<F>(held, $v / 4, wg_thread) } else { 0 };
                if r < m {
                    let pair = pair_word::<Out, F>(fusion, acc, $v, (r, col), w, &mut spare);
                    let at = r * n + col;
                    if n % 2 == 0 && col + 1 < n {
                        c32.st(at / 2, pair);
                    } else {
                        if col < n {
                            c.st(at, pair as u16);
                        }
                        if col + 1 < n {
                            c.st(at + 1, (pair >> 16) as u16);
                        }
                    }
                }
            )*};
        }
        store!(0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30 32 34 36 38 40 42 44 46 48 50 52 54 56 58 60 62 64 66 68 70 72 74 76 78 80 82 84 86 88 90 92 94 96 98 100 102 104 106 108 110 112 114 116 118 120 122 124 126);
    }
}

/// The word of values v and v + 1 (v even; C's element (`r`, `col`) and
/// the next column) through a fusion that is not [`eager`]: by
/// [`Fusion::apply`] for one that holds nothing; for one that holds, by
/// its quad ([`fuse_quad`] with the quad's word `held`, v a multiple of
/// 4), whose lower word (values v + 2 and v + 3) waits in `spare` for the
/// next call, v + 2's. The values go out in pairs, in the order they did
/// before fusions held words: ptxas allocates the plain GEMM's registers
/// the same (as quads, it spilled).
#[inline(always)]
fn pair_word<Out: OutElem, F: Fusion>(
    fusion: F,
    acc: &[f32; 128],
    v: usize,
    (r, col): (usize, usize),
    held: u32,
    spare: &mut u32,
) -> u32 {
    if const { matches!(F::HOLDS, Hold::Nothing) } {
        Out::pack2(
            fusion.apply(acc[v], r, col),
            fusion.apply(acc[v + 1], r, col + 1),
        )
    } else if v % 4 == 0 {
        let (top, bottom) = fuse_quad::<Out, F, false>(fusion, acc, v, (r, col), held);
        *spare = bottom;
        top
    } else {
        *spare
    }
}

/// A consumer's 64 rows of a tile into C by TMA: for each 64 columns of
/// the tile, its values through the fusion into a staging buffer (of
/// `bufs`, 1 or 2, in turn; the 128-byte swizzle the map names, so that
/// the threads' 4-byte writes of a row's eight 16-byte chunks land in
/// different banks), then one thread's TMA store of the 64 x 64 box at
/// (`r0`, `c0` + 64 j), which writes only what lies inside C. A buffer is
/// written again once its store has read it (`tma_store_wait` by the
/// issuing thread, then the warpgroup's named barrier `bar`). The buffers
/// are the `bufs * C_STAGE_BYTES` bytes from word `stage` of `Buf`.
///
/// With `DEFER` (and `hand`), the values before the fusion's activation go
/// into the buffer, and the epilogue warps ([`activate_tiles`]) apply it
/// and store the box: the buffer is handed to them (`hand`'s full barrier)
/// and written again once they hand it back (its empty barrier).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn store_tile_tma<Out: OutElem, F: Fusion, Buf: SharedBuffer, const DEFER: bool>(
    fusion: F,
    (acc, held): (&[f32; 128], &[u32; 4]),
    map_c: u64,
    (stage, bufs): (usize, usize),
    (r0, c0): (usize, usize),
    (wg, wg_thread): (usize, usize),
    bar: u32,
    (hand, done): (Option<Handoff>, u32),
) {
    let cl = <Gmma as MmaAtom>::CLayout::default();
    let pairs = fused_pairs::<Out, F, DEFER>(fusion, acc, (r0, c0), wg_thread, held);
    // A held quad's lower word ([`pair_word`]).
    let mut spare = 0u32;
    // `hand` with `DEFER` (the caller's choice).
    let handoff = |b: usize| match hand {
        Some(h) => (h.full(wg, b), h.empty(wg, b)),
        None => trap(),
    };
    // Values 32 j .. 32 j + 32 of a thread are its part of columns
    // 64 j .. 64 j + 64 (the C layout's value modes (2,2,32):(64,8,512):
    // a value's column is v % 2 + 8 (v / 4), its row 8 ((v / 2) % 2)).
    macro_rules! chunk {
        ($j:literal: $($v:literal)*) => {{
            let buf = Smem::window::<Buf>(stage + $j % bufs * C_STAGE_BYTES / 4, C_STAGE_BYTES / 4);
            if wg_thread == 0 {
                if DEFER {
                    // The epilogue warps have stored what this buffer held
                    // (its first use waits for nothing: `Handoff`).
                    handoff($j % bufs).1.wait(Handoff::parity($j, bufs, done) ^ 1);
                } else if bufs == 2 {
                    // The store that read this buffer last is done.
                    tma_store_wait::<1>();
                } else {
                    tma_store_wait::<0>();
                }
            }
            named_barrier(bar, 128);
            // Byte 2 (col - 64 j) of row r, its 16-byte chunk XORed with
            // r % 8: the 128-byte swizzle.
            $(
                let v = $j * 32 + $v;
                let q = cl.crd2idx((wg_thread, v));
                let (r, col) = (q % 64, q / 64);
                let pair = if const { eager::<F>() } || DEFER {
                    pairs[v / 2]
                } else {
                    let w = if v % 4 == 0 { held_word::<F>(held, v / 4, wg_thread) } else { 0 };
                    pair_word::<Out, F>(fusion, acc, v, (r0 + r, c0 + col), w, &mut spare)
                };
                // Byte 2 (col - 64 j) of row r, its 16-byte chunk XORed
                // with r % 8: the 128-byte swizzle.
                let byte = 2 * (col - $j * C_COLS);
                buf.st(r * 32 + (((byte / 16) ^ (r % 8)) * 16 + byte % 16) / 4, f32::from_bits(pair));
            )*
            if DEFER {
                named_barrier(bar, 128);
                if wg_thread == 0 {
                    handoff($j % bufs).0.arrive();
                }
            } else {
                fence_proxy_async_shared();
                named_barrier(bar, 128);
                if wg_thread == 0 {
                    tma_store_2d(buf, C_STAGE_BYTES, map_c, ((c0 + $j * C_COLS) as i32, r0 as i32));
                    tma_store_commit();
                }
            }
        }};
    }
    chunk!(0: 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30);
    chunk!(1: 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30);
    chunk!(2: 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30);
    chunk!(3: 0 2 4 6 8 10 12 14 16 18 20 22 24 26 28 30);
}

/// The hand-offs of the consumers' staging buffers to the epilogue warps
/// ([`activate_tiles`]) and back: for buffer `b` of consumer `wg`, a full
/// barrier (one arrival, the consumer's thread 0, once the values are
/// written) and an empty one (one arrival, the epilogue warps' thread 0,
/// once their TMA store has read the buffer). [`HANDOFF_WORDS`] words
/// after the form's pipeline barriers (`super::handoff_at`).
#[derive(Clone, Copy)]
struct Handoff {
    window: Smem,
}

/// [`Handoff`]'s words: two barriers of 8 bytes for each of up to
/// [`WIDE_BUFS`] buffers of two consumers.
pub(super) const HANDOFF_WORDS: usize = 2 * 2 * WIDE_BUFS * 2;

impl Handoff {
    /// Buffer `b` of consumer `wg` is written.
    #[inline(always)]
    fn full(self, wg: usize, b: usize) -> Mbarrier {
        Mbarrier::at(self.window, 4 * (WIDE_BUFS * wg + b))
    }

    /// Buffer `b` of consumer `wg` is stored.
    #[inline(always)]
    fn empty(self, wg: usize, b: usize) -> Mbarrier {
        Mbarrier::at(self.window, 4 * (WIDE_BUFS * wg + b) + 2)
    }

    /// The parity of the phase that chunk `j` (of a tile's four) of `bufs`
    /// buffers completes on its buffer's barriers, after `done` tiles: each
    /// buffer serves 4 / `bufs` chunks a tile, its `done (4 / bufs) + j /
    /// bufs`-th use.
    #[inline(always)]
    const fn parity(j: usize, bufs: usize, done: u32) -> u32 {
        ((done as usize * (C_CHUNKS / bufs) + j / bufs) & 1) as u32
    }

    /// One thread, with the pipeline's barriers (before the block's
    /// barrier that follows their initialisation).
    #[inline(always)]
    fn init(self) {
        for i in 0..HANDOFF_WORDS / 4 {
            Mbarrier::at(self.window, 4 * i).init(1);
            Mbarrier::at(self.window, 4 * i + 2).init(1);
        }
    }
}

/// The epilogue warps' threads (warps 1 to 3 of the producer warpgroup,
/// whose warp 0 issues the loads) and their named barrier.
const EPILOGUE_THREADS: usize = 96;
const EPILOGUE_BAR: u32 = 5;

/// A tile's chunks of [`C_COLS`] columns.
const C_CHUNKS: usize = BN / C_COLS;

/// The epilogue warps of a fusion with an activation (`Fusion::ACTIVATION`,
/// cooperative forms, C by TMA): for each of the block's tiles, each
/// consumer's four chunks of 64 columns in turn as the consumers hand them
/// over ([`Handoff`]), the activation applied in place to each value
/// (rounded to `Out` before it, as a linear layer's output is), then one
/// thread's TMA store of the box, and the buffer handed back once the store
/// has read it. The consumers, whose `wgmma`s the tensor cores run, go on
/// to their next tile's K-loop meanwhile. `ew` is the thread (0 to 95);
/// consumer `wg`'s `bufs` buffers are from word `stage + wg bufs
/// C_STAGE_BYTES / 4` of `Buf`.
#[inline(always)]
fn activate_tiles<Out: OutElem, F: Fusion, Buf: SharedBuffer>(
    work: &Work,
    fusion: F,
    map_c: u64,
    (stage, bufs): (usize, usize),
    hand: Handoff,
    ew: usize,
) {
    if ew == 0 {
        fence_tensormap_acquire(map_c);
    }
    let (mut tile, mut done) = (work.first, 0u32);
    while tile < work.tiles {
        let loc = work.locate(tile);
        // The buffer (consumer, buffer) whose store is in flight behind the
        // latest: handed back once that store has read it, so that no chunk
        // waits for its own store.
        let mut behind: Option<(usize, usize)> = None;
        for j in 0..C_CHUNKS {
            let b = j % bufs;
            for wg in 0..work.form.consumers {
                hand.full(wg, b).wait(Handoff::parity(j, bufs, done));
                let buf = Smem::window::<Buf>(
                    stage + (wg * bufs + b) * C_STAGE_BYTES / 4,
                    C_STAGE_BYTES / 4,
                );
                // Elementwise, so the swizzle does not matter: 16 bytes a
                // step, eight values.
                let mut i = ew;
                while i < C_STAGE_BYTES / 16 {
                    let words = buf.ld4(4 * i).0.map(|w| {
                        let (lo, hi) = Out::unpack2(w.to_bits());
                        f32::from_bits(Out::pack2(fusion.activation(lo), fusion.activation(hi)))
                    });
                    buf.st4(4 * i, F4(words));
                    i += EPILOGUE_THREADS;
                }
                fence_proxy_async_shared();
                named_barrier(EPILOGUE_BAR, EPILOGUE_THREADS as u32);
                if ew == 0 {
                    let at = (loc.tn * BN + j * C_COLS, loc.a_row + 64 * wg);
                    tma_store_2d(buf, C_STAGE_BYTES, map_c, (at.0 as i32, at.1 as i32));
                    tma_store_commit();
                    if let Some((w, x)) = behind {
                        tma_store_wait::<1>();
                        hand.empty(w, x).arrive();
                    }
                    behind = Some((wg, b));
                }
                // The warp together again before its lanes spin on the next
                // full barrier, whose consumer may wait for this arrival.
                sync_warp();
            }
        }
        // The tile's last store, before the wait for the next tile's K-loop.
        if let (0, Some((w, x))) = (ew, behind) {
            tma_store_wait::<0>();
            hand.empty(w, x).arrive();
        }
        sync_warp();
        tile += work.step;
        done += 1;
    }
}
