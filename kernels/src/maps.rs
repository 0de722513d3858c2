//! The index maps of the GPU kernels: which element each thread of each
//! block loads, where it puts it in shared memory, which registers it
//! multiplies and where it writes the result.
//!
//! Every map is computed by the typed algebra (`local_tile`,
//! `local_partition`, a `TiledMMA`, swizzled shared layouts) over *index
//! tensors*: tensors whose storage is zero-sized (`&[()]`), so partitioning
//! one yields a layout and the offset of its first element and nothing else.
//! The kernels in [`crate::gpu`] call these functions; the tests below call
//! the same functions for every thread of every block on the CPU.
//!
//! ```
//! use layout_kernels::maps;
//! // The transpose's shared tile: 64 x 64 f32, row-major, swizzled so that
//! // both the row-wise writes and the column-wise reads of a warp are free
//! // of bank conflicts.
//! assert_eq!(maps::transpose_smem().to_string(), "Sw<3,2,6> o _0 o (_64,_64):(_64,_1)");
//! // The SGEMM's TiledMMA: 16 x 16 threads, 8 x 8 values each. Thread 17's
//! // A fragment in the shared (128,8):(1,128) tile: one value per atom,
//! // rows in runs of 4 (the permutation), 8 steps of k; it starts at row 4.
//! let fa = maps::sgemm_frag_a(17);
//! assert_eq!(fa.layout.to_string(), "(_1,(_4,_2),_8):(_0,(_1,_64),_128)");
//! assert_eq!(fa.base, 4);
//! ```

use layout_core::algebra::{composition, ComposedLayout, Swizzle};
use layout_core::atom::UniversalFMA;
use layout_core::mma::{make_tiled_mma, PartA, PartB, PartC, TiledMma};
use layout_core::partition::{local_partition, local_tile, ThreadLayout};
use layout_core::{instantiate, layout, layout_type, Layout, Tensor, Underscore as X, C};

/// Zero-sized storage as long as any layout needs.
static UNITS: [(); usize::MAX] = [(); usize::MAX];

/// A tensor over zero-sized storage: partitions of it compute offsets only.
type Index<L> = Tensor<&'static [()], L>;

#[inline(always)]
fn index<S, D>(l: Layout<S, D>) -> Index<Layout<S, D>>
where
    S: layout_core::Congruent<D>,
    D: layout_core::IntTuple,
{
    match Tensor::new(&UNITS[..], l) {
        Ok(t) => t,
        // Only a cosize beyond usize::MAX gets here.
        Err(_) => panic!("index tensor: cosize overflows"),
    }
}

/// Threads per block of both kernels.
pub const THREADS: usize = 256;

/// The transpose's tile side (`f32`); a block moves one 64 x 64 tile.
pub const TT: usize = 64;

/// The transpose's shared tile: 64 x 64 `f32` row-major, XOR-swizzled
/// (bits 2-4 of the offset flipped by bits 8-10): a warp writes 16-byte
/// chunks along rows and reads single floats down columns, each without bank
/// conflicts, and chunks of 4 floats stay contiguous.
pub type TransposeSmem = ComposedLayout<Swizzle<3, 2, 6>, layout_type!((64, 64):(64, 1))>;

/// The value of [`TransposeSmem`].
pub fn transpose_smem() -> TransposeSmem {
    composition(Swizzle::<3, 2, 6>, layout!((64,64):(64,1)))
}

/// Threads of the transpose's load phase over the tile in `F4` units
/// (64 rows x 16 chunks): 16 x 16, row-major, so a warp reads two rows of
/// 256 contiguous bytes.
pub fn transpose_load_threads() -> layout_type!((16, 16):(16, 1)) {
    layout!((16,16):(16,1))
}

/// Threads of the store phase over the output tile (64 rows x 16 chunks):
/// a warp takes 4 rows x 8 chunks (128 contiguous bytes per row), so its
/// shared-memory reads down 8 x 4 rows and 4 columns hit 32 banks.
pub fn transpose_store_threads() -> layout_type!(((4, 4), (8, 2)):((8, 64), (1, 32))) {
    layout!(((4,4),(8,2)):((8,64),(1,32)))
}

/// Thread `tid` of block `(bx, by)` (tile column, tile row) in the load
/// phase of an n x n transpose: four `(F4 index in the source, f32 offset
/// in the shared tile)` pairs, one per value.
#[inline(always)]
pub fn transpose_load(n: usize, (bx, by): (usize, usize), tid: usize) -> [(usize, usize); 4] {
    let q = n / 4;
    let src = local_tile(index(layout!((n, q):(q, 1))), (C::<TT>, C::<16>), (by, bx));
    let mine = local_partition(src, transpose_load_threads(), tid);
    // The same threads over the shared tile in F4 units, then swizzled.
    let s = local_partition(
        index(layout!((64,16):(16,1))),
        transpose_load_threads(),
        tid,
    );
    let sw = transpose_smem();
    core::array::from_fn(|v| {
        let g = mine.data_offset() + mine.layout().call(v);
        let o = s.data_offset() + s.layout().call(v);
        (g, sw.swizzle.apply(4 * o))
    })
}

/// Thread `tid` of block `(bx, by)` in the store phase: four `(F4 index in
/// the destination, the shared offsets of its four floats)`.
#[inline(always)]
pub fn transpose_store(n: usize, (bx, by): (usize, usize), tid: usize) -> [(usize, [usize; 4]); 4] {
    let q = n / 4;
    // The destination tile: row j of dst is column j of src.
    let dst = local_tile(index(layout!((n, q):(q, 1))), (C::<TT>, C::<16>), (bx, by));
    let thr = transpose_store_threads();
    let mine = local_partition(dst, thr, tid);
    let (jr, i4) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("transpose: thread {tid} of {THREADS}"),
    };
    // Output element (row j, float 4*i4 + k) is shared (row 4*i4 + k, column j).
    let seen = layout!((64,(4,16)):(1,(64,256)));
    let sw = transpose_smem();
    core::array::from_fn(|v| {
        let g = mine.data_offset() + mine.layout().call(v);
        let offs = core::array::from_fn(|k| sw.swizzle.apply(seen.crd2idx((jr + 16 * v, (k, i4)))));
        (g, offs)
    })
}

/// SGEMM CTA tile: rows of C. The kernel and its maps are written once for
/// any (BM, BN, BK) as const parameters (CuTe's template parameters) and
/// instantiated (`#[instantiate]`) for these sizes, the ones its TiledMMA
/// (16 x 16 threads, 8 x 8 values each) and copy threads were tuned for.
pub const BM: usize = 128;
/// SGEMM CTA tile: columns of C.
pub const BN: usize = 128;
/// SGEMM k-block.
pub const BK: usize = 8;
/// `f32` of one stage of shared memory: A's tile then B's.
pub const STAGE: usize = (BM + BN) * BK;

