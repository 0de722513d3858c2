//! Coordinates: integers (1-D indices into a mode), tuples with one entry per
//! mode, natural coordinates, and the underscore that keeps a mode in a slice.

use crate::error::{Note, NoteText};
use crate::layout::congruent::Congruent;
use crate::typelevel::check::CoordBelow;
use crate::typelevel::const_text::Text;
use crate::typelevel::int::for_each_leaf;
use crate::typelevel::int::Int;
use crate::typelevel::int::{ConstForm, TypenumForm, C, S};
use crate::typelevel::list::{SizeList, SizeT};
use crate::typelevel::tuple::{one, Cons, IntTuple, IntoTuple, List, Nil, Tuple};
use core::fmt;
use typenum::{IsLess, Unsigned, B0, B1};

/// CuTe's `_`: in a slicing coordinate, keep this mode.
///
/// ```
/// use layout_core::{crd, layout, slice};
/// let padded = layout!((3,4):(6,1));
/// assert_eq!(slice(crd!(1, _), padded).to_string(), "(_4):(_1)");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Underscore;

impl fmt::Debug for Underscore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("_")
    }
}

/// A coordinate into a shape `S` whose stride is `D`.
///
/// An integer is a 1-D index into the (sub-)shape, split colexicographically
/// by that shape; a tuple needs one entry per mode. `_` counts as 0, which
/// is what a slice's offset needs.
#[diagnostic::on_unimplemented(
    message = "coordinate `{Self}` does not fit the shape `{S}`",
    label = "not a coordinate of this shape",
    note = "a coordinate is an integer (a 1-D index into the mode) or a tuple with one entry per mode of the shape"
)]
pub trait Crd2Idx<S: Congruent<D>, D: IntTuple>: Copy {
    /// `()`, read by the operations' where-clauses: rustc then reports a
    /// refusal at the call itself, without the bound's listing.
    #[doc(hidden)]
    type Checked: Copy;
    /// Whether every integer of the coordinate is static (`_` counts as static).
    const STATIC: bool;
    /// The offset of this coordinate.
    fn crd2idx(self, s: S, d: D) -> usize;
    /// Whether every part of the coordinate lies inside the shape.
    fn in_shape(self, s: S) -> bool;
    /// Print the coordinate in CuTe notation (for messages).
    fn write_crd(&self, f: &mut dyn fmt::Write) -> fmt::Result;
}

/// What makes a coordinate of shape `S` (leaves, `_`, tuples of one rank
/// with the shape): [`Crd2Idx`] is this, for every type. A failing bound
/// is reported at the entry that fails, with its values: an entry outside
/// its mode, or a tuple of another rank than its mode's.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "coordinate `{Self}` does not fit the shape `{S}`",
    label = "not a coordinate of this shape",
    note = "a coordinate is an integer (a 1-D index into the mode) or a tuple with one entry per mode of the shape"
)]
pub trait CrdOf<S: Congruent<D>, D: IntTuple, K = Checked>: Copy {
    /// [`Crd2Idx::STATIC`].
    const STATIC_OF: bool;
    /// [`Crd2Idx::crd2idx`].
    fn offset_of(self, s: S, d: D) -> usize;
    /// [`Crd2Idx::in_shape`].
    fn inside_of(self, s: S) -> bool;
    /// [`Crd2Idx::write_crd`].
    fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result;
}
impl<X: CrdOf<S, D>, S: Congruent<D>, D: IntTuple> Crd2Idx<S, D> for X {
    type Checked = ();
    const STATIC: bool = X::STATIC_OF;
    #[inline(always)]
    fn crd2idx(self, s: S, d: D) -> usize {
        self.offset_of(s, d)
    }
    #[inline(always)]
    fn in_shape(self, s: S) -> bool {
        self.inside_of(s)
    }
    fn write_crd(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        self.text_of(f)
    }
}

