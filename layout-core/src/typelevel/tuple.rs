//! Nested integer tuples (CuTe's `IntTuple`) and the cons-list form every
//! recursion over modes walks.
//!
//! Users write native tuples such as `(C<2>, (C<2>, usize))`. Each native
//! tuple of rank 0 to 12 maps to a cons list `Cons<A, Cons<B, Nil>>` through
//! [`Tuple`]; algorithms are written once on [`Nil`] and [`Cons`] and lifted
//! to every arity by one blanket impl.

use crate::typelevel::const_text::{Leaves, Text};
use core::fmt;
use typenum::{Bit, B0, B1};

/// The end of a cons list.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Nil;

/// A cons cell: a head mode and the rest of the modes.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Cons<H, T>(pub H, pub T);

/// A native tuple with its cons-list form.
pub trait Tuple: Copy + 'static + Send + Sync {
    /// The cons-list form.
    type List: IntoTuple<Tuple = Self>;
    /// Convert to the cons-list form.
    fn into_list(self) -> Self::List;
}

/// A cons list (of any length).
pub trait List: Copy + 'static + Send + Sync {
    /// Number of elements.
    const LEN: usize;
}
impl List for Nil {
    const LEN: usize = 0;
}
impl<H: Copy + 'static + Send + Sync, T: List> List for Cons<H, T> {
    const LEN: usize = 1 + T::LEN;
}

/// A cons list short enough to have a native-tuple form (rank 0 to 12).
pub trait IntoTuple: List {
    /// The native tuple.
    type Tuple: Tuple<List = Self>;
    /// Convert to the native tuple.
    fn into_tuple(self) -> Self::Tuple;
}

macro_rules! cons_type {
    () => { Nil };
    ($h:ident $($t:ident)*) => { Cons<$h, cons_type!($($t)*)> };
}
macro_rules! cons_value {
    () => { Nil };
    ($h:ident $($t:ident)*) => { Cons($h, cons_value!($($t)*)) };
}

macro_rules! tuple_list {
    ($n:expr; $($t:ident)*) => {
        const _: usize = $n;
        impl<$($t: Copy + 'static + Send + Sync),*> Tuple for ($($t,)*) {
            type List = cons_type!($($t)*);
            #[inline(always)]
            #[allow(non_snake_case)]
            fn into_list(self) -> Self::List {
                let ($($t,)*) = self;
                cons_value!($($t)*)
            }
        }
        impl<$($t: Copy + 'static + Send + Sync),*> IntoTuple for cons_type!($($t)*) {
            type Tuple = ($($t,)*);
            #[inline(always)]
            #[allow(non_snake_case, clippy::unused_unit)]
            fn into_tuple(self) -> Self::Tuple {
                let cons_value!($($t)*) = self;
                ($($t,)*)
            }
        }
    };
}

tuple_list!(0;);
tuple_list!(1; A);
tuple_list!(2; A B);
tuple_list!(3; A B C0);
tuple_list!(4; A B C0 D);
tuple_list!(5; A B C0 D E);
tuple_list!(6; A B C0 D E F);
tuple_list!(7; A B C0 D E F G);
tuple_list!(8; A B C0 D E F G H);
tuple_list!(9; A B C0 D E F G H I);
tuple_list!(10; A B C0 D E F G H I J);
tuple_list!(11; A B C0 D E F G H I J K);
tuple_list!(12; A B C0 D E F G H I J K L);

pub(crate) const fn mul_opt(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => x.checked_mul(y),
        _ => None,
    }
}
pub(crate) const fn add_opt(a: Option<usize>, b: Option<usize>) -> Option<usize> {
    match (a, b) {
        (Some(x), Some(y)) => x.checked_add(y),
        _ => None,
    }
}
const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