/// The shared A tile's layout.
pub type SmemA = layout_type!((C<BM>, C<BK>):(1, C<BM>));
/// The shared B tile's layout.
pub type SmemB = layout_type!((C<BN>, C<BK>):(1, C<BN>));
/// A block's tile of C (m x n, row-major) as `local_tile` makes it.
pub type TileC = Layout<(C<BM>, C<BN>), (usize, layout_core::S<layout_core::typenum::U1>)>;

/// Shared A tile of one stage, M-major: `(m, k)` at `k * BM + m`.
pub fn sgemm_smem_a() -> SmemA {
    layout!((C<BM>, C<BK>):(1, C<BM>))
}

/// Shared B tile of one stage (after A's), N-major: `(n, k)` at
/// `BM * BK + k * BN + n`.
pub fn sgemm_smem_b() -> SmemB {
    layout!((C<BN>, C<BK>):(1, C<BN>))
}

/// The M and N permutation of the TiledMMA: thread t's i-th value lies at
/// `4t + (i % 4) + 64 (i / 4)`, so its values come in runs of 4 (one
/// 16-byte shared load) and a warp's loads hit every bank once.
pub type SgemmPerm = layout_type!((16, 4, 2):(4, 1, 64));

/// The SGEMM's threads over its 16 x 16 grid of `UniversalFMA` atoms, each
/// warp a 4 x 8 block: thread `t0 + 4 t1 + 32 t2 + 128 t3` computes atom
/// `(t0 + 4 t2, t1 + 8 t3)`. A warp's fragment loads then read 4 distinct
/// A and 8 distinct B chunks (16 and 2 for a 16 x 2 block).
pub type SgemmThreads = layout_type!(((4, 4), (8, 2), 1):((1, 32), (4, 128), 0));

/// The SGEMM's TiledMMA: `UniversalFMA` over [`SgemmThreads`], M and N
/// permuted by [`SgemmPerm`].
pub type SgemmMma = TiledMma<UniversalFMA, SgemmThreads, (SgemmPerm, SgemmPerm, X)>;

/// The value of [`SgemmMma`].
pub fn sgemm_mma() -> SgemmMma {
    make_tiled_mma(
        UniversalFMA,
        SgemmThreads::default(),
        (SgemmPerm::default(), SgemmPerm::default(), X),
    )
}

/// Threads copying A's k-block (BM rows x BK/4 chunks of 4 floats): BK/4
/// threads per row, so a warp reads 16 rows of 32 contiguous bytes. The
/// third mode (one thread) spans the k-blocks.
pub fn sgemm_a_threads() -> layout_type!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0)) {
    layout!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0))
}

/// Threads copying B's k-block (32 chunks x BK rows, B seen as (n/4, k)):
/// a warp reads one row of 512 contiguous bytes.
pub fn sgemm_b_threads() -> layout_type!((32, C<BK>, 1):(1, 32, 0)) {
    layout!((32, C<BK>, 1):(1, 32, 0))
}

/// One thread's values of a partition: the offset of value `i` is
/// `base + layout(i)`, the layout static where the partitioned tile is.
#[derive(Clone, Copy)]
pub struct Offsets<L> {
    /// The offset of the first value.
    pub base: usize,
    /// The values' layout.
    pub layout: L,
}

/// The offset of value `i` of a thread's partition.
pub trait At {
    /// The offset of value `i`.
    fn at(&self, i: usize) -> usize {
        self.base() + self.rel(i)
    }
    /// The offset of the first value.
    fn base(&self) -> usize;
    /// Value `i`'s offset from the first (a constant for a static layout
    /// and a constant `i`).
    fn rel(&self, i: usize) -> usize;
    /// One past the largest `rel(i)`: the layout's cosize.
    fn span(&self) -> usize;
}

impl<S: layout_core::Congruent<D>, D: layout_core::IntTuple> Offsets<Layout<S, D>> {
    #[inline(always)]
    fn of(t: Index<Layout<S, D>>) -> Self {
        Offsets {
            base: t.data_offset(),
            layout: t.layout(),
        }
    }
}

impl<S: layout_core::Congruent<D>, D: layout_core::IntTuple> At for Offsets<Layout<S, D>> {
    #[inline(always)]
    fn base(&self) -> usize {
        self.base
    }
    #[inline(always)]
    fn rel(&self, i: usize) -> usize {
        self.layout.call(i)
    }
    #[inline(always)]
    fn span(&self) -> usize {
        self.layout.cosize()
    }
}

/// Where one thread copies one k-block of A or B: the `F4` index in the
/// matrix of k-block 0 and the step to the next k-block (both from
/// `local_tile` with the k-block mode kept, `(b, _)`), and the `f32`
/// offsets in the shared stage of its 4 floats.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Copy4 {
    /// `F4` index of k-block 0.
    pub global: usize,
    /// `F4` step from one k-block to the next.
    pub step: usize,
    /// Shared offsets of the 4 floats.
    pub shared: [usize; 4],
}

/// Thread `tid` copying A (m x k, row-major) for block row `by`.
#[inline(always)]
#[instantiate((128, 8))]
pub fn sgemm_load_a<const BM: usize, const BK: usize>(
    m: usize,
    k: usize,
    by: usize,
    tid: usize,
) -> Copy4 {
    let kq = k / 4;
    // (BM, BK/4, k/BK): the block row's tiles, one per k-block.
    let tiles = local_tile(
        index(layout!((m, kq):(kq, 1))),
        (C::<BM>, C::<{ BK / 4 }>),
        (by, X),
    );
    let thr = layout!((C<BM>, C<{ BK / 4 }>, 1):(C<{ BK / 4 }>, 1, 0));
    let mine = local_partition(tiles, thr, tid);
    let (mt, kc, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("sgemm: thread {tid} of {THREADS}"),
    };
    // The chunk's 4 floats are k = 4 kc .. 4 kc + 3 of row mt.
    let s = layout!((C<BM>,(4, C<{ BK / 4 }>)):(1,(C<BM>, C<{ 4 * BM }>)));
    Copy4 {
        global: mine.data_offset(),
        step: mine.layout().crd2idx((0usize, 0usize, 1usize)),
        shared: core::array::from_fn(|j| s.crd2idx((mt, (j, kc)))),
    }
}

/// Thread `tid` copying B (k x n, row-major) for block column `bx`; its 4
/// floats are contiguous in the shared stage (one 16-byte store).
#[inline(always)]
#[instantiate((128, 128, 8))]
pub fn sgemm_load_b<const BM: usize, const BN: usize, const BK: usize>(
    k: usize,
    n: usize,
    bx: usize,
    tid: usize,
) -> Copy4 {
    load_k_rows::<BN, BK>(n, k, bx, tid, BM * BK)
}

