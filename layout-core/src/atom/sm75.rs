//! SM75 (Turing and later) atoms: the `ldmatrix` copies, plain and
//! transposed.

use super::CopyAtom;
use crate::layout_type;

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (CuTe's `SM75_U32x4_LDSM_N`):
/// four 8 x 8 matrices of 16-bit values; each of the 32 threads gives the
/// address of one 128-bit row and receives four 32-bit registers, register
/// r holding matrix r's row `thread / 4`, values `2 (thread % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x4_LDSM_N as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "(_32,(_32,_4)):(_32,(_1,_1024))");
/// // Thread 5, register 2: matrix 2 (bit 2048), row 1 (bit 128), the
/// // second 32-bit pair of the row.
/// assert_eq!(dst.crd2idx((5usize, (0usize, 2usize))), 2048 + 160);
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x4_LDSM_N;

impl CopyAtom for SM75_U32x4_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!((32,128):(128,1));
    type DstLayout = layout_type!((32,(32,4)):(32,(1,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x2.shared.b16` (CuTe's `SM75_U32x2_LDSM_N`):
/// two 8 x 8 matrices; threads 0-15 give the row addresses (threads 16-31
/// repeat them), each thread receives two registers.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x2_LDSM_N as Ldsm};
/// assert_eq!(<Ldsm as CopyAtom>::SrcLayout::default().to_string(), "((_16,_2),_128):((_128,_0),_1)");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x2_LDSM_N;

impl CopyAtom for SM75_U32x2_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((16,2),128):((128,0),1));
    type DstLayout = layout_type!((32,(32,2)):(32,(1,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x1.shared.b16` (CuTe's `SM75_U32x1_LDSM_N`):
/// one 8 x 8 matrix; threads 0-7 give the row addresses (the others repeat
/// them), each thread receives one register: row `thread / 4`, values
/// `2 (thread % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U32x1_LDSM_N as Ldsm};
/// assert_eq!(<Ldsm as CopyAtom>::SrcLayout::default().to_string(), "((_8,_4),_128):((_128,_0),_1)");
/// assert_eq!(<Ldsm as CopyAtom>::DstLayout::default().to_string(), "(_32,_32):(_32,_1)");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U32x1_LDSM_N;

impl CopyAtom for SM75_U32x1_LDSM_N {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((8,4),128):((128,0),1));
    type DstLayout = layout_type!((32,32):(32,1));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16` (CuTe's
/// `SM75_U16x2_LDSM_T`): one 8 x 8 matrix, transposed on the way: thread
/// `t`'s register holds column `t / 4` of rows `2 (t % 4)` and `+1`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x2_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2)):((_256,_16),(_1,_128))");
/// // Thread 6 = (2, 1), high half: row 2 * 2 + 1 (bit 640), column 1 (bit 16).
/// assert_eq!(dst.crd2idx(((2usize, 1usize), (0usize, 1usize))), 656);
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x2_LDSM_T;

impl CopyAtom for SM75_U16x2_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((8,4),128):((128,0),1));
    type DstLayout = layout_type!(((4,8),(16,2)):((256,16),(1,128)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16` (CuTe's
/// `SM75_U16x4_LDSM_T`): two 8 x 8 matrices transposed, register `r` from
/// matrix `r`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x4_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2,_2)):((_256,_16),(_1,_128,_1024))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x4_LDSM_T;

impl CopyAtom for SM75_U16x4_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!(((16,2),128):((128,0),1));
    type DstLayout = layout_type!(((4,8),(16,2,2)):((256,16),(1,128,1024)));
    type RefLayout = Self::DstLayout;
}

/// `ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16` (CuTe's
/// `SM75_U16x8_LDSM_T`): four 8 x 8 matrices transposed, register `r` from
/// matrix `r`.
///
/// ```
/// use layout_core::atom::{CopyAtom, SM75_U16x8_LDSM_T as Ldsm};
/// let dst = <Ldsm as CopyAtom>::DstLayout::default();
/// assert_eq!(dst.to_string(), "((_4,_8),(_16,_2,_4)):((_256,_16),(_1,_128,_1024))");
/// ```
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SM75_U16x8_LDSM_T;

impl CopyAtom for SM75_U16x8_LDSM_T {
    type ThrID = layout_type!(32:1);
    type SrcLayout = layout_type!((32,128):(128,1));
    type DstLayout = layout_type!(((4,8),(16,2,4)):((256,16),(1,128,1024)));
    type RefLayout = Self::DstLayout;
}