/// [`CrdOf`]'s default: every static leaf of the coordinate is compared
/// with its mode, computed (`S<U>`) modes included.
#[doc(hidden)]
pub struct Checked;
/// [`CrdOf`] for the partitions' slices: a static leaf is not compared
/// with a computed (`S<U>`) mode of the grid of tiles, as the partition
/// compares the tile coordinate with that grid itself (one refusal, in
/// the grid's terms, rather than two).
#[doc(hidden)]
pub struct Unchecked;

/// A tuple coordinate of `K` modes for a shape of `R` modes: never holds.
#[diagnostic::on_unimplemented(
    message = "coordinate of {K} modes for a shape of {R} modes",
    label = "one entry per mode of the shape (or one integer, a 1-D index)"
)]
pub trait RankMismatch<const K: usize, const R: usize, Crd, Sh> {
    /// No value: a coordinate of another rank has no offset.
    const NEVER: core::convert::Infallible;
}
/// A tuple coordinate of `K` modes for a shape that is one integer (of
/// stride `D`): never holds.
#[diagnostic::on_unimplemented(
    message = "coordinate of {K} modes for a shape that is one integer",
    label = "a coordinate of an integer shape is an integer"
)]
pub trait TupleForLeaf<const K: usize, Crd, Sh, D> {
    /// No value: such a coordinate has no offset.
    const NEVER: core::convert::Infallible;
}

// A coordinate leaf indexes the (sub-)shape `Sh` (its product, for a
// tuple): a static leaf is checked by the type checker (`TakesStatic`;
// `TakesTypenum` for an `S<U>` leaf, a value past `C<N>`'s table or a
// computed one, compared as a typenum and printed only when refused); a
// run-time leaf where it is used. The bound sits on the leaf's `CrdOf`
// impl itself, one note fewer in a refusal.

/// The shape `Self` admits the static coordinate leaf whose typenum is `U`
/// (an `S<U>` coordinate).
#[doc(hidden)]
pub trait TakesTypenum<U> {}
impl<U> TakesTypenum<U> for usize {}
impl<U, const M: usize> TakesTypenum<U> for C<M>
where
    C<M>: TypenumForm,
    U: IsLess<<C<M> as TypenumForm>::U>,
    <U as IsLess<<C<M> as TypenumForm>::U>>::Output: Below<U, C<M>>,
{
}
impl<U: IsLess<V>, V: Unsigned> TakesTypenum<U> for S<V> where
    <U as IsLess<V>>::Output: Below<U, S<V>>
{
}
macro_rules! takes_typenum_tuple {
    // Rank 0 (size 1) is written out below: its size is known.
    () => {};
    ($($t:ident),+) => {
        impl<U, $($t),*> TakesTypenum<U> for ($($t,)*)
        where
            ($($t,)*): IntTuple,
            <($($t,)*) as IntTuple>::Leaves: SizeList<C<1>>,
            SizeT<($($t,)*)>: SizeExceeds<U>,
            <SizeT<($($t,)*)> as SizeExceeds<U>>::Out: IndexIn<U, SizeT<($($t,)*)>>,
        {
        }
    };
}
crate::typelevel::tuple::for_each_tuple!(takes_typenum_tuple);
// Rank 0: size 1.
impl<U: IsLess<typenum::U1>> TakesTypenum<U> for () where
    <U as IsLess<typenum::U1>>::Output: IndexIn<U, C<1>>
{
}

/// `B1`: the coordinate (typenum `U`) is below the mode `M`'s size; `B0`:
/// the refusal, its values printed.
#[doc(hidden)]
pub trait Below<U, M> {}
impl<U, M> Below<U, M> for B1 {}
impl<U: ConstForm<C = C<N>>, const N: usize, M, const MV: usize> Below<U, M> for B0
where
    M: ConstForm<C = C<MV>>,
    (): CoordBelow<N, MV>,
{
}
/// `B1` when the size `Self` (a leaf type) exceeds the typenum `U` (always,
/// for a run-time size).
#[doc(hidden)]
pub trait SizeExceeds<U> {
    type Out;
}
impl<U> SizeExceeds<U> for usize {
    type Out = B1;
}
impl<U: IsLess<<C<M> as TypenumForm>::U>, const M: usize> SizeExceeds<U> for C<M>
where
    C<M>: TypenumForm,
{
    type Out = <U as IsLess<<C<M> as TypenumForm>::U>>::Output;
}
impl<U: IsLess<V>, V: Unsigned> SizeExceeds<U> for S<V> {
    type Out = <U as IsLess<V>>::Output;
}
/// `B1`: the 1-D coordinate (typenum `U`) is inside a tuple shape of size
/// `Z` (a leaf type); `B0`: the refusal, its values printed.
#[doc(hidden)]
pub trait IndexIn<U, Z> {}
impl<U, Z> IndexIn<U, Z> for B1 {}
impl<U: ConstForm<C = C<N>>, const N: usize, Z: ConstForm<C = C<ZV>>, const ZV: usize> IndexIn<U, Z>
    for B0