/// Thread `tid` copying A stored M-major (column-major m x k, BLAS's "N"
/// as CuTe's NT SGEMM takes it) for block row `by`: the same copy as B's,
/// into A's half of the stage.
#[inline(always)]
#[instantiate((128, 8))]
pub fn sgemm_load_a_nt<const BM: usize, const BK: usize>(
    m: usize,
    k: usize,
    by: usize,
    tid: usize,
) -> Copy4 {
    load_k_rows::<BM, BK>(m, k, by, tid, 0)
}

/// A k-block of a matrix stored as k rows of `ext` floats (B, or A
/// M-major) for block `blk` of `B` rows, into the stage at `base`:
/// (ext/4, k) tiled by (B/4 chunks, BK rows), [`sgemm_b_threads`] over the
/// tile; shared `(i, k)` at `base + k * B + i`, so each thread's 4 floats
/// are one 16-byte store.
#[inline(always)]
#[instantiate((128, 8))]
fn load_k_rows<const B: usize, const BK: usize>(
    ext: usize,
    k: usize,
    blk: usize,
    tid: usize,
    base: usize,
) -> Copy4 {
    let q = ext / 4;
    // (B/4, BK, k/BK) over (ext/4, k): the block's tiles, one per k-block.
    let tiles = local_tile(
        index(layout!((q, k):(1, q))),
        (C::<{ B / 4 }>, C::<BK>),
        (blk, X),
    );
    let thr = layout!((C<{ B / 4 }>, C<BK>, 1):(1, C<{ B / 4 }>, 0));
    let mine = local_partition(tiles, thr, tid);
    let (c, r, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("sgemm: thread {tid} of {THREADS}"),
    };
    let o = base + 4 * layout!((C<{ B / 4 }>, C<BK>):(1, C<{ B / 4 }>)).crd2idx((c, r));
    Copy4 {
        global: mine.data_offset(),
        step: mine.layout().crd2idx((0usize, 0usize, 1usize)),
        shared: [o, o + 1, o + 2, o + 3],
    }
}

/// Thread `tid`'s A fragment in the shared stage: value `i + 8 k` is the A
/// value it multiplies at step k for its i-th row (`partition_A` of the
/// shared A tile by the TiledMMA).
#[inline(always)]
pub fn sgemm_frag_a(tid: usize) -> Offsets<PartA<SgemmMma, SmemA>> {
    Offsets::of(
        sgemm_mma()
            .get_slice(tid)
            .partition_a(index(sgemm_smem_a())),
    )
}

/// Thread `tid`'s B fragment: value `j + 8 k`, as [`sgemm_frag_a`]
/// (`partition_B`), offsets past the A tile.
#[inline(always)]
pub fn sgemm_frag_b(tid: usize) -> Offsets<PartB<SgemmMma, SmemB>> {
    let mut o = Offsets::of(
        sgemm_mma()
            .get_slice(tid)
            .partition_b(index(sgemm_smem_b())),
    );
    o.base += BM * BK;
    o
}

/// Thread `tid` of block `(bx, by)`: value `i + 8 j` is its accumulator
/// (i, j), at this offset of C (m x n, row-major; `partition_C` of the
/// block's (BM, BN) tile).
#[inline(always)]
#[instantiate((128, 128))]
pub fn sgemm_frag_c<const BM: usize, const BN: usize>(
    m: usize,
    n: usize,
    (bx, by): (usize, usize),
    tid: usize,
) -> Offsets<
    PartC<SgemmMma, Layout<(C<BM>, C<BN>), (usize, layout_core::S<layout_core::typenum::U1>)>>,
> {
    let tile = local_tile(index(layout!((m, n):(n, 1))), (C::<BM>, C::<BN>), (by, bx));
    Offsets::of(sgemm_mma().get_slice(tid).partition_c(tile))
}

/// The tensor-core atom `mma.sync.aligned.m16n8k16` (f16 inputs): lane
/// `lane`'s 8 A values, 4 B values and 4 C values as offsets in a 16 x 16
/// row-major A, an 8 x 16 row-major B (B seen as N x K, the "TN" atom) and
/// a 16 x 8 row-major C, read off the atom's thread-value layouts
/// (`layout_core::atom::SM80_16x8x16_F32F16F16F32_TN`; the same for the
/// f16-accumulator atom). Value `v` of a lane is register half `v` of the
/// instruction's operand list.
///
/// ```
/// // Lane 5 (group 1, thread 1 in its group): A values at rows 1 and 9,
/// // columns 2, 3 and 10, 11.
/// let m = layout_kernels::maps::mma_atom_offsets(5);
/// assert_eq!(m.a, [18, 19, 146, 147, 26, 27, 154, 155]);
/// ```
pub fn mma_atom_offsets(lane: usize) -> MmaOffsets {
    use layout_core::atom::{MmaAtom, SM80_16x8x16_F32F16F16F32_TN as Atom};
    let (a, b, c) = (
        <Atom as MmaAtom>::ALayout::default(),
        <Atom as MmaAtom>::BLayout::default(),
        <Atom as MmaAtom>::CLayout::default(),
    );
    // Each TV layout maps (lane, value) to a column-major index of its tile.
    let rc = |idx: usize, rows: usize| (idx % rows, idx / rows);
    MmaOffsets {
        a: core::array::from_fn(|v| {
            let (m, k) = rc(a.crd2idx((lane, v)), 16);
            m * 16 + k
        }),
        b: core::array::from_fn(|v| {
            let (n, k) = rc(b.crd2idx((lane, v)), 8);
            n * 16 + k
        }),
        c: core::array::from_fn(|v| {
            let (m, n) = rc(c.crd2idx((lane, v)), 16);
            m * 8 + n
        }),
    }
}

/// One lane's operands of the m16n8k16 atom (see [`mma_atom_offsets`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MmaOffsets {
    /// Offsets of the 8 A values in a 16 x 16 row-major tile.
    pub a: [usize; 8],
    /// Offsets of the 4 B values in an 8 x 16 row-major tile (N x K).
    pub b: [usize; 4],
    /// Offsets of the 4 C values in a 16 x 8 row-major tile.
    pub c: [usize; 4],
}

/// Where an `ldmatrix` source thread's row lies, from the bit its source
/// layout gives: `bit / 1024` is the 8 x 8 matrix, `bit % 1024 / 128` its row.
fn ldsm_row(bit: usize) -> (usize, usize) {
    (bit / 1024, bit % 1024 / 128)
}

