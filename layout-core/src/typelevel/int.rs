//! Integer leaves: the static `C<N>` users write, the static `S<U>` that
//! type-level arithmetic (typenum) produces, and the dynamic `usize`.

use crate::typelevel::const_text::{Leaves, Text};
use crate::typelevel::tuple::{AsModes, Cons, IntTuple, Nil, TupleVisitor};
use core::fmt;
use core::marker::PhantomData;
use core::ops::Mul;
use typenum::{Bit, Prod, UInt, UTerm, Unsigned, B1};

/// A static integer leaf, CuTe's `Int<N>` (printed `_N`).
///
/// ```
/// use layout_core::{C, Int};
/// assert_eq!(C::<4>.value(), 4);
/// assert_eq!(<C<4> as Int>::STATIC, Some(4));
/// assert_eq!(format!("{:?}", C::<4>), "_4");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct C<const N: usize>;

/// A static integer computed at the type level (a typenum unsigned), printed `_N`.
///
/// Users rarely name it: it is what `C<3> * C<4>` becomes in compact strides.
///
/// ```
/// use layout_core::{Int, S};
/// assert_eq!(S::<typenum::U12>::new().value(), 12);
/// ```
pub struct S<U>(PhantomData<fn() -> U>);

impl<U> S<U> {
    /// The (zero-sized) value.
    ///
    /// ```
    /// use layout_core::{typenum::U12, S};
    /// assert_eq!(S::<U12>::new().to_string(), "_12");
    /// ```
    pub const fn new() -> Self {
        S(PhantomData)
    }
}
impl<U> Clone for S<U> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<U> Copy for S<U> {}
impl<U> Default for S<U> {
    fn default() -> Self {
        S::new()
    }
}

/// A leaf of a shape, stride or coordinate: static (`C<N>`, `S<U>`) or dynamic (`usize`).
///
/// ```
/// use layout_core::{C, Int};
/// assert_eq!(<usize as Int>::STATIC, None);
/// assert_eq!(7usize.value(), 7);
/// assert_eq!(C::<7>.value(), 7);
/// ```
pub trait Int: crate::typelevel::tuple::IntTuple + Copy + 'static + Send + Sync {
    /// `Some(value)` when the value is known to the compiler.
    const STATIC: Option<usize>;
    /// The value.
    fn value(self) -> usize;
}

/// A static leaf: its value is a constant, and it has a typenum form for
/// type-level arithmetic.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a run-time integer where the layout algebra needs a static one",
    label = "a run-time leaf reaches a step decided at compile time",
    note = "sorting strides (complement, and the divides and products built on it) and other structural steps need static leaves (`C<N>`, written as a literal in `layout!`); CuTe likewise refuses a run-time stride in a complement of rank above 1"
)]
pub trait StaticInt: Int + Default {
    /// The typenum form of the value.
    type U: Unsigned + StaticZeroTag + StaticOneTag;
    /// The value.
    const VALUE: usize;
}

impl Int for usize {
    const STATIC: Option<usize> = None;
    #[inline(always)]
    fn value(self) -> usize {
        self
    }
}

impl<const N: usize> Int for C<N> {
    const STATIC: Option<usize> = Some(N);
    #[inline(always)]
    fn value(self) -> usize {
        N
    }
}

impl<U: Unsigned + 'static> Int for S<U> {
    const STATIC: Option<usize> = Some(U::USIZE);
    #[inline(always)]
    fn value(self) -> usize {
        U::USIZE
    }
}

/// The typenum form of a `C<N>`, for the values `C<N>` covers: every N up
/// to 1024, multiples of 8 up to 8192, multiples of 64 up to 65536, powers
/// of 2 and of 10 below 2^32.
/// `layout!` and `crd!` write any other value as `S<U>` (the binary form),
/// which prints and computes the same.
///
/// ```
/// use layout_core::{crd, Int};
/// assert_eq!(crd!(1536).value(), 1536); // C<1536>
/// assert_eq!(crd!(1100).to_string(), "_1100"); // S<U1100>
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` has no type-level form: `C<N>` covers N up to 1024, multiples of 8 up to 8192, multiples of 64 up to 65536, and powers of 2 and of 10",
    label = "write this value as a literal in `layout!` or `crd!` (for example `crd!(1100)`), which spells it as `S<U>`",
    note = "`S<U>` (a typenum unsigned) is the static leaf for any value; it prints `_N` like `C<N>`",
    note = "in a function generic over `const N: usize`, `C<N>` is a static leaf only for concrete values: list the values the function is for with `#[layout_core::instantiate(...)]`, which compiles it once per value with `N` a constant"
)]
pub trait TypenumForm {
    /// The typenum unsigned.
    type U: Unsigned + StaticZeroTag + StaticOneTag + 'static;
}
layout_macros::static_table_impl!(crate);

