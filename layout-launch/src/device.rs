//! The device, its streams, modules, kernels and buffers: all safe; the
//! launch itself is in [`crate::launch`].

use std::fmt;
use std::path::Path;
use std::sync::{Arc, Mutex};

use cudarc::driver::sys::{CUevent_flags, CUresult};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DeviceRepr, DriverError,
    ValidAsZeroBits,
};
use cudarc::nvrtc::Ptx;

use crate::ptx::{entry_points, EntryPoint, Param};
use crate::{Error, Launch};

/// One GPU: the primary CUDA context of its ordinal and a default
/// [`Stream`] that loads, copies and launches.
///
/// ```no_run
/// # fn main() -> Result<(), layout_launch::Error> {
/// let gpu = layout_launch::Device::new(0)?;
/// let (major, minor) = gpu.compute_capability()?;
/// println!("{}, compute capability {major}.{minor}", gpu.name()?);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Device {
    ctx: Arc<CudaContext>,
    stream: Stream,
}

impl Device {
    /// Opens GPU `ordinal` (0 for the first). [`Error::NoDriver`] where
    /// the CUDA driver library cannot be loaded (rather than the panic of
    /// cudarc's loader).
    pub fn new(ordinal: usize) -> Result<Self, Error> {
        if !crate::launch::driver_present() {
            return Err(Error::NoDriver);
        }
        let ctx = CudaContext::new(ordinal)
            .map_err(|e| Error::driver(format!("open GPU {ordinal}"), e))?;
        let stream = Stream::new(ctx.default_stream());
        Ok(Device { ctx, stream })
    }

    /// How many GPUs the driver sees.
    pub fn count() -> Result<usize, Error> {
        if !crate::launch::driver_present() {
            return Err(Error::NoDriver);
        }
        let n = CudaContext::device_count().map_err(|e| Error::driver("count GPUs", e))?;
        Ok(usize::try_from(n).unwrap_or(0))
    }

    /// This GPU's ordinal.
    pub fn ordinal(&self) -> usize {
        self.ctx.ordinal()
    }

    /// The GPU's name ("NVIDIA H200").
    pub fn name(&self) -> Result<String, Error> {
        self.ctx
            .name()
            .map_err(|e| Error::driver("read the GPU's name", e))
    }

    /// The GPU's compute capability, (major, minor): (9, 0) for sm_90.
    pub fn compute_capability(&self) -> Result<(i32, i32), Error> {
        self.ctx
            .compute_capability()
            .map_err(|e| Error::driver("read the compute capability", e))
    }

    /// The GPU's streaming multiprocessors (132 on an H200): the grid of a
    /// persistent kernel, one block per SM.
    pub fn sm_count(&self) -> Result<u32, Error> {
        self.stream.sm_count()
    }

    /// The default stream (the context's null stream).
    pub fn stream(&self) -> &Stream {
        &self.stream
    }

    /// A new stream of this GPU, ordered independently of the default one.
    pub fn new_stream(&self) -> Result<Stream, Error> {
        let inner = self
            .ctx
            .new_stream()
            .map_err(|e| Error::driver("create a stream", e))?;
        Ok(Stream::new(inner))
    }

    /// Loads PTX text as a module (the driver JIT-compiles it for this
    /// GPU).
    pub fn load_ptx(&self, ptx: &str) -> Result<Module, Error> {
        if ptx.contains('\0') {
            return Err(Error::Invalid("the PTX text contains a NUL byte".into()));
        }
        let inner = self
            .ctx
            .load_module(Ptx::from_src(ptx))
            .map_err(|e| Error::driver("load the PTX module", e))?;
        Ok(Module {
            inner,
            entries: entry_points(ptx),
            kernels: Arc::default(),
        })
    }