where
    (): IndexBelow<N, ZV>,
{
}

/// The shape `Self` admits the static coordinate leaf `_N` (`K`: whether a
/// computed mode is compared, [`Checked`], or not, [`Unchecked`]).
#[doc(hidden)]
pub trait TakesStatic<const N: usize, K> {}
impl<const N: usize, K> TakesStatic<N, K> for usize {}
// The table's forms are required outside the `do_not_recommend` impls, so
// that a value without one is reported as such, not as out of range.
impl<const N: usize, const M: usize, K> TakesStatic<N, K> for C<M>
where
    C<N>: TypenumForm,
    C<M>: TypenumForm,
    (): CoordBelow<N, M>,
{
}
// An `S<U>` mode (a computed one, or a value past `C<N>`'s table) takes
// `_N` as it takes an `S<U>` coordinate, but in a partition's slice.
impl<const N: usize, U: Unsigned> TakesStatic<N, Unchecked> for S<U> {}
impl<const N: usize, U: Unsigned> TakesStatic<N, Checked> for S<U>
where
    C<N>: TypenumForm,
    S<U>: TakesTypenum<<C<N> as TypenumForm>::U>,
{
}
/// A tuple shape, one impl per rank (a blanket impl over tuples would be a
/// second candidate for every leaf, and the error would stop there).
macro_rules! takes_static_tuple {
    // Rank 0 (size 1) is written out below: its size is known.
    () => {};
    ($($t:ident),+) => {
        impl<const N: usize, K, $($t),*> TakesStatic<N, K> for ($($t,)*)
        where
            C<N>: TypenumForm,
            ($($t,)*): IntTuple,
            <($($t,)*) as IntTuple>::Leaves: SizeList<C<1>>,
            SizeT<($($t,)*)>: SizeExceeds<<C<N> as TypenumForm>::U>,
            <SizeT<($($t,)*)> as SizeExceeds<<C<N> as TypenumForm>::U>>::Out:
                IndexIn<<C<N> as TypenumForm>::U, SizeT<($($t,)*)>>,
        {
        }
    };
}
crate::typelevel::tuple::for_each_tuple!(takes_static_tuple);
// Rank 0: size 1.
impl<const N: usize, K> TakesStatic<N, K> for ()
where
    C<N>: TypenumForm,
    <C<N> as TypenumForm>::U: IsLess<typenum::U1>,
    <<C<N> as TypenumForm>::U as IsLess<typenum::U1>>::Output:
        IndexIn<<C<N> as TypenumForm>::U, C<1>>,
{
}

/// The static coordinate leaf `_N` indexes a tuple shape (a 1-D index
/// into it) of size `_Z`: `_N` is below that size (never holds: the
/// refusal's message).
///
/// ```
/// use layout_core::{crd, layout};
/// let l = layout!((3,4):(4,1));
/// assert_eq!(l.to_string(), "(_3,_4):(_4,_1)");
/// assert_eq!(l.crd2idx(crd!(11)), 11); // 1-D: (2,3)
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{crd, layout};
/// // error: coordinate _12 is outside a shape of size _12
/// let _ = layout!((3,4):(4,1)).crd2idx(crd!(12));
/// ```
#[diagnostic::on_unimplemented(
    message = "coordinate _{N} is outside a shape of size _{Z}",
    label = "a 1-D coordinate of a shape is below the shape's size, _{Z}"
)]
pub trait IndexBelow<const N: usize, const Z: usize> {}