/// `ldmatrix.x4` feeding the m16n8k16 atom's A from a 16 x 16 row-major f16
/// tile: matrix r of the copy is the 8 x 8 block at row `8 (r % 2)`, column
/// `8 (r / 2)` (so register r is the atom's A register r; the tests check
/// this against both atoms' layouts). The half offset of the row whose
/// address lane `lane` gives.
pub fn ldsm_a_src(lane: usize) -> usize {
    use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N as Ldsm};
    let src = <Ldsm as CopyAtom>::SrcLayout::default();
    let (q, row) = ldsm_row(src.crd2idx((lane, 0usize)));
    (8 * (q % 2) + row) * 16 + 8 * (q / 2)
}

/// `ldmatrix.x2` feeding the atom's B from an 8 x 16 row-major (N x K) f16
/// tile: matrix r is the block at column `8 r`. The half offset of lane
/// `lane`'s row address.
pub fn ldsm_b_src(lane: usize) -> usize {
    use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N as Ldsm};
    let src = <Ldsm as CopyAtom>::SrcLayout::default();
    let (q, row) = ldsm_row(src.crd2idx((lane, 0usize)));
    row * 16 + 8 * q
}

/// The `ldmatrix` forms of the `ldsm_atoms` kernel, in its output order:
/// name, registers per lane.
pub const LDSM_FORMS: [(&str, usize); 6] = [
    ("x1", 1),
    ("x2", 2),
    ("x4", 4),
    ("x1.trans", 1),
    ("x2.trans", 2),
    ("x4.trans", 4),
];

/// Which elements of the `ldsm_atoms` source (32 rows of 8 halves, row
/// `8 q + r` being row r of matrix q) lane `lane` receives in register
/// `reg` of form `form` (an index of [`LDSM_FORMS`]): `[low half, high
/// half]` as `row * 8 + column`, read off the copy atom's destination
/// layout (bit `16 e` of the copied block is element e of matrix
/// `e / 64`, row-major).
pub fn ldsm_expected(form: usize, lane: usize, reg: usize) -> [usize; 2] {
    use layout_core::atom::{
        CopyAtom, SM75_U16x2_LDSM_T, SM75_U16x4_LDSM_T, SM75_U16x8_LDSM_T, SM75_U32x1_LDSM_N,
        SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N,
    };
    fn dst<A: CopyAtom>() -> A::DstLayout {
        A::DstLayout::default()
    }
    // The layouts are (thread, value) -> bit: flat index lane + 32 value.
    let bit = |h: usize| {
        let i = lane + 32 * (32 * reg + 16 * h);
        match form {
            0 => dst::<SM75_U32x1_LDSM_N>().call(i),
            1 => dst::<SM75_U32x2_LDSM_N>().call(i),
            2 => dst::<SM75_U32x4_LDSM_N>().call(i),
            3 => dst::<SM75_U16x2_LDSM_T>().call(i),
            4 => dst::<SM75_U16x4_LDSM_T>().call(i),
            5 => dst::<SM75_U16x8_LDSM_T>().call(i),
            _ => panic!("ldsm_expected: form {form} of {}", LDSM_FORMS.len()),
        }
    };
    [bit(0) / 16, bit(1) / 16]
}

/// HGEMM CTA tile: rows of C.
pub const HBM: usize = 128;
/// HGEMM CTA tile: columns of C.
pub const HBN: usize = 128;
/// HGEMM k-block (halves).
pub const HBK: usize = 32;
/// Threads per HGEMM block: 4 warps, 2 x 2.
pub const HGEMM_THREADS: usize = 128;
/// Shared stages of the `cp.async` pipeline.
pub const HSTAGES: usize = 3;
/// Halves of one stage: A's 128 x 32 tile, then B's.
pub const HSTAGE: usize = (HBM + HBN) * HBK;

/// The HGEMM's TiledMMA: the m16n8k16 atom (f32 accumulators) over 2 x 2
/// warps (`(2,2,1):(1,2,0)`): a 32 x 16 x 16 tile, repeated over the CTA's
/// 128 x 128 (each thread 4 x 8 atoms of 4 accumulators).
pub type HgemmMma = TiledMma<
    layout_core::atom::SM80_16x8x16_F32F16F16F32_TN,
    layout_type!((2, 2, 1):(1, 2, 0)),
    (X, X, X),
>;

/// The value of [`HgemmMma`].
pub fn hgemm_mma() -> HgemmMma {
    make_tiled_mma(
        layout_core::atom::SM80_16x8x16_F32F16F16F32_TN,
        layout!((2,2,1):(1,2,0)),
        (X, X, X),
    )
}

/// The type of [`hgemm_smem`].
pub type HgemmSmem = ComposedLayout<Swizzle<2, 3, 3>, layout_type!((128, 32):(32, 1))>;

/// A stage's 128 x 32 f16 tile (A's or B's), row-major and swizzled
/// `Sw<2,3,3>`: the four 16-byte chunks of a row are permuted by row bits
/// 1-2, so the 8 rows an `ldmatrix` reads at one column and the chunks a
/// warp's `cp.async` writes hit distinct banks.
pub fn hgemm_smem() -> HgemmSmem {
    composition(Swizzle::<2, 3, 3>, layout!((128,32):(32,1)))
}

/// Threads copying a 128 x 32 f16 tile as 128 x 4 chunks of 16 bytes: 4
/// threads per row, 32 rows at a time. The third mode spans the k-blocks.
pub fn hgemm_copy_threads() -> layout_type!((32, 4, 1):(4, 1, 0)) {
    layout!((32,4,1):(4,1,0))
}

/// Where thread `tid` copies four 16-byte chunks of block row `blk` of a
/// row-major `rows x k` f16 matrix (A, or B seen as N x K): the `F4` index
/// of each chunk in k-block 0, the step per k-block, and each chunk's half
/// offset in the stage tile (swizzled).
pub fn hgemm_copy(rows: usize, k: usize, blk: usize, tid: usize) -> HCopy {
    let kq = k / 8;
    let tiles = local_tile(
        index(layout!((rows, kq):(kq, 1))),
        (C::<128>, C::<4>),
        (blk, X),
    );
    let thr = hgemm_copy_threads();
    let mine = local_partition(tiles, thr, tid);
    let (r, ch, _) = match thr.thread_coord(tid) {
        Some(c) => c,
        None => panic!("hgemm: thread {tid} of {HGEMM_THREADS}"),
    };
    let l = mine.layout();
    let sw = hgemm_smem();
    HCopy {
        global: core::array::from_fn(|v| mine.data_offset() + l.crd2idx((v, 0usize, 0usize))),
        step: l.crd2idx((0usize, 0usize, 1usize)),
        global_chunk: l.crd2idx((1usize, 0usize, 0usize)),
        shared: core::array::from_fn(|v| sw.crd2idx((r + 32 * v, 8 * ch))),
        // 32 rows of 32 halves: above the bits the swizzle mixes.
        shared_chunk: sw.crd2idx((32usize, 0usize)) - sw.crd2idx((0usize, 0usize)),
    }
}

