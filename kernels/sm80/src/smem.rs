//! The static shared-memory buffers the bodies share (the transpose, the
//! SGEMMs and the atoms use `SMEM`, the HGEMM `SMEM_BIG`, the attention
//! kernels the dynamic `FLASH_SMEM_D64` / `FLASH_SMEM_D128`): the PTX
//! declarations (one per buffer, named after it) and their types.

layout_device::shared_memory!(
    /// The SIMT kernels' shared buffer (16 KiB): each kernel that uses it
    /// gets its own copy, so the tensor-core pipeline's larger need does not
    /// cost these kernels occupancy.
    pub static SMEM: [u8; 16384]
);

layout_device::shared_memory!(
    /// The tensor-core pipeline's shared buffer (48 KiB).
    pub static SMEM_BIG: [u8; 49152]
);

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 64
    /// (dynamic: `flash_smem_bytes(64)` bytes at launch).
    pub extern static FLASH_SMEM_D64: [u8; 49152]
);

layout_device::shared_memory!(
    /// The FlashAttention kernels' shared memory for head dimension 128
    /// (dynamic: `flash_smem_bytes(128)` bytes at launch).
    pub extern static FLASH_SMEM_D128: [u8; 65536]
);

const _: () = assert!(
    crate::maps::flash_smem_bytes(64) == 49152 && crate::maps::flash_smem_bytes(128) == 65536,
    "the FlashAttention buffers are flash_smem_bytes(D)"
);