/// A nested tuple of integers: a leaf (`usize`, `C<N>`, `S<U>`) or a native
/// tuple of `IntTuple`s. CuTe's rank, depth and size.
///
/// ```
/// use layout_core::{IntTuple, C};
/// let s = (C::<2>, (C::<2>, 3usize));
/// assert_eq!(<(C<2>, (C<2>, usize)) as IntTuple>::RANK, 2);
/// assert_eq!(<(C<2>, (C<2>, usize)) as IntTuple>::DEPTH, 2);
/// assert_eq!(s.size(), 12);
/// assert_eq!(layout_core::to_cute_string(&s), "(_2,(_2,3))");
/// ```
pub trait IntTuple: Copy + 'static + Send + Sync {
    /// Number of top-level modes (1 for an integer).
    const RANK: usize;
    /// Nesting depth (0 for an integer).
    const DEPTH: usize;
    /// Whether this is an integer rather than a tuple.
    const IS_INT: bool;
    /// Whether every leaf is static.
    const ALL_STATIC: bool;
    /// Number of integer leaves.
    const LEAF_COUNT: usize;
    /// The product of the leaves when every leaf is static (and it fits `usize`).
    const STATIC_SIZE: Option<usize>;
    /// The same nesting with every leaf a `usize` (the type of a natural coordinate).
    type Dyn: Copy + PartialEq + fmt::Debug;
    /// The leaves in order, as a cons list (CuTe's `flatten_to_tuple`).
    type Leaves: List;
    /// `B1` for an integer, `B0` for a tuple (a type-level `IS_INT`).
    type IsLeaf: Bit;
    /// `B1` when every leaf is static (a type-level `ALL_STATIC`).
    type AllStatic: StaticBit;
    /// CuTe notation, as a constant (a run-time leaf prints as `?`).
    const TEXT: Text;
    /// The leaves in order, as a constant.
    const LEAF_VALUES: Leaves;

    /// Rebuild from leaf values in order: run-time leaves take the next value,
    /// static leaves skip theirs.
    fn fill(vals: &mut core::slice::Iter<'_, usize>) -> Self;

    /// The product of the leaves (CuTe's `size`/`product`).
    fn size(&self) -> usize;
    /// The product of the leaves, `None` on overflow.
    fn checked_size(&self) -> Option<usize>;
    /// Print in CuTe's notation.
    fn write_cute(&self, f: &mut dyn fmt::Write) -> fmt::Result;
    /// Visit every leaf in order: `(value, is_static)`.
    fn for_each_leaf(&self, f: &mut dyn FnMut(usize, bool));
    /// Every leaf made dynamic.
    fn to_dyn(&self) -> Self::Dyn;
    /// The leaves as a cons list.
    fn leaves(self) -> Self::Leaves;
    /// The size of each top-level mode, in order (an integer is one mode).
    fn for_each_mode_size(&self, f: &mut dyn FnMut(usize));
    /// The size of top-level mode `i` (1 past the last): a constant index
    /// folds to the mode's size.
    fn mode_size(&self, i: usize) -> usize;
    /// Leaf `i` in order (0 past the last): a constant index folds to the leaf.
    fn leaf(&self, i: usize) -> usize;
    /// The natural coordinate of a 1-D index (colexicographic, CuTe's `idx2crd(i, shape)`).
    fn idx2crd(&self, i: usize) -> Self::Dyn;
    /// Walk the nesting: `open`/`close` around each tuple, `leaf` for each
    /// integer (with whether it is static), in order.
    fn visit(&self, v: &mut dyn TupleVisitor);
}

/// A type-level "all static" flag (`B1`/`B0`) that selects, at compile
/// time, between an operation's static result and its run-time computation:
/// only the selected branch is instantiated.
pub trait StaticBit {
    /// Both flags.
    type And<O: StaticBit>: StaticBit;
    /// `when_static()` for `B1`, `when_dynamic()` for `B0`. The other
    /// closure is never called, so its body is never instantiated: a static
    /// operation makes rustc neither compile nor type-normalize its
    /// run-time path.
    ///
    /// ```
    /// use layout_core::{layout, typelevel::tuple::StaticBit, typenum::{B0, B1}};
    /// let m = 4usize;
    /// let s = || layout!((4,2):(1,4)).to_string();
    /// let d = || layout!((m,2):(1,m)).to_string();
    /// assert_eq!(B1::pick(s, d), "(_4,_2):(_1,_4)");
    /// assert_eq!(B0::pick(s, d), "(4,_2):(_1,4)");
    /// ```
    fn pick<T>(when_static: impl FnOnce() -> T, when_dynamic: impl FnOnce() -> T) -> T;
}
impl StaticBit for B1 {
    type And<O: StaticBit> = O;
    #[inline(always)]
    fn pick<T>(when_static: impl FnOnce() -> T, _when_dynamic: impl FnOnce() -> T) -> T {
        when_static()
    }
}
impl StaticBit for B0 {
    type And<O: StaticBit> = B0;
    #[inline(always)]
    fn pick<T>(_when_static: impl FnOnce() -> T, when_dynamic: impl FnOnce() -> T) -> T {
        when_dynamic()
    }
}
/// `B1` when both tuples are static (a layout's shape and stride).
pub type AllStatic2<A, B> =
    <<A as IntTuple>::AllStatic as StaticBit>::And<<B as IntTuple>::AllStatic>;
