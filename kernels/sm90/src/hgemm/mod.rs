//! `hgemm_sm90`'s tiles, shared-memory plan, descriptors and tile order:
//! everything but the instructions, so that the host tests check it.
//!
//! C (m x n, f16) = A · Bᵀ, A m x k and B n x k row-major f16, f32
//! accumulators. A block of three warpgroups owns a 128 x 256 tile of C
//! at a time (persistent: [`tile_of`] walks the tiles `grid` apart):
//! warpgroup 0 is the producer, one thread of it issuing the TMA copies of
//! A's 128 x 64 and B's 256 x 64 K-blocks into a [`STAGES`]-stage ring;
//! warpgroups 1 and 2 are the consumers, each multiplying its 64 rows of
//! A by all of B with `wgmma` m64n256k16 (four per K-block).
//!
//! Shared memory holds both operands as TMA writes them with the 128-byte
//! swizzle: row r of a box at 128 r bytes, its 16-byte chunks permuted by
//! r % 8, which is CuTe's `tile_to_shape(GMMA::Layout_K_SW128_Atom<half_t>,
//! (rows, 64))`, `Sw<3,3,3> o (rows,64):(64,1)` in halves.

pub(crate) mod body;
#[cfg(all(target_arch = "nvptx64", feature = "entries"))]
mod entry;
use body::HANDOFF_WORDS;

use layout_core::algebra::swizzle::{ComposedLayout, Swizzle};
use layout_core::atom::gmma::{make_gmma_desc, GmmaDescriptor, GmmaOperand, KMajor};
use layout_core::layout_type;
use layout_device::GmmaInstr;

/// The block tile's N.
pub const BN: usize = 256;
/// The K-block of 16-bit inputs (64 halves: one 128-byte swizzle row).
pub const BK: usize = 64;
/// The K-block in bytes: one 128-byte swizzle row, whatever the input type
/// ([`Inputs::BK`] elements).
pub const BK_BYTES: usize = 128;

/// The input type of A and B, and the `wgmma` (N = 256, both operands from
/// shared memory, K-major) that multiplies it into f32 accumulators. Every
/// input's K-step is 32 bytes (16 halves or 32 bytes of FP8), so the plan,
/// the TMA boxes in bytes and the descriptors are the same for all.
pub trait Inputs {
    /// The instruction.
    type Gmma: GmmaInstr<Acc = [f32; 128], A = u64>;
    /// Bytes per element.
    const BYTES: usize;
    /// The K-block in elements.
    const BK: usize = BK_BYTES / Self::BYTES;
}

/// f16 A and B (`SM90_64x256x16_F32F16F16_SS`).
pub struct F16In;
impl Inputs for F16In {
    type Gmma = layout_core::atom::SM90_64x256x16_F32F16F16_SS;
    const BYTES: usize = 2;
}

/// bf16 A and B (`SM90_64x256x16_F32BF16BF16_SS`).
pub struct Bf16In;
impl Inputs for Bf16In {
    type Gmma = layout_core::atom::SM90_64x256x16_F32BF16BF16_SS;
    const BYTES: usize = 2;
}

/// FP8 e4m3 A and B (`SM90_64x256x32_F32E4M3E4M3_SS_TN`).
pub struct E4m3In;
impl Inputs for E4m3In {
    type Gmma = layout_core::atom::SM90_64x256x32_F32E4M3E4M3_SS_TN;
    const BYTES: usize = 1;
}
/// Stages in the ring of a form with two consumers ([`FULL`]): four of 48
/// KiB.
pub const STAGES: usize = 4;
/// Stages in the ring of a form of 64-row tiles (one consumer, or
/// ping-pong): five of 40 KiB, the most the SM's shared memory holds, so
/// that more bytes are in flight per block (a 64-row tile's stage is
/// consumed in half the time of a 128-row one's).
pub const LONE_STAGES: usize = 5;
/// Bytes of one stage of B (a 256 x 64 f16 box).
pub const B_BYTES: usize = BN * BK_BYTES;
/// The dynamic shared memory every form asks for: the largest of the
/// forms' plans (a one-consumer form's five stages), its barriers, and up
/// to 1023 bytes to reach the 128-byte swizzle's 1024-byte alignment from
/// wherever the buffer starts.
pub const SMEM_BYTES: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < FORMS.len() {
        if FORMS[i].1.plan_bytes() > most {
            most = FORMS[i].1.plan_bytes();
        }
        i += 1;
    }
    most + 1024
};
/// Columns of C per TMA store of the TMA-store epilogue: one 128-byte
/// swizzle row of 16-bit C.
pub const C_COLS: usize = 64;
/// Bytes of one staging buffer of the TMA-store epilogue: a consumer's 64
/// rows of [`C_COLS`] columns.
pub const C_STAGE_BYTES: usize = 64 * C_COLS * 2;
/// Where the TMA-store epilogue's staging buffers start: after the form's
/// barriers, at the swizzle's 1024-byte period. Each consumer has
/// [`c_buffers`] of them.
pub const fn c_stage_at(form: Form) -> usize {
    form.plan_bytes().div_ceil(1024) * 1024
}
/// Where the hand-off barriers of the epilogue warps start (a fusion's
/// activation applied there: `body::Handoff`): after the form's pipeline
/// barriers, in the room before the staging buffers' 1024-byte boundary.
pub const fn handoff_at(form: Form) -> usize {
    form.plan_bytes()
}
/// The ring of the wide epilogue (`body::gemm_wide_body`): three stages,
/// which leave room for a whole tile of staging.
pub const WIDE_STAGES: usize = 3;
/// The wide epilogue's staging buffers per consumer: its 64 x 256 rows.
pub const WIDE_BUFS: usize = BN / C_COLS;
/// `form` with the wide epilogue's ring.
pub const fn wide(form: Form) -> Form {
    Form {
        stages: WIDE_STAGES,
        ..form
    }
}
/// The TMA-store epilogue's staging buffers per consumer: two, written and
/// stored in turn; one in ping-pong, whose epilogue runs under the other
/// consumer's K-loop and whose five stages leave room for no more.
pub const fn c_buffers(form: Form) -> usize {
    if form.pingpong {
        1
    } else {
        2
    }
}
/// The shared memory of `form`'s TMA-store epilogue: its plan, its staging
/// buffers, and the alignment slack.
pub const fn tma_store_bytes(form: Form) -> usize {
    c_stage_at(form) + form.consumers * c_buffers(form) * C_STAGE_BYTES + 1024
}
/// The dynamic shared memory of the TMA-store epilogue's entries: the
/// largest form's plan with its staging buffers ([`tma_store_bytes`]), so
/// that any form stores C by TMA in it.
pub const SMEM_BYTES_TMA_STORE: usize = {
    let mut most = 0;
    let mut i = 0;
    while i < FORMS.len() {
        if tma_store_bytes(FORMS[i].1) > most {
            most = tma_store_bytes(FORMS[i].1);
        }
        i += 1;
    }
    most
};