    /// Reads a `.ptx` file and loads it ([`Device::load_ptx`]). Where
    /// ptxas's code for this GPU lies beside it, as `layout-ptx` writes it
    /// (`NAME.sm_90.cubin` or `NAME.sm_90a.cubin` beside `NAME.ptx`, see
    /// [`cubin_beside`]) and is no older than the PTX, the driver loads
    /// that code instead of compiling the PTX again (seconds a module);
    /// the entry points are still read from the PTX, and a cubin the
    /// driver refuses falls back to the PTX.
    pub fn load_ptx_file(&self, path: impl AsRef<Path>) -> Result<Module, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|error| Error::Io {
            path: path.to_path_buf(),
            error,
        })?;
        if let Some(cubin) = self
            .compute_capability()
            .ok()
            .and_then(|c| cubin_beside(path, c))
        {
            if let Ok(image) = std::fs::read(&cubin) {
                if let Ok(inner) = self.ctx.load_module(Ptx::from_binary(image)) {
                    return Ok(Module {
                        inner,
                        entries: entry_points(&text),
                        kernels: Arc::default(),
                    });
                }
            }
        }
        self.load_ptx(&text).map_err(|e| match e {
            Error::Driver { error, .. } => {
                Error::driver(format!("load the PTX module {}", path.display()), error)
            }
            e => e,
        })
    }

    /// Waits for all work on this GPU to finish (a kernel's failure names
    /// the kernels launched on the default stream since its last
    /// synchronisation).
    pub fn synchronize(&self) -> Result<(), Error> {
        self.ctx
            .synchronize()
            .map_err(|e| self.stream.failed("synchronize the GPU", e))
    }

    /// The cudarc context, for what this crate does not wrap.
    pub fn cuda_context(&self) -> &Arc<CudaContext> {
        &self.ctx
    }
}

/// The cubin ptxas built from the PTX file `ptx` for compute capability
/// `(major, minor)`, where one lies beside it no older than the PTX:
/// `NAME.sm_{major}{minor}a.cubin` (the architecture-specific form, which
/// `layout-ptx --arch sm_90a` writes), else `NAME.sm_{major}{minor}.cubin`.
/// A cubin older than the PTX is left alone (it was built from other
/// text).
///
/// ```
/// # fn main() -> std::io::Result<()> {
/// let dir = std::env::temp_dir().join("layout-launch-cubin-doc");
/// std::fs::create_dir_all(&dir)?;
/// let ptx = dir.join("k.ptx");
/// std::fs::write(&ptx, "// ptx")?;
/// assert_eq!(layout_launch::cubin_beside(&ptx, (9, 0)), None);
/// std::fs::write(dir.join("k.sm_90.cubin"), [0u8])?; // written after the PTX
/// assert_eq!(layout_launch::cubin_beside(&ptx, (9, 0)), Some(dir.join("k.sm_90.cubin")));
/// assert_eq!(layout_launch::cubin_beside(&ptx, (8, 0)), None);
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok(())
/// # }
/// ```
pub fn cubin_beside(ptx: &Path, (major, minor): (i32, i32)) -> Option<std::path::PathBuf> {
    let stem = ptx.file_stem()?.to_str()?;
    let dir = ptx.parent()?;
    let built = std::fs::metadata(ptx).ok()?.modified().ok()?;
    [
        format!("{stem}.sm_{major}{minor}a.cubin"),
        format!("{stem}.sm_{major}{minor}.cubin"),
    ]
    .into_iter()
    .map(|name| dir.join(name))
    .find(|c| {
        std::fs::metadata(c)
            .and_then(|m| m.modified())
            .is_ok_and(|t| t >= built)
    })
}

/// A CUDA stream: copies, launches and timings on it run in the order they
/// are issued, asynchronously to the host until [`Stream::synchronize`] or
/// a download.
///
/// ```no_run
/// # fn main() -> Result<(), layout_launch::Error> {
/// let gpu = layout_launch::Device::new(0)?;
/// let stream = gpu.stream();
/// let x = stream.upload(&[1.0f32, 2.0, 3.0])?;
/// let mut y = stream.zeros::<f32>(3)?;
/// let ms = stream.time(|| stream.copy(&x, &mut y))?;
/// assert_eq!(stream.download(&y)?, [1.0, 2.0, 3.0]);
/// println!("copied in {ms} ms");
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Stream {
    inner: Arc<CudaStream>,
    /// The kernels launched since the last synchronisation that succeeded:
    /// the ones to name when a later call reports that one failed.
    pending: Arc<Mutex<Vec<String>>>,
}