/// `B1` when all four tuples are static.
pub type AllStatic4<A, B, C, D> = <<<<A as IntTuple>::AllStatic as StaticBit>::And<
    <B as IntTuple>::AllStatic,
> as StaticBit>::And<<C as IntTuple>::AllStatic> as StaticBit>::And<<D as IntTuple>::AllStatic>;

/// What [`IntTuple::visit`] calls: the nesting and the leaves in order.
///
/// ```
/// use layout_core::{typelevel::tuple::TupleVisitor, IntTuple, C};
/// struct Text(String);
/// impl TupleVisitor for Text {
///     fn leaf(&mut self, v: usize, is_static: bool) {
///         if !self.0.ends_with('(') && !self.0.is_empty() { self.0.push(','); }
///         self.0 += &format!("{}{v}", if is_static { "_" } else { "" });
///     }
///     fn open(&mut self) {
///         if !self.0.ends_with('(') && !self.0.is_empty() { self.0.push(','); }
///         self.0.push('(');
///     }
///     fn close(&mut self) { self.0.push(')'); }
/// }
/// let mut t = Text(String::new());
/// (C::<2>, (3usize, C::<4>)).visit(&mut t);
/// assert_eq!(t.0, "(_2,(3,_4))");
/// ```
pub trait TupleVisitor {
    /// An integer leaf.
    fn leaf(&mut self, v: usize, is_static: bool);
    /// A tuple begins.
    fn open(&mut self);
    /// The tuple ends.
    fn close(&mut self);
}

/// Print any [`IntTuple`] in CuTe's notation.
///
/// ```
/// use layout_core::{to_cute_string, C};
/// assert_eq!(to_cute_string(&(C::<2>, (3usize, C::<4>))), "(_2,(3,_4))");
/// ```
#[cfg(feature = "alloc")]
pub fn to_cute_string<T: IntTuple>(t: &T) -> alloc::string::String {
    let mut s = alloc::string::String::new();
    let _ = t.write_cute(&mut s);
    s
}