/// One form of the kernel. [`FULL`] is `hgemm_sm90`; each other entry of
/// [`FORMS`] leaves one ingredient out, or (`hgemm_sm90_pingpong`) swaps
/// the cooperative schedule for ping-pong, so that one run measures what
/// each bought (docs/gpu.md). Persistence is the launch's: a grid of one
/// block per SM walks the tiles, a grid of one block per tile does not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Form {
    /// Consumer warpgroups, each 64 rows of the tile: 2 (a 128 x 256
    /// tile) or 1 (64 x 256).
    pub consumers: usize,
    /// A K-block's `wgmma`s stay in flight while the next K-block's are
    /// issued (`wgmma.wait_group 1`, its stage released one K-block
    /// later); else each K-block waits for its own (`wait_group 0`).
    pub overlap: bool,
    /// The order the blocks walk the tiles in.
    pub order: Order,
    /// Blocks per cluster along M (1 or 2): a pair shares B's tile, each
    /// block loading half of it into both (TMA multicast).
    pub cluster: usize,
    /// A tile inside C is stored without clipping, each word at the
    /// thread's first plus a constant (else every pair is clipped).
    pub fast_stores: bool,
    /// Stages in the ring: [`STAGES`] with two consumers sharing 128-row
    /// tiles, [`LONE_STAGES`] with 64-row tiles (one consumer, or
    /// ping-pong: the stages are smaller, and the SM holds five).
    pub stages: usize,
    /// Ping-pong (CUTLASS's schedule of that name): the two consumers take
    /// alternate tiles of 64 x 256, each a whole tile of its own, their
    /// K-loops in turn, so that one's epilogue runs while the other's
    /// `wgmma`s do. Else (cooperative) the consumers share each tile, 64
    /// rows each, and the tensor cores idle through the epilogue.
    pub pingpong: bool,
}

/// `hgemm_sm90`: everything on.
pub const FULL: Form = Form {
    consumers: 2,
    overlap: true,
    order: Order::Grouped,
    cluster: 2,
    fast_stores: true,
    stages: STAGES,
    pingpong: false,
};

/// The order of the tiles (a block takes every `grid`-th): what the blocks
/// running together share in the L2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Along C's rows of tiles.
    Rows,
    /// Down C's columns of tiles ([`tile_of`]).
    Columns,
    /// Down the columns of bands of [`GROUP`] tile rows, band after band:
    /// the blocks running together read [`GROUP`] tiles' rows of A and a
    /// few columns' B, which the L2 holds when all of A does not.
    Grouped,
}

/// Tile rows per band of [`Order::Grouped`].
pub const GROUP: usize = 16;

/// The entry points of the forms, the full kernel first.
pub const FORMS: [(&str, Form); 9] = [
    ("hgemm_sm90", FULL),
    (
        "hgemm_sm90_1wg",
        Form {
            consumers: 1,
            stages: LONE_STAGES,
            ..FULL
        },
    ),
    (
        "hgemm_sm90_wait0",
        Form {
            overlap: false,
            ..FULL
        },
    ),
    (
        "hgemm_sm90_columns",
        Form {
            order: Order::Columns,
            ..FULL
        },
    ),
    (
        "hgemm_sm90_rows",
        Form {
            order: Order::Rows,
            ..FULL
        },
    ),
    ("hgemm_sm90_nocluster", Form { cluster: 1, ..FULL }),
    (
        "hgemm_sm90_clipped",
        Form {
            fast_stores: false,
            ..FULL
        },
    ),
    (
        "hgemm_sm90_1wg_nocluster",
        Form {
            consumers: 1,
            cluster: 1,
            stages: LONE_STAGES,
            ..FULL
        },
    ),
    (
        "hgemm_sm90_pingpong",
        Form {
            pingpong: true,
            stages: LONE_STAGES,
            ..FULL
        },
    ),
];

/// The ping-pong form's index in [`FORMS`].
pub const PINGPONG: usize = 8;

/// The index in [`FORMS`] of [`FULL`] without clusters
/// (`hgemm_sm90_nocluster`), the form of
/// `gemm_grouped_tma_nocluster_bf16_sm90`.
pub const NOCLUSTER: usize = 5;
const _: () = assert!(FORMS[NOCLUSTER].1.cluster == 1 && FORMS[NOCLUSTER].1.consumers == 2);

impl Form {
    /// The block tile's M: 64 per consumer, or 64 in ping-pong.
    pub const fn bm(self) -> usize {
        if self.pingpong {
            64
        } else {
            64 * self.consumers
        }
    }
    /// The consumers that read each stage (and release it): one in
    /// ping-pong, else all.
    pub const fn readers(self) -> usize {
        if self.pingpong {
            1
        } else {
            self.consumers
        }
    }
    /// Threads per block.
    pub const fn threads(self) -> usize {
        128 * (1 + self.consumers)
    }
    /// Bytes of one stage of A.
    pub const fn a_bytes(self) -> usize {
        self.bm() * BK_BYTES
    }
    /// Tiles of C (m x n) in this form's `bm()` x [`BN`] tiles.
    pub const fn tiles(self, m: usize, n: usize) -> usize {
        ceil_div(m, self.bm()) * ceil_div(n, BN)
    }
    /// Where B's stages start.
    pub const fn b_at(self) -> usize {
        self.stages * self.a_bytes()
    }
    /// Where the barriers start.
    pub const fn barriers_at(self) -> usize {
        self.b_at() + self.stages * B_BYTES
    }
    /// The plan's bytes: the stages and their barriers (two of 8 bytes a
    /// stage).
    pub const fn plan_bytes(self) -> usize {
        self.barriers_at() + 16 * self.stages
    }
    /// Tile `tile`'s (row, column) of tiles, for a grid of `tiles_m` x
    /// `tiles_n` tiles: [`tile_of`] down the columns, or along the rows.
    pub const fn tile_of(self, tile: usize, tiles_m: usize, tiles_n: usize) -> (usize, usize) {
        match self.order {
            Order::Columns => tile_of(tile, tiles_m),
            Order::Rows => (tile / tiles_n, tile % tiles_n),
            Order::Grouped => {
                let band = tile / (GROUP * tiles_n);
                let rows = if tiles_m - band * GROUP < GROUP {
                    tiles_m - band * GROUP
                } else {
                    GROUP
                };
                let t = tile % (GROUP * tiles_n);
                (band * GROUP + t % rows, t / rows)
            }
        }
    }
}