impl Stream {
    pub(crate) fn new(inner: Arc<CudaStream>) -> Self {
        Stream {
            inner,
            pending: Arc::default(),
        }
    }

    /// A launch of `kernel` on this stream, to be given its grid, block,
    /// shared memory and arguments ([`Launch`]).
    pub fn launch<'a>(&'a self, kernel: &'a Kernel) -> Launch<'a> {
        Launch::new(self, kernel)
    }

    /// A new device buffer holding a copy of `host`.
    pub fn upload<T: DeviceRepr>(&self, host: &[T]) -> Result<DeviceBuffer<T>, Error> {
        let slice = self
            .inner
            .clone_htod(host)
            .map_err(|e| self.failed(format!("copy {} elements to the GPU", host.len()), e))?;
        Ok(DeviceBuffer { slice })
    }

    /// A new device buffer of `len` zeros.
    pub fn zeros<T: DeviceRepr + ValidAsZeroBits>(
        &self,
        len: usize,
    ) -> Result<DeviceBuffer<T>, Error> {
        let slice = self
            .inner
            .alloc_zeros(len)
            .map_err(|e| self.failed(format!("allocate {len} elements on the GPU"), e))?;
        Ok(DeviceBuffer { slice })
    }

    /// The buffer's contents, copied back to the host once the work issued
    /// before on this stream is done.
    pub fn download<T: DeviceRepr>(&self, buffer: &DeviceBuffer<T>) -> Result<Vec<T>, Error> {
        let host = self
            .inner
            .clone_dtoh(&buffer.slice)
            .map_err(|e| self.failed(format!("copy {} elements from the GPU", buffer.len()), e))?;
        self.done();
        Ok(host)
    }

    /// Copies `src` into `dst` on the device; both hold the same number of
    /// elements ([`Error::Invalid`] otherwise).
    pub fn copy<T>(&self, src: &DeviceBuffer<T>, dst: &mut DeviceBuffer<T>) -> Result<(), Error> {
        if src.len() != dst.len() {
            return Err(Error::Invalid(format!(
                "copy of {} elements into a buffer of {}",
                src.len(),
                dst.len()
            )));
        }
        self.inner
            .memcpy_dtod(&src.slice, &mut dst.slice)
            .map_err(|e| self.failed("copy on the GPU", e))
    }

    /// Waits for the work issued on this stream to finish.
    pub fn synchronize(&self) -> Result<(), Error> {
        self.inner
            .synchronize()
            .map_err(|e| self.failed("synchronize the stream", e))?;
        self.done();
        Ok(())
    }

