//! Kernel launches: the crate's only `unsafe` code. A launch is unsafe by
//! nature: the PTX's parameter list says nothing of what its pointers must
//! point to, so nothing here can check that a kernel stays within its
//! buffers. [`Launch::launch`] is therefore an `unsafe fn` whose contract
//! the caller states; a typed wrapper per kernel (one function that checks
//! the kernel's own conditions, then launches) is the safe layer on top.
//! The other `unsafe` use here is the probe for the driver library.
#![allow(unsafe_code)]

use cudarc::driver::{CudaSlice, DeviceRepr, LaunchArgs, LaunchConfig, PushKernelArg};

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
    /// The byte size of each argument, for the check against the PTX.
    sizes: Vec<usize>,
}

impl std::fmt::Debug for Launch<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Launch")
            .field("kernel", &self.kernel.name)
            .field("grid", &self.grid)
            .field("block", &self.block)
            .field("shared_bytes", &self.shared_bytes)
            .field("arg_bytes", &self.sizes)
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
            sizes: Vec::new(),
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

    /// Bytes of dynamic shared memory per block (default 0).
    pub fn shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// The next argument: a buffer the kernel only reads.
    pub fn arg<T>(mut self, buffer: &'a DeviceBuffer<T>) -> Self {
        self.args.push(Arg::Buffer(&buffer.slice));
        self.sizes.push(std::mem::size_of::<u64>());
        self
    }

    /// The next argument: a buffer the kernel may write.
    pub fn arg_mut<T>(mut self, buffer: &'a mut DeviceBuffer<T>) -> Self {
        self.args.push(Arg::BufferMut(&mut buffer.slice));
        self.sizes.push(std::mem::size_of::<u64>());
        self
    }

    /// The next argument: a scalar, passed by value (its bytes).
    pub fn scalar<T: DeviceRepr + 'a>(mut self, value: T) -> Self {
        self.sizes.push(std::mem::size_of::<T>());
        self.args.push(Arg::Scalar(Box::new(Scalar(value))));
        self
    }

    /// What can be checked without the kernel's source: positive grid and
    /// block dimensions, and (where the PTX declared them) as many
    /// arguments as parameters, each of the parameter's size.
    fn check(&self) -> Result<LaunchConfig, Error> {
        let grid_dim = self.grid.positive("grid")?;
        let block_dim = self.block.positive("block")?;
        if let Some(expected) = self.kernel.param_bytes() {
            if expected != self.sizes.as_slice() {
                return Err(Error::Signature {
                    kernel: self.kernel.name.clone(),
                    expected: expected.to_vec(),
                    given: self.sizes.clone(),
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
    /// kernel shows at the next synchronisation or download). Refused
    /// before reaching the driver ([`Error::Invalid`],
    /// [`Error::Signature`]) when a dimension is 0 or the arguments'
    /// count or sizes differ from the parameters the PTX declares.
    ///
    /// # Safety
    /// The kernel runs with whatever it is given; the caller guarantees:
    /// - the arguments are the kernel's parameters, in order and type: a
    ///   buffer where the kernel takes a pointer to that element type, a
    ///   scalar of the parameter's exact type (the size check above does
    ///   not tell a `u64` from a pointer or an `f32` from a `u32`);
    /// - for these scalars, grid, block and shared memory, every address
    ///   the kernel reads or writes lies within the buffers passed (their
    ///   [`len`](DeviceBuffer::len)), with the alignment the kernel
    ///   assumes (buffers start 256-byte aligned), or in memory the kernel
    ///   owns (shared memory within the bytes given);
    /// - the kernel writes only buffers passed by [`Launch::arg_mut`]
    ///   (the borrow checker then keeps them from being passed twice), and
    ///   no two threads race on one address;
    /// - the buffers were made on this stream's device;
    /// - the kernel terminates and does not trap (a trap leaves the
    ///   context unusable).
    pub unsafe fn launch(self) -> Result<(), Error> {
        let cfg = self.check()?;
        let Launch {
            stream,
            kernel,
            mut args,
            ..
        } = self;
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
            .map_err(|e| Error::driver(format!("launch {}", kernel.name), e))?;
        Ok(())
    }
}