/// The form of the split-K entries (`hgemm_splitk_sm90`,
/// `gemm_bf16_splitk_sm90`), an index of [`FORMS`]:
/// `hgemm_sm90_1wg_nocluster`, 64 x 256 tiles, one consumer with
/// [`LONE_STAGES`] stages, no clusters. Where the tiles are few, the
/// shorter tiles make twice as many blocks as [`FULL`]'s, and a cluster's
/// second block would idle when M is one tile high.
pub const SPLIT_FORM: usize = 7;
/// The most splits of K the split-K entries take.
pub const MAX_SPLITS: usize = 16;
/// The plan's model ([`plan_splits`]), from H100 runs of
/// `gpu-runner gemm-time --entry E --splits S` (docs/gpu.md has the
/// tables): a block of the cooperative entry streams its 128 x 256 tiles'
/// operands at 66 bytes/ns (1024 x 4096 x 4096 in 48.5 µs), a block of
/// the split form its 64 x 256 tiles' at 105 (512 x 4096 x 14336 in 87.5
/// µs); the GPU reads A and B from memory at 2500 bytes/ns at most (128 x
/// 14336 x 4096 in 47.5 µs); each split after the first adds 3000 ns, its
/// wait for the one before and its sums' trip through the L2 (the runs
/// put it at 0.9 to 2.9 µs; the larger bound keeps the plan to fewer
/// splits).
pub const SPLIT_MODEL: SplitModel = SplitModel {
    cooperative_bytes_per_ns: 66,
    split_bytes_per_ns: 105,
    memory_bytes_per_ns: 2500,
    link_ns: 3000,
};

/// The rates of [`SPLIT_MODEL`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitModel {
    /// Bytes per ns one block of the cooperative entry ([`FULL`]) loads.
    pub cooperative_bytes_per_ns: u64,
    /// Bytes per ns one block of the split form ([`SPLIT_FORM`]) loads.
    pub split_bytes_per_ns: u64,
    /// Bytes per ns the GPU reads from memory.
    pub memory_bytes_per_ns: u64,
    /// The ns each split after the first adds.
    pub link_ns: u64,
}

impl SplitModel {
    /// The model's time (ns) for (m, n) with `kblocks` K-blocks in the
    /// split form with `splits` splits on `sms` SMs (`None`: the
    /// cooperative entry, one split): the larger of one block's loads (a
    /// split's K-blocks of a tile's A and B, once per wave of (tile,
    /// split) pairs over the SMs) and the whole of A and B read once;
    /// plus the splits' hand-ons.
    ///
    /// ```
    /// use layout_kernels_sm90::hgemm::SPLIT_MODEL;
    /// // 512 x 4096 x 4096 (64 K-blocks), one split: 128 tiles of 64 x
    /// // 256, one wave on 132 SMs, each block 64 K-blocks of 40 KiB at
    /// // 105 bytes/ns (24966 ns), more than A and B once (4608 rows of
    /// // 8 KiB at 2500 bytes/ns, 15099 ns).
    /// assert_eq!(SPLIT_MODEL.ns((512, 4096, 64), Some(1), 132), 24966);
    /// // The same on 64 SMs: two waves.
    /// assert_eq!(SPLIT_MODEL.ns((512, 4096, 64), Some(1), 64), 49932);
    /// // The cooperative entry: 64 tiles of 128 x 256, 64 K-blocks of 48
    /// // KiB at 66 bytes/ns.
    /// assert_eq!(SPLIT_MODEL.ns((512, 4096, 64), None, 132), 47662);
    /// // 128 x 4096 x 4096 in 2 splits: 64 (tile, split) pairs, 32
    /// // K-blocks each (12483 ns), less than A and B once (4224 rows,
    /// // 13841 ns); one hand-on.
    /// assert_eq!(SPLIT_MODEL.ns((128, 4096, 64), Some(2), 132), 13841 + 3000);
    /// ```
    pub const fn ns(
        &self,
        (m, n, kblocks): (usize, usize, usize),
        splits: Option<usize>,
        sms: usize,
    ) -> u64 {
        let (f, s, rate) = match splits {
            Some(s) => (FORMS[SPLIT_FORM].1, s as u64, self.split_bytes_per_ns),
            None => (FULL, 1, self.cooperative_bytes_per_ns),
        };
        let tiles = f.tiles(m, n) as u64;
        let (m, n, kb) = (m as u64, n as u64, kblocks as u64);
        let sms = if sms == 0 { 1 } else { sms as u64 };
        let waves = (tiles * s).div_ceil(sms);
        let stage = (f.bm() + BN) as u64 * BK_BYTES as u64;
        let block = waves * kb.div_ceil(s) * stage / rate;
        let memory = (m + n) * kb * BK_BYTES as u64 / self.memory_bytes_per_ns;
        let loads = if block > memory { block } else { memory };
        loads + (s - 1) * self.link_ns
    }
}

/// The most splits the plan considers for (m, n) with `kblocks` K-blocks
/// on `sms` SMs: as many as keep the split form's (tile, split) pairs
/// within one wave, at most [`MAX_SPLITS`], and at least [`STAGES`]
/// K-blocks per split; at least 1.
pub const fn most_splits((m, n, kblocks): (usize, usize, usize), sms: usize) -> usize {
    let tiles = FORMS[SPLIT_FORM].1.tiles(m, n);
    let mut most = sms / if tiles == 0 { 1 } else { tiles };
    if most > MAX_SPLITS {
        most = MAX_SPLITS;
    }
    if most > kblocks / STAGES {
        most = kblocks / STAGES;
    }
    if most == 0 {
        1
    } else {
        most
    }
}

