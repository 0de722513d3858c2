//! An MMA atom's accumulators as a fused kernel uses them. Attention is the
//! example: S = Q·Kᵀ, a softmax along S's rows, then O = P·V with P taken
//! from S's registers.
//!
//! - [`acc_rows`]: which of a thread's accumulators share a row of C, and
//!   which lanes hold the rest of that row. A row reduction is the
//!   thread's own values, then XOR shuffles over the lanes
//!   [`AccRows::xor`] names.
//! - [`convert_layout_acc_aregs`]: the accumulators of K/N atoms side by
//!   side along N, seen as the next MMA's A fragment with no register
//!   moved (CuTe's `convert_layout_acc_Aregs` idea). It is the accumulator
//!   fragment's layout with its N mode split.
//!
//! Both are derived from the atom's thread-value layouts at compile time.
//! An atom for which one does not hold (its rows span warps, or its A
//! values sit in other threads' accumulators) is refused at compile time,
//! at the caller's line, with the reason.
//!
//! ```
//! use layout_core::atom::accumulator::{acc_rows, convert_layout_acc_aregs, AccRows};
//! use layout_core::atom::SM80_16x8x16_F32F16F16F32_TN as Mma;
//! use layout_core::layout;
//! // m16n8k16: a lane's 4 accumulators lie in 2 rows (values 0-1, 2-3);
//! // the other columns of those rows are in lanes t^1, t^2, t^3.
//! const ROWS: AccRows = acc_rows::<Mma>();
//! assert_eq!((ROWS.rows, ROWS.xor()), (2, &[1, 2][..]));
//! assert_eq!(&ROWS.row_of[..4], &[0, 0, 1, 1]);
//! // A thread's S fragment of 2 x 8 atoms, as the TiledMMA makes it ...
//! let s = layout!(((2,2),2,8):((1,2),4,8));
//! // ... is, as P, an A fragment of 2 x 4 (16-deep) k-blocks.
//! let p = convert_layout_acc_aregs(Mma, s);
//! assert_eq!(p.to_string(), "(((_2,_2),_2),_2,_4):(((_1,_2),_8),_4,_16)");
//! ```

use crate::algebra::Coalesce;
use crate::algebra::LayoutParts;
use crate::atom::mma::Mnk;
use crate::atom::MmaAtom;
use crate::layout::compact::TypedSize;
use crate::layout::ops::Rank2;
use crate::layout::Congruent;
use crate::layout::StaticText;
use crate::typelevel::arith::{DivT, LDiv, LMul, MulT};
use crate::typelevel::check::{Comparable, DividesU, MayEqual, Refuse, SizesOr, TwoSizes};
use crate::typelevel::const_text::{Leaves, Text};
use crate::typelevel::int::{ConstForm, Int, StaticInt, TypenumForm, C, S};
use crate::typelevel::tuple::{Cons, IntTuple, Nil};
use crate::Layout;
use core::ops::{BitAnd, BitOr};
use typenum::{And, Bit, IsEqual, IsLessOrEqual, LeEq, B0, B1, U0, U128};

/// Most leaves a thread-value layout of an atom has here.
const LEAF_CAP: usize = 16;
/// Most values a thread holds in one atom's C (SM90's m64n256: 128).
pub const VALUE_CAP: usize = 128;
/// Most threads of one atom (a warpgroup).
const THREAD_CAP: usize = 128;

/// A `(thread, value)` layout's leaves, flat: `(t, v)` is at
/// `at(t + threads * v)`, the rank-2 layout read as a 1-D one.
#[derive(Clone, Copy)]
struct Tv {
    shape: [usize; LEAF_CAP],
    stride: [usize; LEAF_CAP],
    n: usize,
    threads: usize,
    values: usize,
}

impl Tv {
    /// The layout of these leaves, its first `threads` positions of the
    /// 1-D index being the threads; `None` unless all leaves are static
    /// and fit.
    const fn of(s: Leaves, d: Leaves, threads: usize) -> Option<Tv> {
        if !s.all_static() || !d.all_static() || s.n != d.n || s.n > LEAF_CAP || threads == 0 {
            return None;
        }
        let mut tv = Tv {
            shape: [1; LEAF_CAP],
            stride: [0; LEAF_CAP],
            n: s.n,
            threads,
            values: 1,
        };
        let mut size = 1;
        let mut i = 0;
        while i < s.n {
            tv.shape[i] = s.v[i];
            tv.stride[i] = d.v[i];
            size *= s.v[i];
            i += 1;
        }
        if size % threads != 0 {
            return None;
        }
        tv.values = size / threads;
        Some(tv)
    }

    /// The position of value `v` of thread `t`.
    const fn at(&self, t: usize, v: usize) -> usize {
        let mut i = t + self.threads * v;
        let mut off = 0;
        let mut l = 0;
        while l < self.n {
            off += (i % self.shape[l]) * self.stride[l];
            i /= self.shape[l];
            l += 1;
        }
        off
    }
}

/// The size of a static layout (`None` for run-time leaves).
const fn size_of(s: Leaves) -> Option<usize> {
    if !s.all_static() {
        return None;
    }
    let mut size = 1;
    let mut i = 0;
    while i < s.n {
        size *= s.v[i];
        i += 1;
    }
    Some(size)
}

/// Atom `A`'s thread-value layout `L` as constants.
const fn tv_of<A: MmaAtom<ThrID: StaticText>, L: StaticText>() -> Option<Tv> {
    match size_of(<A::ThrID as StaticText>::SHAPE) {
        Some(threads) => Tv::of(L::SHAPE, L::STRIDE, threads),
        None => None,
    }
}

