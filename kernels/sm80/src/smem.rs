//! The static shared-memory buffers the bodies share (the transpose, the
//! SGEMMs and the atoms use `SMEM`, the HGEMM `SMEM_BIG`): the PTX
//! declarations (one per buffer, named after it) and their types; and the
//! attention kernels' dynamic `FLASH_SMEM_D64` / `FLASH_SMEM_D128` / `FLASH_SMEM_D256`,
//! declared with their entry points.

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

/// The attention kernels' dynamic buffers, declared with their entry points.
pub use crate::attention::entry::{FLASH_SMEM_D128, FLASH_SMEM_D256, FLASH_SMEM_D64};
pub use crate::attention_bwd::entry::{
    BWD_KV_SMEM_D128, BWD_KV_SMEM_D64, BWD_SMEM_D128, BWD_SMEM_D64,
};
pub use crate::decode::entry::{DECODE_SMEM_D128, DECODE_SMEM_D64};
