//! The typed algebra: CuTe's operations computed in the type system, so that
//! static inputs give static (zero-sized) results, and mixed inputs keep
//! exactly the leaves static that CuTe keeps static.
//!
//! Each operation is a type-level fold written on cons lists. Branches on
//! static values are taken by computing a tag type (`B0`/`B1`) and calling a
//! helper trait implemented once per tag, with the tag as `Self`.

mod cast;
mod coalesce;
mod filter;
mod inverse;
mod profile;

pub use cast::{downcast, upcast, IntCeilDiv};
pub use coalesce::{coalesce, Coalesce};
pub use filter::{filter, filter_zeros};
pub use inverse::{left_inverse, right_inverse};
pub use profile::{coalesce_by, filter_by};