/// The `C<N>` a static value prints as, for every value up to 1024 and
/// the powers of 2: how a refusal the type checker makes shows a computed
/// value (a typenum or an `S<U>` leaf) in CuTe notation (`_N`, through a
/// const parameter of the message's trait). Only refusals use it.
///
/// ```
/// use layout_core::typelevel::int::ConstForm;
/// use layout_core::{C, S};
/// fn same<X: ConstForm<C = C<12>>>() {}
/// same::<S<typenum::U12>>();
/// same::<C<12>>();
/// ```
#[diagnostic::on_unimplemented(
    message = "a static operation is refused, and a value its message would show is past the values it can print (up to 1024 and the powers of 2)",
    label = "refused here"
)]
pub trait ConstForm {
    /// The `C<N>`.
    type C;
}
impl<const N: usize> ConstForm for C<N> {
    type C = C<N>;
}
impl<U: ConstForm> ConstForm for S<U> {
    type C = U::C;
}
/// `S<U>` is its own typenum form (any value).
impl<U: Unsigned + StaticZeroTag + StaticOneTag + 'static> TypenumForm for S<U> {
    type U = U;
}

impl<const N: usize> StaticInt for C<N>
where
    C<N>: TypenumForm,
{
    type U = <C<N> as TypenumForm>::U;
    const VALUE: usize = N;
}

impl<U: Unsigned + StaticZeroTag + StaticOneTag + 'static> StaticInt for S<U> {
    type U = U;
    const VALUE: usize = U::USIZE;
}

impl<const N: usize> fmt::Debug for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}
impl<const N: usize> fmt::Display for C<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{N}")
    }
}
impl<U: Unsigned> fmt::Debug for S<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{}", U::USIZE)
    }
}
impl<U: Unsigned> fmt::Display for S<U> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "_{}", U::USIZE)
    }
}

/// A leaf made from a value: a run-time leaf takes it, a static leaf is
/// itself (the value is ignored).
pub trait FromValue: Int {
    /// The leaf.
    fn from_value(v: usize) -> Self;
}
impl FromValue for usize {
    #[inline(always)]
    fn from_value(v: usize) -> usize {
        v
    }
}
impl<const N: usize> FromValue for C<N> {
    #[inline(always)]
    fn from_value(_v: usize) -> Self {
        C
    }
}
impl<U: Unsigned + 'static> FromValue for S<U> {
    #[inline(always)]
    fn from_value(_v: usize) -> Self {
        S::new()
    }
}

/// Whether a leaf type is static, as a type (`B1`/`B0`).
pub trait LeafStatic {
    /// `B1` for `C<N>` and `S<U>`, `B0` for `usize`.
    type Bit: crate::typelevel::tuple::StaticBit;
}
impl LeafStatic for usize {
    type Bit = typenum::B0;
}
impl<const N: usize> LeafStatic for C<N> {
    type Bit = B1;
}
impl<U> LeafStatic for S<U> {
    type Bit = B1;
}

/// Multiplication of leaves, with CuTe's rules: static times static stays
/// static (computed by typenum), a static 0 times anything is the static
/// `_0`, anything else times a run-time leaf is a `usize`. The typed
/// algebra multiplies by the same rules.
///
/// ```
/// use layout_core::{C, Int, IntMul};
/// let p = C::<3>.mul(C::<4>);
/// assert_eq!(p.value(), 12);
/// assert_eq!(C::<3>.mul(4usize), 12usize);
/// assert_eq!(format!("{} {}", C::<0>.mul(4usize), 4usize.mul(C::<0>)), "_0 _0");
/// # fn is_static<T: Int>(_: T) -> bool { T::STATIC.is_some() }
/// # assert!(is_static(p));
/// ```
pub trait IntMul<R: Int>: Int {
    /// The product's leaf type.
    type Output: Int;
    /// The product.
    fn mul(self, r: R) -> Self::Output;
    /// The product, or `None` when it does not fit `usize` (always `Some`
    /// when both are static: the check folds away).
    fn checked_mul(self, r: R) -> Option<Self::Output>;
}

