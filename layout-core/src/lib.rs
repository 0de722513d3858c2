//! CuTe's layout algebra with static layouts as types.
//!
//! A layout maps coordinates to offsets through a nested `shape:stride` pair.
//! Leaves are static (`C<N>`, printed `_N`) or dynamic (`usize`), mixed
//! freely; an all-static layout is a zero-sized type whose offsets fold to
//! constants.
//!
//! ```
//! use layout_core::{crd, layout, flatten, slice_and_offset};
//! let h = layout!((2,(2,2)):(4,(2,1)));
//! assert_eq!(h.to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
//! assert_eq!(h.crd2idx(crd!(1, (1, 0))), 6);
//! assert_eq!(h.crd2idx(crd!(1, 1)), 6);
//! assert_eq!(h.call(3), 6);
//! assert_eq!(flatten(h).to_string(), "(_2,_2,_2):(_4,_2,_1)");
//!
//! let n = 4;
//! let mixed = layout!((3, n):(n, 1));
//! assert_eq!(mixed.to_string(), "(_3,4):(4,_1)");
//! let (row, offset) = slice_and_offset(crd!(1, _), layout!((3,4):(6,1)));
//! assert_eq!((row.to_string(), offset), ("(_4):(_1)".into(), 6));
//! ```
//!
//! The algebra is at the root and works on typed layouts, mixed ones
//! included; [`dynamic`] has the same operations, by the same names, on
//! layouts known only at run time ([`DynLayout`]):
//!
//! ```
//! use layout_core::{composition, dynamic, layout, zipped_divide, C, DynLayout};
//! let m = 8;
//! // (m,_32):(_32,_1) in (_4,_4) tiles: ((_4,_4),(m/4,_8)):((_32,_1),(_128,_4)).
//! let z = zipped_divide(layout!((m, 32):(32, 1)), (C::<4>, C::<4>));
//! assert_eq!(z.to_string(), "((_4,_4),(2,_8)):((_32,_1),(_128,_4))");
//! assert_eq!(composition(layout!((4,2):(2,1)), layout!(2:4)).to_string(), "_2:_1");
//!
//! // B steps over A's first mode: offsets 0 and A(4) = 1.
//! let a: DynLayout = "(_4,_2):(_2,_1)".parse().unwrap();
//! let b: DynLayout = "_2:_4".parse().unwrap();
//! assert_eq!(dynamic::composition(&a, &b).unwrap().to_string(), "_2:_1");
//! ```
#![no_std]

#[cfg(feature = "alloc")]
extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

// The layers, lowest first; each imports only the ones before it
// (docs/architecture.md, checked by tests/tests/layers.rs).

// Type-level integers, tuples and lists.
pub mod typelevel;

// The errors of every layer.
pub mod error;

// `Layout` and what needs no algebra: coordinates, modes, compact strides,
// slicing, printing.
pub mod layout;

// The typed algebra, one operation per module.
pub mod algebra;

// Tensors, partitions, fragments and whole-tensor algorithms.
pub mod tensor;

// MMA and copy atoms, TiledMMA and TiledCopy.
pub mod atom;

// The algebra on run-time layouts (`DynLayout`), beside the typed one.
#[cfg(feature = "alloc")]
pub mod dynamic;

// What kernel code uses, in one import.
pub mod prelude;

