//! The static shared-memory buffers the bodies share (the transpose, the
//! SGEMMs and the atoms use `SMEM`, the HGEMM `SMEM_BIG`): the PTX
//! declarations (one per buffer, named after it) and their types. (The
//! attention kernels' dynamic buffers are declared with their entry
//! points.)

layout_device::shared_memory!(
    /// The SIMT kernels' shared buffer (16 KiB): each kernel that uses it
    /// gets its own copy, so the tensor-core pipeline's larger need does not
    /// cost these kernels occupancy.
    pub(crate) static SMEM: [u8; 16384]
);

layout_device::shared_memory!(
    /// The tensor-core pipeline's shared buffer (48 KiB).
    pub(crate) static SMEM_BIG: [u8; 49152]
);
