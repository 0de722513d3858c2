//! A `no_std` crate without an allocator that uses the typed algebra on
//! mixed layouts (a run-time M next to static tiles), as a GPU kernel would.
//! It only has to build: `tests/tests/nostd.rs` builds it, and CI with it.
#![no_std]
#![allow(missing_docs)]

use lc::algebra::{
    composition, logical_divide, logical_product, try_zipped_divide, zipped_divide,
};
use lc::{layout, C};

/// composition((m,_32):(_32,_1), (_4,_8):(_1,_4)) at index `i`.
pub fn mixed_composition(m: usize, i: usize) -> usize {
    composition(layout!((m, 32):(32, 1)), layout!((4,8):(1,4))).call(i)
}

/// zipped_divide((m,_32):(_32,_1), (_4,_4)) at index `i`, or `None` when refused.
pub fn mixed_zipped_divide(m: usize, i: usize) -> Option<usize> {
    try_zipped_divide(layout!((m, 32):(32, 1)), (C::<4>, C::<4>))
        .ok()
        .map(|z| z.call(i))
}

/// logical_divide of a mixed layout by a layout tiler, at index `i`.
pub fn mixed_logical_divide(m: usize, i: usize) -> usize {
    logical_divide(layout!((m, 8):(8, 1)), (layout!(2:1), layout!(4:2))).call(i)
}

/// logical_product of a mixed block by a static tiler, at index `i`.
pub fn mixed_logical_product(m: usize, i: usize) -> usize {
    logical_product(layout!((2, m):(1, 2)), layout!((3,2):(1,3))).call(i)
}

/// The panicking form of zipped_divide builds without an allocator too.
pub fn mixed_zipped_divide_or_panic(m: usize, i: usize) -> usize {
    zipped_divide(layout!((m, 32):(32, 1)), (C::<4>, C::<4>)).call(i)
}
