//! Kernel launches: the crate's only `unsafe` code. A launch is unsafe by
//! nature: the PTX's parameter list says nothing of what its pointers must
//! point to, so nothing here can check that a kernel stays within its
//! buffers. [`Launch::launch`] is therefore an `unsafe fn` whose contract
//! the caller states; a typed wrapper per kernel (one function that checks
//! the kernel's own conditions, then launches) is the safe layer on top.
//! The other `unsafe` use here is the probe for the driver library.
#![allow(unsafe_code)]

use cudarc::driver::{
    CudaSlice, DevicePtr, DevicePtrMut, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg,
};

use crate::ptx::{Param, ParamKind};
use crate::{DeviceBuffer, Dim3, Error, Kernel, Stream};

/// Whether the CUDA driver library can be loaded (cudarc's loader panics
/// where it cannot).
pub(crate) fn driver_present() -> bool {
    // SAFETY: cudarc's contract for `is_culib_present`: loading the driver
    // library runs its initialisers, which is what any first driver call
    // does anyway; the probe keeps no handle and touches no state of ours.
    unsafe { cudarc::driver::sys::is_culib_present() }
}

/// An argument pushed by reference to a read-only buffer or owned scalar.
trait PushRef {
    fn push<'s>(&'s self, args: &mut LaunchArgs<'s>);
}

/// An argument pushed by mutable reference (a buffer the kernel writes).
trait PushMut {
    fn push_mut<'s>(&'s mut self, args: &mut LaunchArgs<'s>);
}

impl<T> PushRef for CudaSlice<T> {
    fn push<'s>(&'s self, args: &mut LaunchArgs<'s>) {
        args.arg(self);
    }
}

impl<T> PushMut for CudaSlice<T> {
    fn push_mut<'s>(&'s mut self, args: &mut LaunchArgs<'s>) {
        args.arg(self);
    }
}

/// A scalar argument, owned by the builder until the launch.
struct Scalar<T>(T);

impl<T: DeviceRepr> PushRef for Scalar<T> {
    fn push<'s>(&'s self, args: &mut LaunchArgs<'s>) {
        args.arg(&self.0);
    }
}

enum Arg<'a> {
    Buffer(&'a dyn PushRef),
    BufferMut(&'a mut dyn PushMut),
    Scalar(Box<dyn PushRef + 'a>),
}

/// One kernel launch being put together: grid, block, dynamic shared
/// memory, then the arguments in the order of the kernel's parameters;
/// [`Launch::launch`] issues it on the stream. Made by
/// [`Stream::launch`].
///
/// A buffer argument passes the buffer's device address (a `.u64`
/// parameter, `*const T` / `*mut T` in a Rust kernel); a scalar passes its
/// bytes (`usize` and `u64` a `.u64`, `u32` and `f32` a `.u32` / `.f32`).
///
/// ```no_run
/// use layout_launch::{Device, Error};
///
/// // y[i] = x[i] for i < n, one thread per element.
/// const PTX: &str = ".version 7.0\n.target sm_70\n.address_size 64\n\
///     .visible .entry copy(.param .u64 x, .param .u64 y, .param .u32 n)\n{\n\
///     .reg .b32 %r<5>;\n.reg .b64 %rd<6>;\n.reg .pred %p;\n\
///     mov.u32 %r1, %ctaid.x;\nmov.u32 %r2, %ntid.x;\nmov.u32 %r3, %tid.x;\n\
///     mad.lo.s32 %r1, %r1, %r2, %r3;\nld.param.u32 %r4, [n];\n\
///     setp.ge.u32 %p, %r1, %r4;\n@%p bra done;\n\
///     ld.param.u64 %rd1, [x];\nld.param.u64 %rd2, [y];\n\
///     mul.wide.u32 %rd3, %r1, 4;\nadd.s64 %rd4, %rd1, %rd3;\nadd.s64 %rd5, %rd2, %rd3;\n\
///     ld.global.f32 %r2, [%rd4];\nst.global.f32 [%rd5], %r2;\ndone:\nret;\n}\n";
///
/// /// The safe layer: `copy`'s conditions, checked, then the launch.
/// fn copy(stream: &layout_launch::Stream, k: &layout_launch::Kernel,
///         x: &layout_launch::DeviceBuffer<f32>, y: &mut layout_launch::DeviceBuffer<f32>) -> Result<(), Error> {
///     let n = u32::try_from(x.len()).map_err(|_| Error::Invalid("too long".into()))?;
///     if y.len() != x.len() {
///         return Err(Error::Invalid("x and y differ in length".into()));
///     }
///     // SAFETY: `copy` takes (x, y, n) and reads x[0..n], writes y[0..n]:
///     // both hold n floats (checked), y is the one written.
///     unsafe {
///         stream.launch(k).grid(n.div_ceil(256)).block(256).arg(x).arg_mut(y).scalar(n).launch()
///     }
/// }
///
/// # fn main() -> Result<(), Error> {
/// let gpu = Device::new(0)?;
/// let kernel = gpu.load_ptx(PTX)?.kernel("copy")?;
/// let x = gpu.stream().upload(&vec![1.5f32; 1000])?;
/// let mut y = gpu.stream().zeros::<f32>(1000)?;
/// copy(gpu.stream(), &kernel, &x, &mut y)?;
/// assert_eq!(gpu.stream().download(&y)?, vec![1.5f32; 1000]);
/// # Ok(())
/// # }
/// ```
#[must_use = "a launch does nothing until `.launch()`"]
pub struct Launch<'a> {
    stream: &'a Stream,
    kernel: &'a Kernel,
    grid: Dim3,
    block: Dim3,
    shared_bytes: u32,
    args: Vec<Arg<'a>>,
    /// What each argument is, for the check against the PTX.
    given: Vec<Given>,
}

/// What an argument is, as far as the check against the kernel's
/// parameters goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Given {
    /// A buffer's device address (8 bytes).
    Buffer,
    /// A buffer's address and length (a 16-byte struct).
    Slice,
    /// An integer scalar of this many bytes.
    Int(usize),
    /// A float scalar of this many bytes.
    Float(usize),
    /// Another scalar (a struct) of this many bytes.
    Other(usize),
}

