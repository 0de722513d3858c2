//! Errors of run-time checks.

use core::fmt;

/// Why a run-time layout or tensor operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The layout's cosize does not fit `usize`.
    CosizeOverflow,
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
            LayoutError::StorageTooShort { needed, len } => write!(
                f,
                "storage of {len} elements is shorter than the {needed} the layout reaches"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}
