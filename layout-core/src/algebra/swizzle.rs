//! Typed `Swizzle<B, M, S>` and its composition with a layout: CuTe's
//! `ComposedLayout`, printed `Sw<B,M,S> o _0 o layout`. The swizzle's bits
//! are const generics, so a static layout composed with a swizzle is still
//! zero-sized and its offsets fold to constants.

use super::composition::ComposeOnto;
use crate::layout::{Congruent, Layout};
use crate::typelevel::const_text::Text;
use crate::typelevel::tuple::IntTuple;
use core::fmt;

/// CuTe's `Swizzle<B, M, S>`: XOR the `B` bits at `M + S` into the `B` bits
/// at `M` (`S` negative shifts the other way). CuTe requires `|S| >= B`;
/// here that is a compile error.
///
/// ```
/// use layout_core::algebra::Swizzle;
/// // Bits 6..9 of the offset flip bits 3..6: row 1 of a 64-wide tile.
/// assert_eq!(Swizzle::<3, 3, 3>.apply(64), 64 ^ 8);
/// assert_eq!(Swizzle::<3, 3, 3>.to_string(), "Sw<3,3,3>");
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct Swizzle<const B: u32, const M: u32, const S: i32>;

impl<const B: u32, const M: u32, const S: i32> Swizzle<B, M, S> {
    const VALID: () = assert!(
        B <= 30 && M <= 30 && S.unsigned_abs() <= 30 && S.unsigned_abs() >= B,
        "Swizzle<B,M,S> needs |S| >= B and every parameter at most 30"
    );
    /// The swizzled offset.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::Swizzle;
    /// // Sw<3,3,3>: bits 6..9 are XORed into bits 3..6: 64 -> 64 ^ 8.
    /// assert_eq!(Swizzle::<3, 3, 3>.apply(64), 72);
    /// assert_eq!(Swizzle::<3, 3, 3>.apply(5), 5);
    /// ```
    pub const fn apply(self, offset: usize) -> usize {
        #[allow(clippy::let_unit_value)]
        let () = Self::VALID;
        let bits = (1usize << B) - 1;
        if S >= 0 {
            let yyy = bits << (M + S as u32);
            offset ^ ((offset & yyy) >> S as u32)
        } else {
            let yyy = bits << M;
            offset ^ ((offset & yyy) << S.unsigned_abs())
        }
    }
}

impl<const B: u32, const M: u32, const S: i32> fmt::Display for Swizzle<B, M, S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{B},{M},{S}>")
    }
}

/// A swizzle applied after a layout (CuTe's `ComposedLayout` with offset 0):
/// `R(c) = swizzle(layout(c))`.
///
/// ```
/// use layout_core::{algebra::{composition, Swizzle}, layout};
/// let r = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
/// assert_eq!(r.to_string(), "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)");
/// assert_eq!(r.crd2idx((1usize, 0usize)), 64 ^ 8);
/// assert_eq!(core::mem::size_of_val(&r), 0);
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash, Debug)]
pub struct ComposedLayout<Sw, L> {
    /// The swizzle (applied last).
    pub swizzle: Sw,
    /// The layout (applied first).
    pub layout: L,
}

impl<const B: u32, const M: u32, const S: i32, Sh: Congruent<D>, D: IntTuple>
    ComposedLayout<Swizzle<B, M, S>, Layout<Sh, D>>
{
    /// The swizzled offset of a coordinate.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{composition, layout, Swizzle};
    /// let r = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    /// // (1,8): the layout gives 64 + 8 = 72, the swizzle 72 ^ 8 = 64.
    /// assert_eq!(r.crd2idx((1usize, 8usize)), 64);
    /// ```
    pub fn crd2idx<Cc: crate::layout::coord::Crd2Idx<Sh, D>>(&self, c: Cc) -> usize
    where
        Cc::Checked: Copy,
    {
        self.swizzle.apply(self.layout.crd2idx(c))
    }
    /// The swizzled offset of a 1-D index.
    #[inline(always)]
    ///
    /// ```
    /// use layout_core::{composition, layout, Swizzle};
    /// let r = composition(Swizzle::<3, 3, 3>, layout!((8,64):(64,1)));
    /// // Index 1 is (1,0): offset 64, swizzled to 64 ^ 8.
    /// assert_eq!(r.call(1), 72);
    /// ```
    pub fn call(&self, i: usize) -> usize {
        self.swizzle.apply(self.layout.call(i))
    }
}

impl<Sw: fmt::Display, Sh: Congruent<D>, D: IntTuple> fmt::Display
    for ComposedLayout<Sw, Layout<Sh, D>>
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} o _0 o {}", self.swizzle, self.layout)
    }
}

/// `composition(Swizzle, layout)` puts the swizzle after the layout.
impl<const B: u32, const M: u32, const S: i32, Sh: Congruent<D>, D: IntTuple>
    ComposeOnto<Swizzle<B, M, S>> for Layout<Sh, D>
{
    type Output = ComposedLayout<Swizzle<B, M, S>, Layout<Sh, D>>;
    // A swizzle composed with a layout: nothing for the type checker to refuse.
    type Verdict = super::admits::Admitted;
    const ERROR: Option<Text> = None;
    #[inline(always)]
    fn compose_onto(self, a: Swizzle<B, M, S>) -> Self::Output {
        ComposedLayout {
            swizzle: a,
            layout: self,
        }
    }
    #[inline(always)]
    fn try_compose_onto(self, a: Swizzle<B, M, S>) -> Result<Self::Output, crate::LayoutError> {
        Ok(self.compose_onto(a))
    }
    #[inline(always)]
    fn compose_values(self, a: Swizzle<B, M, S>) -> Result<Self::Output, crate::LayoutError> {
        Ok(self.compose_onto(a))
    }
}