/// The rows of C a thread's accumulators lie in, and the lanes holding the
/// rest of each row: what [`acc_rows`] derives from an atom's C layout.
#[derive(Clone, Copy, Debug)]
pub struct AccRows {
    /// Rows a thread's values of one atom lie in.
    pub rows: usize,
    /// Value `v` of a thread lies in its row `row_of[v]` (`< rows`); the
    /// same for every thread, so a kernel indexes it with constants.
    pub row_of: [usize; VALUE_CAP],
    /// Values per thread.
    pub values: usize,
    /// Lane masks, increasing; their XOR combinations are exactly the
    /// lanes that share a thread's rows, and all share all of them.
    xor: [u32; 5],
    shuffles: usize,
}

impl AccRows {
    /// The lane masks of a row reduction: after reducing its own values of
    /// a row, a thread combines with `shfl.xor` by each mask in turn and
    /// holds the whole row's result (a butterfly over the lanes).
    pub const fn xor(&self) -> &[u32] {
        self.xor.split_at(self.shuffles).0
    }
    /// The lane bits the masks cover: lanes `t` and `u` hold the same rows
    /// exactly when `t ^ u` lies within them.
    pub const fn lane_bits(&self) -> u32 {
        let mut b = 0;
        let mut i = 0;
        while i < self.shuffles {
            b |= self.xor[i];
            i += 1;
        }
        b
    }
}

/// The error text of a refusal.
const fn refuse(what: &str, c: Text) -> Text {
    Text::EMPTY.str(what).str(" (C layout ").text(c).str(")")
}

/// Row `r`'s slot among thread `t`'s rows in order of first appearance,
/// writing the rows into `rows`; how many there are.
const fn thread_rows(
    c: &Tv,
    m: usize,
    t: usize,
    rows: &mut [usize; VALUE_CAP],
    limit: usize,
) -> usize {
    let mut n = 0;
    let mut v = 0;
    while v < c.values && n < limit {
        let r = c.at(t, v) % m;
        let mut s = 0;
        while s < n && rows[s] != r {
            s += 1;
        }
        if s == n {
            rows[n] = r;
            n += 1;
        }
        v += 1;
    }
    n
}

/// [`acc_rows`]'s derivation.
// Evaluated at compile time only (the trait's constants): the error's size
// costs nothing at run time.
#[allow(clippy::result_large_err)]
const fn derive_rows(c: Tv, text: Text, (m, n): (usize, usize)) -> Result<AccRows, Text> {
    if c.values > VALUE_CAP || c.threads > THREAD_CAP || !c.threads.is_power_of_two() {
        return Err(refuse(
            "acc_rows: more values or threads than an atom has here",
            text,
        ));
    }
    let mut out = AccRows {
        rows: 0,
        row_of: [0; VALUE_CAP],
        values: c.values,
        xor: [0; 5],
        shuffles: 0,
    };
    // Every thread's values lie in its rows in one pattern (value -> slot).
    let mut first = [0; VALUE_CAP];
    out.rows = thread_rows(&c, m, 0, &mut first, VALUE_CAP);
    let mut t = 0;
    while t < c.threads {
        let mut rows = [0; VALUE_CAP];
        if thread_rows(&c, m, t, &mut rows, VALUE_CAP) != out.rows {
            return Err(refuse(
                "acc_rows: threads hold values in different numbers of rows",
                text,
            ));
        }
        let mut v = 0;
        while v < c.values {
            let r = c.at(t, v) % m;
            let mut s = 0;
            while rows[s] != r {
                s += 1;
            }
            if t == 0 {
                out.row_of[v] = s;
            } else if out.row_of[v] != s {
                return Err(refuse(
                    "acc_rows: a value's row slot differs between threads",
                    text,
                ));
            }
            v += 1;
        }
        t += 1;
    }
    // The lane bits whose flip keeps a thread's rows, slot for slot.
    let mut mask_bits = 0;
    let mut b = 0;
    while (1 << b) < c.threads {
        let mut same = true;
        let mut t = 0;
        while t < c.threads && same {
            let (mut r0, mut r1) = ([0; VALUE_CAP], [0; VALUE_CAP]);
            // (Every thread's rows were counted above: the first
            // `out.rows` found are all of them.)
            thread_rows(&c, m, t, &mut r0, out.rows);
            thread_rows(&c, m, t ^ (1 << b), &mut r1, out.rows);
            let mut s = 0;
            while s < out.rows {
                same = same && r0[s] == r1[s];
                s += 1;
            }
            t += 1;
        }
        if same {
            if b >= 5 {
                return Err(refuse(
                    "acc_rows: threads of different warps share a row, which a shuffle cannot reduce",
                    text,
                ));
            }
            out.xor[out.shuffles] = 1 << b;
            out.shuffles += 1;
            mask_bits |= 1 << b;
        }
        b += 1;
    }
    // The lanes so related hold each row whole: N columns between them.
    let mut t = 0;
    while t < c.threads {
        let mut s = 0;
        while s < out.rows {
            let mut r = [0; VALUE_CAP];
            thread_rows(&c, m, t, &mut r, out.rows);
            let mut cols_s = 0;
            let mut g = 0;
            while g < c.threads {
                if g & !mask_bits == 0 {
                    let mut v = 0;
                    while v < c.values {
                        if c.at(t ^ g, v) % m == r[s] {
                            cols_s += 1;
                        }
                        v += 1;
                    }
                }
                g += 1;
            }
            if cols_s != n {
                return Err(refuse(
                    "acc_rows: lanes outside the XOR group of a thread hold part of its row",
                    text,
                ));
            }
            s += 1;
        }
        t += 1;
    }
    Ok(out)
}

