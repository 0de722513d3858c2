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
            LayoutError::StorageTooShort { needed, len } => write!(
                f,
                "storage of {len} elements is shorter than the {needed} the layout reaches"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}