/// The list-level half of [`IntTuple`] for tuples.
#[doc(hidden)]
pub trait IntList: List {
    const DEPTH: usize;
    const ALL_STATIC: bool;
    type AllStatic: StaticBit;
    const LEAF_COUNT: usize;
    const STATIC_SIZE: Option<usize>;
    type Dyn: Copy + PartialEq + fmt::Debug;
    type Leaves: List;
    const ITEMS: Text;
    const LEAF_VALUES: Leaves;
    fn fill(vals: &mut core::slice::Iter<'_, usize>) -> Self;
    fn size(&self) -> usize;
    fn checked_size(&self) -> Option<usize>;
    fn write_items(&self, f: &mut dyn fmt::Write, first: bool) -> fmt::Result;
    fn for_each_leaf(&self, f: &mut dyn FnMut(usize, bool));
    fn for_each_mode_size(&self, f: &mut dyn FnMut(usize));
    fn mode_size(&self, i: usize) -> usize;
    fn leaf(&self, i: usize) -> usize;
    fn to_dyn(&self) -> Self::Dyn;
    fn leaves(self) -> Self::Leaves;
    fn idx2crd(&self, i: usize) -> Self::Dyn;
    fn visit_items(&self, v: &mut dyn TupleVisitor);
}

impl IntList for Nil {
    const DEPTH: usize = 0;
    const ALL_STATIC: bool = true;
    type AllStatic = B1;
    const LEAF_COUNT: usize = 0;
    const STATIC_SIZE: Option<usize> = Some(1);
    type Dyn = Nil;
    type Leaves = Nil;
    const ITEMS: Text = Text::EMPTY;
    const LEAF_VALUES: Leaves = Leaves::EMPTY;
    fn fill(_vals: &mut core::slice::Iter<'_, usize>) -> Nil {
        Nil
    }
    #[inline(always)]
    fn size(&self) -> usize {
        1
    }
    fn checked_size(&self) -> Option<usize> {
        Some(1)
    }
    fn write_items(&self, _f: &mut dyn fmt::Write, _first: bool) -> fmt::Result {
        Ok(())
    }
    fn for_each_leaf(&self, _f: &mut dyn FnMut(usize, bool)) {}
    fn for_each_mode_size(&self, _f: &mut dyn FnMut(usize)) {}
    #[inline(always)]
    fn mode_size(&self, _i: usize) -> usize {
        1
    }
    #[inline(always)]
    fn leaf(&self, _i: usize) -> usize {
        0
    }
    fn to_dyn(&self) -> Nil {
        Nil
    }
    fn leaves(self) -> Nil {
        Nil
    }
    fn idx2crd(&self, _i: usize) -> Nil {
        Nil
    }
    fn visit_items(&self, _v: &mut dyn TupleVisitor) {}
}

impl<H: IntTuple, T: IntList> IntList for Cons<H, T>
where
    Cons<H, T>: List,
    Cons<H::Dyn, T::Dyn>: List + Copy + PartialEq + fmt::Debug,
    H::Leaves: Concat<T::Leaves>,
{
    const DEPTH: usize = max(H::DEPTH, T::DEPTH);
    const ALL_STATIC: bool = H::ALL_STATIC && T::ALL_STATIC;
    type AllStatic = <H::AllStatic as StaticBit>::And<T::AllStatic>;
    const LEAF_COUNT: usize = H::LEAF_COUNT + T::LEAF_COUNT;
    const STATIC_SIZE: Option<usize> = mul_opt(H::STATIC_SIZE, T::STATIC_SIZE);
    type Dyn = Cons<H::Dyn, T::Dyn>;
    type Leaves = <H::Leaves as Concat<T::Leaves>>::Out;
    const ITEMS: Text = if T::LEN == 0 {
        H::TEXT
    } else {
        H::TEXT.byte(b',').text(T::ITEMS)
    };
    const LEAF_VALUES: Leaves = H::LEAF_VALUES.concat(T::LEAF_VALUES);
    #[inline(always)]
    fn fill(vals: &mut core::slice::Iter<'_, usize>) -> Self {
        let h = H::fill(vals);
        Cons(h, T::fill(vals))
    }
    #[inline(always)]
    fn size(&self) -> usize {
        self.0.size() * self.1.size()
    }
    fn checked_size(&self) -> Option<usize> {
        self.0.checked_size()?.checked_mul(self.1.checked_size()?)
    }
    fn write_items(&self, f: &mut dyn fmt::Write, first: bool) -> fmt::Result {
        if !first {
            f.write_char(',')?;
        }
        self.0.write_cute(f)?;
        self.1.write_items(f, false)
    }
    fn for_each_leaf(&self, f: &mut dyn FnMut(usize, bool)) {
        self.0.for_each_leaf(f);
        self.1.for_each_leaf(f);
    }
    fn for_each_mode_size(&self, f: &mut dyn FnMut(usize)) {
        f(self.0.size());
        self.1.for_each_mode_size(f);
    }
    #[inline(always)]
    fn mode_size(&self, i: usize) -> usize {
        if i == 0 {
            self.0.size()
        } else {
            self.1.mode_size(i - 1)
        }
    }
    #[inline(always)]
    fn leaf(&self, i: usize) -> usize {
        if i < H::LEAF_COUNT {
            self.0.leaf(i)
        } else {
            self.1.leaf(i - H::LEAF_COUNT)
        }
    }
    #[inline(always)]
    fn to_dyn(&self) -> Self::Dyn {
        Cons(self.0.to_dyn(), self.1.to_dyn())
    }
    #[inline(always)]
    fn leaves(self) -> Self::Leaves {
        self.0.leaves().concat(self.1.leaves())
    }
    #[inline(always)]
    fn idx2crd(&self, i: usize) -> Self::Dyn {
        if T::LEN == 0 {
            // The last mode takes what the others leave, as in crd2idx.
            Cons(self.0.idx2crd(i), self.1.idx2crd(0))
        } else {
            let n = self.0.size();
            Cons(self.0.idx2crd(i % n), self.1.idx2crd(i / n))
        }
    }
    fn visit_items(&self, v: &mut dyn TupleVisitor) {
        self.0.visit(v);
        self.1.visit_items(v);
    }
}

impl<T: Tuple> IntTuple for T
where
    T::List: IntList,
    <T::List as IntList>::Dyn: IntoTuple,
    <<T::List as IntList>::Dyn as IntoTuple>::Tuple: PartialEq + fmt::Debug,
{
    const RANK: usize = <T::List as List>::LEN;
    const DEPTH: usize = 1 + <T::List as IntList>::DEPTH;
    const IS_INT: bool = false;
    const ALL_STATIC: bool = <T::List as IntList>::ALL_STATIC;
    const LEAF_COUNT: usize = <T::List as IntList>::LEAF_COUNT;
    const STATIC_SIZE: Option<usize> = <T::List as IntList>::STATIC_SIZE;
    type Dyn = <<T::List as IntList>::Dyn as IntoTuple>::Tuple;
    type Leaves = <T::List as IntList>::Leaves;
    type IsLeaf = B0;
    type AllStatic = <T::List as IntList>::AllStatic;
    const TEXT: Text = Text::EMPTY
        .byte(b'(')
        .text(<T::List as IntList>::ITEMS)
        .byte(b')');
    const LEAF_VALUES: Leaves = <T::List as IntList>::LEAF_VALUES;
    #[inline(always)]
    fn fill(vals: &mut core::slice::Iter<'_, usize>) -> Self {
        <T::List as IntList>::fill(vals).into_tuple()
    }
    #[inline(always)]
    fn size(&self) -> usize {
        self.into_list().size()
    }
    fn checked_size(&self) -> Option<usize> {
        self.into_list().checked_size()
    }
    fn write_cute(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        f.write_char('(')?;
        self.into_list().write_items(f, true)?;
        f.write_char(')')
    }
    fn for_each_leaf(&self, f: &mut dyn FnMut(usize, bool)) {
        self.into_list().for_each_leaf(f)
    }
    fn for_each_mode_size(&self, f: &mut dyn FnMut(usize)) {
        self.into_list().for_each_mode_size(f)
    }
    #[inline(always)]
    fn mode_size(&self, i: usize) -> usize {
        self.into_list().mode_size(i)
    }
    #[inline(always)]
    fn leaf(&self, i: usize) -> usize {
        self.into_list().leaf(i)
    }
    #[inline(always)]
    fn to_dyn(&self) -> Self::Dyn {
        self.into_list().to_dyn().into_tuple()
    }
    #[inline(always)]
    fn leaves(self) -> Self::Leaves {
        self.into_list().leaves()
    }
    #[inline(always)]
    fn idx2crd(&self, i: usize) -> Self::Dyn {
        self.into_list().idx2crd(i).into_tuple()
    }
    fn visit(&self, v: &mut dyn TupleVisitor) {
        v.open();
        self.into_list().visit_items(v);
        v.close();
    }
}

/// Concatenation of cons lists.
#[doc(hidden)]
pub trait Concat<R: List>: List {
    type Out: List;
    fn concat(self, r: R) -> Self::Out;
}
impl<R: List> Concat<R> for Nil {
    type Out = R;
    #[inline(always)]
    fn concat(self, r: R) -> R {
        r
    }
}
impl<H, T: Concat<R>, R: List> Concat<R> for Cons<H, T>
where
    Cons<H, T>: List,
    Cons<H, T::Out>: List,
{
    type Out = Cons<H, T::Out>;
    #[inline(always)]
    fn concat(self, r: R) -> Self::Out {
        Cons(self.0, self.1.concat(r))
    }
}

/// Element `I` of a cons list.
#[diagnostic::on_unimplemented(
    message = "mode index {I} is out of range for `{Self}`",
    label = "no mode {I} here"
)]
#[doc(hidden)]
pub trait GetAt<const I: usize> {
    type Out;
    fn get_at(self) -> Self::Out;
}
impl<H, T> GetAt<0> for Cons<H, T> {
    type Out = H;
    #[inline(always)]
    fn get_at(self) -> H {
        self.0
    }
}
macro_rules! get_at {
    ($($i:literal => $p:literal),*) => {$(
        impl<H, T: GetAt<$p>> GetAt<$i> for Cons<H, T> {
            type Out = T::Out;
            #[inline(always)]
            fn get_at(self) -> T::Out {
                self.1.get_at()
            }
        }
    )*};
}
get_at!(1 => 0, 2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5, 7 => 6);