/// One thread's four chunks of a stage copy (see [`hgemm_copy`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HCopy {
    /// `F4` (8 halves) index of each chunk in k-block 0.
    pub global: [usize; 4],
    /// `F4` step from one k-block to the next.
    pub step: usize,
    /// `F4` step from one chunk to the next (`global[v] = global[0] + v *
    /// global_chunk`), so a kernel keeps one address.
    pub global_chunk: usize,
    /// Half offset of each chunk in the stage tile.
    pub shared: [usize; 4],
    /// Half step from one chunk to the next (`shared[v] = shared[0] + v *
    /// shared_chunk`: the swizzle leaves it as it is).
    pub shared_chunk: usize,
}

/// The row address `ldmatrix.x4` takes from thread `tid` for the A
/// fragment of its warp's atom `i` (MMA_M) at k-step `s` (MMA_K): the
/// atom's 16 x 16 block starts where the warp's lane 0 has its value 0
/// (`partition_A` of the stage tile), and the lane names the row of that
/// block that [`ldsm_a_src`] gives. A half offset in the swizzled tile.
pub fn hgemm_ldsm_a(tid: usize, i: usize, s: usize) -> usize {
    let p = hgemm_mma()
        .get_slice(tid - tid % 32)
        .partition_a(index(layout!((128,32):(32,1))));
    let origin = p.data_offset() + p.layout().crd2idx((0usize, i, s));
    let o = ldsm_a_src(tid % 32);
    hgemm_smem().swizzle.apply(origin + (o / 16) * 32 + o % 16)
}

/// How far apart (halves) a warp's A atoms along MMA_M are in the stage
/// tile: the static stride of `partition_A`'s atom mode. The swizzle leaves
/// it as it is (it moves only bits above the ones the swizzle mixes; checked
/// for every thread and atom by the tests), so a kernel keeps one
/// `ldmatrix` address per k-step and reaches the other atoms at constant
/// offsets.
pub fn hgemm_ldsm_a_atom_step() -> usize {
    let p = hgemm_mma()
        .get_slice(0)
        .partition_a(index(layout!((128,32):(32,1))));
    p.layout().crd2idx((0usize, 1usize, 0usize)) - p.layout().crd2idx((0usize, 0usize, 0usize))
}

/// How far apart (halves) the B address of consecutive atom pairs `j2` is:
/// two strides of `partition_B`'s atom mode, unchanged by the swizzle as
/// [`hgemm_ldsm_a_atom_step`].
pub fn hgemm_ldsm_b_pair_step() -> usize {
    let p = hgemm_mma()
        .get_slice(0)
        .partition_b(index(layout!((128,32):(32,1))));
    p.layout().crd2idx((0usize, 2usize, 0usize)) - p.layout().crd2idx((0usize, 0usize, 0usize))
}

/// The row address `ldmatrix.x4` takes from thread `tid` for the B
/// fragments of its warp's atoms `2 j2` and `2 j2 + 1` (MMA_N) at k-step
/// `s`: matrices 0 and 1 are atom `2 j2`'s k 0-7 and 8-15, matrices 2 and 3
/// atom `2 j2 + 1`'s (registers 0-1 and 2-3 are the two atoms' B).
pub fn hgemm_ldsm_b(tid: usize, j2: usize, s: usize) -> usize {
    let p = hgemm_mma()
        .get_slice(tid - tid % 32)
        .partition_b(index(layout!((128,32):(32,1))));
    let lane = tid % 32;
    let (q, row) = (lane / 8, lane % 8);
    let origin = p.data_offset() + p.layout().crd2idx((0usize, 2 * j2 + q / 2, s));
    hgemm_smem().swizzle.apply(origin + row * 32 + 8 * (q % 2))
}

/// Thread `tid` of block `(bx, by)`: value `v + 4 (i + 4 j)` is its
/// accumulator v of atom (i, j), at this offset of C (m x n f32,
/// row-major; `partition_C` of the block's tile).
pub fn hgemm_frag_c(
    m: usize,
    n: usize,
    (bx, by): (usize, usize),
    tid: usize,
) -> Offsets<PartC<HgemmMma, TileC>> {
    let tile = local_tile(
        index(layout!((m, n):(n, 1))),
        (C::<HBM>, C::<HBN>),
        (by, bx),
    );
    Offsets::of(hgemm_mma().get_slice(tid).partition_c(tile))
}

#[cfg(test)]
mod tests {
    //! Every thread of every block, on the CPU: the maps move each element
    //! exactly once to the right place, vector accesses are contiguous and
    //! aligned, and a warp's shared-memory accesses are free of bank
    //! conflicts.
    use super::*;
    use std::collections::HashSet;
    use std::string::ToString;
    use std::vec;
    use std::vec::Vec;

    /// The banks a warp's accesses touch, phase by phase: a 16-byte access
    /// is served 8 threads at a time, a 4-byte one 32 at a time. Conflict
    /// free: within a phase, no two different addresses share a bank.
    fn conflict_free(addrs: &[usize], width: usize) -> bool {
        let per_phase = 32 / width;
        addrs.chunks(per_phase).all(|phase| {
            let mut seen: Vec<(usize, usize)> = Vec::new();
            for &a in phase {
                for w in 0..width {
                    let bank = (a + w) % 32;
                    if seen.iter().any(|&(b, x)| b == bank && x != a + w) {
                        return false;
                    }
                    seen.push((bank, a + w));
                }
            }
            true
        })
    }

    #[test]
    fn transpose_moves_every_element_once() {
        let n = 256;
        let src: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
        let mut dst = vec![f32::NAN; n * n];
        for by in 0..n / TT {
            for bx in 0..n / TT {
                let mut smem = vec![None; TT * TT];
                for tid in 0..THREADS {
                    for (g, s) in transpose_load(n, (bx, by), tid) {
                        assert_eq!(s % 4, 0, "16-byte shared store");
                        for j in 0..4 {
                            assert!(smem[s + j].is_none(), "shared slot {} written twice", s + j);
                            smem[s + j] = Some(src[4 * g + j]);
                        }
                    }
                }
                for tid in 0..THREADS {
                    for (g, offs) in transpose_store(n, (bx, by), tid) {
                        for (j, o) in offs.into_iter().enumerate() {
                            assert!(dst[4 * g + j].is_nan(), "dst {} written twice", 4 * g + j);
                            dst[4 * g + j] = smem[o].expect("read before written");
                        }
                    }
                }
            }
        }
        for i in 0..n {
            for j in 0..n {
                assert_eq!(dst[j * n + i], src[i * n + j], "dst[{j}][{i}]");
            }
        }
    }

