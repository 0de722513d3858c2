//! One layout, two spellings of its static leaves.
//!
//! A static leaf is `C<N>` where a user wrote it (or a macro wrote a literal)
//! and `S<U>` where type-level arithmetic computed it (a compact stride, a
//! product of sizes). Stable Rust cannot turn a computed typenum value back
//! into `C<N>`, so two layouts that print the same can be two types:
//! `make_layout_left((C::<32>, C::<32>))` has the stride `(_1, S<U32>)`, the
//! literal `layout_type!((32,32):(1,32))` the stride `(C<1>, C<32>)`.
//! [`Respell`] converts between such types, checked by the compiler leaf by
//! leaf: the same nesting, the same static values, run-time leaves where the
//! target has them.

use crate::layout::{Congruent, Layout};
use crate::typelevel::int::{TypenumForm, C, S};
use crate::typelevel::tuple::IntTuple;
use typenum::Unsigned;

/// `Self` and `T` are the same integer tuple spelled with other static leaf
/// types: `C<N>` and `S<U>` of the same value are interchangeable, a
/// run-time `usize` matches only a `usize`.
///
/// ```
/// use layout_core::{layout::respell::Respell, typenum::U32, C, S};
/// let s: (C<32>, C<1>) = (S::<U32>::new(), C::<1>).respell();
/// assert_eq!(layout_core::to_cute_string(&s), "(_32,_1)");
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` and `{T}` are not the same integer tuple",
    label = "the nesting, a static value, or where the run-time leaves are differs",
    note = "`respell` changes only how static leaves are spelled (`C<N>` or the computed `S<U>` of the same value)"
)]
pub trait Respell<T> {
    /// The same values as `T`.
    fn respell(self) -> T;
}

impl Respell<usize> for usize {
    #[inline(always)]
    fn respell(self) -> usize {
        self
    }
}
impl<const N: usize> Respell<C<N>> for C<N> {
    #[inline(always)]
    fn respell(self) -> C<N> {
        self
    }
}
impl<U: Unsigned + 'static> Respell<S<U>> for S<U> {
    #[inline(always)]
    fn respell(self) -> S<U> {
        self
    }
}
impl<const N: usize, U: Unsigned + 'static> Respell<S<U>> for C<N>
where
    C<N>: TypenumForm<U = U>,
{
    #[inline(always)]
    fn respell(self) -> S<U> {
        S::new()
    }
}
impl<const N: usize, U> Respell<C<N>> for S<U>
where
    C<N>: TypenumForm<U = U>,
{
    #[inline(always)]
    fn respell(self) -> C<N> {
        C
    }
}

// Tuples of the same rank, element by element (one impl per rank, so that a
// mismatch names the two elements, not a missing blanket bound).
macro_rules! respell_tuple {
    ($($a:ident $b:ident),*) => {
        impl<$($a: Respell<$b>, $b),*> Respell<($($b,)*)> for ($($a,)*) {
            #[inline(always)]
            #[allow(non_snake_case, clippy::unused_unit)]
            fn respell(self) -> ($($b,)*) {
                let ($($a,)*) = self;
                ($($a.respell(),)*)
            }
        }
    };
}
respell_tuple!();
respell_tuple!(A0 B0);
respell_tuple!(A0 B0, A1 B1);
respell_tuple!(A0 B0, A1 B1, A2 B2);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8, A9 B9);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8, A9 B9, A10 B10);
respell_tuple!(A0 B0, A1 B1, A2 B2, A3 B3, A4 B4, A5 B5, A6 B6, A7 B7, A8 B8, A9 B9, A10 B10, A11 B11);

impl<Sh: Congruent<St>, St: IntTuple> Layout<Sh, St> {
    /// The same layout as the type `Layout<Sh2, St2>` spells it: a layout
    /// computed by the algebra can be returned where a `layout_type!` is
    /// declared. The compiler checks that both print the same.
    ///
    /// ```
    /// use layout_core::{layout_type, make_layout_left, C};
    /// fn tile() -> layout_type!((32, 32):(1, 32)) {
    ///     make_layout_left((C::<32>, C::<32>)).respell()
    /// }
    /// assert_eq!(tile().to_string(), "(_32,_32):(_1,_32)");
    /// ```
    ///
    /// A different value does not compile:
    ///
    /// ```compile_fail
    /// use layout_core::{layout_type, make_layout_left, C};
    /// fn tile() -> layout_type!((32, 32):(1, 16)) {
    ///     make_layout_left((C::<32>, C::<32>)).respell()
    /// }
    /// ```
    #[inline(always)]
    pub fn respell<Sh2, St2>(self) -> Layout<Sh2, St2>
    where
        Sh: Respell<Sh2>,
        St: Respell<St2>,
        Sh2: Congruent<St2>,
        St2: IntTuple,
    {
        Layout::new(self.shape().respell(), self.stride().respell())
    }
}