    /// Milliseconds of GPU time that the work `f` issues on this stream
    /// takes, measured by two CUDA events recorded before and after `f`
    /// runs (waits for the second). `f`'s own errors pass through.
    pub fn time<E: From<Error>>(&self, f: impl FnOnce() -> Result<(), E>) -> Result<f32, E> {
        let ctx = self.inner.context();
        let event = || {
            ctx.new_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| self.failed("create a CUDA event", e))
        };
        let (start, end) = (event()?, event()?);
        start
            .record(&self.inner)
            .map_err(|e| self.failed("record a CUDA event", e))?;
        f()?;
        end.record(&self.inner)
            .map_err(|e| self.failed("record a CUDA event", e))?;
        end.synchronize()
            .map_err(|e| self.failed("wait for the timed work", e))?;
        self.done();
        Ok(start
            .elapsed_ms(&end)
            .map_err(|e| self.failed("read the elapsed time", e))?)
    }

    /// Records a launch issued on this stream.
    pub(crate) fn launched(&self, kernel: &str) {
        let mut pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        // The names, once each, in launch order (a loop of launches of one
        // kernel names it once).
        if !pending.iter().any(|k| k == kernel) {
            pending.push(kernel.to_string());
        }
    }

    /// The work issued so far finished without an error.
    fn done(&self) {
        self.pending
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clear();
    }

    /// The error of a failed driver call: [`Error::KernelFailed`], naming
    /// the kernels launched since the last successful synchronisation,
    /// when the driver reports that a kernel failed (a trap, a fault);
    /// [`Error::Driver`] otherwise.
    pub(crate) fn failed(&self, during: impl Into<String>, error: DriverError) -> Error {
        use CUresult::*;
        let kernel_error = matches!(
            error.0,
            CUDA_ERROR_LAUNCH_FAILED
                | CUDA_ERROR_ILLEGAL_INSTRUCTION
                | CUDA_ERROR_ILLEGAL_ADDRESS
                | CUDA_ERROR_MISALIGNED_ADDRESS
                | CUDA_ERROR_INVALID_ADDRESS_SPACE
                | CUDA_ERROR_INVALID_PC
                | CUDA_ERROR_HARDWARE_STACK_ERROR
                | CUDA_ERROR_ASSERT
                | CUDA_ERROR_LAUNCH_TIMEOUT
        );
        let pending = self.pending.lock().unwrap_or_else(|p| p.into_inner());
        if kernel_error && !pending.is_empty() {
            Error::KernelFailed {
                kernels: pending.clone(),
                error,
            }
        } else {
            Error::driver(during, error)
        }
    }

    /// The cudarc stream, for what this crate does not wrap.
    pub fn cuda_stream(&self) -> &Arc<CudaStream> {
        &self.inner
    }

    /// The streaming multiprocessors of the stream's GPU (as
    /// [`Device::sm_count`]).
    pub fn sm_count(&self) -> Result<u32, Error> {
        self.inner
            .context()
            .attribute(
                cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
            )
            .map(|n| n.max(1) as u32)
            .map_err(|e| Error::driver("read the SM count", e))
    }
}

/// A loaded PTX module: its kernels, looked up by name.
///
/// ```no_run
/// # fn main() -> Result<(), layout_launch::Error> {
/// let gpu = layout_launch::Device::new(0)?;
/// let module = gpu.load_ptx_file("target/ptx/layout_kernels.ptx")?;
/// println!("kernels: {:?}", module.kernel_names());
/// let sgemm = module.kernel("sgemm_f32")?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Module {
    inner: Arc<CudaModule>,
    entries: Vec<EntryPoint>,
    /// The kernels looked up so far (clones share them, and with them the
    /// driver's function handle and its shared-memory opt-in).
    kernels: Arc<Mutex<Vec<Kernel>>>,
}

impl fmt::Debug for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Module")
            .field("kernels", &self.kernel_names())
            .finish_non_exhaustive()
    }
}

impl Module {
    /// The kernel `name`; [`Error::NoKernel`], naming the kernels the
    /// module's PTX declares, when the module has none of that name.
    pub fn kernel(&self, name: &str) -> Result<Kernel, Error> {
        let mut kernels = self.kernels.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = kernels.iter().find(|k| &*k.name == name) {
            return Ok(k.clone());
        }
        let missing = || Error::NoKernel {
            name: name.to_string(),
            available: self.kernel_names().iter().map(|n| n.to_string()).collect(),
        };
        if name.contains('\0') {
            return Err(missing());
        }
        let function = self.inner.load_function(name).map_err(|e| {
            if e.0 == CUresult::CUDA_ERROR_NOT_FOUND {
                missing()
            } else {
                Error::driver(format!("look up kernel {name}"), e)
            }
        })?;
        let params = self
            .entries
            .iter()
            .find(|e| e.name == name)
            .and_then(|e| e.params.as_deref().map(Arc::from));
        let kernel = Kernel {
            name: Arc::from(name),
            function,
            params,
            shared_allowed: Arc::default(),
        };
        kernels.push(kernel.clone());
        Ok(kernel)
    }

    /// The names of the kernels the module's PTX declares, in its order.
    pub fn kernel_names(&self) -> Vec<&str> {
        self.entries.iter().map(|e| e.name.as_str()).collect()
    }