/// The host's choice of entry for a dense GEMM of (m, n) with `kblocks`
/// K-blocks on a GPU of `sms` SMs: `None`, the cooperative entry
/// (`hgemm_sm90`: clusters of two 128 x 256 tiles along M, persistent);
/// `Some(s)`, the split-K entry ([`SPLIT_FORM`]: 64 x 256 tiles) with K
/// cut into `s` splits (one: no split, C stored directly). The rule:
///
/// - the cooperative entry when M is over 128 rows and its 128 x 256
///   tiles fill the SMs (there the split form's twice as many blocks
///   stream more bytes per product: 4096³ takes it 251 µs against 186);
/// - else, of the cooperative entry (M over 128 rows: a cluster's second
///   block idles below) and the split entry with 1 to [`most_splits`]
///   splits, the one [`SPLIT_MODEL`] says is fastest, the cooperative
///   entry and then the fewest splits on a tie: tiles that fill the SMs,
///   weighed against the operands each block streams and the splits'
///   hand-ons.
///
/// ```
/// use layout_kernels_sm90::hgemm::plan_splits;
/// // 4096³: 512 tiles, the cooperative entry.
/// assert_eq!(plan_splits(4096, 4096, 64, 132), None);
/// // 512 x 4096 x 4096: 64 tiles of 128 rows, 128 of 64 rows: one split.
/// assert_eq!(plan_splits(512, 4096, 64, 132), Some(1));
/// // 128 x 4096 x 4096: 32 tiles; 2 splits make 64 blocks, and reading
/// // A and B once bounds the time.
/// assert_eq!(plan_splits(128, 4096, 64, 132), Some(2));
/// // 1024 x 4096 x 4096: 128 tiles of 128 rows in one wave, the
/// // cooperative entry (256 of 64 rows would take two).
/// assert_eq!(plan_splits(1024, 4096, 64, 132), None);
/// ```
// Inline: a host rule, not a function of the PTX.
#[inline]
pub const fn plan_splits(m: usize, n: usize, kblocks: usize, sms: usize) -> Option<usize> {
    let mnk = (m, n, kblocks);
    if m > FULL.bm() && FULL.tiles(m, n) >= sms {
        return None;
    }
    let (mut best, mut best_ns) = (None, u64::MAX);
    if m > FULL.bm() {
        best_ns = SPLIT_MODEL.ns(mnk, None, sms);
    }
    let most = most_splits(mnk, sms);
    let mut s = 1;
    while s <= most {
        let ns = SPLIT_MODEL.ns(mnk, Some(s), sms);
        if ns < best_ns {
            (best, best_ns) = (Some(s), ns);
        }
        s += 1;
    }
    best
}

/// Split `s` of `splits`'s K-blocks, `begin..end` of `kblocks`: the
/// splits differ by at most one K-block, none empty when `splits <=
/// kblocks`.
///
/// ```
/// use layout_kernels_sm90::hgemm::split_range;
/// assert_eq!([0, 1, 2].map(|s| split_range(s, 3, 10)), [(0, 3), (3, 6), (6, 10)]);
/// ```
pub const fn split_range(s: usize, splits: usize, kblocks: usize) -> (usize, usize) {
    (s * kblocks / splits, (s + 1) * kblocks / splits)
}

/// Floats of split-K's running sums per consumer's 64 rows of a tile: its
/// 64 x 256 accumulators.
pub const SPLIT_REGION: usize = 64 * BN;

/// Split-K's running sums (f32) in the form `FORMS[form]`: a region of
/// [`SPLIT_REGION`] per flag ([`split_flags`]).
pub const fn split_sums(form: usize, m: usize, n: usize) -> usize {
    split_flags(form, m, n) * SPLIT_REGION
}

/// Split-K's flags in the form `FORMS[form]`: one per consumer's 64 rows
/// of each tile (how many splits have added into its region of the sums).
pub const fn split_flags(form: usize, m: usize, n: usize) -> usize {
    FORMS[form].1.tiles(m, n) * FORMS[form].1.consumers
}

/// The registers a block of the two-consumer forms' 384 threads holds
/// (`layout_device::launch_registers`): 168 a thread, 64512 of the SM's
/// 65536. `setmaxnreg` moves registers between the warpgroups within this
/// pool: an increase waits until the others' decreases have freed enough,
/// so a split that asks for more than the pool never finishes.
pub const BLOCK_REGISTERS: u32 = block_registers(384);

/// The register pool of a block of `threads` threads.
const fn block_registers(threads: usize) -> u32 {
    layout_device::launch_registers(threads) * threads as u32
}
/// Registers per consumer thread after `setmaxnreg` (the producer keeps
/// [`PRODUCER_REGISTERS`]): 128 x (24 + 2 x 240) = [`BLOCK_REGISTERS`].
pub const CONSUMER_REGISTERS: u32 = 240;
/// Registers per consumer thread of a form with one consumer warpgroup:
/// `setmaxnreg`'s most, 256 (128 x (56 + 256) of the SM's 65536 with the
/// grouped GEMM's producer).
pub const LONE_CONSUMER_REGISTERS: u32 = 256;
/// Registers per producer thread after `setmaxnreg`.
pub const PRODUCER_REGISTERS: u32 = 24;
/// Registers per producer thread of the grouped GEMM (one consumer: 128 x
/// (56 + 240) of the SM's 65536), whose group lookup needs more.
pub const GROUPED_PRODUCER_REGISTERS: u32 = 56;
/// Registers per producer thread of the grouped GEMM with two consumers
/// (`gemm_grouped_tma_bf16_sm90`), whose group lookup spills in
/// [`PRODUCER_REGISTERS`].
pub const GROUPED_COOP_PRODUCER_REGISTERS: u32 = 40;
/// Registers per consumer thread of the grouped GEMM with two consumers:
/// 128 x (40 + 2 x 232) = [`BLOCK_REGISTERS`].
pub const GROUPED_CONSUMER_REGISTERS: u32 = 232;
/// The producer warpgroup's registers where its warps 1 to 3 apply a
/// fusion's activation (`body::activate_tiles`, eight values at a time);
/// the consumers then have [`EPILOGUE_CONSUMER_REGISTERS`].
pub const EPILOGUE_WARPS_REGISTERS: u32 = 48;
/// Registers per consumer thread beside the epilogue warps: 128 x (48 + 2
/// x 224) = 63488, within [`BLOCK_REGISTERS`] (232 would ask for 65536).
pub const EPILOGUE_CONSUMER_REGISTERS: u32 = 224;

// The plan's regions are 1024-byte aligned (the 128-byte swizzle's period,
// which TMA and the descriptors assume; the second consumer's rows 8 KiB
// on), fit the H200's 227 KiB per block, and the registers the block's pool.
const _: () = {
    assert!(B_BYTES % 1024 == 0 && SMEM_BYTES <= 227 * 1024);
    assert!(SMEM_BYTES_TMA_STORE <= 227 * 1024);
    assert!(
        128 * (GROUPED_PRODUCER_REGISTERS + FORMS[1].1.consumers as u32 * CONSUMER_REGISTERS)
            <= block_registers(128 * (1 + FORMS[1].1.consumers))
    );
    assert!(
        128 * (GROUPED_COOP_PRODUCER_REGISTERS + 2 * GROUPED_CONSUMER_REGISTERS) <= BLOCK_REGISTERS
    );
    assert!(128 * (EPILOGUE_WARPS_REGISTERS + 2 * EPILOGUE_CONSUMER_REGISTERS) <= BLOCK_REGISTERS);
    let mut i = 0;
    while i < FORMS.len() {
        let f = FORMS[i].1;
        assert!(f.a_bytes() % 1024 == 0 && f.plan_bytes() + 1024 <= SMEM_BYTES);
        // A form's stages follow its tiles' rows.
        assert!(f.stages == if f.bm() == 64 { LONE_STAGES } else { STAGES });
        assert!(
            128 * (PRODUCER_REGISTERS + f.consumers as u32 * CONSUMER_REGISTERS)
                <= block_registers(128 * (1 + f.consumers))
        );
        // The epilogue warps' hand-off barriers fit before the staging
        // buffers, as many as a cooperative form's buffers.
        assert!(handoff_at(f) % 8 == 0 && handoff_at(f) + 4 * HANDOFF_WORDS <= c_stage_at(f));
        assert!(f.pingpong || c_buffers(f) == 2);
        // The wide form's plan and whole tile of staging fit the buffer.
        let w = wide(f);
        assert!(handoff_at(w) + 4 * HANDOFF_WORDS <= c_stage_at(w));
        assert!(
            c_stage_at(w) + w.consumers * WIDE_BUFS * C_STAGE_BYTES + 1024 <= SMEM_BYTES_TMA_STORE
        );
        i += 1;
    }
};

