//! The typed algebra: CuTe's operations computed in the type system, so that
//! static inputs give static (zero-sized) results, and mixed inputs keep
//! exactly the leaves static that CuTe keeps static.
//!
//! Each operation is a type-level fold written on cons lists. Branches on
//! static values are taken by computing a tag type (`B0`/`B1`) and calling a
//! helper trait implemented once per tag, with the tag as `Self`.
//!
//! Every module is public so that each trait a bound or an error names can
//! be named by a user too; the functions and their traits are also here, at
//! `layout_core::algebra::NAME` (and the functions at the crate root).

pub mod admissible;
pub mod admits;
pub mod by_mode;
pub mod cast;
pub mod coalesce;
pub mod complement;
pub mod composition;
pub mod divide;
pub mod filter;
pub mod inverse;
pub mod max_common;
pub mod product;
pub mod profile;
pub mod swizzle;
pub mod tile;
pub mod values;

pub use crate::typelevel::arith::Leaf;
pub use by_mode::Unpack;
pub use cast::{downcast, try_downcast, upcast, IntCeilDiv};
pub use coalesce::{coalesce, try_coalesce, Coalesce};
pub use complement::{
    complement, complement_default, complement_error, try_complement, try_complement_default,
    Complement, ComplementT, DefaultCotarget,
};
pub use composition::{
    composition, composition_error, composition_verdict, try_composition, CoalesceX, ComposeOnto,
    Composition,
};
// Where bounds have always named them.
pub use crate::layout::{LayoutParts, StaticText};
pub use divide::{
    divide_error, flat_divide, logical_divide, tiled_divide, try_flat_divide, try_logical_divide,
    try_tiled_divide, try_zipped_divide, zipped_divide, DivideOnto, DivideParts, ZipDivideOnto,
    ZipDivideParts,
};
pub use filter::{filter, filter_zeros};
pub use inverse::RightInverse;
pub use inverse::{left_inverse, right_inverse};
pub use max_common::{max_common_layout, max_common_vector, MaxCommon};
pub use product::{
    blocked_product, flat_product, logical_product, product_error, raked_product, tiled_product,
    try_blocked_product, try_flat_product, try_logical_product, try_raked_product,
    try_tiled_product, try_zipped_product, zipped_product, ProductOnto, ProductParts, ZipProduct,
    ZipProductOnto, ZipProductParts,
};
pub use profile::{coalesce_by, filter_by};
pub use swizzle::{ComposedLayout, Swizzle};
pub use tile::{
    tile_to_shape, tile_to_shape_ordered, try_tile_to_shape, try_tile_to_shape_ordered, ColMajor,
    TileOrder, TileToShape,
};
pub use values::StaticResult;