/// An atom's (M, N, K) as constants.
const fn mnk<A: MmaAtom<ShapeMNK: Mnk>>() -> (usize, usize, usize) {
    let m = <<A::ShapeMNK as Mnk>::M as Int>::STATIC;
    let n = <<A::ShapeMNK as Mnk>::N as Int>::STATIC;
    let k = <<A::ShapeMNK as Mnk>::K as Int>::STATIC;
    match (m, n, k) {
        (Some(m), Some(n), Some(k)) => (m, n, k),
        _ => panic!("an MMA atom's shape is static"),
    }
}

/// What [`acc_rows`] and [`convert_layout_acc_aregs`] know of an atom,
/// as constants (every atom with static thread-value layouts).
pub trait AccumulatorFacts: MmaAtom {
    /// [`acc_rows`]'s result, or why the atom is refused.
    const ROWS: Result<AccRows, Text>;
    /// For each value `v` of a thread's A fragment, the N-atom and the C
    /// value of the same thread holding it; or why the atom is refused.
    const ACC_AS_A: Result<AccAsA, Text>;
}

impl<A> AccumulatorFacts for A
where
    A: MmaAtom<ShapeMNK: Mnk, ThrID: StaticText, CLayout: StaticText, ALayout: StaticText>,
{
    const ROWS: Result<AccRows, Text> = match tv_of::<A, A::CLayout>() {
        Some(c) => {
            let (m, n, _) = mnk::<A>();
            derive_rows(c, <A::CLayout as StaticText>::TEXT, (m, n))
        }
        None => Err(refuse(
            "acc_rows: the C layout has run-time leaves",
            <A::CLayout as StaticText>::TEXT,
        )),
    };
    const ACC_AS_A: Result<AccAsA, Text> =
        match (tv_of::<A, A::ALayout>(), tv_of::<A, A::CLayout>()) {
            (Some(a), Some(c)) => {
                derive_acc_as_a(a, c, <A::CLayout as StaticText>::TEXT, mnk::<A>())
            }
            _ => Err(refuse(
                "convert_layout_acc_aregs: the A or C layout has run-time leaves",
                <A::CLayout as StaticText>::TEXT,
            )),
        };
}

/// [`acc_rows`]'s answer for atom `A`, evaluated at compile time where it
/// is used in a constant; a compile error naming the reason when the
/// atom's rows cannot be reduced by shuffles within a warp.
pub const fn acc_rows<A: AccumulatorFacts>() -> AccRows {
    match A::ROWS {
        Ok(r) => r,
        Err(e) => panic!("{}", e.as_str()),
    }
}

/// Where each value of an A fragment sits among the accumulators: value
/// `v` of the A fragment `f` is C value `value[i]` of the `atom[i]`-th of
/// the C atoms side by side along N, for `i = f · values + v`. When the C
/// atom's N is at most the A atom's K, one A fragment spans K/N C atoms
/// (`atoms`, and `blocks` = 1: SM80's m16n8k16); when it is larger, one C
/// atom holds N/K A fragments (`blocks`, and `atoms` = 1: an SM90 S tile
/// of m64n128 read as eight m64k16 A fragments).
#[derive(Clone, Copy, Debug)]
pub struct AccAsA {
    /// The C atom of each A value.
    pub atom: [usize; VALUE_CAP],
    /// The C value (within that atom) of each A value.
    pub value: [usize; VALUE_CAP],
    /// A values per thread (one A fragment).
    pub values: usize,
    /// C atoms per A fragment (K / N, at least 1).
    pub atoms: usize,
    /// A fragments per C atom (N / K, at least 1).
    pub blocks: usize,
    /// Whether entry `i` is C value `i % C values` of C atom `i / C
    /// values`: the A fragments are the accumulators in register order,
    /// the condition of [`convert_layout_acc_aregs`].
    pub in_order: bool,
}