// The modules' paths before the layer folders, so that code written
// against them still builds: each the same items, and naming the module
// itself (`use layout_core::partition;`) warns with its new path.
#[deprecated(
    note = "moved to `layout_core::tensor::algorithm`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod algorithm {
    pub use crate::tensor::algorithm::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::compact`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod compact {
    pub use crate::layout::compact::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::congruent`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod congruent {
    pub use crate::layout::congruent::*;
}
#[deprecated(
    note = "moved to `layout_core::typelevel::const_text`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod const_text {
    pub use crate::typelevel::const_text::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::coord`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod coord {
    pub use crate::layout::coord::*;
}
#[deprecated(
    note = "moved to `layout_core::tensor::fragment`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod fragment {
    pub use crate::tensor::fragment::*;
}
#[deprecated(
    note = "moved to `layout_core::typelevel::int`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod int {
    pub use crate::typelevel::int::*;
}
#[deprecated(
    note = "moved to `layout_core::atom::mma`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod mma {
    pub use crate::atom::mma::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::ops`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod ops {
    pub use crate::layout::ops::*;
}
#[deprecated(
    note = "moved to `layout_core::tensor::partition`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod partition {
    pub use crate::tensor::partition::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::print`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod print {
    pub use crate::layout::print::*;
}
#[deprecated(
    note = "moved to `layout_core::tensor::raw`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod raw {
    pub use crate::tensor::raw::*;
}
#[deprecated(
    note = "moved to `layout_core::layout::respell`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod respell {
    pub use crate::layout::respell::*;
}
// (Not deprecated: `use layout_core::slice` names the function too.)
#[doc(hidden)]
pub mod slice {
    pub use crate::layout::slice::*;
}
#[deprecated(
    note = "moved to `layout_core::atom::tiled_copy`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod tiled_copy {
    pub use crate::atom::tiled_copy::*;
}
#[deprecated(
    note = "moved to `layout_core::typelevel::tuple`; kernel code: `use layout_core::prelude::*`"
)]
#[doc(hidden)]
pub mod tuple {
    pub use crate::typelevel::tuple::*;
}

// What a user names most, at the root, layer by layer.
#[cfg(feature = "alloc")]
pub use typelevel::tuple::to_cute_string;
pub use typelevel::{
    int::*,
    tuple::{IntTuple, Tuple},
};

pub use error::{LayoutError, Refusal};

pub use layout::compact::{
    compact_col_major, compact_row_major, make_layout_left, make_layout_right, make_ordered_layout,
    try_compact_col_major, try_compact_row_major, try_make_layout_left, try_make_layout_right,
    try_make_ordered_layout, Compact, TypedSize,
};
pub use layout::coord::{crd2crd, crd2idx, idx2crd, CompactIndex, Crd2Crd, Crd2Idx, Underscore};
pub use layout::ops::{
    append, flatten, get, group, prepend, replace, select, take, Append, Flatten, Group, Mode,
    Prepend, Rank2, Replace, Select, Take,
};
#[cfg(feature = "alloc")]
pub use layout::print::print_layout;
pub use layout::print::write_layout_table;
pub use layout::respell::Respell;
pub use layout::slice::{dice, slice, slice_and_offset, SliceCoord};
pub use layout::{make_layout, Congruent, Layout};

// The typed algebra is the library's algebra; `DynLayout`'s (same names,
// run-time values, `Result` where the typed one refuses at compile time) is
// under `dynamic::`.
pub use algebra::{
    blocked_product, coalesce, coalesce_by, complement, complement_default, composition, downcast,
    filter, filter_by, filter_zeros, flat_divide, flat_product, left_inverse, logical_divide,
    logical_product, max_common_layout, max_common_vector, raked_product, right_inverse,
    tile_to_shape, tile_to_shape_ordered, tiled_divide, tiled_product, try_blocked_product,
    try_complement, try_complement_default, try_composition, try_downcast, try_flat_divide,
    try_flat_product, try_logical_divide, try_logical_product, try_raked_product,
    try_tile_to_shape, try_tile_to_shape_ordered, try_tiled_divide, try_tiled_product,
    try_zipped_divide, try_zipped_product, upcast, zipped_divide, zipped_product, Swizzle,
};

pub use tensor::memory::{Memory, MemoryMut};
pub use tensor::{make_tensor, Engine, EngineMut, Tensor, View, ViewMut};

#[cfg(feature = "alloc")]
pub use dynamic::{parse_tuple, DCoord, DInt, DTuple, DynLayout, Tiler};

/// Compile a function generic over constants (tile sizes) once per listed
/// set of them: `#[instantiate((64, 64, 8), (128, 128, 8))]` on
/// `fn sgemm<const BM: usize, const BN: usize, const BK: usize>(...)`.
///
/// In each copy the constants are concrete values, so `C::<BM>` is a
/// static leaf and every layout the algebra computes from it is a concrete
/// type: the body calls `local_tile`, `local_partition`,
/// `make_fragment_like`, `copy`, `gemm` as in a function with literal tile
/// sizes, with no trait bounds. Callers write `sgemm::<64, 64, 8>(...)`; a
/// set that is not listed is a compile error naming the function. Other
/// generic parameters (the element type, lifetimes) stay generic, with their
/// bounds. The sets are values or tuples of values, one value per const
/// parameter in their order.
///
/// ```
/// use layout_core::{instantiate, layout, tensor::partition::{local_partition, local_tile}, Tensor, C};
///
/// /// The sum of the elements thread `t` of 4 x 4 threads owns in block
/// /// `(bm, bn)` of a row-major matrix.
/// #[instantiate((8, 8), (16, 4))]
/// fn block_sum<const BM: usize, const BN: usize>(a: &[f32], n: usize, bm: usize, bn: usize, t: usize) -> f32 {
///     let m = a.len() / n;
///     let ta = Tensor::new(a, layout!((m, n):(n, 1))).unwrap();
///     let blk = local_tile(ta, (C::<BM>, C::<BN>), (bm, bn));
///     let mine = local_partition(blk, layout!((4, 4):(4, 1)), t);
///     (0..mine.size()).map(|i| mine[i]).sum()
/// }
///
/// let a: Vec<f32> = (0..32 * 16).map(|i| i as f32).collect();
/// // Block (1, 0) of 8 x 8 is rows 8..16, columns 0..8; thread 5 is at (1, 1)
/// // and owns rows 9, 13 and columns 1, 5: 9*16+1 + 9*16+5 + 13*16+1 + 13*16+5.
/// assert_eq!(block_sum::<8, 8>(&a, 16, 1, 0, 5), (2 * (9 + 13) * 16 + 2 * (1 + 5)) as f32);
/// // The 16 x 4 blocks: block (0, 1) is rows 0..16, columns 4..8; thread 5
/// // owns rows 1, 5, 9, 13 of column 5.
/// assert_eq!(block_sum::<16, 4>(&a, 16, 0, 1, 5), ((1 + 5 + 9 + 13) * 16 + 4 * 5) as f32);
/// ```
///
/// A set that is not listed does not compile:
///
/// ```compile_fail
/// use layout_core::{instantiate, C};
/// #[instantiate(8, 16)]
/// fn width<const N: usize>() -> usize { C::<N>::VALUE }
/// let _ = width::<32>();
/// ```
pub use layout_macros::instantiate;
/// typenum, which backs static values computed at the type level.
pub use typenum;