const fn check_static_coord(c: Option<usize>, s: Option<usize>) {
    if let (Some(c), Some(s)) = (c, s) {
        if c >= s {
            // The values in CuTe notation: this leaf of the coordinate and
            // the size of the mode it indexes.
            let t = Text::EMPTY
                .str("static coordinate _")
                .num(c)
                .str(" is outside its mode of size _")
                .num(s)
                .str(" (a coordinate of that mode is 0 to ")
                .num(s.saturating_sub(1))
                .str(")");
            panic!("{}", t.as_str())
        }
    }
}

macro_rules! leaf_crd {
    ($t:ty; [$($bound:tt)*]; $($g:tt)*) => {
        impl<Sh: Congruent<D>, D: IntTuple, K, $($g)*> CrdOf<Sh, D, K> for $t
        where
            $($bound)*
        {
            const STATIC_OF: bool = <$t as Int>::STATIC.is_some();
            #[inline(always)]
            fn offset_of(self, s: Sh, d: D) -> usize {
                const { check_static_coord(<$t as Int>::STATIC, Sh::STATIC_SIZE) };
                s.index_offset(d, self.value())
            }
            #[inline(always)]
            fn inside_of(self, s: Sh) -> bool {
                self.value() < s.size()
            }
            fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                self.write_cute(f)
            }
        }
    };
}
leaf_crd!(usize; [];);
leaf_crd!(C<N>; [Sh: TakesStatic<N, K>,]; const N: usize);
leaf_crd!(S<U>; [Sh: TakesTypenum<U>,]; U: Unsigned + 'static);

#[diagnostic::do_not_recommend]
impl<Sh: Congruent<D>, D: IntTuple, K> CrdOf<Sh, D, K> for Underscore {
    const STATIC_OF: bool = true;
    #[inline(always)]
    fn offset_of(self, _s: Sh, _d: D) -> usize {
        0
    }
    #[inline(always)]
    fn inside_of(self, _s: Sh) -> bool {
        true
    }
    fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        f.write_char('_')
    }
}

/// Tuple coordinates, one impl per rank. Not `do_not_recommend`: an entry
/// outside its mode is reported at that entry, with its values (such an
/// impl would lift the error to the whole coordinate).
macro_rules! crd_tuple {
    ($(($c:ident, $s:ident, $d:ident)),*) => {
        #[allow(non_snake_case, unused_variables, unused_mut)]
        impl<K, $($c: CrdOf<$s, $d, K>, $s: Congruent<$d>, $d: IntTuple),*> CrdOf<($($s,)*), ($($d,)*), K> for ($($c,)*)
        where
            ($($s,)*): Congruent<($($d,)*)>,
            ($($d,)*): IntTuple,
        {
            const STATIC_OF: bool = true $(&& $c::STATIC_OF)*;
            #[inline(always)]
            fn offset_of(self, s: ($($s,)*), d: ($($d,)*)) -> usize {
                let ($($c,)*) = self;
                let ($($s,)*) = s;
                let ($($d,)*) = d;
                0 $(+ $c.offset_of($s, $d))*
            }
            #[inline(always)]
            fn inside_of(self, s: ($($s,)*)) -> bool {
                let ($($c,)*) = self;
                let ($($s,)*) = s;
                true $(&& $c.inside_of($s))*
            }
            fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                let ($($c,)*) = self;
                f.write_char('(')?;
                let mut first = true;
                $(
                    if !first {
                        f.write_char(',')?;
                    }
                    first = false;
                    $c.text_of(f)?;
                )*
                let _ = first;
                f.write_char(')')
            }
        }
    };
}
/// `crd_tuple!` for each rank from 0 to 12 (the largest tuple): the triples
/// done so far, then one more.
macro_rules! crd_tuples {
    ([$($done:tt),*]; []) => {
        crd_tuple!($($done),*);
    };
    ([$($done:tt),*]; [$next:tt $(, $rest:tt)*]) => {
        crd_tuple!($($done),*);
        crd_tuples!([$($done,)* $next]; [$($rest),*]);
    };
}
crd_tuples!([]; [
    (C0, S0, D0), (C1, S1, D1), (C2, S2, D2), (C3, S3, D3),
    (C4, S4, D4), (C5, S5, D5), (C6, S6, D6), (C7, S7, D7),
    (C8, S8, D8), (C9, S9, D9), (C10, S10, D10), (C11, S11, D11)
]);