/// The derivation of [`AccumulatorFacts::ACC_AS_A`] and [`acc_as_a`]:
/// `a` the A atom's thread-value layout over its M x K tile, `c` the C
/// atom's over its M x N (compile time only, as `derive_rows`).
#[allow(clippy::result_large_err)]
const fn derive_acc_as_a(
    a: Tv,
    c: Tv,
    text: Text,
    (m, n, k): (usize, usize, usize),
) -> Result<AccAsA, Text> {
    if n == 0 || k == 0 || (k % n != 0 && n % k != 0) {
        return Err(refuse(
            "convert_layout_acc_aregs: the A atom's K and the C atom's N do not divide one another",
            text,
        ));
    }
    let (atoms, blocks) = if k >= n { (k / n, 1) } else { (1, n / k) };
    if a.values > VALUE_CAP {
        return Err(refuse(
            "convert_layout_acc_aregs: the atom reads A from shared memory, not registers (an SS GMMA: its RS form takes A in registers)",
            text,
        ));
    }
    if a.threads != c.threads || blocks * a.values > VALUE_CAP {
        return Err(refuse(
            "convert_layout_acc_aregs: the atom's A and C fragments are not per-thread registers of one thread set",
            text,
        ));
    }
    if a.values * blocks != atoms * c.values {
        return Err(refuse(
            "convert_layout_acc_aregs: an A fragment holds other than K/N atoms' accumulators",
            text,
        ));
    }
    let mut out = AccAsA {
        atom: [0; VALUE_CAP],
        value: [0; VALUE_CAP],
        values: a.values,
        atoms,
        blocks,
        in_order: true,
    };
    let mut t = 0;
    while t < a.threads {
        let mut f = 0;
        while f < blocks {
            let mut v = 0;
            while v < a.values {
                // A's (row, column k) of fragment f is accumulator column
                // f K + k: column (f K + k) % N of C atom (f K + k) / N.
                let p = a.at(t, v);
                let (row, col) = (p % m, f * k + p / m);
                let want = row + m * (col % n);
                let i = f * a.values + v;
                // Thread 0's place is every thread's (checked directly: a
                // search per thread is too long for the compiler's
                // evaluation at m64n256); a search names the failure.
                if t > 0 && out.atom[i] == col / n && c.at(t, out.value[i]) == want {
                    v += 1;
                    continue;
                }
                let mut w = 0;
                while w < c.values && c.at(t, w) != want {
                    w += 1;
                }
                if w == c.values {
                    return Err(refuse(
                        "convert_layout_acc_aregs: an A value lies in another thread's accumulators (the relayout would need shuffles)",
                        text,
                    ));
                }
                if t > 0 {
                    return Err(refuse(
                        "convert_layout_acc_aregs: the A values' places among the accumulators differ between threads",
                        text,
                    ));
                }
                out.atom[i] = col / n;
                out.value[i] = w;
                v += 1;
            }
            f += 1;
        }
        t += 1;
    }
    let mut i = 0;
    while i < blocks * a.values {
        out.in_order = out.in_order && out.atom[i] == i / c.values && out.value[i] == i % c.values;
        i += 1;
    }
    Ok(out)
}

/// Where the A fragments of atom `A` (an `_RS` GMMA, or any atom with A in
/// registers) lie among the accumulators of atom `C` (the MMA that made
/// them), both of one M and one thread set: [`AccAsA`], derived from the
/// two atoms' layouts at compile time; a compile error naming the reason
/// where the A values are not the same thread's accumulators.
///
/// ```
/// use layout_core::atom::accumulator::{acc_as_a, AccAsA};
/// use layout_core::atom::{SM90_64x128x16_F32F16F16_SS as S, SM90_64x64x16_F32F16F16_RS as Pv};
/// // Attention on Hopper: S = Q·Kᵀ by m64n128k16 (64 accumulators a
/// // thread), then O += P·V by m64n64k16 with P from registers. S's 128
/// // columns are 8 A fragments of 16 columns, each 8 of S's values in
/// // register order.
/// const P: AccAsA = acc_as_a::<S, Pv>();
/// assert_eq!((P.values, P.blocks, P.atoms, P.in_order), (8, 8, 1, true));
/// assert_eq!(P.value[3 * 8 + 5], 29);
/// ```
///
/// Atoms of different M do not compile:
///
/// ```compile_fail
/// use layout_core::atom::accumulator::{acc_as_a, AccAsA};
/// use layout_core::atom::{SM80_16x8x16_F32F16F16F32_TN as S, SM90_64x64x16_F32F16F16_RS as Pv};
/// const P: AccAsA = acc_as_a::<S, Pv>();
/// ```
pub const fn acc_as_a<C, A>() -> AccAsA
where
    C: MmaAtom<ShapeMNK: Mnk, ThrID: StaticText, CLayout: StaticText>,
    A: MmaAtom<ShapeMNK: Mnk, ThrID: StaticText, ALayout: StaticText>,
{
    let text = <C::CLayout as StaticText>::TEXT;
    let ((mc, n, _), (ma, _, k)) = (mnk::<C>(), mnk::<A>());
    let r = match (tv_of::<A, A::ALayout>(), tv_of::<C, C::CLayout>()) {
        (Some(a), Some(c)) if ma == mc => derive_acc_as_a(a, c, text, (mc, n, k)),
        (Some(_), Some(_)) => Err(refuse("acc_as_a: the A atom's M is not the C atom's", text)),
        _ => Err(refuse(
            "acc_as_a: the A or C layout has run-time leaves",
            text,
        )),
    };
    match r {
        Ok(f) => f,
        Err(e) => panic!("{}", e.as_str()),
    }
}

/// The number of N-atoms an A fragment spans, K / N, as a type.
pub type AtomsPerA<A> =
    DivT<<<A as MmaAtom>::ShapeMNK as Mnk>::K, <<A as MmaAtom>::ShapeMNK as Mnk>::N>;

