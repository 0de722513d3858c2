//! A static tile coordinate against a static grid of tiles, decided by the
//! type checker: `local_tile(t, (C::<4>, C::<4>), crd!(2, 0))` on an 8 x 8
//! tensor is refused by `cargo check`, naming the coordinate, the mode and
//! the tile in CuTe notation.
//!
//! The check covers a tuple coordinate with one entry per mode of a shape
//! of leaves and a tiler of leaves (the common `local_tile`); each entry
//! that is a `C<N>`, against a `C<M>` mode and a `C<K>` tile, must be below
//! the grid's `ceil(M / K)` tiles, and so must a computed `S<U>` entry, mode
//! or tile (compared as typenums). Every other form (run-time entries, `_`,
//! nested modes, a layout as tiler, a 1-D index) passes here and is checked
//! on the grid itself (the coordinate's range check, or `Err` at run time).

use crate::layout::coord::Underscore;
use crate::layout::Layout;
use crate::typelevel::int::{ConstForm, TypenumForm, C, S};
use typenum::{IsLess, Prod, B0, B1};

/// `_N * _K < _M`: tile `_N` of a mode of size `_M` cut into tiles of `_K`
/// starts inside the mode.
///
/// ```
/// use layout_core::{crd, layout, tensor::partition::local_tile, Tensor, C};
/// let data = [0f32; 64];
/// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
/// let tile = local_tile(t, (C::<4>, C::<4>), crd!(1, 0));
/// assert_eq!(tile.layout().to_string(), "(_4,_4):(_8,_1)");
/// ```
///
/// ```compile_fail,E0277
/// use layout_core::{crd, layout, tensor::partition::local_tile, Tensor, C};
/// let data = [0f32; 64];
/// let t = Tensor::new(&data[..], layout!((8,8):(8,1))).unwrap();
/// // error: tile coordinate _2 is outside the grid of tiles: a mode of size _8 in tiles of _4
/// let _ = local_tile(t, (C::<4>, C::<4>), crd!(2, 0));
/// ```
#[diagnostic::on_unimplemented(
    message = "tile coordinate _{N} is outside the grid of tiles: a mode of size _{M} in tiles of _{K}",
    label = "a mode of size _{M} in tiles of _{K} has ceil({M}/{K}) tiles"
)]
pub trait TileBelow<const N: usize, const M: usize, const K: usize> {}
#[diagnostic::do_not_recommend]
impl<const N: usize, const M: usize, const K: usize> TileBelow<N, M, K> for ()
where
    C<N>: TypenumForm,
    C<M>: TypenumForm,
    C<K>: TypenumForm,
    <C<N> as TypenumForm>::U: core::ops::Mul<<C<K> as TypenumForm>::U>,
    Prod<<C<N> as TypenumForm>::U, <C<K> as TypenumForm>::U>:
        IsLess<<C<M> as TypenumForm>::U, Output = B1>,
{
}

/// The tile coordinate `Self` indexes the grid of shape `Sh` cut by tiler
/// `T`: entry `i` against mode `i` and tile `i`, for the first four.
#[doc(hidden)]
pub trait TileCoordIn<Sh, T> {}
impl<Crd: Pad4, Sh: Pad4, T: Pad4> TileCoordIn<Sh, T> for Crd
where
    Crd::E0: TileEntry<Sh::E0, T::E0>,
    Crd::E1: TileEntry<Sh::E1, T::E1>,
    Crd::E2: TileEntry<Sh::E2, T::E2>,
    Crd::E3: TileEntry<Sh::E3, T::E3>,
{
}

/// No entry: a mode, tile or coordinate entry past the first four, or of
/// something that is not a tuple.
#[doc(hidden)]
pub struct Skip;

/// The first four entries of a tuple, `Skip` past its rank; all `Skip` for
/// a leaf, a layout or a tuple of rank above four.
#[doc(hidden)]
pub trait Pad4 {
    type E0;
    type E1;
    type E2;
    type E3;
}
macro_rules! pad4 {
    ([$($g:tt)*] $t:ty => $e0:ty, $e1:ty, $e2:ty, $e3:ty) => {
        impl<$($g)*> Pad4 for $t {
            type E0 = $e0;
            type E1 = $e1;
            type E2 = $e2;
            type E3 = $e3;
        }
    };
}
pad4!([] usize => Skip, Skip, Skip, Skip);
pad4!([const N: usize] C<N> => Skip, Skip, Skip, Skip);
pad4!([U] S<U> => Skip, Skip, Skip, Skip);
pad4!([] Underscore => Skip, Skip, Skip, Skip);
pad4!([TS, TD] Layout<TS, TD> => Skip, Skip, Skip, Skip);
/// A tuple's first four entries, `Skip` past its rank; all `Skip` above
/// rank four.
macro_rules! pad4_tuple {
    () => { pad4!([] () => Skip, Skip, Skip, Skip); };
    ($a:ident) => { pad4!([$a] ($a,) => $a, Skip, Skip, Skip); };
    ($a:ident, $b:ident) => { pad4!([$a, $b] ($a, $b) => $a, $b, Skip, Skip); };
    ($a:ident, $b:ident, $c:ident) => { pad4!([$a, $b, $c] ($a, $b, $c) => $a, $b, $c, Skip); };
    ($a:ident, $b:ident, $c:ident, $d:ident) => {
        pad4!([$a, $b, $c, $d] ($a, $b, $c, $d) => $a, $b, $c, $d);
    };
    ($($x:ident),*) => { pad4!([$($x),*] ($($x,)*) => Skip, Skip, Skip, Skip); };
}
crate::typelevel::tuple::for_each_tuple!(pad4_tuple);