impl IntMul<usize> for usize {
    type Output = usize;
    #[inline(always)]
    fn mul(self, r: usize) -> usize {
        self * r
    }
    #[inline(always)]
    fn checked_mul(self, r: usize) -> Option<usize> {
        usize::checked_mul(self, r)
    }
}
/// A static leaf times a run-time one, chosen by whether the static leaf is
/// 0 (`B1`: the product is `_0`, as in CuTe) or not (`B0`: a `usize`).
#[doc(hidden)]
pub trait ZeroTimes {
    type Output: Int;
    fn times(v: usize, r: usize) -> Self::Output;
    fn checked_times(v: usize, r: usize) -> Option<Self::Output>;
}
impl ZeroTimes for B1 {
    type Output = C<0>;
    #[inline(always)]
    fn times(_v: usize, _r: usize) -> C<0> {
        C
    }
    #[inline(always)]
    fn checked_times(_v: usize, _r: usize) -> Option<C<0>> {
        Some(C)
    }
}
impl ZeroTimes for typenum::B0 {
    type Output = usize;
    #[inline(always)]
    fn times(v: usize, r: usize) -> usize {
        v * r
    }
    #[inline(always)]
    fn checked_times(v: usize, r: usize) -> Option<usize> {
        v.checked_mul(r)
    }
}
type ZeroTag<A> = <<A as StaticInt>::U as StaticZeroTag>::IsZero;
impl<A: StaticInt> IntMul<usize> for A
where
    ZeroTag<A>: ZeroTimes,
{
    type Output = <ZeroTag<A> as ZeroTimes>::Output;
    #[inline(always)]
    fn mul(self, r: usize) -> Self::Output {
        <ZeroTag<A> as ZeroTimes>::times(A::VALUE, r)
    }
    #[inline(always)]
    fn checked_mul(self, r: usize) -> Option<Self::Output> {
        <ZeroTag<A> as ZeroTimes>::checked_times(A::VALUE, r)
    }
}
impl<B: StaticInt> IntMul<B> for usize
where
    ZeroTag<B>: ZeroTimes,
{
    type Output = <ZeroTag<B> as ZeroTimes>::Output;
    #[inline(always)]
    fn mul(self, _r: B) -> Self::Output {
        <ZeroTag<B> as ZeroTimes>::times(self, B::VALUE)
    }
    #[inline(always)]
    fn checked_mul(self, _r: B) -> Option<Self::Output> {
        <ZeroTag<B> as ZeroTimes>::checked_times(self, B::VALUE)
    }
}
impl<A: StaticInt, B: StaticInt> IntMul<B> for A
where
    A::U: Mul<B::U>,
    Prod<A::U, B::U>: Unsigned + 'static,
{
    type Output = S<Prod<A::U, B::U>>;
    #[inline(always)]
    fn mul(self, _r: B) -> Self::Output {
        S::new()
    }
    #[inline(always)]
    fn checked_mul(self, _r: B) -> Option<Self::Output> {
        Some(S::new())
    }
}

/// Whether a static value is 1, read off typenum's binary form (no `IsEqual`).
/// Compact strides give a static size-1 mode the stride `_0`, as CuTe does.
pub trait StaticOneTag {
    /// `B1` when the value is 1, `B0` otherwise.
    type IsOne: Bit;
}
impl StaticOneTag for UTerm {
    type IsOne = typenum::B0;
}
impl StaticOneTag for UInt<UTerm, B1> {
    type IsOne = B1;
}
impl StaticOneTag for UInt<UTerm, typenum::B0> {
    type IsOne = typenum::B0;
}
impl<U: Unsigned, B2: Bit, B: Bit> StaticOneTag for UInt<UInt<U, B2>, B> {
    type IsOne = typenum::B0;
}

/// Whether a static value is 0, read off typenum's binary form.
pub trait StaticZeroTag {
    /// `B1` when the value is 0, `B0` otherwise.
    type IsZero: Bit;
}
impl StaticZeroTag for UTerm {
    type IsZero = B1;
}
impl<U: Unsigned, B: Bit> StaticZeroTag for UInt<U, B> {
    type IsZero = typenum::B0;
}

/// Format an integer the way CuTe prints it: `_N` when static, `N` otherwise.
pub(crate) fn write_int(f: &mut dyn fmt::Write, v: usize, is_static: bool) -> fmt::Result {
    if is_static {
        write!(f, "_{v}")
    } else {
        write!(f, "{v}")
    }
}

macro_rules! aliases {
    ($($name:ident = $n:literal),* $(,)?) => {
        $(
            #[doc = concat!("CuTe's `_", stringify!($n), "`: the static integer ", stringify!($n), ".")]
            #[allow(non_camel_case_types)]
            pub type $name = C<$n>;
        )*
    };
}