    #[test]
    fn transpose_swizzle_is_the_composed_layout() {
        // The maps apply the swizzle to the unswizzled offset: that is the
        // composed layout at the same coordinate.
        let sw = transpose_smem();
        for r in 0..TT {
            for c in 0..TT {
                assert_eq!(sw.swizzle.apply(r * TT + c), sw.crd2idx((r, c)));
            }
        }
    }

    #[test]
    fn transpose_warps_are_conflict_free_and_coalesced() {
        let n = 4096;
        for warp in 0..THREADS / 32 {
            let tids = warp * 32..warp * 32 + 32;
            for v in 0..4 {
                let loads: Vec<_> = tids
                    .clone()
                    .map(|t| transpose_load(n, (3, 5), t)[v])
                    .collect();
                let s: Vec<usize> = loads.iter().map(|l| l.1).collect();
                assert!(
                    conflict_free(&s, 4),
                    "load phase, warp {warp}, value {v}: {s:?}"
                );
                // 32-byte sectors: the warp's 16-byte chunks pair up.
                let g: HashSet<usize> = loads.iter().map(|l| l.0).collect();
                assert!(g.iter().all(|x| g.contains(&(x ^ 1))), "uncoalesced load");
                let stores: Vec<_> = tids
                    .clone()
                    .map(|t| transpose_store(n, (3, 5), t)[v])
                    .collect();
                for k in 0..4 {
                    let s: Vec<usize> = stores.iter().map(|st| st.1[k]).collect();
                    assert!(
                        conflict_free(&s, 1),
                        "store phase, warp {warp}, ({v}, {k}): {s:?}"
                    );
                }
                let g: HashSet<usize> = stores.iter().map(|st| st.0).collect();
                assert!(g.iter().all(|x| g.contains(&(x ^ 1))), "uncoalesced store");
            }
        }
    }

    /// Runs the SGEMM's maps as the kernel does, block by block, k-block by
    /// k-block, on the CPU.
    fn sgemm_by_maps(m: usize, n: usize, k: usize, a: &[f32], b: &[f32], nt: bool) -> Vec<f32> {
        let mut c = vec![f32::NAN; m * n];
        for by in 0..m / BM {
            for bx in 0..n / BN {
                let mut acc = vec![[[0f32; 8]; 8]; THREADS];
                for kt in 0..k / BK {
                    let mut smem = vec![None; STAGE];
                    for tid in 0..THREADS {
                        let ca = if nt {
                            sgemm_load_a_nt::<BM, BK>(m, k, by, tid)
                        } else {
                            sgemm_load_a::<BM, BK>(m, k, by, tid)
                        };
                        let cb = sgemm_load_b::<BM, BN, BK>(k, n, bx, tid);
                        let (ga, gb) = (ca.global + kt * ca.step, cb.global + kt * cb.step);
                        for j in 0..4 {
                            for (s, v) in
                                [(ca.shared[j], a[4 * ga + j]), (cb.shared[j], b[4 * gb + j])]
                            {
                                assert!(smem[s].is_none(), "shared slot {s} written twice");
                                smem[s] = Some(v);
                            }
                        }
                    }
                    for (tid, acc) in acc.iter_mut().enumerate() {
                        let (fa, fb) = (sgemm_frag_a(tid), sgemm_frag_b(tid));
                        for kk in 0..BK {
                            for (i, row) in acc.iter_mut().enumerate() {
                                for (j, x) in row.iter_mut().enumerate() {
                                    let av =
                                        smem[fa.at(i + 8 * kk)].expect("A read before written");
                                    let bv =
                                        smem[fb.at(j + 8 * kk)].expect("B read before written");
                                    *x += av * bv;
                                }
                            }
                        }
                    }
                }
                for (tid, acc) in acc.iter().enumerate() {
                    let fc = sgemm_frag_c::<BM, BN>(m, n, (bx, by), tid);
                    for (i, row) in acc.iter().enumerate() {
                        for (j, x) in row.iter().enumerate() {
                            let o = fc.at(i + 8 * j);
                            assert!(c[o].is_nan(), "C[{o}] written twice");
                            c[o] = *x;
                        }
                    }
                }
            }
        }
        c
    }

    #[test]
    fn sgemm_maps_compute_the_product() {
        let (m, n, k) = (256, 384, 24);
        // Small integers: every sum is exact in f32, in any order.
        let a: Vec<f32> = (0..m * k).map(|i| ((i * 7) % 13) as f32 - 6.0).collect();
        let b: Vec<f32> = (0..k * n).map(|i| ((i * 5) % 11) as f32 - 5.0).collect();
        // A row-major (a[i k + p]), then the same values M-major (a[p m + i]).
        let a_nt: Vec<f32> = (0..m * k).map(|x| a[(x % m) * k + x / m]).collect();
        for (nt, a_in) in [(false, &a), (true, &a_nt)] {
            let c = sgemm_by_maps(m, n, k, a_in, &b, nt);
            for i in 0..m {
                for j in 0..n {
                    let want: f32 = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
                    assert_eq!(c[i * n + j], want, "C[{i}][{j}], A M-major: {nt}");
                }
            }
        }
    }

    #[test]
    fn sgemm_fragments_are_vectors_without_bank_conflicts() {
        let (m, n) = (4096, 4096);
        for tid in 0..THREADS {
            let (fa, fb) = (sgemm_frag_a(tid), sgemm_frag_b(tid));
            let fc = sgemm_frag_c::<BM, BN>(m, n, (7, 9), tid);
            for h in 0..2 {
                for kk in 0..BK {
                    for f in [fa.at(8 * kk + 4 * h), fb.at(8 * kk + 4 * h)] {
                        assert_eq!(f % 4, 0);
                    }
                    for j in 0..4 {
                        assert_eq!(fa.at(8 * kk + 4 * h + j), fa.at(8 * kk + 4 * h) + j);
                        assert_eq!(fb.at(8 * kk + 4 * h + j), fb.at(8 * kk + 4 * h) + j);
                    }
                }
                for i in 0..8 {
                    let o = fc.at(i + 8 * 4 * h);
                    assert_eq!(o % 4, 0);
                    for j in 0..4 {
                        assert_eq!(fc.at(i + 8 * (4 * h + j)), o + j);
                    }
                }
            }
            let ca = sgemm_load_a::<BM, BK>(m, 4096, 9, tid);
            assert_eq!(sgemm_load_b::<BM, BN, BK>(4096, n, 7, tid).shared[0] % 4, 0);
            // A's chunk: 4 consecutive k of one row, k-major in shared.
            assert_eq!(ca.shared.map(|s| s - ca.shared[0]), [0, 128, 256, 384]);
        }
        for warp in 0..THREADS / 32 {
            for kk in 0..BK {
                for h in 0..2 {
                    let sa: Vec<usize> = (warp * 32..warp * 32 + 32)
                        .map(|t| sgemm_frag_a(t).at(8 * kk + 4 * h))
                        .collect();
                    let sb: Vec<usize> = (warp * 32..warp * 32 + 32)
                        .map(|t| sgemm_frag_b(t).at(8 * kk + 4 * h))
                        .collect();
                    assert!(
                        conflict_free(&sa, 4) && conflict_free(&sb, 4),
                        "warp {warp}: {sa:?} {sb:?}"
                    );
                }
            }
            let sb: Vec<usize> = (warp * 32..warp * 32 + 32)
                .map(|t| sgemm_load_b::<BM, BN, BK>(4096, n, 0, t).shared[0])
                .collect();
            assert!(conflict_free(&sb, 4), "B stores, warp {warp}");
        }
    }

