//! The backward entry points (`flash_attn_bwd_dot`,
//! `flash_attn_bwd_dkdv_d{64,128}[_causal]`,
//! `flash_attn_bwd_dq_d{64,128}[_causal]`): the host's pointers made into
//! checked buffers, and the shared memory they declare.
#![allow(unsafe_code)]

layout_device::shared_memory!(
    /// The backward kernels' shared memory for head dimension 64
    /// (dynamic: `bwd_smem_bytes(64)` bytes at launch).
    pub extern static BWD_SMEM_D64: [u8; 33280]
);

layout_device::shared_memory!(
    /// The backward kernels' shared memory for head dimension 128
    /// (dynamic: `bwd_smem_bytes(128)` bytes at launch).
    pub extern static BWD_SMEM_D128: [u8; 66048]
);

const _: () = assert!(
    super::bwd_smem_bytes(64) == 33280 && super::bwd_smem_bytes(128) == 66048,
    "the backward buffers are bwd_smem_bytes(D)"
);