/// Split a cons list before element `I`.
#[doc(hidden)]
pub trait SplitAt<const I: usize>: List {
    type Front: List;
    type Back: List;
    fn split_at(self) -> (Self::Front, Self::Back);
}
impl<L: List> SplitAt<0> for L {
    type Front = Nil;
    type Back = L;
    #[inline(always)]
    fn split_at(self) -> (Nil, L) {
        (Nil, self)
    }
}
macro_rules! split_at {
    ($($i:literal => $p:literal),*) => {$(
        impl<H, T: SplitAt<$p>> SplitAt<$i> for Cons<H, T>
        where
            Cons<H, T>: List,
            Cons<H, T::Front>: List,
        {
            type Front = Cons<H, T::Front>;
            type Back = T::Back;
            #[inline(always)]
            fn split_at(self) -> (Self::Front, Self::Back) {
                let (f, b) = self.1.split_at();
                (Cons(self.0, f), b)
            }
        }
    )*};
}
split_at!(1 => 0, 2 => 1, 3 => 2, 4 => 3, 5 => 4, 6 => 5, 7 => 6, 8 => 7);

/// Drop the first element of a cons list.
#[doc(hidden)]
pub trait PopFront: List {
    type Rest: List;
    fn pop_front(self) -> Self::Rest;
}
impl<H, T: List> PopFront for Cons<H, T>
where
    Cons<H, T>: List,
{
    type Rest = T;
    #[inline(always)]
    fn pop_front(self) -> T {
        self.1
    }
}