    #[test]
    fn sgemm_layouts_print_as_cute() {
        // Hand-derived: the thread at grid row tm holds rows 4 tm + (0..4)
        // and 64 + 4 tm + (0..4): the A partition of (128,8):(1,128) is
        // (MMA, MMA_M, MMA_K) = (one value, (4,2), 8) with strides
        // (_, (1,64), 128). Thread 17 = 1 + 4 * 4 is at grid (1, 4), so it
        // starts at row 4 of A and column 16 of B; thread 37 = 1 + 4 + 32 at
        // (5, 1): row 20, column 4.
        for (t, a0, b0) in [(17, 4, 16), (37, 20, 4)] {
            let mma = sgemm_mma().get_slice(t);
            let part = mma.partition_a(index(sgemm_smem_a()));
            assert_eq!(
                part.layout().to_string(),
                "(_1,(_4,_2),_8):(_0,(_1,_64),_128)"
            );
            assert_eq!(part.data_offset(), a0);
            assert_eq!(mma.partition_b(index(sgemm_smem_b())).data_offset(), b0);
        }
    }

    /// The atom's thread-value layouts against the PTX ISA's fragment
    /// tables for `mma.m16n8k16` with .f16 inputs, written out by hand:
    /// group = lane / 4, t = lane % 4; A: row group (+8 for values 2,3,6,7),
    /// column 2t + (v & 1) (+8 for values 4..7); B: k = 2t + (v & 1) (+8 for
    /// values 2,3), n = group; C: row group (+8 for values 2,3), column
    /// 2t + (v & 1).
    #[test]
    fn mma_atom_layouts_are_the_ptx_fragments() {
        for lane in 0..32 {
            let (g, t) = (lane / 4, lane % 4);
            let m = mma_atom_offsets(lane);
            for v in 0..8 {
                let row = g + 8 * ((v >> 1) & 1);
                let col = 2 * t + (v & 1) + 8 * (v >> 2);
                assert_eq!(m.a[v], row * 16 + col, "A, lane {lane}, value {v}");
            }
            for v in 0..4 {
                let k = 2 * t + (v & 1) + 8 * (v >> 1);
                assert_eq!(m.b[v], g * 16 + k, "B, lane {lane}, value {v}");
                let row = g + 8 * (v >> 1);
                assert_eq!(
                    m.c[v],
                    row * 8 + 2 * t + (v & 1),
                    "C, lane {lane}, value {v}"
                );
            }
        }
    }

