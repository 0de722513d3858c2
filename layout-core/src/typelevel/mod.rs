//! The lowest layer: integers and lists computed by the type checker.
//!
//! - [`int`]: the leaves (`C<N>` as users write them, `S<U>` as typenum
//!   computes them, run-time `usize`);
//! - [`tuple`](mod@tuple): nested integer tuples and the cons lists every recursion over
//!   modes walks;
//! - [`form`]: what the type checker knows of a leaf (a static value or
//!   not) and the bits operations branch on;
//! - [`arith`]: leaf arithmetic with CuTe's static/dynamic rules;
//! - [`list`]: list building and folding shared by the operations above
//!   (push, pack, sizes and cosizes as types);
//! - [`check`]: comparisons of static leaves as trait bounds, so that
//!   `cargo check` refuses a static misuse;
//! - `const_text`: compile-time text, so that checks after
//!   monomorphisation can name layouts in CuTe notation.
//!
//! Nothing here knows what a layout is.

pub mod arith;
pub mod check;
#[doc(hidden)]
pub mod const_text;
pub mod form;
pub mod int;
pub mod list;
pub mod tuple;
