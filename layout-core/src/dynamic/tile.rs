//! `tile_to_shape` on `DynLayout`: repeat a block until it covers a shape.
//! Mirrors `algebra/tile.rs`.

use super::arith::{ceil_div, check_shape, invalid};
use super::{append_to_rank, blocked_product, make_ordered_layout, DInt, DTuple, DynLayout};
use crate::error::LayoutError;
use alloc::format;
use alloc::vec::Vec;

type R<T> = Result<T, LayoutError>;

/// CuTe's `tile_to_shape(block, shape, order)`: repeat `block` to cover
/// `shape` (each mode `(block_mode, repeat)`, not coalesced). The default
/// order is column-major.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (((_6,_2),_2)):(((_2,_1),_12)).
/// let shape = layout_core::parse_tuple("(_24)").unwrap();
/// assert_eq!(tile_to_shape(&l("((_6,_2)):((_2,_1))"), &shape, None).unwrap().to_string(), "(((_6,_2),_2)):(((_2,_1),_12))");
/// ```
pub fn tile_to_shape(block: &DynLayout, shape: &DTuple, order: Option<&DTuple>) -> R<DynLayout> {
    check_shape(shape, "tile_to_shape")?;
    let r = shape.rank();
    if block.rank() > r {
        return Err(invalid(
            "tile_to_shape",
            format!("block {block} has more modes than shape {shape}"),
        ));
    }
    // append<R> leaves an integer block alone when R is 1.
    let block = if r == 1 && block.shape().as_int().is_some() {
        block.clone()
    } else {
        append_to_rank(block, r)
    };
    let mut reps = Vec::new();
    for i in 0..r {
        let target = shape
            .mode(i)
            .ok_or_else(|| invalid("tile_to_shape", format!("{shape} has no mode {i}")))?
            .product()?;
        let have = block
            .shape()
            .mode(i)
            .ok_or_else(|| invalid("tile_to_shape", format!("block {block} has no mode {i}")))?
            .product()?;
        if have.value == 0 || target.value % have.value != 0 {
            return Err(invalid(
                "tile_to_shape",
                format!("mode {i} of block {block} does not divide {target}"),
            ));
        }
        reps.push(ceil_div(target, have, "tile_to_shape")?);
    }
    let reps = DTuple::of_ints(reps);
    let default: DTuple;
    let order = match order {
        Some(o) => o,
        None => {
            default = DTuple::of_ints((0..r).map(|i| DInt::new_static(i as i64)));
            &default
        }
    };
    let tiler = make_ordered_layout(&reps, order)?;
    blocked_product(&block, &tiler)
}