impl Given {
    fn describe(self) -> String {
        match self {
            Given::Buffer => "buffer".into(),
            Given::Slice => "slice".into(),
            Given::Int(b) => format!("u{}", 8 * b),
            Given::Float(b) => format!("f{}", 8 * b),
            Given::Other(b) => format!("{b}-byte value"),
        }
    }

    /// Whether this argument can be passed for the parameter `p`.
    fn fits(self, p: &Param) -> bool {
        match self {
            // nvcc's PTX does not mark pointers: a plain `.u64` takes one too.
            Given::Buffer => p.bytes == 8 && matches!(p.kind, ParamKind::Pointer | ParamKind::Int),
            Given::Slice => p.bytes == SLICE_BYTES && p.kind == ParamKind::Bytes,
            Given::Int(b) => p.bytes == b && p.kind == ParamKind::Int,
            Given::Float(b) => p.bytes == b && p.kind == ParamKind::Float,
            Given::Other(b) => p.bytes == b && p.kind != ParamKind::Pointer,
        }
    }

    /// The kind of a scalar of type `T`.
    fn scalar<T: 'static>() -> Given {
        use std::any::TypeId;
        let t = TypeId::of::<T>();
        let bytes = std::mem::size_of::<T>();
        let ints = [
            TypeId::of::<u8>(),
            TypeId::of::<i8>(),
            TypeId::of::<u16>(),
            TypeId::of::<i16>(),
            TypeId::of::<u32>(),
            TypeId::of::<i32>(),
            TypeId::of::<u64>(),
            TypeId::of::<i64>(),
            TypeId::of::<usize>(),
            TypeId::of::<isize>(),
        ];
        if ints.contains(&t) {
            Given::Int(bytes)
        } else if t == TypeId::of::<f32>() || t == TypeId::of::<f64>() {
            Given::Float(bytes)
        } else {
            Given::Other(bytes)
        }
    }
}

/// A buffer passed as a slice: what `layout_device::Global<T>` and
/// `GlobalMut<T>` are in a kernel (`#[repr(C)]`, a pointer and a `usize`).
#[repr(C)]
#[derive(Clone, Copy)]
struct SliceArg {
    ptr: u64,
    len: u64,
}

const SLICE_BYTES: usize = std::mem::size_of::<SliceArg>();

// SAFETY: plain data, `#[repr(C)]`, the layout of the kernel's parameter.
unsafe impl DeviceRepr for SliceArg {}

impl std::fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let given: Vec<String> = self.given.iter().map(|g| g.describe()).collect();
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.name)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("shared_bytes", &self.shared_bytes)
            .field("args", &given)
            .finish()
    }
}

impl<'a> Launch<'a> {
    pub(crate) fn new(stream: &'a Stream, kernel: &'a Kernel) -> Self {
        Launch {
            stream,
            kernel,
            grid: Dim3::from(1),
            block: Dim3::from(1),
            shared_bytes: 0,
            args: Vec::new(),
            given: Vec::new(),
        }
    }

    /// The grid, in blocks (default 1).
    pub fn grid(mut self, grid: impl Into<Dim3>) -> Self {
        self.grid = grid.into();
        self
    }