/// The fragment's N mode `Self` (a static size) against `R`, the N-atoms
/// of one A atom (K/N): a `C<X>` mode is a multiple of `R`, decided by the
/// type checker (`R` = 0 is an atom whose A fragment is not in registers,
/// refused by [`convert_layout_acc_aregs`]'s constant check with its own
/// reason); a computed `S<U>` mode as a typenum, its value printed only
/// when refused.
#[doc(hidden)]
pub trait AccAregsN<R> {}
impl<const X: usize, const R: usize> AccAregsN<C<R>> for C<X> where (): NModeOfAtoms<X, R> {}
impl<U, const R: usize> AccAregsN<C<R>> for S<U>
where
    C<R>: TypenumForm,
    <C<R> as TypenumForm>::U: DividesU<U> + IsEqual<U0>,
    <<C<R> as TypenumForm>::U as DividesU<U>>::Out:
        BitOr<<<C<R> as TypenumForm>::U as IsEqual<U0>>::Output>,
    <<<C<R> as TypenumForm>::U as DividesU<U>>::Out as BitOr<
        <<C<R> as TypenumForm>::U as IsEqual<U0>>::Output,
    >>::Output: NModeOr<U, R>,
{
}
/// `B1`: the computed N mode (typenum `U`) is a multiple of `R`; `B0`: the
/// refusal, its value printed.
#[doc(hidden)]
pub trait NModeOr<U, const R: usize> {}
impl<U, const R: usize> NModeOr<U, R> for B1 {}
impl<U: ConstForm<C = C<X>>, const X: usize, const R: usize> NModeOr<U, R> for B0 where
    (): NModeOfAtoms<X, R>
{
}
/// [`AccAregsN`] through one blanket impl: [`convert_layout_acc_aregs`]'s
/// bound, so that a refusal lists no impls.
#[doc(hidden)]
pub trait AccAregsNOf<R> {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<R, X: AccAregsN<R>> AccAregsNOf<R> for X {
    type Checked = ();
}

/// The A values a thread holds in one atom: the size of the value mode of
/// the atom's A layout.
#[doc(hidden)]
pub type AValues<A> =
    <<<<A as MmaAtom>::ALayout as LayoutParts>::Shape as Rank2>::M1 as TypedSize>::Size;

/// The atom `Self` takes its A fragment from registers: at most
/// [`VALUE_CAP`] A values a thread, decided by the type checker (an SS
/// GMMA, which reads A from shared memory, gives every thread all of A:
/// its `convert_layout_acc_aregs` is a type error).
#[doc(hidden)]
pub trait AccAregsA {
    /// `()`, read by [`convert_layout_acc_aregs`]'s where-clause: rustc then
    /// reports a refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<A> AccAregsA for A
where
    A: MmaAtom,
    A::ALayout: LayoutParts,
    <A::ALayout as LayoutParts>::Shape: Rank2,
    <<A::ALayout as LayoutParts>::Shape as Rank2>::M1: TypedSize,
    AValues<A>: TypenumForm,
    <AValues<A> as TypenumForm>::U: IsLessOrEqual<U128>,
    <<AValues<A> as TypenumForm>::U as IsLessOrEqual<U128>>::Output: AFragmentFits<A>,
{
    type Checked = ();
}
const _: () = assert!(VALUE_CAP == <U128 as typenum::Unsigned>::USIZE);
/// `B1`: the A fragment fits registers (then [`InOrderOr`]); `B0`: the
/// refusal, with the count.
#[doc(hidden)]
pub trait AFragmentFits<A> {}
impl<A: AccInOrder> AFragmentFits<A> for B1 where A::Out: InOrderOr<A> {}
impl<A, const N: usize> AFragmentFits<A> for B0
where
    A: MmaAtom,
    A::ALayout: LayoutParts,
    <A::ALayout as LayoutParts>::Shape: Rank2,
    <<A::ALayout as LayoutParts>::Shape as Rank2>::M1: TypedSize,
    AValues<A>: ConstForm<C = C<N>>,
    (): ARegisters<N>,
{
}
/// [`AccAregsA`]'s second check, once the A fragment fits registers: the
/// atom's A fragment is its accumulators in register order
/// ([`AccInOrder`]); `B0` is the refusal naming the atom.
#[doc(hidden)]
pub trait InOrderOr<A> {}
impl<A> InOrderOr<A> for B1 {}
impl<A> InOrderOr<A> for B0 where (): AccumulatorsInOrder<A> {}
/// [`InOrderOr`]'s message.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "convert_layout_acc_aregs: the A fragment of `{A}` is not its accumulators in register order",
    label = "an atom whose A values are the same thread's accumulators, in order (the f16 and bf16 RS GMMAs with N = 8 or a multiple of 16, SM80's m16n8k16)",
    note = "this atom's A values lie in other threads' accumulators, in another order, or (an N that 16 does not divide) partly past its accumulators: the relayout needs shuffles or register moves (AccumulatorFacts::ACC_AS_A says where)"
)]
pub trait AccumulatorsInOrder<A> {}

/// `B1` when the atom `Self`'s A fragment is its accumulators in register
/// order, decided by the type checker from the two thread-value layouts:
/// the A value `v` of block `f` (one C atom holds N/K A blocks) is C value
/// `f · values + v`, at offset `+ f · M · K`, so C's layout is A's with a
/// value mode `(N/K : M·K)` appended (K ≤ N); when one A atom spans K/N C
/// atoms, A's layout is C's with `(K/N : M·N)` appended. Each side's thread
/// mode and value mode are compared coalesced, leaf by leaf. The same
/// condition as [`AccAsA::in_order`] (a test checks the two agree on every
/// atom).
#[doc(hidden)]
pub trait AccInOrder {
    /// `B1` or `B0`.
    type Out: Bit;
}
type Part<L, const I: usize> = <L as LayoutPartsOf<I>>::Part;
type Mnk3<A> = <A as MmaAtom>::ShapeMNK;
type KU<A> = <<Mnk3<A> as Mnk>::K as StaticInt>::U;
type NU<A> = <<Mnk3<A> as Mnk>::N as StaticInt>::U;
/// Which side is extended: `B1` where K ≤ N.
type Roles<A> = LeEq<KU<A>, NU<A>>;
type Short<A> = <Roles<A> as InOrderBy<A>>::Short;
type Long<A> = <Roles<A> as InOrderBy<A>>::Long;
type Small<A> = <Roles<A> as InOrderBy<A>>::Small;
type Big<A> = <Roles<A> as InOrderBy<A>>::Big;
/// The shorter value part with its blocks appended: `(Big/Small : M·Small)`.
type Blocked<A> = Appended<Short<A>, DivT<Big<A>, Small<A>>, MulT<<Mnk3<A> as Mnk>::M, Small<A>>>;
type ThreadsSame<A> =
    <Part<<A as MmaAtom>::ALayout, 0> as SameFunction<Part<<A as MmaAtom>::CLayout, 0>>>::Out;