    /// ldmatrix's destination layout, with the matrix placement of
    /// `ldsm_a_src` / `ldsm_b_src`, delivers exactly the m16n8k16 atom's A
    /// and B registers: each register's two halves are the atom's values
    /// 2r and 2r + 1 of that lane.
    #[test]
    fn ldmatrix_feeds_the_mma_atom() {
        use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N, SM75_U32x4_LDSM_N};
        let (d4, d2) = (
            <SM75_U32x4_LDSM_N as CopyAtom>::DstLayout::default(),
            <SM75_U32x2_LDSM_N as CopyAtom>::DstLayout::default(),
        );
        // The rows each lane's address names, by matrix and row.
        let a_rows: Vec<usize> = (0..32).map(ldsm_a_src).collect();
        let b_rows: Vec<usize> = (0..32).map(ldsm_b_src).collect();
        for lane in 0..32 {
            let m = mma_atom_offsets(lane);
            for r in 0..4 {
                for h in 0..2 {
                    // Bit 16 h of register r: matrix, row, half in the row.
                    let bit = d4.crd2idx((lane, (16 * h, r)));
                    let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                    // That row's address came from lane 8 q + row.
                    let got = a_rows[8 * q + row] + half;
                    assert_eq!(
                        got,
                        m.a[2 * r + h],
                        "A: lane {lane}, register {r}, half {h}"
                    );
                }
            }
            for r in 0..2 {
                for h in 0..2 {
                    let bit = d2.crd2idx((lane, (16 * h, r)));
                    let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                    let got = b_rows[8 * q + row] + half;
                    assert_eq!(
                        got,
                        m.b[2 * r + h],
                        "B: lane {lane}, register {r}, half {h}"
                    );
                }
            }
        }
        // Rows are 16-byte aligned (ldmatrix requires it).
        assert!(a_rows.iter().chain(&b_rows).all(|o| o % 8 == 0));
    }

    /// The HGEMM's maps for one block and one k-block, every thread: the
    /// `cp.async` chunks fill each slot of the swizzled stage once, and the
    /// registers `ldmatrix` delivers (emulated from its destination layout)
    /// are exactly the A and B values the TiledMMA's `partition_A` /
    /// `partition_B` assign to that thread; `partition_C` covers the tile
    /// once.
    #[test]
    fn hgemm_layouts_print_as_cute() {
        assert_eq!(
            hgemm_smem().to_string(),
            "Sw<2,3,3> o _0 o (_128,_32):(_32,_1)"
        );
        assert_eq!(hgemm_copy_threads().to_string(), "(_32,_4,_1):(_4,_1,_0)");
        // Hand-derived from the atom's A layout ((4,8),(2,2,2)):((32,1),
        // (16,8,128)) over the 16 x 16 (m + 16 k) block, in a row-major
        // 128 x 32 stage (m stride 32, k stride 1): a thread's values step
        // k + 1, m + 8, k + 8 (1, 256, 8); its atoms along M are 2 warps x
        // 16 rows apart (1024), along K 16 apart. Thread 37 is warp 1 (m +
        // 16) lane 5 (m 1, k 2): 16 * 32 + 1 * 32 + 2 = 546.
        let pa = hgemm_mma()
            .get_slice(37)
            .partition_a(index(layout!((128,32):(32,1))));
        assert_eq!(
            pa.layout().to_string(),
            "((_2,_2,_2),_4,_2):((_1,_256,_8),_1024,_16)"
        );
        assert_eq!(pa.data_offset(), 546);
    }

    /// The copy atoms' layouts (CuTe's) against `ldmatrix` as the PTX ISA
    /// defines it: lane t's register r holds matrix r's row t / 4, columns
    /// 2 (t % 4) and + 1; `.trans` holds column t / 4 of rows 2 (t % 4)
    /// and + 1.
    #[test]
    fn ldsm_atoms_match_the_ptx_definition() {
        for (form, &(name, regs)) in LDSM_FORMS.iter().enumerate() {
            for lane in 0..32 {
                for r in 0..regs {
                    let (t4, t_4) = (lane / 4, lane % 4);
                    let want: [usize; 2] = core::array::from_fn(|h| {
                        let (row, col) = if name.ends_with("trans") {
                            (2 * t_4 + h, t4)
                        } else {
                            (t4, 2 * t_4 + h)
                        };
                        (8 * r + row) * 8 + col
                    });
                    assert_eq!(
                        ldsm_expected(form, lane, r),
                        want,
                        "{name}: lane {lane}, register {r}"
                    );
                }
            }
        }
    }

    #[test]
    fn hgemm_ldsm_atoms_are_constant_steps_apart() {
        // Hand count: 2 x 2 warps of 16 x 8 atoms over 128 x 32 row-major
        // halves: a warp's A atoms are 32 rows apart (32 * 32 halves), its
        // B atom pairs 2 * 16 rows apart.
        assert_eq!(hgemm_ldsm_a_atom_step(), 1024);
        for (rows, k) in [(256, 64), (384, 4096)] {
            for blk in 0..rows / 128 {
                for tid in 0..HGEMM_THREADS {
                    let c = hgemm_copy(rows, k, blk, tid);
                    // Chunks are 32 rows apart: 32 rows of k / 8 F4, or
                    // 32 x 32 halves in the stage.
                    assert_eq!(c.global_chunk, 32 * k / 8);
                    assert_eq!(c.shared_chunk, 1024);
                    for v in 0..4 {
                        assert_eq!(c.global[v], c.global[0] + v * c.global_chunk);
                        assert_eq!(c.shared[v], c.shared[0] + v * c.shared_chunk);
                    }
                }
            }
        }
        assert_eq!(hgemm_ldsm_b_pair_step(), 1024);
        for tid in 0..HGEMM_THREADS {
            for s in 0..2 {
                for i in 0..4 {
                    assert_eq!(
                        hgemm_ldsm_a(tid, i, s),
                        hgemm_ldsm_a(tid, 0, s) + i * hgemm_ldsm_a_atom_step()
                    );
                    assert_eq!(
                        hgemm_ldsm_b(tid, i, s),
                        hgemm_ldsm_b(tid, 0, s) + i * hgemm_ldsm_b_pair_step()
                    );
                }
            }
        }
    }

    #[test]
    fn hgemm_maps_feed_the_tiled_mma() {
        use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N};
        let (m, n, k) = (256, 384, 64);
        let (by, bx, kt) = (1, 2, 1);
        // Element values name their position.
        let a: Vec<u32> = (0..m * k).map(|x| x as u32).collect();
        let b: Vec<u32> = (0..n * k).map(|x| 1_000_000 + x as u32).collect();
        let stage = |src: &[u32], rows: usize, blk: usize| {
            let mut t = vec![None; 128 * 32];
            for tid in 0..HGEMM_THREADS {
                let c = hgemm_copy(rows, k, blk, tid);
                for v in 0..4 {
                    let g = c.global[v] + kt * c.step;
                    assert_eq!(c.shared[v] % 8, 0, "16-byte chunk");
                    for e in 0..8 {
                        assert!(
                            t[c.shared[v] + e].is_none(),
                            "slot {} written twice",
                            c.shared[v] + e
                        );
                        t[c.shared[v] + e] = Some(src[8 * g + e]);
                    }
                }
            }
            t.into_iter()
                .map(|x| x.expect("slot never written"))
                .collect::<Vec<u32>>()
        };
        let (sa, sb) = (stage(&a, m, by), stage(&b, n, bx));
        let d4 = <SM75_U32x4_LDSM_N as CopyAtom>::DstLayout::default();
        // Emulates ldmatrix.x4: lane L's register r, half h.
        let ldsm =
            |tile: &[u32], addr: &dyn Fn(usize) -> usize, lane: usize, r: usize, h: usize| {
                let bit = d4.crd2idx((lane, (16 * h, r)));
                let (q, row, half) = (bit / 1024, bit % 1024 / 128, bit % 128 / 16);
                tile[addr(8 * q + row) + half]
            };
        let mma = hgemm_mma();
        for tid in 0..HGEMM_THREADS {
            let (w, lane) = (tid / 32, tid % 32);
            let pa = mma
                .get_slice(tid)
                .partition_a(index(layout!((128,32):(32,1))));
            let pb = mma
                .get_slice(tid)
                .partition_b(index(layout!((128,32):(32,1))));
            for st in 0..2 {
                for i in 0..4 {
                    let addr = |l: usize| hgemm_ldsm_a(32 * w + l, i, st);
                    for v in 0..8 {
                        let got = ldsm(&sa, &addr, lane, v / 2, v % 2);
                        let o = pa.data_offset() + pa.layout().crd2idx((v, i, st));
                        let want = a[(128 * by + o / 32) * k + 32 * kt + o % 32];
                        assert_eq!(got, want, "A: thread {tid}, atom {i}, step {st}, value {v}");
                    }
                }
                for j2 in 0..4 {
                    let addr = |l: usize| hgemm_ldsm_b(32 * w + l, j2, st);
                    for r in 0..4 {
                        for h in 0..2 {
                            let got = ldsm(&sb, &addr, lane, r, h);
                            let (j, v) = (2 * j2 + r / 2, 2 * (r % 2) + h);
                            let o = pb.data_offset() + pb.layout().crd2idx((v, j, st));
                            let want = b[(128 * bx + o / 32) * k + 32 * kt + o % 32];
                            assert_eq!(
                                got, want,
                                "B: thread {tid}, atom {j}, step {st}, value {v}"
                            );
                        }
                    }
                }
            }
        }
        let mut seen = vec![false; m * n];
        for tid in 0..HGEMM_THREADS {
            let fc = hgemm_frag_c(m, n, (bx, by), tid);
            for x in 0..128 {
                let o = fc.at(x);
                assert!(!seen[o], "C offset {o} twice");
                seen[o] = true;
                let (r, c) = (o / n, o % n);
                assert!(
                    r / 128 == by && c / 128 == bx,
                    "C offset {o} outside the block"
                );
            }
        }
        assert_eq!(seen.iter().filter(|&&x| x).count(), 128 * 128);
    }
}
