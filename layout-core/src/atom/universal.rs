//! Atoms every architecture has: one fused multiply-add and one plain
//! load/store of a value.

use super::{CopyAtom, CopyValue, MmaAtom};
use crate::layout::Layout;
use crate::layout_type;
use crate::typelevel::int::C;
use core::marker::PhantomData;

/// One thread, one multiply-add (CuTe's `UniversalFMA`): a 1 x 1 x 1 atom,
/// the building block of a CPU or SIMT GEMM's `TiledMma`.
///
/// ```
/// use layout_core::atom::{MmaAtom, UniversalFMA};
/// use layout_core::{layout, atom::mma::make_tiled_mma, to_cute_string, Underscore as X};
/// assert_eq!(<UniversalFMA as MmaAtom>::ALayout::default().to_string(), "(_1,_1):(_0,_0)");
/// // 16 x 16 threads, each one multiply-add per step: a 16 x 16 x 1 tile.
/// let mma = make_tiled_mma(UniversalFMA, layout!((16,16,1):(1,16,0)), (X, X, X));
/// assert_eq!(to_cute_string(&mma.tile_size()), "(_16,_16,_1)");
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct UniversalFMA;

impl MmaAtom for UniversalFMA {
    type ThrID = layout_type!(1:0);
    type ShapeMNK = (crate::C<1>, crate::C<1>, crate::C<1>);
    type ALayout = layout_type!((1,1):(0,0));
    type BLayout = layout_type!((1,1):(0,0));
    type CLayout = layout_type!((1,1):(0,0));
}

/// One thread copies one value of type `S` (CuTe's `UniversalCopy<S>`):
/// `UniversalCopy<u128>` is a 16-byte vector load or store.
///
/// ```
/// use layout_core::atom::{CopyAtom, UniversalCopy};
/// assert_eq!(<UniversalCopy<u128> as CopyAtom>::SrcLayout::default().to_string(), "(_1,_128):(_0,_1)");
/// ```
#[derive(Debug)]
pub struct UniversalCopy<S>(PhantomData<S>);
impl<S> Clone for UniversalCopy<S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<S> Copy for UniversalCopy<S> {}
impl<S> Default for UniversalCopy<S> {
    fn default() -> Self {
        UniversalCopy(PhantomData)
    }
}

impl<S: CopyValue> CopyAtom for UniversalCopy<S> {
    type ThrID = layout_type!(1:0);
    type SrcLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
    type DstLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
    type RefLayout = Layout<(C<1>, S::Bits), (C<0>, C<1>)>;
}