/// One entry of the coordinate, against its mode `Sh` and tile `T`.
#[doc(hidden)]
pub trait TileEntry<Sh, T> {}
impl<Sh, T> TileEntry<Sh, T> for usize {}
impl<Sh, T> TileEntry<Sh, T> for Underscore {}
impl<Sh, T> TileEntry<Sh, T> for Skip {}
impl<Sh: ModeU<U, T>, T, U> TileEntry<Sh, T> for S<U> {}
impl<Sh: EntryMode<N, T>, T, const N: usize> TileEntry<Sh, T> for C<N> {}

/// A mode, against the static entry `_N` and its tile `T`.
#[doc(hidden)]
pub trait EntryMode<const N: usize, T> {}
impl<const N: usize, T> EntryMode<N, T> for usize {}
impl<const N: usize, T> EntryMode<N, T> for Skip {}
impl<const N: usize, T: TileU<<C<N> as TypenumForm>::U, U>, U> EntryMode<N, T> for S<U> where
    C<N>: TypenumForm
{
}
impl<const N: usize, const M: usize, T: EntryTile<N, M>> EntryMode<N, T> for C<M> {}

/// A tile, against the static entry `_N` of a mode of size `_M`.
#[doc(hidden)]
pub trait EntryTile<const N: usize, const M: usize> {}
impl<const N: usize, const M: usize> EntryTile<N, M> for usize {}
impl<const N: usize, const M: usize> EntryTile<N, M> for Skip {}
impl<const N: usize, const M: usize, U> EntryTile<N, M> for S<U>
where
    C<N>: TypenumForm,
    C<M>: TypenumForm,
    (): TileFitsU<<C<N> as TypenumForm>::U, <C<M> as TypenumForm>::U, U>,
{
}
impl<const N: usize, const M: usize, TS, TD> EntryTile<N, M> for Layout<TS, TD> {}
// The table's forms are required here, outside the `do_not_recommend`
// impl, so that a value without one is reported as such.
impl<const N: usize, const M: usize, const K: usize> EntryTile<N, M> for C<K>
where
    C<N>: TypenumForm,
    C<M>: TypenumForm,
    C<K>: TypenumForm,
    (): TileBelow<N, M, K>,
{
}

// A computed (`S<U>`) entry, mode or tile: the same comparison on the
// typenums, the values printed only when it fails.

/// A mode, against the entry whose typenum is `UN` and its tile `T`.
#[doc(hidden)]
pub trait ModeU<UN, T> {}
impl<UN, T> ModeU<UN, T> for usize {}
impl<UN, T> ModeU<UN, T> for Skip {}
impl<UN, T: TileU<UN, <C<M> as TypenumForm>::U>, const M: usize> ModeU<UN, T> for C<M> where
    C<M>: TypenumForm
{
}
impl<UN, T: TileU<UN, UM>, UM> ModeU<UN, T> for S<UM> {}

/// A tile, against the entry `UN` of a mode of size `UM` (typenums).
#[doc(hidden)]
pub trait TileU<UN, UM> {}
impl<UN, UM> TileU<UN, UM> for usize {}
impl<UN, UM> TileU<UN, UM> for Skip {}
impl<UN, UM, TS, TD> TileU<UN, UM> for Layout<TS, TD> {}
impl<UN, UM, const K: usize> TileU<UN, UM> for C<K>
where
    C<K>: TypenumForm,
    (): TileFitsU<UN, UM, <C<K> as TypenumForm>::U>,
{
}
impl<UN, UM, UK> TileU<UN, UM> for S<UK> where (): TileFitsU<UN, UM, UK> {}

/// [`TileBelow`] on typenums: `UN * UK < UM`.
#[doc(hidden)]
pub trait TileFitsU<UN, UM, UK> {}
impl<UN: core::ops::Mul<UK>, UM, UK> TileFitsU<UN, UM, UK> for ()
where
    Prod<UN, UK>: IsLess<UM>,
    <Prod<UN, UK> as IsLess<UM>>::Output: TileOr<UN, UM, UK>,
{
}
/// `B1`: the tile starts inside its mode; `B0`: [`TileBelow`]'s refusal,
/// the values printed.
#[doc(hidden)]
pub trait TileOr<UN, UM, UK> {}
impl<UN, UM, UK> TileOr<UN, UM, UK> for B1 {}
impl<UN, UM, UK, const N: usize, const M: usize, const K: usize> TileOr<UN, UM, UK> for B0
where
    UN: ConstForm<C = C<N>>,
    UM: ConstForm<C = C<M>>,
    UK: ConstForm<C = C<K>>,
    (): TileBelow<N, M, K>,
{
}

/// Nested entries, modes and tiles: not checked here.
macro_rules! nested {
    ($($x:ident),*) => {
        impl<Sh, T, $($x),*> TileEntry<Sh, T> for ($($x,)*) {}
        impl<const N: usize, T, $($x),*> EntryMode<N, T> for ($($x,)*) {}
        impl<const N: usize, const M: usize, $($x),*> EntryTile<N, M> for ($($x,)*) {}
        impl<UN, T, $($x),*> ModeU<UN, T> for ($($x,)*) {}
        impl<UN, UM, $($x),*> TileU<UN, UM> for ($($x,)*) {}
    };
}
crate::typelevel::tuple::for_each_tuple!(nested);