/// One consumer's K-step of A in that plan: 64 rows of 16 halves, rows 64
/// halves (128 bytes) apart under the 128-byte swizzle (CuTe's
/// `Sw<3,3,3> o (_64,_16):(_64,_1)`, a slice of `tile_to_shape(
/// GMMA::Layout_K_SW128_Atom<half_t>, (64,64))`).
pub type ATile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((64,16):(64,1))>;
/// B's K-step: 256 rows, the same form.
pub type BTile = ComposedLayout<Swizzle<3, 3, 3>, layout_type!((256,16):(64,1))>;

/// The matrix descriptor of `Tile` at shared address `address`, by the
/// typed algebra: `make_gmma_desc(KMajor, ..)` checks the tile against
/// CuTe's canonical K-major SW128 form at compile time (another layout is a
/// compile error naming it), and folds to the address's bits or'ed with a
/// constant. One `wgmma` K-step of 16 halves later is 32 bytes on
/// (`advance(2)`, in 16-byte units), as CuTe's descriptor iterator adds
/// offsets to the start address.
///
/// ```
/// use layout_kernels_sm90::hgemm::{desc, ATile};
/// // A stage at 0x8000: start 0x800, LBO 1, SBO 64 (1024 bytes), the
/// // 128-byte swizzle (type 1 in bits 62..64).
/// assert_eq!(desc::<ATile>(0x8000).bits(), 0x4000_0040_0001_0800);
/// ```
#[inline(always)]
pub fn desc<Tile: GmmaOperand<KMajor> + Default>(address: u32) -> GmmaDescriptor {
    match make_gmma_desc(KMajor, &Tile::default(), address) {
        Ok(d) => d,
        // Not reached: a static tile that is not canonical does not compile.
        Err(_) => layout_device::trap(),
    }
}

/// Tile `tile`'s (row, column) of tiles, for `tiles_m` tile rows: down the
/// columns of C, so that the blocks running together share B's K-blocks
/// and walk all of A (which the L2 holds) as a group.
///
/// ```
/// use layout_kernels_sm90::hgemm::tile_of;
/// assert_eq!(tile_of(0, 3), (0, 0));
/// assert_eq!(tile_of(4, 3), (1, 1));
/// ```
pub const fn tile_of(tile: usize, tiles_m: usize) -> (usize, usize) {
    (tile % tiles_m, tile / tiles_m)
}

/// Whether two names are the same (in a `const`: an entry point's name
/// against its entry of [`FORMS`]).
///
/// ```
/// use layout_kernels_sm90::hgemm::same_name;
/// assert!(same_name("hgemm_sm90", "hgemm_sm90") && !same_name("hgemm_sm90", "hgemm_sm9"));
/// ```
pub const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// `ceil(a / b)`.
pub const fn ceil_div(a: usize, b: usize) -> usize {
    a.div_ceil(b)
}

// What the build tool (`layout-ptx kernels/sm90 OUT --arch sm_90a`) reads
// for this kernel's entry points, each const named after its entry point:
// launch bounds and cluster sizes it writes into the PTX, and checks on the
// PTX. They generate no code.

/// `hgemm_sm90`: a producer and two consumer warpgroups, one block per SM,
/// in clusters of two; its forms (`hgemm::FORMS`) the same but for one
/// ingredient.
pub const HGEMM_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90`'s clusters.
pub const HGEMM_SM90_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_1wg`'s threads.
pub const HGEMM_SM90_1WG_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// `hgemm_sm90_1wg`'s clusters.
pub const HGEMM_SM90_1WG_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_1wg`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_1WG_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_wait0`'s threads.
pub const HGEMM_SM90_WAIT0_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_wait0`'s clusters.
pub const HGEMM_SM90_WAIT0_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_wait0`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_WAIT0_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_columns`'s threads.
pub const HGEMM_SM90_COLUMNS_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_columns`'s clusters.
pub const HGEMM_SM90_COLUMNS_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_columns`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_COLUMNS_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_rows`'s threads.
pub const HGEMM_SM90_ROWS_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_rows`'s clusters.
pub const HGEMM_SM90_ROWS_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_rows`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_ROWS_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_nocluster`'s threads.
pub const HGEMM_SM90_NOCLUSTER_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_nocluster`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_NOCLUSTER_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_clipped`'s threads.
pub const HGEMM_SM90_CLIPPED_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_clipped`'s clusters.
pub const HGEMM_SM90_CLIPPED_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_clipped`'s four `wgmma` per K-block and its two TMA copies.
pub const HGEMM_SM90_CLIPPED_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_1wg_nocluster`'s threads.
pub const HGEMM_SM90_1WG_NOCLUSTER_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// `hgemm_sm90_1wg_nocluster`'s four `wgmma` per K-block and its two TMA
/// copies.
pub const HGEMM_SM90_1WG_NOCLUSTER_EXPECT_INSTRUCTIONS: &[(&str, usize)] =
    &[("wgmma.mma_async", 4), ("cp.async.bulk.tensor", 2)];
