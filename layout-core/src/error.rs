//! Errors of run-time checks.

use core::fmt;

/// Why a run-time layout or tensor operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The layout's cosize does not fit `usize`.
    CosizeOverflow,
    /// An arithmetic step of an operation overflows.
    Overflow {
        /// The operation.
        op: &'static str,
    },
    /// Text that is not CuTe notation.
    #[cfg(feature = "alloc")]
    Parse {
        /// Byte position of the problem.
        pos: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// An operation's precondition does not hold.
    #[cfg(feature = "alloc")]
    Invalid {
        /// The operation, by CuTe's name.
        op: &'static str,
        /// Which mode and which numbers.
        why: alloc::string::String,
    },
    /// A typed algebra operation refused its run-time input (no allocation:
    /// the reason carries the numbers, not the layouts' text).
    Refused {
        /// The operation, by CuTe's name.
        op: &'static str,
        /// Why.
        why: Refusal,
    },
    /// The storage is shorter than the layout's cosize.
    StorageTooShort {
        /// Elements the layout reaches (offset plus cosize).
        needed: usize,
        /// Elements the storage has.
        len: usize,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::CosizeOverflow => f.write_str("the layout's cosize overflows usize"),
            LayoutError::Overflow { op } => write!(f, "{op}: arithmetic overflow"),
            #[cfg(feature = "alloc")]
            LayoutError::Parse { pos, expected } => write!(f, "at byte {pos}: expected {expected}"),
            #[cfg(feature = "alloc")]
            LayoutError::Invalid { op, why } => write!(f, "{op}: {why}"),
            LayoutError::Refused { op, why } => write!(f, "{op}: {why}"),
            LayoutError::StorageTooShort { needed, len } => write!(
                f,
                "storage of {len} elements is shorter than the {needed} the layout reaches"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}

/// Why a typed algebra operation refused its run-time input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The composition is not admissible (see [`crate::admissible::check_composition`]).
    Composition(crate::admissible::CompositionError),
    /// The complement does not exist (see [`crate::admissible::check_complement`]).
    Complement(crate::admissible::ComplementError),
    /// A step divides by a run-time 0 (a layout of size 0) or overflows `usize`.
    Arithmetic,
    /// Mode `mode` of the block has size `block`, which does not divide `target`.
    NotDividing {
        /// The mode.
        mode: usize,
        /// The block's size there.
        block: usize,
        /// The target's size there.
        target: usize,
    },
    /// More leaves than a run-time check examines.
    TooManyLeaves {
        /// How many.
        n: usize,
        /// The most the check takes.
        cap: usize,
    },
    /// A coordinate (a tile, a thread) lies outside the shape it indexes.
    OutOfShape,
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::const_text::Text;
        match *self {
            Refusal::Composition(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Complement(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Arithmetic => {
                f.write_str("a step divides by 0 (a layout of size 0) or overflows usize")
            }
            Refusal::NotDividing { mode, block, target } => write!(
                f,
                "mode {mode} of the block has size {block}, which does not divide {target}, the size of mode {mode} of the shape"
            ),
            Refusal::TooManyLeaves { n, cap } => write!(
                f,
                "{n} leaves, more than the {cap} its run-time check examines"
            ),
            Refusal::OutOfShape => f.write_str("the coordinate lies outside the shape it indexes"),
        }
    }
}
