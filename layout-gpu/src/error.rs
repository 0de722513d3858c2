//! The crate's error: a refused input (before anything runs), a GPU the
//! kernels are not built for, or the driver's error.

use std::fmt;

/// Why an operation did not run. Each message is one line and names the
/// operation.
///
/// ```
/// use layout_gpu::Error;
/// let e = Error::refused("sgemm", "(100, 128, 8): M and N multiples of 128, K a positive multiple of 8");
/// assert_eq!(e.to_string(), "sgemm: (100, 128, 8): M and N multiples of 128, K a positive multiple of 8");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// An input the kernel's contract excludes (a size, a buffer's length,
    /// a head dimension): nothing was launched.
    Refused {
        /// The operation ("sgemm", "attention").
        op: &'static str,
        /// What was refused, with the values.
        why: String,
    },
    /// The GPU has no kernel for the operation (its compute capability).
    Unsupported {
        /// The operation.
        op: &'static str,
        /// Which GPU the operation needs.
        why: String,
    },
    /// The driver failed: loading the PTX, a copy, a launch, or a kernel
    /// that stopped on a device-side check.
    Device(layout_launch::Error),
}

impl Error {
    /// An [`Error::Refused`].
    pub fn refused(op: &'static str, why: impl Into<String>) -> Self {
        Error::Refused {
            op,
            why: why.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Refused { op, why } | Error::Unsupported { op, why } => write!(f, "{op}: {why}"),
            Error::Device(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Device(e) => Some(e),
            _ => None,
        }
    }
}

impl From<layout_launch::Error> for Error {
    fn from(e: layout_launch::Error) -> Self {
        Error::Device(e)
    }
}