type ValuesSame<A> = <Blocked<A> as SameFunction<Long<A>>>::Out;
impl<A> AccInOrder for A
where
    A: MmaAtom<ShapeMNK: Mnk>,
    <A::ShapeMNK as Mnk>::K: StaticInt,
    <A::ShapeMNK as Mnk>::N: StaticInt,
    KU<A>: IsLessOrEqual<NU<A>>,
    Roles<A>: InOrderBy<A>,
    A::ALayout: LayoutPartsOf<0>,
    A::CLayout: LayoutPartsOf<0>,
    (Big<A>, Small<A>): LDiv,
    (<A::ShapeMNK as Mnk>::M, Small<A>): LMul,
    Short<A>: Rank2,
    Part<A::ALayout, 0>: SameFunction<Part<A::CLayout, 0>>,
    Blocked<A>: SameFunction<Long<A>>,
    ThreadsSame<A>: BitAnd<ValuesSame<A>, Output: Bit>,
{
    type Out = And<ThreadsSame<A>, ValuesSame<A>>;
}
/// [`AccInOrder`]'s roles by whether K ≤ N (`Self`): the value part that
/// the blocks extend and the one it must then equal, the larger and the
/// smaller of N and K.
#[doc(hidden)]
pub trait InOrderBy<A> {
    /// The shorter value part (A's where K ≤ N, else C's).
    type Short;
    /// The longer value part.
    type Long;
    /// The larger of N and K.
    type Big;
    /// The smaller of N and K.
    type Small;
}
impl<A: MmaAtom<ShapeMNK: Mnk>> InOrderBy<A> for B1
where
    A::ALayout: LayoutPartsOf<1>,
    A::CLayout: LayoutPartsOf<1>,
{
    type Short = Part<A::ALayout, 1>;
    type Long = Part<A::CLayout, 1>;
    type Big = <A::ShapeMNK as Mnk>::N;
    type Small = <A::ShapeMNK as Mnk>::K;
}
impl<A: MmaAtom<ShapeMNK: Mnk>> InOrderBy<A> for B0
where
    A::ALayout: LayoutPartsOf<1>,
    A::CLayout: LayoutPartsOf<1>,
{
    type Short = Part<A::CLayout, 1>;
    type Long = Part<A::ALayout, 1>;
    type Big = <A::ShapeMNK as Mnk>::K;
    type Small = <A::ShapeMNK as Mnk>::N;
}
/// The (thread or value) mode `I` of a rank-2 layout, as a layout.
#[doc(hidden)]
pub trait LayoutPartsOf<const I: usize> {
    /// The mode's layout.
    type Part;
}
impl<L: LayoutParts> LayoutPartsOf<0> for L
where
    L::Shape: Rank2,
    L::Stride: Rank2,
{
    type Part = (<L::Shape as Rank2>::M0, <L::Stride as Rank2>::M0);
}
impl<L: LayoutParts> LayoutPartsOf<1> for L
where
    L::Shape: Rank2,
    L::Stride: Rank2,
{
    type Part = (<L::Shape as Rank2>::M1, <L::Stride as Rank2>::M1);
}
/// A part `(S, D)` (shape, stride) with the mode `Q : E` appended:
/// `((S, Q), (D, E))`.
type Appended<P, Q, E> = ((<P as Rank2>::M0, Q), (<P as Rank2>::M1, E));
/// `B1` when the layouts `(Sh, D)` (`Self`) and `R` are the same function:
/// their coalesced forms are equal leaf by leaf (static leaves compared as
/// typenums).
#[doc(hidden)]
pub trait SameFunction<R> {
    /// `B1` or `B0`.
    type Out: Bit;
}
type Coalesced<P> = <Layout<<P as Rank2>::M0, <P as Rank2>::M1> as Coalesce>::Output;
type ShapeLeaves<L> = <<L as LayoutParts>::Shape as IntTuple>::Leaves;
type StrideLeaves<L> = <<L as LayoutParts>::Stride as IntTuple>::Leaves;
impl<P: Rank2, R: Rank2> SameFunction<R> for P
where
    P::M0: Congruent<P::M1>,
    P::M1: IntTuple,
    R::M0: Congruent<R::M1>,
    R::M1: IntTuple,
    Layout<P::M0, P::M1>: Coalesce<Output: LayoutParts>,
    Layout<R::M0, R::M1>: Coalesce<Output: LayoutParts>,
    ShapeLeaves<Coalesced<P>>: LeavesEq<ShapeLeaves<Coalesced<R>>>,
    StrideLeaves<Coalesced<P>>: LeavesEq<StrideLeaves<Coalesced<R>>>,
    <ShapeLeaves<Coalesced<P>> as LeavesEq<ShapeLeaves<Coalesced<R>>>>::Out: BitAnd<
        <StrideLeaves<Coalesced<P>> as LeavesEq<StrideLeaves<Coalesced<R>>>>::Out,
        Output: Bit,
    >,
{
    type Out = And<
        <ShapeLeaves<Coalesced<P>> as LeavesEq<ShapeLeaves<Coalesced<R>>>>::Out,
        <StrideLeaves<Coalesced<P>> as LeavesEq<StrideLeaves<Coalesced<R>>>>::Out,
    >;
}
/// `B1` when two lists of leaves are equal, leaf by leaf ([`MayEqual`]).
#[doc(hidden)]
pub trait LeavesEq<R> {
    /// `B1` or `B0`.
    type Out: Bit;
}
impl LeavesEq<Nil> for Nil {
    type Out = B1;
}
impl<H, T> LeavesEq<Nil> for Cons<H, T> {
    type Out = B0;
}
impl<H, T> LeavesEq<Cons<H, T>> for Nil {
    type Out = B0;
}
impl<H: MayEqual<H2>, T: LeavesEq<T2>, H2, T2> LeavesEq<Cons<H2, T2>> for Cons<H, T>
where
    H::Out: BitAnd<T::Out, Output: Bit>,
{
    type Out = And<H::Out, T::Out>;
}