/// `hgemm_sm90_1wg_nocluster`'s spill, the bound ptxas may not pass: one
/// value kept in local memory across the setup before the K-loop (one
/// store, one load; none inside the loop, checked in its SASS).
pub const HGEMM_SM90_1WG_NOCLUSTER_SPILL_BYTES: (u32, u32) = (16, 32);
/// `hgemm_sm90_pingpong`'s threads: a producer and two consumers.
pub const HGEMM_SM90_PINGPONG_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_sm90_pingpong`'s clusters.
pub const HGEMM_SM90_PINGPONG_CLUSTER_SIZE: u32 = 2;
/// `hgemm_sm90_pingpong`'s spill: one value kept across the K-loop, stored
/// before it and loaded after it (none inside it).
pub const HGEMM_SM90_PINGPONG_SPILL_BYTES: (u32, u32) = (4, 4);
/// `hgemm_sm90_pingpong`'s four `wgmma` per K-block, its two TMA copies,
/// and the consumers' hand-overs of the tensor cores (a `barrier.arrive`
/// after a K-loop, and the second consumer's granting the first its first
/// turn).
pub const HGEMM_SM90_PINGPONG_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async", 4),
    ("cp.async.bulk.tensor", 2),
    ("barrier.arrive", 2),
];

/// `gemm_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bf16_sm90`'s clusters.
pub const GEMM_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bf16_sm90`'s four bf16 `wgmma` per K-block and its two TMA copies.
pub const GEMM_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
    ("cvt.rn.bf16x2.f32", 128),
];
/// `gemm_bias_gelu_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BIAS_GELU_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bias_gelu_bf16_sm90`'s spill: values of the epilogue's GELU
/// (none in the K-loop).
pub const GEMM_BIAS_GELU_BF16_SM90_SPILL_BYTES: (u32, u32) = (24, 52);
/// `gemm_bias_gelu_bf16_sm90`'s clusters.
pub const GEMM_BIAS_GELU_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bias_gelu_bf16_sm90`'s four bf16 `wgmma` per K-block, its two TMA
/// copies, and an `ex2` per stored value (GELU's `e^(-z²)`).
pub const GEMM_BIAS_GELU_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
    ("ex2.approx.ftz.f32", 256),
];
/// `gemm_bias_gelu_tanh_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BIAS_GELU_TANH_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bias_gelu_tanh_bf16_sm90`'s spill, as
/// [`GEMM_BIAS_GELU_BF16_SM90_SPILL_BYTES`].
pub const GEMM_BIAS_GELU_TANH_BF16_SM90_SPILL_BYTES: (u32, u32) = (24, 52);
/// `gemm_bias_gelu_tanh_bf16_sm90`'s clusters.
pub const GEMM_BIAS_GELU_TANH_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bias_gelu_tanh_bf16_sm90`'s four bf16 `wgmma` per K-block, its
/// two TMA copies, and a `tanh` per stored value (and no `ex2`).
pub const GEMM_BIAS_GELU_TANH_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
    ("tanh.approx.f32", 256),
];
/// `gemm_e4m3_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_E4M3_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_e4m3_sm90`'s clusters.
pub const GEMM_E4M3_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_e4m3_sm90`'s four e4m3 `wgmma` per K-block and its two TMA copies.
pub const GEMM_E4M3_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", 4),
    ("cp.async.bulk.tensor", 2),
];

/// `gemm_e4m3_tma_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_E4M3_TMA_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_e4m3_tma_sm90`'s clusters.
pub const GEMM_E4M3_TMA_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_e4m3_tma_sm90`'s four e4m3 `wgmma` per K-block, its two TMA
/// loads and its four TMA stores of C per tile.
pub const GEMM_E4M3_TMA_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
];

