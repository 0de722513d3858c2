//! The sequences of an attention launch, as a block finds its own: `batch`
//! planes of equal lengths, or sequences of their own lengths packed one
//! after another and delimited by cumulative offsets (FlashAttention's
//! `cu_seqlens`). Written once for every attention kernel.

use crate::Global;

/// The sequences of an attention launch. With `cu_q` and `cu_k` empty,
/// plane `b` of the tensors is sequence `b`, `seq_q` query rows and
/// `seq_k` keys each. Otherwise the tensors are one plane of `seq_q` rows
/// (Q, O) and `seq_k` (K, V) in total, sequence `b` the rows `cu_q[b] ..
/// cu_q[b + 1]` and the keys `cu_k[b] .. cu_k[b + 1]` (each array one
/// longer than the number of sequences; a sequence may be empty).
///
/// ```
/// use layout_device::{Global, Sequences};
/// let (cu_q, cu_k) = ([0, 3, 3, 10], [0, 5, 9, 9]);
/// // SAFETY: the arrays outlive the handles.
/// let s = Sequences {
///     seq_q: 10,
///     seq_k: 9,
///     cu_q: unsafe { Global::new(cu_q.as_ptr(), 4) },
///     cu_k: unsafe { Global::new(cu_k.as_ptr(), 4) },
/// };
/// let third = s.get(2, (0, i32::MIN), true).unwrap();
/// // Rows 3..10 of the one plane, no key: bottom-right, row i sees keys up
/// // to i + 0 - 7.
/// assert_eq!((third.plane, third.q0, third.seq_q, third.k0, third.seq_k), (0, 3, 7, 9, 0));
/// assert_eq!((third.offset, third.lower), (-7, i32::MIN));
/// assert!(s.get(3, (0, i32::MIN), false).is_none()); // past the last
/// ```
#[derive(Clone, Copy)]
pub struct Sequences {
    /// Query rows per plane.
    pub seq_q: usize,
    /// Keys per plane.
    pub seq_k: usize,
    /// Cumulative query offsets (empty: planes of equal lengths).
    pub cu_q: Global<i32>,
    /// Cumulative key offsets (empty with `cu_q`).
    pub cu_k: Global<i32>,
}

/// One sequence: where its rows and keys are and its mask's bounds (query
/// i of the sequence sees keys i + `lower` ..= i + `offset` of it, when
/// the kernel masks).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sequence {
    /// The plane (the batch index; 0 when packed).
    pub plane: usize,
    /// The first query row in the plane.
    pub q0: usize,
    /// Query rows.
    pub seq_q: usize,
    /// The first key in the plane.
    pub k0: usize,
    /// Keys.
    pub seq_k: usize,
    /// The mask's upper bound, aligned.
    pub offset: i32,
    /// The mask's lower bound, aligned (`i32::MIN`: none).
    pub lower: i32,
}

impl Sequences {
    /// Whether the sequences are packed (cumulative offsets given).
    #[inline(always)]
    pub fn packed(&self) -> bool {
        !self.cu_q.is_empty()
    }

    /// Sequence `b`, the mask's bounds `(offset, lower)` taken from the
    /// top-left diagonal, or from the bottom-right one (keys - rows
    /// further) when `bottom_right`; `None` when `b` is past the offsets,
    /// the two arrays' lengths differ, or an offset is negative,
    /// decreasing or past the plane.
    #[inline(always)]
    pub fn get(
        &self,
        b: usize,
        (offset, lower): (i32, i32),
        bottom_right: bool,
    ) -> Option<Sequence> {
        let (plane, q0, seq_q, k0, seq_k) = if self.packed() {
            if self.cu_k.len() != self.cu_q.len() || b + 1 >= self.cu_q.len() {
                return None;
            }
            let span = |cu: Global<i32>, total: usize| {
                let (a, e) = (cu.ld(b), cu.ld(b + 1));
                if a < 0 || e < a || e as usize > total {
                    None
                } else {
                    Some((a as usize, (e - a) as usize))
                }
            };
            let (q0, seq_q) = span(self.cu_q, self.seq_q)?;
            let (k0, seq_k) = span(self.cu_k, self.seq_k)?;
            (0, q0, seq_q, k0, seq_k)
        } else {
            (b, 0, self.seq_q, 0, self.seq_k)
        };
        // Bottom-right: both bounds moved by keys - rows (clamped to i32,
        // `i32::MIN` kept as "no lower bound").
        let (offset, lower) = if bottom_right {
            let shift = seq_k as i64 - seq_q as i64;
            let clamp = |x: i64| x.clamp(i32::MIN as i64 + 1, i32::MAX as i64) as i32;
            let lower = if lower == i32::MIN {
                i32::MIN
            } else {
                clamp(lower as i64 + shift)
            };
            (clamp(offset as i64 + shift), lower)
        } else {
            (offset, lower)
        };
        Some(Sequence {
            plane,
            q0,
            seq_q,
            k0,
            seq_k,
            offset,
            lower,
        })
    }
}