/// [`AccAregsA`]'s message.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "convert_layout_acc_aregs: the atom reads A from shared memory, not registers: its A layout gives each thread _{N} values",
    label = "an atom whose A fragment is a thread's registers (an SS GMMA's RS form takes A in registers)"
)]
pub trait ARegisters<const N: usize> {}

/// One atom's accumulators a thread holds: the size of the value mode of
/// the atom's C layout.
#[doc(hidden)]
pub type AccValues<A> =
    <<<<A as MmaAtom>::CLayout as LayoutParts>::Shape as Rank2>::M1 as TypedSize>::Size;

/// The fragment's value mode `Self` against the atom `A`: one atom's
/// accumulators, decided by the type checker where both sizes are static
/// (a run-time size is refused when the constants are evaluated).
#[doc(hidden)]
pub trait AccAregsV<A> {
    /// `()`, read by [`convert_layout_acc_aregs`]'s where-clause: rustc then
    /// reports a refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
}
impl<A, V> AccAregsV<A> for V
where
    A: MmaAtom,
    A::CLayout: LayoutParts,
    <A::CLayout as LayoutParts>::Shape: Rank2,
    <<A::CLayout as LayoutParts>::Shape as Rank2>::M1: TypedSize,
    V: TypedSize,
    V::Size: Comparable + MayEqual<AccValues<A>>,
    AccValues<A>: Comparable,
    <V::Size as MayEqual<AccValues<A>>>::Out: SizesOr<ValueModeRefused<V, A>>,
{
    type Checked = ();
}
/// The refusal of [`AccAregsV`]: the value mode `V` against the atom `A`.
#[doc(hidden)]
pub struct ValueModeRefused<V, A>(core::marker::PhantomData<(V, A)>);
impl<V: TypedSize, A> TwoSizes for ValueModeRefused<V, A>
where
    A: MmaAtom,
    A::CLayout: LayoutParts,
    <A::CLayout as LayoutParts>::Shape: Rank2,
    <<A::CLayout as LayoutParts>::Shape as Rank2>::M1: TypedSize,
{
    type X = V::Size;
    type Y = AccValues<A>;
}
impl<V, A, const X: usize, const Y: usize> Refuse<X, Y> for ValueModeRefused<V, A> where
    (): ValueModeOfAtom<X, Y>
{
}
/// [`AccAregsV`]'s message.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "convert_layout_acc_aregs: the fragment's value mode holds _{X} values, not one atom's _{Y} accumulators",
    label = "its first mode is a thread's accumulators of one atom: _{Y} values",
    note = "the fragment is (V, MMA_M, MMA_N), as partition_fragment_C lays out a thread's accumulators"
)]
pub trait ValueModeOfAtom<const X: usize, const Y: usize> {}

/// [`AccAregsN`]'s refusal: the N mode `_X` is not a multiple of the `R`
/// N-atoms of one A atom.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "convert_layout_acc_aregs: the fragment's N mode _{X} is not a multiple of the {R} N-atoms (K/N) of one A atom",
    label = "its N mode is cut into whole A atoms: {R} accumulator N-atoms each"
)]
pub trait NModeOfAtoms<const X: usize, const R: usize> {}
#[diagnostic::do_not_recommend]
impl<const X: usize, const R: usize> NModeOfAtoms<X, R> for ()
where
    C<X>: TypenumForm,
    C<R>: TypenumForm,
    <C<R> as TypenumForm>::U: DividesU<<C<X> as TypenumForm>::U> + IsEqual<U0>,
    <<C<R> as TypenumForm>::U as DividesU<<C<X> as TypenumForm>::U>>::Out:
        BitOr<<<C<R> as TypenumForm>::U as IsEqual<U0>>::Output, Output = B1>,
{
}

/// The layout [`convert_layout_acc_aregs`] makes of `Layout<(V, M, N), (DV, DM, DN)>`.
pub type AccAregs<A, V, M, N, DV, DM, DN> =
    Layout<((V, AtomsPerA<A>), M, DivT<N, AtomsPerA<A>>), ((DV, DN), DM, MulT<DN, AtomsPerA<A>>)>;

