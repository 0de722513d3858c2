//! The one error type of the crate.

use std::fmt;
use std::path::PathBuf;

use cudarc::driver::DriverError;

/// What went wrong: each variant's message is one line and names what was
/// being done.
///
/// ```
/// use layout_launch::Error;
///
/// let e = Error::NoKernel { name: "sgemm".into(), available: vec!["sgemm_f32".into(), "hgemm_f16".into()] };
/// assert_eq!(e.to_string(), "no kernel `sgemm` in the module (it has: sgemm_f32, hgemm_f16)");
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum Error {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no
    /// NVIDIA driver on this machine.
    NoDriver,
    /// A CUDA driver call failed.
    Driver {
        /// What was being done ("load the PTX module", "launch sgemm_f32").
        during: String,
        /// The driver's error.
        error: DriverError,
    },
    /// A file could not be read.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        error: std::io::Error,
    },
    /// The module has no kernel of this name.
    NoKernel {
        /// The name looked up.
        name: String,
        /// The kernels the module's PTX declares (empty when it declares
        /// none that could be read).
        available: Vec<String>,
    },
    /// A launch's arguments do not match the kernel's parameters in
    /// number, size or kind (as the PTX declares them).
    Signature {
        /// The kernel.
        kernel: String,
        /// Each parameter the kernel declares ("pointer", "u64", "f32",
        /// "16-byte struct").
        expected: Vec<String>,
        /// Each argument given ("buffer", "slice", "u64", "f32").
        given: Vec<String>,
    },
    /// A kernel stopped on the GPU: a device-side check trapped (an index
    /// past a buffer, a failed `unwrap`: a panic in a kernel is a trap) or
    /// it faulted. Reported by the first call that waits for it; the GPU
    /// context is unusable afterwards (the driver's rule).
    KernelFailed {
        /// The kernels launched on the stream since its last successful
        /// synchronisation, one of which failed.
        kernels: Vec<String>,
        /// The driver's error.
        error: DriverError,
    },
    /// An invalid request refused before reaching the driver: a zero or
    /// too large launch dimension, buffers of different lengths to copy, a
    /// NUL byte in PTX text or a kernel name.
    Invalid(String),
}

impl Error {
    pub(crate) fn driver(during: impl Into<String>, error: DriverError) -> Self {
        Error::Driver {
            during: during.into(),
            error,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver => write!(
                f,
                "no CUDA driver: libcuda.so could not be loaded (is an NVIDIA driver installed?)"
            ),
            Error::Driver { during, error } => write!(f, "{during}: {error}"),
            Error::Io { path, error } => write!(f, "{}: {error}", path.display()),
            Error::NoKernel { name, available } if available.is_empty() => {
                write!(f, "no kernel `{name}` in the module (its PTX declares no entry point)")
            }
            Error::NoKernel { name, available } => write!(
                f,
                "no kernel `{name}` in the module (it has: {})",
                available.join(", ")
            ),
            Error::Signature {
                kernel,
                expected,
                given,
            } => write!(
                f,
                "{kernel} takes ({}), given ({})",
                expected.join(", "),
                given.join(", ")
            ),
            Error::KernelFailed { kernels, error } if kernels.len() == 1 => write!(
                f,
                "kernel {} failed on the GPU (a device-side check trapped, or it faulted): {error}",
                kernels[0]
            ),
            Error::KernelFailed { kernels, error } => write!(
                f,
                "one of the kernels {} failed on the GPU (a device-side check trapped, or it faulted): {error}",
                kernels.join(", ")
            ),
            Error::Invalid(what) => f.write_str(what),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Driver { error, .. } | Error::KernelFailed { error, .. } => Some(error),
            Error::Io { error, .. } => Some(error),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_one_line() {
        let errors = [
            Error::NoDriver,
            Error::Io {
                path: "k.ptx".into(),
                error: std::io::Error::new(std::io::ErrorKind::NotFound, "not found"),
            },
            Error::NoKernel {
                name: "x".into(),
                available: vec![],
            },
            Error::Signature {
                kernel: "k".into(),
                expected: vec!["16-byte struct".into(), "pointer".into(), "f32".into()],
                given: vec!["slice".into(), "buffer".into()],
            },
            Error::Invalid("block (0, 1, 1): every dimension must be positive".into()),
        ];
        let text: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        assert_eq!(
            text,
            [
                "no CUDA driver: libcuda.so could not be loaded (is an NVIDIA driver installed?)",
                "k.ptx: not found",
                "no kernel `x` in the module (its PTX declares no entry point)",
                "k takes (16-byte struct, pointer, f32), given (slice, buffer)",
                "block (0, 1, 1): every dimension must be positive",
            ]
        );
    }
}