/// A tuple coordinate against a tuple shape of another rank: an impl whose
/// bound never holds, so that the error names both ranks.
macro_rules! crd_mismatch {
    ([$($c:ident)*] [$($s:ident $d:ident)*]) => {
        #[allow(unused_variables)]
        impl<K, $($c: Copy,)* $($s, $d),*> CrdOf<($($s,)*), ($($d,)*), K> for ($($c,)*)
        where
            ($($s,)*): Congruent<($($d,)*)>,
            ($($d,)*): IntTuple,
            (): RankMismatch<{ 0 $(+ one!($c))* }, { 0 $(+ one!($s))* }, ($($c,)*), ($($s,)*)>,
        {
            const STATIC_OF: bool = false;
            fn offset_of(self, s: ($($s,)*), d: ($($d,)*)) -> usize {
                match <() as RankMismatch<{ 0 $(+ one!($c))* }, { 0 $(+ one!($s))* }, ($($c,)*), ($($s,)*)>>::NEVER {}
            }
            fn inside_of(self, s: ($($s,)*)) -> bool {
                match <() as RankMismatch<{ 0 $(+ one!($c))* }, { 0 $(+ one!($s))* }, ($($c,)*), ($($s,)*)>>::NEVER {}
            }
            fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                match <() as RankMismatch<{ 0 $(+ one!($c))* }, { 0 $(+ one!($s))* }, ($($c,)*), ($($s,)*)>>::NEVER {}
            }
        }
    };
}
/// A tuple coordinate against a leaf shape.
macro_rules! crd_for_leaf {
    ([$($c:ident)*]) => {
        crd_for_leaf!(@leaf [$($c)*] usize;);
        crd_for_leaf!(@leaf [$($c)*] $crate::typelevel::int::C<M>; const M: usize);
        crd_for_leaf!(@leaf [$($c)*] $crate::typelevel::int::S<U>; U: typenum::Unsigned + 'static);
    };
    (@leaf [$($c:ident)*] $t:ty; $($g:tt)*) => {
        #[allow(unused_variables)]
        impl<K, $($c: Copy,)* D: IntTuple, $($g)*> CrdOf<$t, D, K> for ($($c,)*)
        where
            $t: Congruent<D>,
            (): TupleForLeaf<{ 0 $(+ one!($c))* }, ($($c,)*), $t, D>,
        {
            const STATIC_OF: bool = false;
            fn offset_of(self, s: $t, d: D) -> usize {
                match <() as TupleForLeaf<{ 0 $(+ one!($c))* }, ($($c,)*), $t, D>>::NEVER {}
            }
            fn inside_of(self, s: $t) -> bool {
                match <() as TupleForLeaf<{ 0 $(+ one!($c))* }, ($($c,)*), $t, D>>::NEVER {}
            }
            fn text_of(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                match <() as TupleForLeaf<{ 0 $(+ one!($c))* }, ($($c,)*), $t, D>>::NEVER {}
            }
        }
    };
}
/// Every pair of ranks from 0 to 12 that differ: each rank's coordinate
/// against the shapes of the ranks before and after it.
macro_rules! crd_mismatches {
    ([$($before:tt)*]; $cur:tt $($after:tt)*) => {
        crd_mismatch_rank!($cur; $($before)* $($after)*);
        crd_mismatches!([$($before)* $cur]; $($after)*);
    };
    ([$($before:tt)*];) => {};
}
macro_rules! crd_mismatch_rank {
    ({$cs:tt $ss:tt}; $({$co:tt $so:tt})*) => {
        crd_for_leaf!($cs);
        $( crd_mismatch!($cs $so); )*
    };
}
crd_mismatches!([];
    {[] []}
    {[C0] [S0 D0]}
    {[C0 C1] [S0 D0 S1 D1]}
    {[C0 C1 C2] [S0 D0 S1 D1 S2 D2]}
    {[C0 C1 C2 C3] [S0 D0 S1 D1 S2 D2 S3 D3]}
    {[C0 C1 C2 C3 C4] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4]}
    {[C0 C1 C2 C3 C4 C5] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5]}
    {[C0 C1 C2 C3 C4 C5 C6] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6]}
    {[C0 C1 C2 C3 C4 C5 C6 C7] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7]}
    {[C0 C1 C2 C3 C4 C5 C6 C7 C8] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8]}
    {[C0 C1 C2 C3 C4 C5 C6 C7 C8 C9] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9]}
    {[C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 C10] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10]}
    {[C0 C1 C2 C3 C4 C5 C6 C7 C8 C9 C10 C11] [S0 D0 S1 D1 S2 D2 S3 D3 S4 D4 S5 D5 S6 D6 S7 D7 S8 D8 S9 D9 S10 D10 S11 D11]}
);

