//! Load PTX on an NVIDIA GPU and launch its kernels: the host side of
//! "your own GPU kernel". A thin layer over [`cudarc`]'s driver API (the
//! driver library is loaded at run time, so this builds and its CPU tests
//! run without CUDA):
//!
//! - [`Device`]: GPU 0 or another ordinal, its default [`Stream`];
//! - [`Module`]: PTX loaded from a file or a string; [`Module::kernel`]
//!   looks a [`Kernel`] up by name, and names the kernels the module has
//!   when it lacks one;
//! - [`DeviceBuffer`]: device memory from a host slice ([`Stream::upload`])
//!   or zeroed ([`Stream::zeros`]), back by [`Stream::download`];
//! - [`Launch`]: grid, block, dynamic shared memory, then the arguments
//!   (buffers and scalars) in the kernel's order, issued by the `unsafe`
//!   [`Launch::launch`] (nothing can check what a kernel does with its
//!   pointers: wrap each kernel in a function that checks its conditions
//!   and launches, and call that);
//! - [`Stream::time`]: the GPU time of a closure's work, by CUDA events.
//!
//! ```no_run
//! use layout_launch::{Device, DeviceBuffer, Error, Kernel, Stream};
//!
//! /// `transpose_f32(src, dst, n)` of layout-kernels: dst = srcᵀ, both n x n
//! /// row-major, n a multiple of 64; grid (n/64, n/64), 256 threads.
//! fn transpose(s: &Stream, k: &Kernel, src: &DeviceBuffer<f32>, dst: &mut DeviceBuffer<f32>, n: usize)
//!     -> Result<(), Error> {
//!     if n == 0 || n % 64 != 0 || src.len() != n * n || dst.len() != n * n {
//!         return Err(Error::Invalid(format!("transpose: n = {n}")));
//!     }
//!     // SAFETY: the kernel's contract: src and dst hold n * n floats
//!     // (checked), distinct, 256-byte aligned.
//!     unsafe {
//!         s.launch(k).grid(Dim3::try_from((n / 64, n / 64))?).block(256)
//!             .arg(src).arg_mut(dst).scalar(n).launch()
//!     }
//! }
//! # use layout_launch::Dim3;
//!
//! fn main() -> Result<(), Error> {
//!     let gpu = Device::new(0)?;
//!     let module = gpu.load_ptx_file("target/ptx/layout_kernels.ptx")?;
//!     let kernel = module.kernel("transpose_f32")?;
//!     let n = 1024;
//!     let x: Vec<f32> = (0..n * n).map(|i| i as f32).collect();
//!     let stream = gpu.stream();
//!     let src = stream.upload(&x)?;
//!     let mut dst = stream.zeros::<f32>(n * n)?;
//!     let ms = stream.time(|| transpose(stream, &kernel, &src, &mut dst, n))?;
//!     let y = stream.download(&dst)?;
//!     assert_eq!(y[1], x[n]);
//!     println!("{ms:.3} ms");
//!     Ok(())
//! }
//! ```

mod device;
mod dim;
mod error;
mod launch;
mod ptx;
mod tma;

pub use device::{cubin_beside, Device, DeviceBuffer, Kernel, Module, Stream};
pub use dim::Dim3;
pub use error::Error;
pub use launch::Launch;
pub use ptx::{entry_points, EntryPoint, Param, ParamKind};
pub use tma::{tma_shape, TensorMap, TmaElement, TmaShape, TmaSwizzle};

/// The cudarc crate this one wraps (its driver API), for what is not
/// wrapped here.
pub use cudarc;
/// Types that can be a scalar kernel argument or a buffer element
/// (cudarc's; `unsafe` to implement: the type must be plain data with the
/// kernel's layout, `#[repr(C)]` for a struct).
pub use cudarc::driver::DeviceRepr;
/// Element types for which all-zero bytes are a valid value
/// ([`Stream::zeros`]).
pub use cudarc::driver::ValidAsZeroBits;

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the driver library is missing (this crate's CI), opening a
    /// device is an error, not cudarc's panic; where a GPU is, it opens.
    #[test]
    fn opening_a_device_without_a_driver_is_an_error() {
        match Device::new(0) {
            Ok(gpu) => assert_eq!(gpu.ordinal(), 0),
            Err(Error::NoDriver) => assert!(matches!(Device::count(), Err(Error::NoDriver))),
            Err(e) => assert!(!e.to_string().contains('\n'), "{e}"),
        }
    }
}