/// `gemm_bf16_tma_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BF16_TMA_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bf16_tma_sm90`'s clusters.
pub const GEMM_BF16_TMA_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bf16_tma_sm90`'s four bf16 `wgmma` per K-block, its two TMA loads
/// and its four TMA stores of C per tile (one per 64 columns).
pub const GEMM_BF16_TMA_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
];

/// `gemm_bias_gelu_tma_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BIAS_GELU_TMA_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bias_gelu_tma_bf16_sm90`'s spill: values loaded before the
/// K-loop and in the epilogue (none inside the K-loop).
pub const GEMM_BIAS_GELU_TMA_BF16_SM90_SPILL_BYTES: (u32, u32) = (12, 40);
/// `gemm_bias_gelu_tma_bf16_sm90`'s clusters.
pub const GEMM_BIAS_GELU_TMA_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bias_gelu_tma_bf16_sm90`'s four bf16 `wgmma` per K-block, its two
/// TMA loads, its four TMA stores of C per tile; per value of a thread's
/// part of the tile an `ex2` and an `rcp` (GELU's `e^(-z²)` and `1/(1 + p
/// z)`), and the thread's four loads of bias pairs before each K-loop (two
/// `ld.b16` each), which the warp's shuffles share out.
pub const GEMM_BIAS_GELU_TMA_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
    ("ex2.approx.ftz.f32", 128),
    ("rcp.approx.ftz.f32", 128),
    ("ld.b16", 8),
];
/// `gemm_bias_gelu_tanh_tma_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BIAS_GELU_TANH_TMA_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bias_gelu_tanh_tma_bf16_sm90`'s spill, as
/// [`GEMM_BIAS_GELU_TMA_BF16_SM90_SPILL_BYTES`].
pub const GEMM_BIAS_GELU_TANH_TMA_BF16_SM90_SPILL_BYTES: (u32, u32) = (12, 40);
/// `gemm_bias_gelu_tanh_tma_bf16_sm90`'s clusters.
pub const GEMM_BIAS_GELU_TANH_TMA_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bias_gelu_tanh_tma_bf16_sm90`'s four bf16 `wgmma` per K-block,
/// its two TMA loads, its four TMA stores of C per tile; per value of a
/// thread's part of the tile one `tanh`, and the bias's loads before each
/// K-loop (as [`GEMM_BIAS_GELU_TMA_BF16_SM90_EXPECT_INSTRUCTIONS`]).
pub const GEMM_BIAS_GELU_TANH_TMA_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
    ("tanh.approx.f32", 128),
    ("ld.b16", 8),
];
/// `gemm_bias_gelu_tma_wide_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_BIAS_GELU_TMA_WIDE_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_bias_gelu_tma_wide_bf16_sm90`'s spill: values the consumers
/// reload once a tile, after the K-loop, and the epilogue warps once a
/// tile (none in the K-loop).
pub const GEMM_BIAS_GELU_TMA_WIDE_BF16_SM90_SPILL_BYTES: (u32, u32) = (68, 96);
/// `gemm_bias_gelu_tma_wide_bf16_sm90`'s clusters.
pub const GEMM_BIAS_GELU_TMA_WIDE_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_bias_gelu_tma_wide_bf16_sm90`'s four bf16 `wgmma` per K-block,
/// its two TMA loads; the consumers' loads of bias pairs before each
/// K-loop (as [`GEMM_BIAS_GELU_TMA_BF16_SM90_EXPECT_INSTRUCTIONS`]); the
/// epilogue warps'
/// loop, eight values a step, each an `ex2` and an `rcp`, and their one
/// TMA store of each box.
pub const GEMM_BIAS_GELU_TMA_WIDE_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 1),
    ("ex2.approx.ftz.f32", 8),
    ("rcp.approx.ftz.f32", 8),
    ("ld.b16", 8),
];
/// `hgemm_tma_sm90`: `hgemm_sm90`'s threads.
pub const HGEMM_TMA_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `hgemm_tma_sm90`'s clusters.
pub const HGEMM_TMA_SM90_CLUSTER_SIZE: u32 = 2;
/// `hgemm_tma_sm90`'s four f16 `wgmma` per K-block, its two TMA loads and
/// its four TMA stores of C per tile.
pub const HGEMM_TMA_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
];
/// `hgemm_splitk_sm90`: the split form's threads (one consumer), no
/// clusters.
pub const HGEMM_SPLITK_SM90_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// `hgemm_splitk_sm90`'s four f16 `wgmma` per K-block, its two TMA
/// loads, and a split's wait and hand-on.
pub const HGEMM_SPLITK_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16", 4),
    ("cp.async.bulk.tensor", 2),
    ("ld.acquire.gpu.global.u32", 1),
    ("st.release.gpu.global.u32", 1),
];
/// `gemm_bf16_splitk_sm90`: as `hgemm_splitk_sm90`.
pub const GEMM_BF16_SPLITK_SM90_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// `gemm_bf16_splitk_sm90`'s four bf16 `wgmma` per K-block, its two TMA
/// loads, and a split's wait and hand-on.
pub const GEMM_BF16_SPLITK_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
    ("ld.acquire.gpu.global.u32", 1),
    ("st.release.gpu.global.u32", 1),
];
/// `gemm_grouped_tma_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_GROUPED_TMA_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_grouped_tma_bf16_sm90`'s spill (its SASS: none in a consumer's
/// K-loop; a consumer reloads about 20 values once a tile, around its
/// stores and a tail split's hand-on; the producer its K-block counter and
/// its group lookup's state; the prologue the group count's).
pub const GEMM_GROUPED_TMA_BF16_SM90_SPILL_BYTES: (u32, u32) = (316, 556);
/// `gemm_grouped_tma_bf16_sm90`'s clusters.
pub const GEMM_GROUPED_TMA_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_grouped_tma_bf16_sm90`'s four bf16 `wgmma` per K-block, its two
/// TMA loads and its four TMA stores of C per tile.
pub const GEMM_GROUPED_TMA_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
];
/// `gemm_grouped_tma_nocluster_bf16_sm90`: `hgemm_sm90`'s threads.
pub const GEMM_GROUPED_TMA_NOCLUSTER_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (384, 1);
/// `gemm_grouped_tma_nocluster_bf16_sm90`'s spill, as
/// [`GEMM_GROUPED_TMA_BF16_SM90_SPILL_BYTES`]'s.
pub const GEMM_GROUPED_TMA_NOCLUSTER_BF16_SM90_SPILL_BYTES: (u32, u32) = (316, 556);
/// `gemm_grouped_tma_nocluster_bf16_sm90`'s four bf16 `wgmma` per
/// K-block, its two TMA loads and its four TMA stores of C per tile.
pub const GEMM_GROUPED_TMA_NOCLUSTER_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor.2d.shared::cluster.global", 2),
    ("cp.async.bulk.tensor.2d.global.shared::cta", 4),
];
/// `gemm_grouped_bf16_sm90`: `hgemm_sm90_1wg`'s threads.
pub const GEMM_GROUPED_BF16_SM90_LAUNCH_BOUNDS: (u32, u32) = (256, 1);
/// `gemm_grouped_bf16_sm90`'s clusters.
pub const GEMM_GROUPED_BF16_SM90_CLUSTER_SIZE: u32 = 2;
/// `gemm_grouped_bf16_sm90`'s four bf16 `wgmma` per K-block and its two
/// TMA copies.
pub const GEMM_GROUPED_BF16_SM90_EXPECT_INSTRUCTIONS: &[(&str, usize)] = &[
    ("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16", 4),
    ("cp.async.bulk.tensor", 2),
];

#[cfg(test)]
mod tests {
    use super::*;
    use layout_core::atom::gmma::{make_gmma_desc, LayoutType, Major};
    use layout_core::atom::{MmaAtom, SM90_64x256x16_F32F16F16_SS as Gmma};
    use layout_core::layout;
    use std::string::ToString;

    /// The kernel's descriptors: for A's and B's tiles at several stage
    /// addresses, the fields CuTe's `make_gmma_desc<Major::K>` gives an
    /// SW128 K-major tile (LBO 1, SBO 64, type B128: the doctest of
    /// `layout_core::atom::gmma::make_gmma_desc`), the start address in
    /// 16-byte units, and the run-time path's bits for the same layout.
    #[test]
    fn descriptor_fields() {
        let a = layout!((64,16):(64,1));
        let b = layout!((256,16):(64,1));
        for s in 0..STAGES as u32 {
            for base in [0u32, 0x400, 0x1_0000] {
                let at = base + s * FULL.a_bytes() as u32;
                for (d, l) in [
                    (desc::<ATile>(at), a.to_string()),
                    (desc::<BTile>(at), b.to_string()),
                ] {
                    assert_eq!(
                        (d.lbo(), d.sbo(), d.layout_type()),
                        (1, 64, LayoutType::B128),
                        "{l}"
                    );
                    assert_eq!(d.bits() & 0x3fff, (at >> 4) as u64);
                }
                let run_time = ComposedLayout {
                    swizzle: Swizzle::<3, 3, 3>,
                    layout: a,
                };
                assert_eq!(
                    make_gmma_desc(Major::K, &run_time, at).unwrap(),
                    desc::<ATile>(at)
                );
            }
        }
    }

    /// Where `wgmma` reads what TMA wrote. TMA (128-byte swizzle, per the
    /// PTX manual) puts element (r, c) of a box with 64-half rows at byte
    /// 128 r + 2 c with bits [4,7) XORed with bits [7,10). A descriptor
    /// (128-byte swizzle, SBO 1024) at `start` reads element (r, kk) of its
    /// 16-wide K-step at `start + 128 (r % 8) + 1024 (r / 8) + 2 kk`, the
    /// same XOR applied to the address. With `start` = the stage + 32 ks
    /// (the K-step ks), both agree at every element of A's and B's tiles:
    /// the plan needs no other offset, and `Sw<3,3,3> o (rows,64):(64,1)`
    /// (halves) is the same map.
    #[test]
    fn wgmma_reads_what_tma_wrote() {
        let xor = |a: u32| a ^ ((a >> 7) & 7) << 4;
        let sw = Swizzle::<3, 3, 3>;
        let stage = 0x2_0000u32;
        for rows in [FULL.bm(), BN] {
            for r in 0..rows as u32 {
                for ks in 0..(BK / 16) as u32 {
                    for kk in 0..16 {
                        let c = 16 * ks + kk;
                        let tma = stage + xor(128 * r + 2 * c);
                        let start = stage + 32 * ks;
                        let read = xor(start + 128 * (r % 8) + 1024 * (r / 8) + 2 * kk);
                        assert_eq!(tma, read, "({r},{c})");
                        assert_eq!(
                            tma,
                            stage + 2 * sw.apply(64 * r as usize + c as usize) as u32
                        );
                    }
                }
            }
        }
        // And the K-step's descriptor is the first's, 32 bytes on.
        assert_eq!(desc::<BTile>(stage + 32), desc::<BTile>(stage).advance(2));
    }

    /// The epilogue stores values v and v + 1 (v even) of the atom's C
    /// layout as one word: they are adjacent columns of one row, for every
    /// thread; and the 128 values of a thread cover 64 x 256 once with the
    /// other threads.
    #[test]
    fn c_pairs_are_adjacent_columns() {
        let cl = <Gmma as MmaAtom>::CLayout::default();
        let mut seen = std::vec![false; 64 * 256];
        for t in 0..128 {
            for v in (0..128).step_by(2) {
                let (q0, q1) = (cl.crd2idx((t, v)), cl.crd2idx((t, v + 1)));
                assert_eq!((q1 % 64, q1 / 64), (q0 % 64, q0 / 64 + 1), "t {t} v {v}");
                for q in [q0, q1] {
                    assert!(!seen[q]);
                    seen[q] = true;
                }
            }
        }
        assert!(seen.iter().all(|&s| s));
    }

    /// The interior stores' arithmetic: the C layout's offset is the
    /// thread's part plus the value's, the rows never carry past the atom's
    /// 64, and so each word a thread stores is its first word plus the
    /// value's constant row (times n / 2) and column, for every thread,
    /// every value pair and several even n.
    #[test]
    fn interior_store_words() {
        let cl = <Gmma as MmaAtom>::CLayout::default();
        for n in [256usize, 520, 4096] {
            let (r0, c0) = (64, 256);
            for t in 0..128 {
                let qt = cl.crd2idx((t, 0));
                let first = ((r0 + qt % 64) * n + c0 + qt / 64) / 2;
                for v in (0..128).step_by(2) {
                    let (q, qv) = (cl.crd2idx((t, v)), cl.crd2idx((0, v)));
                    assert_eq!(q, qt + qv);
                    assert!(qt % 64 + qv % 64 < 64);
                    let word = ((r0 + q % 64) * n + c0 + q / 64) / 2;
                    assert_eq!(
                        word,
                        first + (qv % 64) * (n / 2) + qv / 64 / 2,
                        "t {t} v {v}"
                    );
                }
            }
        }
    }

    /// The splits of K cover the K-blocks once, in order, each of the
    /// floor or the ceiling of kblocks / splits, none empty when there are
    /// no more splits than K-blocks.
    #[test]
    fn splits_cover_k_once() {
        for kblocks in 0..=70 {
            for splits in 1..=MAX_SPLITS {
                let mut next = 0;
                for s in 0..splits {
                    let (begin, end) = split_range(s, splits, kblocks);
                    assert_eq!(begin, next, "{kblocks} in {splits}");
                    let len = end - begin;
                    assert!(len == kblocks / splits || len == kblocks.div_ceil(splits));
                    assert!(len > 0 || splits > kblocks);
                    next = end;
                }
                assert_eq!(next, kblocks);
            }
        }
    }

    /// The plan as its doc states it: the cooperative entry when M is over
    /// 128 rows and its tiles fill the SMs; else, of the cooperative entry
    /// (M over 128 rows only) and the split form with 1 to `most_splits`
    /// splits, one whose model time no other candidate beats; more than
    /// one split never makes more (tile, split) pairs than SMs, nor splits
    /// of fewer K-blocks than stages.
    #[test]
    fn the_plan_keeps_its_rule() {
        for sms in [1, 78, 132] {
            for m in [1, 64, 128, 129, 512, 1024, 2048] {
                for n in [1, 256, 4096, 14336, 128256] {
                    for kblocks in [0, 1, 4, 16, 64, 224] {
                        let mnk = (m, n, kblocks);
                        let what = (m, n, kblocks, sms);
                        let plan = plan_splits(m, n, kblocks, sms);
                        if m > 128 && ceil_div(m, 128) * ceil_div(n, BN) >= sms {
                            assert_eq!(plan, None, "{what:?}");
                            continue;
                        }
                        let most = most_splits(mnk, sms);
                        let mut others: std::vec::Vec<Option<usize>> =
                            (1..=most).map(Some).collect();
                        if m > 128 {
                            others.push(None);
                        }
                        assert!(others.contains(&plan), "{what:?}: {plan:?}");
                        if let Some(s) = plan {
                            let pairs = ceil_div(m, 64) * ceil_div(n, BN) * s;
                            assert!(
                                s == 1
                                    || (pairs <= sms && kblocks / s >= STAGES && s <= MAX_SPLITS),
                                "{what:?}: {s}"
                            );
                        }
                        for other in others {
                            assert!(
                                SPLIT_MODEL.ns(mnk, plan, sms) <= SPLIT_MODEL.ns(mnk, other, sms),
                                "{what:?}: {plan:?} against {other:?}"
                            );
                        }
                    }
                }
            }
        }
        // A flag and a region of the sums per consumer's 64 rows of a
        // tile: 130 x 300 is 2 x 2 tiles of 128 rows, 3 x 2 of 64.
        assert_eq!(split_flags(5, 130, 300), 2 * 2 * 2);
        assert_eq!(split_flags(SPLIT_FORM, 130, 300), 3 * 2);
        assert_eq!(split_sums(SPLIT_FORM, 130, 300), 6 * 64 * 256);
    }

    /// Every tile is visited once by the blocks of any grid, in either
    /// order.
    #[test]
    fn tiles_are_covered_once() {
        for (_, form) in FORMS {
            for (tiles_m, tiles_n, grid) in [
                (32, 16, 132),
                (3, 2, 132),
                (5, 7, 4),
                (1, 1, 1),
                (37, 5, 132),
                (64, 32, 132),
            ] {
                let mut seen = std::vec![0; tiles_m * tiles_n];
                for b in 0..grid {
                    let mut t = b;
                    while t < tiles_m * tiles_n {
                        let (i, j) = form.tile_of(t, tiles_m, tiles_n);
                        seen[i + tiles_m * j] += 1;
                        t += grid;
                    }
                }
                assert!(seen.iter().all(|&s| s == 1));
            }
        }
    }
}