/// CuTe's `crd2idx(coord, shape, stride)`.
///
/// ```
/// use layout_core::{crd, crd2idx};
/// assert_eq!(crd2idx(crd!(1, 2), (3usize, 4usize), (4usize, 1usize)), 6);
/// assert_eq!(crd2idx(5usize, (3usize, 4usize), (4usize, 1usize)), 9);
/// ```
#[inline(always)]
pub fn crd2idx<Crd: Crd2Idx<S, D>, S: Congruent<D>, D: IntTuple>(c: Crd, s: S, d: D) -> usize
where
    Crd::Checked: Copy,
{
    c.crd2idx(s, d)
}

/// CuTe's `idx2crd(i, shape)`: the natural coordinate of a 1-D index.
///
/// ```
/// use layout_core::{idx2crd, C};
/// assert_eq!(idx2crd(5, (C::<3>, C::<4>)), (2, 1));
/// ```
#[inline(always)]
pub fn idx2crd<S: IntTuple>(i: usize, s: S) -> S::Dyn {
    s.idx2crd(i)
}

/// The index of a coordinate in a shape with compact column-major strides
/// (CuTe's `crd2idx(coord, shape)`).
#[diagnostic::on_unimplemented(
    message = "coordinate `{Self}` does not fit the shape `{S}`",
    label = "not a coordinate of this shape"
)]
pub trait CompactIndex<S> {
    /// The colexicographic index of the coordinate.
    fn compact_index(self, s: S) -> usize;
}
macro_rules! leaf_compact_index {
    ($t:ty; $($g:tt)*) => {
        impl<Sh: IntTuple, $($g)*> CompactIndex<Sh> for $t {
            #[inline(always)]
            fn compact_index(self, _s: Sh) -> usize {
                self.value()
            }
        }
    };
}
for_each_leaf!(leaf_compact_index);
#[doc(hidden)]
pub trait CompactIndexList<S> {
    fn compact_index(self, s: S) -> (usize, usize);
}
impl CompactIndexList<Nil> for Nil {
    fn compact_index(self, _s: Nil) -> (usize, usize) {
        (0, 1)
    }
}
impl<CH: CompactIndex<SH>, CT: CompactIndexList<ST>, SH: IntTuple, ST>
    CompactIndexList<Cons<SH, ST>> for Cons<CH, CT>
{
    fn compact_index(self, s: Cons<SH, ST>) -> (usize, usize) {
        let n = s.0.size();
        let (rest, m) = self.1.compact_index(s.1);
        (self.0.compact_index(s.0) + n * rest, n * m)
    }
}
impl<Cc: Tuple, Sh: Tuple> CompactIndex<Sh> for Cc
where
    Cc::List: CompactIndexList<Sh::List>,
{
    fn compact_index(self, s: Sh) -> usize {
        self.into_list().compact_index(s.into_list()).0
    }
}

