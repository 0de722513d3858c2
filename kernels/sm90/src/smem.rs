//! The bodies' dynamic shared-memory buffers (the PTX declarations, one per
//! buffer, named after it, and their types), each checked against the size
//! its kernel's plan lays out.

layout_device::shared_memory!(
    /// `hgemm_sm90`'s stages and barriers (the plan is `hgemm`'s).
    pub extern static HGEMM_SMEM: [u8; 205904]
);
const _: () = assert!(HGEMM_SMEM_BYTES == crate::hgemm::SMEM_BYTES);
/// [`HGEMM_SMEM`]'s size in bytes.
pub const HGEMM_SMEM_BYTES: usize = <HGEMM_SMEM as layout_device::SharedBuffer>::BYTES;

layout_device::shared_memory!(
    /// `flash_attn_fwd_sm90`'s Q tile, K and V rings and barriers at d = 64
    /// and 128 (the plan is `attention`'s).
    pub extern static ATTN_SMEM: [u8; 164944]
);
const _: () = assert!(
    ATTN_SMEM_BYTES == crate::attention::smem_bytes(64)
        && ATTN_SMEM_BYTES == crate::attention::smem_bytes(128)
);
/// [`ATTN_SMEM`]'s size in bytes.
pub const ATTN_SMEM_BYTES: usize = <ATTN_SMEM as layout_device::SharedBuffer>::BYTES;

layout_device::shared_memory!(
    /// The same at d = 256.
    pub extern static ATTN_SMEM_256: [u8; 197680]
);
const _: () = assert!(ATTN_SMEM_256_BYTES == crate::attention::smem_bytes(256));
/// [`ATTN_SMEM_256`]'s size in bytes.
pub const ATTN_SMEM_256_BYTES: usize = <ATTN_SMEM_256 as layout_device::SharedBuffer>::BYTES;

layout_device::shared_memory!(
    /// The TMA-store epilogue's entries: `hgemm_sm90`'s plan and the
    /// staging buffers of C (the plan is `hgemm`'s).
    pub extern static GEMM_TMA_SMEM: [u8; 231424]
);
const _: () = assert!(GEMM_TMA_SMEM_BYTES == crate::hgemm::SMEM_BYTES_TMA_STORE);
/// [`GEMM_TMA_SMEM`]'s size in bytes.
pub const GEMM_TMA_SMEM_BYTES: usize = <GEMM_TMA_SMEM as layout_device::SharedBuffer>::BYTES;
