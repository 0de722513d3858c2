//! What kernel code uses, in one import: `use layout_core::prelude::*;`.
//!
//! The macros (`layout!`, `layout_type!`, `crd!`, `#[instantiate]`), the
//! static integers (`C`, `_` as [`Underscore`]), layouts and tensors, the
//! algebra a kernel tiles with, the partitions, identity tensors and
//! predicates, `copy` / `copy_if` / `fill` / `axpby` / `gemm`, register
//! fragments, and the atoms with their traits and tiled forms. Everything
//! else keeps its module path (`layout_core::tensor::raw`, the architecture
//! atoms under `layout_core::atom`, `layout_core::dynamic`).
//!
//! A block of a row-major matrix tiled, partitioned over 2 x 2 threads,
//! copied into a fragment, predicated, and a product:
//!
//! ```
//! use layout_core::prelude::*;
//!
//! let a: Vec<f32> = (0..8 * 8).map(|i| i as f32).collect();
//! let ta = Tensor::new(&a[..], layout!((8, 8):(8, 1))).unwrap();
//! // Block (1, 0) of 4 x 4: rows 4..8, columns 0..4.
//! let blk = local_tile(ta, (C::<4>, C::<4>), (1usize, 0usize));
//! assert_eq!(blk.layout().to_string(), "(_4,_4):(_8,_1)");
//! // Thread 3 of 2 x 2 (column-major) is at (1, 1): rows 5, 7, columns 1, 3.
//! let threads = layout!((2, 2):(1, 2));
//! let mine = local_partition(blk, threads, 3);
//! let mut frag = make_fragment_like::<f32, _>(mine.layout());
//! copy(&mine, &mut frag.view_mut()).unwrap();
//! assert_eq!([frag[0], frag[1], frag[2], frag[3]], [41.0, 57.0, 43.0, 59.0]);
//!
//! // The identity tensor, tiled and partitioned alike, names each element's
//! // coordinate; `within` predicates a copy to a bound (here 6 rows).
//! let id = make_identity_tensor((8usize, 8usize));
//! let my_id = local_partition(local_tile(id, (C::<4>, C::<4>), (1usize, 0usize)), threads, 3);
//! assert_eq!(my_id.at((1usize, 1usize)), Some((7, 3)));
//! let mut kept = make_fragment_like::<f32, _>(mine.layout());
//! copy_if(my_id.within((6, 8)), &mine, &mut kept.view_mut()).unwrap();
//! assert_eq!([kept[0], kept[1], kept[2], kept[3]], [41.0, 0.0, 43.0, 0.0]);
//!
//! // C (2 x 2) += A (2 x 1) · B (2 x 1)ᵀ, as (M, K) and (N, K) tensors.
//! let (x, y, mut c) = ([1.0f32, 2.0], [3.0f32, 4.0], [0.0f32; 4]);
//! let ta = Tensor::new(&x[..], layout!((2, 1):(1, 2))).unwrap();
//! let tb = Tensor::new(&y[..], layout!((2, 1):(1, 2))).unwrap();
//! gemm(&ta, &tb, &mut Tensor::new(&mut c[..], layout!((2, 2):(1, 2))).unwrap()).unwrap();
//! assert_eq!(c, [3.0, 6.0, 4.0, 8.0]);
//! ```

pub use crate::{crd, instantiate, layout, layout_type};

pub use crate::typelevel::int::C;
pub use crate::typelevel::tuple::{IntTuple, Tuple};
pub use crate::{make_layout, Layout, LayoutError, Underscore};

pub use crate::algebra::{ComposedLayout, Swizzle};
pub use crate::{
    blocked_product, coalesce, complement, composition, left_inverse, logical_divide,
    logical_product, raked_product, right_inverse, tiled_divide, zipped_divide,
};

pub use crate::tensor::algorithm::{axpby, copy, copy_if, fill, gemm, Predicate};
pub use crate::tensor::fragment::{make_fragment_like, make_layout_like, Fragment};
pub use crate::tensor::partition::{
    inner_partition, local_partition, local_partition_proj, local_tile, local_tile_proj,
    outer_partition, ThreadLayout,
};
pub use crate::tensor::{make_identity_tensor, make_tensor, IdentityTensor, Tensor};

pub use crate::atom::mma::{make_tiled_mma, TiledMma};
pub use crate::atom::tiled_copy::{make_tiled_copy, Copy_Atom, TiledCopy};
pub use crate::atom::{CopyAtom, MmaAtom};