/// CuTe's `crd2crd(coord, src_shape, dst_shape)`: by mode when all three are
/// tuples, otherwise through the colexicographic index.
///
/// ```
/// use layout_core::{crd2crd, Crd2Crd};
/// assert_eq!(crd2crd((1usize, 2usize), (2usize, (3usize, 2usize)), (2usize, (2usize, 3usize))), (1, (0, 1)));
/// ```
#[diagnostic::on_unimplemented(
    message = "coordinate `{Self}` cannot be moved from shape `{S}` to shape `{T}`"
)]
pub trait Crd2Crd<S, T> {
    /// The coordinate in the target shape.
    type Out;
    /// Move the coordinate.
    fn crd2crd(self, s: S, t: T) -> Self::Out;
}
macro_rules! leaf_crd2crd {
    ($t:ty; $($g:tt)*) => {
        impl<Sh: IntTuple, Th: IntTuple, $($g)*> Crd2Crd<Sh, Th> for $t {
            type Out = Th::Dyn;
            fn crd2crd(self, _s: Sh, t: Th) -> Th::Dyn {
                t.idx2crd(self.value())
            }
        }
    };
}
for_each_leaf!(leaf_crd2crd);
#[doc(hidden)]
pub trait Crd2CrdList<S, T> {
    type Out: List;
    fn crd2crd(self, s: S, t: T) -> Self::Out;
}
impl Crd2CrdList<Nil, Nil> for Nil {
    type Out = Nil;
    fn crd2crd(self, _s: Nil, _t: Nil) -> Nil {
        Nil
    }
}
impl<CH: Crd2Crd<SH, TH>, CT: Crd2CrdList<ST, TT>, SH, ST, TH, TT>
    Crd2CrdList<Cons<SH, ST>, Cons<TH, TT>> for Cons<CH, CT>
where
    CH::Out: Copy + Send + Sync + 'static,
    Cons<CH::Out, CT::Out>: List,
{
    type Out = Cons<CH::Out, CT::Out>;
    fn crd2crd(self, s: Cons<SH, ST>, t: Cons<TH, TT>) -> Self::Out {
        Cons(self.0.crd2crd(s.0, t.0), self.1.crd2crd(s.1, t.1))
    }
}
impl<Cc: Tuple, Sh: Tuple, Th: Tuple> Crd2Crd<Sh, Th> for Cc
where
    Cc::List: Crd2CrdList<Sh::List, Th::List>,
    <Cc::List as Crd2CrdList<Sh::List, Th::List>>::Out: IntoTuple,
{
    type Out = <<Cc::List as Crd2CrdList<Sh::List, Th::List>>::Out as IntoTuple>::Tuple;
    fn crd2crd(self, s: Sh, t: Th) -> Self::Out {
        self.into_list()
            .crd2crd(s.into_list(), t.into_list())
            .into_tuple()
    }
}
macro_rules! tuple_to_leaf_crd2crd {
    ($t:ty; $($g:tt)*) => {
        impl<Cc: Tuple + CompactIndex<Sh>, Sh: IntTuple, $($g)*> Crd2Crd<Sh, $t> for Cc {
            type Out = usize;
            fn crd2crd(self, s: Sh, t: $t) -> usize {
                t.idx2crd(self.compact_index(s))
            }
        }
    };
}
for_each_leaf!(tuple_to_leaf_crd2crd);

/// CuTe's `crd2crd`.
///
/// ```
/// use layout_core::{crd2crd, to_cute_string};
/// // CuTe prints ((0,0),0): index 0 of (4,2) in ((2,2),2).
/// let c = crd2crd((0usize, 0usize), (4usize, 2usize), ((2usize, 2usize), 2usize));
/// assert_eq!(to_cute_string(&c), "((0,0),0)");
/// ```
pub fn crd2crd<Crd: Crd2Crd<S, T>, S, T>(c: Crd, s: S, t: T) -> Crd::Out {
    c.crd2crd(s, t)
}

impl NoteText for Underscore {
    const TEXT: Text = Text::EMPTY.byte(b'_');
    #[inline(always)]
    fn note_vals(&self, _n: &mut Note) {}
}