    /// The block, in threads (default 1).
    pub fn block(mut self, block: impl Into<Dim3>) -> Self {
        self.block = block.into();
        self
    }

    /// Bytes of dynamic shared memory per block (default 0). Above 48 KiB
    /// the launch opts the kernel in (the driver's
    /// `MAX_DYNAMIC_SHARED_SIZE_BYTES` attribute); the GPU's limit (227 KiB
    /// on an H100 or H200) is the driver's to enforce.
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// The next argument: a buffer the kernel only reads, as its device
    /// address (a `*const T` parameter).
    pub fn arg<T>(mut self, buffer: &'a DeviceBuffer<T>) -> Self {
        self.args.push(Arg::Buffer(&buffer.slice));
        self.given.push(Given::Buffer);
        self
    }

    /// The next argument: a buffer the kernel may write, as its device
    /// address (a `*mut T` parameter).
    pub fn arg_mut<T>(mut self, buffer: &'a mut DeviceBuffer<T>) -> Self {
        self.args.push(Arg::BufferMut(&mut buffer.slice));
        self.given.push(Given::Buffer);
        self
    }

    /// The next argument: a buffer the kernel only reads, as its address
    /// and length (a `layout_device::Global<T>` parameter, whose every
    /// access the kernel checks against the length).
    pub fn slice<T>(mut self, buffer: &'a DeviceBuffer<T>) -> Self {
        let (ptr, _read) = buffer.slice.device_ptr(self.stream.cuda_stream());
        self.push_slice(ptr, buffer.len());
        self
    }

    /// The next argument: a buffer the kernel may write, as its address
    /// and length (a `layout_device::GlobalMut<T>` parameter).
    pub fn slice_mut<T>(mut self, buffer: &'a mut DeviceBuffer<T>) -> Self {
        let len = buffer.len();
        let (ptr, _write) = buffer.slice.device_ptr_mut(self.stream.cuda_stream());
        self.push_slice(ptr, len);
        self
    }

    fn push_slice(&mut self, ptr: u64, len: usize) {
        self.args.push(Arg::Scalar(Box::new(Scalar(SliceArg {
            ptr,
            len: len as u64,
        }))));
        self.given.push(Given::Slice);
    }

    /// The next argument: a null pointer, for a `*const T` / `*mut T`
    /// parameter the kernel reads as "no buffer" (an optional output).
    pub fn null(mut self) -> Self {
        self.args.push(Arg::Scalar(Box::new(Scalar(0u64))));
        self.given.push(Given::Buffer);
        self
    }

