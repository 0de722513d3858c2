//! `layout-ptx`: builds a crate's GPU kernels to PTX for an NVIDIA GPU,
//! adds the launch bounds its source declares, checks each kernel, and
//! compiles the PTX with ptxas.
//!
//! - [`decl`]: the declarations read from the crate's source (launch
//!   bounds, no division, expected instruction counts);
//! - [`ptx`]: the PTX's kernels, the launch-bounds patch, the checks, and
//!   ptxas's report;
//! - [`toolchain`]: Debian's `rustc-web` and ptxas, installed when missing.

pub mod decl;
pub mod ptx;
pub mod toolchain;
