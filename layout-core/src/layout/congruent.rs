//! Congruence (CuTe's `congruent`): a shape and a stride that nest the same
//! way, and what needs both (the 1-D index offset, the span).

use crate::typelevel::int::for_each_leaf;
use crate::typelevel::int::Int;
use crate::typelevel::tuple::{add_opt, mul_opt, IntTuple};

/// A shape and a stride that nest the same way (CuTe's congruence), with the
/// 1-D index evaluation that needs both.
#[diagnostic::on_unimplemented(
    message = "stride `{D}` is not congruent with shape `{Self}`",
    label = "shape and stride must nest the same way",
    note = "a layout pairs every shape leaf with one stride leaf, as in `(2,(2,2)):(4,(2,1))`"
)]
pub trait Congruent<D: IntTuple>: IntTuple {
    /// The largest offset, when every leaf is static.
    const STATIC_SPAN: Option<usize>;
    /// The offset of a 1-D (colexicographic) index: the last mode takes
    /// whatever the others leave, as CuTe does.
    fn index_offset(self, d: D, i: usize) -> usize;
    /// The largest offset of any coordinate in the shape, `None` on overflow.
    fn checked_span(self, d: D) -> Option<usize>;
    /// Visit every (shape leaf, stride leaf) pair: `(s, s_static, d, d_static)`.
    fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool));
    /// CuTe's `idx2crd(offset, shape, stride)` as the colexicographic index
    /// of that coordinate: each leaf's coordinate is `(offset / d) % s` (0
    /// for a stride or shape of 0).
    fn hier_index(self, d: D, offset: usize) -> usize;
    /// Whether the leaves, in order, step through consecutive offsets from
    /// `expect` on (each leaf of size above 1 has stride `expect`, then
    /// `expect * size`): the next stride expected, `None` if not. Static
    /// layouts fold this to a constant.
    fn contiguous_from(self, d: D, expect: Option<usize>) -> Option<usize>;
}

macro_rules! leaf_congruent {
    ($t:ty; $($g:tt)*) => {
        impl<D: Int, $($g)*> Congruent<D> for $t {
            const STATIC_SPAN: Option<usize> = match (<$t as Int>::STATIC, D::STATIC) {
                (Some(0), Some(_)) => Some(0),
                (Some(s), Some(d)) => mul_opt(Some(s - 1), Some(d)),
                _ => None,
            };
            #[inline(always)]
            fn index_offset(self, d: D, i: usize) -> usize {
                i * d.value()
            }
            #[inline(always)]
            fn checked_span(self, d: D) -> Option<usize> {
                self.value().saturating_sub(1).checked_mul(d.value())
            }
            fn for_each_pair(self, d: D, f: &mut dyn FnMut(usize, bool, usize, bool)) {
                f(self.value(), <$t as Int>::STATIC.is_some(), d.value(), D::STATIC.is_some())
            }
            #[inline(always)]
            fn contiguous_from(self, d: D, expect: Option<usize>) -> Option<usize> {
                let (s, e) = (self.value(), expect?);
                if s <= 1 {
                    return Some(e);
                }
                if d.value() != e {
                    return None;
                }
                e.checked_mul(s)
            }
            #[inline(always)]
            fn hier_index(self, d: D, offset: usize) -> usize {
                let (s, d) = (self.value(), d.value());
                if d == 0 || s == 0 {
                    0
                } else {
                    (offset / d) % s
                }
            }
        }
    };
}
for_each_leaf!(leaf_congruent);

/// Congruence of tuples, one impl per rank, so that a rank or nesting
/// mismatch is reported on `Congruent` itself, with both tuples named.
macro_rules! congruent_tuple {
    ($n:literal; $(($s:ident, $d:ident)),*) => {
        #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments)]
        impl<$($s: Congruent<$d>, $d: IntTuple),*> Congruent<($($d,)*)> for ($($s,)*)
        where
            ($($s,)*): IntTuple,
            ($($d,)*): IntTuple,
        {
            const STATIC_SPAN: Option<usize> = {
                let mut acc = Some(0);
                $(acc = add_opt(acc, $s::STATIC_SPAN);)*
                acc
            };
            #[inline(always)]
            fn index_offset(self, d: ($($d,)*), i: usize) -> usize {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let mut i = i;
                let mut off = 0;
                let mut left: usize = $n;
                $(
                    left -= 1;
                    if left == 0 {
                        // The last mode is not reduced modulo its size.
                        off += $s.index_offset($d, i);
                    } else {
                        let n = $s.size();
                        off += $s.index_offset($d, i % n);
                        i /= n;
                    }
                )*
                off
            }
            #[inline(always)]
            fn checked_span(self, d: ($($d,)*)) -> Option<usize> {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let mut acc = 0usize;
                $(acc = acc.checked_add($s.checked_span($d)?)?;)*
                Some(acc)
            }
            fn for_each_pair(self, d: ($($d,)*), f: &mut dyn FnMut(usize, bool, usize, bool)) {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                $($s.for_each_pair($d, f);)*
            }
            #[inline(always)]
            fn contiguous_from(self, d: ($($d,)*), expect: Option<usize>) -> Option<usize> {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let mut e = expect;
                $(e = $s.contiguous_from($d, e);)*
                e
            }
            #[inline(always)]
            fn hier_index(self, d: ($($d,)*), offset: usize) -> usize {
                let ($($s,)*) = self;
                let ($($d,)*) = d;
                let (mut idx, mut mult) = (0usize, 1usize);
                $(
                    idx = idx.saturating_add($s.hier_index($d, offset).saturating_mul(mult));
                    mult = mult.saturating_mul($s.size());
                )*
                idx
            }
        }
    };
}
congruent_tuple!(0; );
congruent_tuple!(1; (S0, D0));
congruent_tuple!(2; (S0, D0), (S1, D1));
congruent_tuple!(3; (S0, D0), (S1, D1), (S2, D2));
congruent_tuple!(4; (S0, D0), (S1, D1), (S2, D2), (S3, D3));
congruent_tuple!(5; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4));
congruent_tuple!(6; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5));
congruent_tuple!(7; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6));
congruent_tuple!(8; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7));
congruent_tuple!(9; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8));
congruent_tuple!(10; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9));
congruent_tuple!(11; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9), (S10, D10));
congruent_tuple!(12; (S0, D0), (S1, D1), (S2, D2), (S3, D3), (S4, D4), (S5, D5), (S6, D6), (S7, D7), (S8, D8), (S9, D9), (S10, D10), (S11, D11));