    /// The next argument: a scalar, passed by value (its bytes).
    pub fn scalar<T: DeviceRepr + 'static>(mut self, value: T) -> Self {
        self.given.push(Given::scalar::<T>());
        self.args.push(Arg::Scalar(Box::new(Scalar(value))));
        self
    }

    /// What can be checked without the kernel's source: positive grid and
    /// block dimensions, and (where the PTX declared them) as many
    /// arguments as parameters, each of the parameter's kind and size.
    fn check(&self) -> Result<LaunchConfig, Error> {
        let grid_dim = self.grid.positive("grid")?;
        let block_dim = self.block.positive("block")?;
        if let Some(expected) = self.kernel.params() {
            let fits = expected.len() == self.given.len()
                && expected.iter().zip(&self.given).all(|(p, g)| g.fits(p));
            if !fits {
                return Err(Error::Signature {
                    kernel: self.kernel.name.to_string(),
                    expected: expected.iter().map(Param::describe).collect(),
                    given: self.given.iter().map(|g| g.describe()).collect(),
                });
            }
        }
        Ok(LaunchConfig {
            grid_dim,
            block_dim,
            shared_mem_bytes: self.shared_bytes,
        })
    }

    /// Issues the launch on the stream (asynchronously: a fault inside the
    /// kernel, or a device-side check that traps, shows at the next
    /// synchronisation or download as [`Error::KernelFailed`], naming the
    /// kernel). Refused before reaching the driver ([`Error::Invalid`],
    /// [`Error::Signature`]) when a dimension is 0 or the arguments differ
    /// from the parameters the PTX declares in count, size or kind (a
    /// buffer for a pointer, a slice for a 16-byte struct, an integer or
    /// float scalar for an integer or float of its size).
    ///
    /// # Safety
    /// The kernel runs with whatever it is given; the caller guarantees:
    /// - the arguments are the kernel's parameters, in order and type: a
    ///   buffer where the kernel takes a pointer to that element type, a
    ///   slice where it takes a `layout_device::Global<T>` or
    ///   `GlobalMut<T>` of that `T`, a scalar of the parameter's exact type
    ///   (the check above does not tell an `f32` buffer from a `u16` one,
    ///   nor a `u64` from an `i64`);
    /// - for these scalars, grid, block and shared memory, every address
    ///   the kernel reads or writes lies within the buffers passed (their
    ///   [`len`](DeviceBuffer::len)), with the alignment the kernel
    ///   assumes (buffers start 256-byte aligned), or in memory the kernel
    ///   owns (shared memory within the bytes given). A kernel that takes
    ///   its buffers as slices and reads them through `layout_device`
    ///   checks this itself, access by access (it traps instead);
    /// - the kernel writes only buffers passed by [`Launch::arg_mut`] or
    ///   [`Launch::slice_mut`] (the borrow checker then keeps them from
    ///   being passed twice), and no two threads race on one address;
    /// - the buffers were made on this stream's device;
    /// - the kernel terminates.
    pub unsafe fn launch(self) -> Result<(), Error> {
        let cfg = self.check()?;
        let Launch {
            stream,
            kernel,
            mut args,
            ..
        } = self;
        // Above 48 KiB of dynamic shared memory a kernel must opt in (once
        // for this size or a larger one).
        if shared_needs_opt_in(cfg.shared_mem_bytes) {
            let mut allowed = kernel
                .shared_allowed
                .lock()
                .unwrap_or_else(|p| p.into_inner());
            if *allowed < cfg.shared_mem_bytes {
                use cudarc::driver::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_DYNAMIC;
                let bytes = cfg.shared_mem_bytes;
                kernel
                    .function
                    .set_attribute(MAX_DYNAMIC, bytes as i32)
                    .map_err(|e| {
                        let what =
                            format!("allow {bytes} bytes of shared memory for {}", kernel.name);
                        stream.failed(what, e)
                    })?;
                *allowed = bytes;
            }
        }
        let mut builder = stream.cuda_stream().launch_builder(&kernel.function);
        for arg in args.iter_mut() {
            match arg {
                Arg::Buffer(b) => b.push(&mut builder),
                Arg::BufferMut(b) => b.push_mut(&mut builder),
                Arg::Scalar(s) => s.push(&mut builder),
            }
        }
        // SAFETY: the caller's contract above, which is cudarc's for
        // `LaunchArgs::launch` (arguments matching the kernel's parameters,
        // accesses within the buffers, writes only where passed mutably);
        // every pushed reference lives in `args` or the caller's borrows,
        // both alive until this call returns.
        unsafe { builder.launch(cfg) }
            .map_err(|e| stream.failed(format!("launch {}", kernel.name), e))?;
        stream.launched(&kernel.name);
        Ok(())
    }
}

/// Whether a launch's dynamic shared memory needs the kernel's opt-in
/// (more than the 48 KiB every kernel may use).
fn shared_needs_opt_in(bytes: u32) -> bool {
    bytes > 48 * 1024
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(bytes: usize, kind: ParamKind) -> Param {
        Param { bytes, kind }
    }

    /// Each kind of argument goes only where the PTX declares a parameter
    /// of that kind and size.
    #[test]
    fn arguments_fit_only_parameters_of_their_kind() {
        use ParamKind::*;
        let (ptr, u64_, u32_, f32_, s16) = (
            p(8, Pointer),
            p(8, Int),
            p(4, Int),
            p(4, Float),
            p(16, Bytes),
        );
        assert!(Given::Buffer.fits(&ptr) && Given::Buffer.fits(&u64_));
        // A null pointer (`Launch::null`) is a buffer's address, 0: it fits
        // a pointer, where a u64 scalar does not.
        assert!(!Given::scalar::<u64>().fits(&ptr));
        assert!(!Given::Buffer.fits(&s16) && !Given::Buffer.fits(&u32_));
        assert!(
            Given::Slice.fits(&s16)
                && !Given::Slice.fits(&ptr)
                && !Given::Slice.fits(&p(24, Bytes))
        );
        let usize_ = Given::scalar::<usize>();
        assert!(usize_.fits(&u64_) && !usize_.fits(&ptr) && !usize_.fits(&s16));
        let f = Given::scalar::<f32>();
        assert!(f.fits(&f32_) && !f.fits(&u32_));
        assert!(Given::scalar::<u32>().fits(&u32_) && !Given::scalar::<u32>().fits(&f32_));
        // A struct of 16 bytes passed by value fits a 16-byte parameter,
        // never a pointer.
        let other = Given::Other(16);
        assert!(other.fits(&s16) && !Given::Other(8).fits(&ptr));
        assert_eq!(Given::scalar::<[u64; 2]>(), Given::Other(16));
        assert_eq!(SLICE_BYTES, 16);
    }
}