/// The check of [`convert_layout_acc_aregs`], at compile time: why the
/// fragment cannot be read as A operands, or nothing.
const fn check_aregs<A: AccumulatorFacts<CLayout: StaticText>, V: IntTuple, N: StaticInt>(
) -> Option<Text> {
    let facts = match A::ACC_AS_A {
        Ok(f) => f,
        Err(e) => return Some(e),
    };
    let c = <A::CLayout as StaticText>::TEXT;
    if !facts.in_order {
        return Some(refuse(
            "convert_layout_acc_aregs: this atom's A fragment is its accumulators in another order (permute the registers by AccumulatorFacts::ACC_AS_A)",
            c,
        ));
    }
    let size = match size_of(V::LEAF_VALUES) {
        Some(s) => s,
        None => 0,
    };
    if size * facts.atoms != facts.values {
        let t = Text::EMPTY
            .str("convert_layout_acc_aregs: the fragment's value mode ")
            .text(V::TEXT)
            .str(" is not one atom's ")
            .num(facts.values / facts.atoms)
            .str(" accumulators");
        return Some(refuse(t.as_str(), c));
    }
    match N::STATIC {
        Some(x) if x % facts.atoms == 0 => None,
        _ => {
            let t = Text::EMPTY
                .str("convert_layout_acc_aregs: the fragment's N mode ")
                .text(N::TEXT)
                .str(" is not a multiple of the ")
                .num(facts.atoms)
                .str(" N-atoms (K/N) of one A atom");
            Some(refuse(t.as_str(), c))
        }
    }
}

/// A thread's accumulator fragment `(V, MMA_M, MMA_N)` (the layout of
/// `partition_fragment_C`) as the A fragment `((V, K/N), MMA_M, MMA_N /
/// (K/N))` of the next MMA, over the same registers: the N mode split into
/// the K/N atoms that make one A atom and the A atoms along K.
///
/// Checked at compile time, at the caller's line: the atom's A value `v`
/// of each thread is that thread's C value `v % V` of N-atom `v / V` (the
/// A fragment is the accumulators in register order: no register moves,
/// only the element type's conversion), `V` is one atom's accumulators and
/// `MMA_N` a multiple of K/N.
///
/// ```
/// use layout_core::atom::accumulator::convert_layout_acc_aregs;
/// use layout_core::atom::SM80_16x8x16_F16F16F16F16_TN as Mma;
/// use layout_core::layout;
/// // One m-atom, 4 n-atoms of f16 accumulators: 2 A k-blocks of 16.
/// let p = convert_layout_acc_aregs(Mma, layout!(((2,2),1,4):((1,2),0,4)));
/// assert_eq!(p.to_string(), "(((_2,_2),_2),_1,_2):(((_1,_2),_4),_0,_8)");
/// // A value 5 of k-block 1 is accumulator 1 of n-atom 3: register 13.
/// assert_eq!(p.crd2idx((5usize, 0usize, 1usize)), 13);
/// ```
///
/// A fragment whose static N mode does not split into whole A atoms or
/// whose static value mode is not one atom's accumulators, an atom that
/// reads A from shared memory (an SS GMMA), and an atom whose A fragment
/// is its accumulators in another order or in other threads' (the tf32,
/// FP8 and 8-bit RS GMMAs) are type errors (`cargo check` reports them):
///
/// ```compile_fail,E0277
/// use layout_core::atom::accumulator::convert_layout_acc_aregs;
/// use layout_core::atom::SM80_16x8x16_F16F16F16F16_TN as Mma;
/// use layout_core::layout;
/// // error: convert_layout_acc_aregs: the fragment's N mode _3 is not a
/// // multiple of the 2 N-atoms (K/N) of one A atom
/// let _ = convert_layout_acc_aregs(Mma, layout!(((2,2),1,3):((1,2),0,4)));
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::atom::accumulator::convert_layout_acc_aregs;
/// use layout_core::atom::SM90_64x64x8_F32TF32TF32_RS_TN as Mma;
/// use layout_core::layout;
/// // error: convert_layout_acc_aregs: the A fragment of
/// // `SM90_64x64x8_F32TF32TF32_RS_TN` is not its accumulators in register order
/// let _ = convert_layout_acc_aregs(Mma, layout!(((2,2,8),1,4):((1,2,4),0,32)));
/// ```
#[inline(always)]
pub fn convert_layout_acc_aregs<A, V, M, N, DV, DM, DN>(
    _atom: A,
    acc: Layout<(V, M, N), (DV, DM, DN)>,
) -> AccAregs<A, V, M, N, DV, DM, DN>
where
    <N as AccAregsNOf<<AtomsPerA<A> as ConstForm>::C>>::Checked: Copy,
    <V as AccAregsV<A>>::Checked: Copy,
    <A as AccAregsA>::Checked: Copy,
    A: AccumulatorFacts<ShapeMNK: Mnk, CLayout: StaticText> + AccAregsA,
    V: IntTuple + AccAregsV<A>,
    N: StaticInt + AccAregsNOf<<AtomsPerA<A> as ConstForm>::C>,
    AtomsPerA<A>: ConstForm,
    DN: Int,
    (<A::ShapeMNK as Mnk>::K, <A::ShapeMNK as Mnk>::N): LDiv,
    (N, AtomsPerA<A>): LDiv,
    (DN, AtomsPerA<A>): LMul,
{
    // Checked here, so that a refusal names the caller's line.
    const {
        if let Some(e) = check_aregs::<A, V, N>() {
            panic!("{}", e.as_str())
        }
    };
    let ((v, m, n), (dv, dm, dn)) = acc.into_raw();
    let r = AtomsPerA::<A>::default();
    // Static quotient and product (the check above): no division here.
    let (q, dr) = match ((n, r).value(), (dn, r).value()) {
        (Some(q), Some(dr)) => (q, dr),
        _ => panic!("convert_layout_acc_aregs: N-mode stride overflows"),
    };
    // Congruent: each new mode pairs a shape with a stride of its form.
    Layout::raw(((v, r), m, q), ((dv, dn), dm, dr))
}