#[doc(hidden)]
pub mod __private {
    pub use layout_macros::{
        crd_impl, layout_impl, layout_type_impl, sm90_gmma_table_impl as sm90_gmma_table,
    };

    /// What `layout!` gives a leaf written as an identifier spelled like a
    /// constant (`MR`): a run-time `usize`, with a warning at that token.
    #[deprecated(
        note = "this identifier is a run-time leaf: write `C<NAME>` for a static leaf from a `const NAME: usize`, or `{NAME}` to keep it run-time and silence this warning"
    )]
    pub type IdentifierLeaf = usize;
}

/// A layout in CuTe notation. Integer literals are static leaves (`C<N>`,
/// CuTe's `_N`), and so is `C<NAME>` for a named constant; an identifier or
/// a `{braced expression}` is a run-time `usize`. A shape alone gets
/// LayoutLeft (column-major) strides, computed as CuTe computes them.
///
/// ```
/// use layout_core::layout;
/// assert_eq!(layout!((2,(2,2)):(4,(2,1))).to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
/// let m = 3;
/// assert_eq!(layout!((3, {m * 2}):(1, 3)).to_string(), "(_3,6):(_1,_3)");
/// assert_eq!(layout!((3, 4)).to_string(), "(_3,_4):(_1,_3)");
/// assert_eq!(layout!((m, 4)).to_string(), "(3,_4):(_1,3)");
///
/// // A named constant is static when written `C<NAME>` (an identifier
/// // spelled like a constant, `MR`, is run-time and draws a warning).
/// const MR: usize = 8;
/// const NR: usize = 4;
/// let micro = layout!((C<MR>, C<NR>):(C<NR>, 1));
/// assert_eq!(micro.to_string(), "(_8,_4):(_4,_1)");
/// assert_eq!(layout!((C<MR>, m)).to_string(), "(_8,3):(_1,_8)");
/// ```
#[macro_export]
macro_rules! layout {
    ($($t:tt)*) => { $crate::__private::layout_impl!{ $crate ; $($t)* } };
}

/// The type of a layout in CuTe notation (dynamic leaves are `usize`;
/// literals and `C<NAME>` are static).
///
/// ```
/// use layout_core::{layout, layout_type};
/// type H = layout_type!((2,(2,2)):(4,(2,1)));
/// let h: H = layout!((2,(2,2)):(4,(2,1)));
/// assert_eq!(H::SIZE, 8);
/// assert_eq!(H::COSIZE, 8);
/// assert_eq!(h.to_string(), "(_2,(_2,_2)):(_4,(_2,_1))");
///
/// const TILE: usize = 64;
/// type Tile = layout_type!((C<TILE>, 8));
/// assert_eq!(Tile::default().to_string(), "(_64,_8):(_1,_64)");
/// ```
#[macro_export]
macro_rules! layout_type {
    ($($t:tt)*) => { $crate::__private::layout_type_impl!{ $crate ; $($t)* } };
}

/// A coordinate: integers and `C<NAME>` are static, identifiers and
/// `{expressions}` are run-time `usize`, `_` keeps a mode in a slice. Several items make a
/// tuple; one item is itself (write `(x,)` for a rank-1 tuple).
///
/// ```
/// use layout_core::{crd, Underscore, C};
/// let j = 2;
/// assert_eq!(crd!(1, (0, j)), (C::<1>, (C::<0>, 2usize)));
/// assert_eq!(crd!(1, _), (C::<1>, Underscore));
/// ```
#[macro_export]
macro_rules! crd {
    ($($t:tt)*) => { $crate::__private::crd_impl!{ $crate ; $($t)* } };
}