    /// The entry points the module's PTX declares, with their parameters'
    /// sizes.
    pub fn entry_points(&self) -> &[EntryPoint] {
        &self.entries
    }
}

/// One kernel of a [`Module`], ready to launch ([`Stream::launch`]).
///
/// ```no_run
/// # fn main() -> Result<(), layout_launch::Error> {
/// let gpu = layout_launch::Device::new(0)?;
/// let kernel = gpu.load_ptx_file("kernels.ptx")?.kernel("transpose_f32")?;
/// assert_eq!(kernel.name(), "transpose_f32");
/// assert_eq!(kernel.param_bytes(), Some(vec![8, 8, 8]));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Kernel {
    // (Shared: a clone, made at every `Module::kernel`, allocates nothing.)
    pub(crate) name: Arc<str>,
    pub(crate) function: CudaFunction,
    pub(crate) params: Option<Arc<[Param]>>,
    /// The dynamic shared memory (bytes) the function has been allowed
    /// past the default 48 KiB, 0 before: the opt-in is a driver call, made
    /// once per size rather than at every launch (clones share it, as they
    /// share the function; the lock keeps the driver's value and this one
    /// the same when threads opt in at once).
    pub(crate) shared_allowed: Arc<Mutex<u32>>,
}

impl fmt::Debug for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Kernel")
            .field("name", &self.name)
            .field("params", &self.params)
            .finish_non_exhaustive()
    }
}

impl Kernel {
    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The byte size of each parameter, as the PTX declares them; `None`
    /// when the PTX text did not say (then launches are not checked).
    pub fn param_bytes(&self) -> Option<Vec<usize>> {
        self.params
            .as_ref()
            .map(|p| p.iter().map(|p| p.bytes).collect())
    }

    /// Each parameter's size and kind, as the PTX declares them; `None`
    /// when the PTX text did not say.
    pub fn params(&self) -> Option<&[Param]> {
        self.params.as_deref()
    }

    /// The cudarc function, for what this crate does not wrap.
    pub fn cuda_function(&self) -> &CudaFunction {
        &self.function
    }
}

/// `len` elements of `T` in device memory (a cudarc [`CudaSlice`], 256-byte
/// aligned), made by [`Stream::upload`] or [`Stream::zeros`], read back by
/// [`Stream::download`], passed to kernels by [`Launch::slice`] and
/// [`Launch::slice_mut`] (a pointer and the length) or [`Launch::arg`] and
/// [`Launch::arg_mut`] (the pointer). Freed when dropped, after the work issued on it.
///
/// ```no_run
/// # fn main() -> Result<(), layout_launch::Error> {
/// let gpu = layout_launch::Device::new(0)?;
/// let buffer: layout_launch::DeviceBuffer<u16> = gpu.stream().zeros(256)?;
/// assert_eq!(buffer.len(), 256);
/// assert_eq!(gpu.stream().download(&buffer)?, vec![0u16; 256]);
/// # Ok(())
/// # }
/// ```
pub struct DeviceBuffer<T> {
    pub(crate) slice: CudaSlice<T>,
}

impl<T> fmt::Debug for DeviceBuffer<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DeviceBuffer<{}>(len {})",
            std::any::type_name::<T>(),
            self.len()
        )
    }
}

impl<T> DeviceBuffer<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.slice.len()
    }

    /// Whether it holds no element.
    pub fn is_empty(&self) -> bool {
        self.slice.is_empty()
    }

    /// The cudarc slice, for what this crate does not wrap.
    pub fn as_cuda_slice(&self) -> &CudaSlice<T> {
        &self.slice
    }

    /// The cudarc slice, mutably.
    pub fn as_cuda_slice_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.slice
    }

    /// The cudarc slice, owned.
    pub fn into_cuda_slice(self) -> CudaSlice<T> {
        self.slice
    }
}

impl<T> From<CudaSlice<T>> for DeviceBuffer<T> {
    fn from(slice: CudaSlice<T>) -> Self {
        DeviceBuffer { slice }
    }
}