/// Any `IntTuple` made a cons list of modes: a tuple's modes, or an integer as one mode.
#[doc(hidden)]
pub trait AsModes: IntTuple {
    type Modes: List;
    fn as_modes(self) -> Self::Modes;
}
impl<T: Tuple> AsModes for T
where
    T: IntTuple,
{
    type Modes = T::List;
    #[inline(always)]
    fn as_modes(self) -> T::List {
        self.into_list()
    }
}

/// Apply a tuple-impl macro to each tuple rank from 0 to 12 (the largest
/// tuple): `$mac!()`, `$mac!(T0)`, ..., `$mac!(T0, ..., T11)`.
macro_rules! for_each_tuple {
    ($mac:ident) => {
        $mac!();
        $mac!(T0);
        $mac!(T0, T1);
        $mac!(T0, T1, T2);
        $mac!(T0, T1, T2, T3);
        $mac!(T0, T1, T2, T3, T4);
        $mac!(T0, T1, T2, T3, T4, T5);
        $mac!(T0, T1, T2, T3, T4, T5, T6);
        $mac!(T0, T1, T2, T3, T4, T5, T6, T7);
        $mac!(T0, T1, T2, T3, T4, T5, T6, T7, T8);
        $mac!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9);
        $mac!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10);
        $mac!(T0, T1, T2, T3, T4, T5, T6, T7, T8, T9, T10, T11);
    };
}
pub(crate) use for_each_tuple;

/// `1`, once per identifier: a tuple's rank as a constant, `{ 0 $(+
/// one!($t))* }` over its element types.
macro_rules! one {
    ($x:ident) => {
        1
    };
}
pub(crate) use one;