aliases!(
    _0 = 0,
    _1 = 1,
    _2 = 2,
    _3 = 3,
    _4 = 4,
    _5 = 5,
    _6 = 6,
    _7 = 7,
    _8 = 8,
    _9 = 9,
    _10 = 10,
    _11 = 11,
    _12 = 12,
    _13 = 13,
    _14 = 14,
    _15 = 15,
    _16 = 16,
    _17 = 17,
    _18 = 18,
    _19 = 19,
    _20 = 20,
    _21 = 21,
    _22 = 22,
    _23 = 23,
    _24 = 24,
    _25 = 25,
    _26 = 26,
    _27 = 27,
    _28 = 28,
    _29 = 29,
    _30 = 30,
    _31 = 31,
    _32 = 32,
    _48 = 48,
    _64 = 64,
    _80 = 80,
    _96 = 96,
    _112 = 112,
    _128 = 128,
    _256 = 256,
    _512 = 512,
    _1024 = 1024,
    _2048 = 2048,
    _4096 = 4096,
    _8192 = 8192,
    _16384 = 16384,
    _32768 = 32768,
    _65536 = 65536,
);

// Each leaf is an int tuple of rank 1 (CuTe: an integer is a tuple).
macro_rules! leaf_int_tuple {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> IntTuple for $t {
            const RANK: usize = 1;
            const DEPTH: usize = 0;
            const IS_INT: bool = true;
            const ALL_STATIC: bool = <$t as Int>::STATIC.is_some();
            const LEAF_COUNT: usize = 1;
            const STATIC_SIZE: Option<usize> = <$t as Int>::STATIC;
            type Dyn = usize;
            type Leaves = Cons<Self, Nil>;
            type IsLeaf = B1;
            type AllStatic = <$t as LeafStatic>::Bit;
            const TEXT: Text = match <$t as Int>::STATIC {
                Some(v) => Text::EMPTY.byte(b'_').num(v),
                None => Text::EMPTY.byte(b'?'),
            };
            const LEAF_VALUES: Leaves = Leaves::one(<$t as Int>::STATIC);
            #[inline(always)]
            fn fill(vals: &mut core::slice::Iter<'_, usize>) -> Self {
                let v = vals.next().copied().unwrap_or(0);
                <$t as FromValue>::from_value(v)
            }
            #[inline(always)]
            fn size(&self) -> usize {
                self.value()
            }
            fn checked_size(&self) -> Option<usize> {
                Some(self.value())
            }
            fn write_cute(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                write_int(f, self.value(), Self::ALL_STATIC)
            }
            fn for_each_leaf(&self, f: &mut dyn FnMut(usize, bool)) {
                f(self.value(), Self::ALL_STATIC)
            }
            #[inline(always)]
            fn to_dyn(&self) -> usize {
                self.value()
            }
            #[inline(always)]
            fn leaves(self) -> Self::Leaves {
                Cons(self, Nil)
            }
            fn for_each_mode_size(&self, f: &mut dyn FnMut(usize)) {
                f(self.value())
            }
            #[inline(always)]
            fn mode_size(&self, i: usize) -> usize {
                if i == 0 {
                    self.value()
                } else {
                    1
                }
            }
            #[inline(always)]
            fn leaf(&self, i: usize) -> usize {
                if i == 0 {
                    self.value()
                } else {
                    0
                }
            }
            #[inline(always)]
            fn idx2crd(&self, i: usize) -> usize {
                i
            }
            fn visit(&self, v: &mut dyn TupleVisitor) {
                v.leaf(self.value(), Self::ALL_STATIC)
            }
        }
    };
}

/// Apply a leaf-impl macro to each leaf type: `usize`, `C<N>` and `S<U>`.
macro_rules! for_each_leaf {
    ($mac:ident) => {
        $mac!(usize;);
        $mac!($crate::typelevel::int::C<N>; const N: usize);
        $mac!($crate::typelevel::int::S<U>; U: typenum::Unsigned + 'static);
    };
}
pub(crate) use for_each_leaf;

for_each_leaf!(leaf_int_tuple);

macro_rules! leaf_as_modes {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> AsModes for $t {
            type Modes = Cons<Self, Nil>;
            #[inline(always)]
            fn as_modes(self) -> Self::Modes {
                Cons(self, Nil)
            }
        }
    };
}
for_each_leaf!(leaf_as_modes);
