//! `coalesce` on `DynLayout`: CuTe's `bw_coalesce` over the leaves from
//! the back, and the flat layout it gives (which filter, complement and
//! composition use without building it); mirrors `algebra/coalesce.rs`.

use super::arith::mul;
use super::{DInt, DynLayout, LayoutBuilder, PairList};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

/// A flat layout: its modes, and whether they form a tuple (else it is the
/// integer layout of its one mode). Coalesce, filter and complement give
/// these; the algebra composes with them without building the layout.
#[derive(Clone)]
pub(super) struct FlatLayout {
    pub(super) modes: PairList,
    pub(super) tuple: bool,
}

/// CuTe's `bw_coalesce`: the modes `old_rev` (from the back) in front of
/// `last`, merging two modes only when the merge is statically provable.
pub(super) fn bw_coalesce(
    old_rev: impl Iterator<Item = (DInt, DInt)>,
    last: (DInt, DInt),
) -> R<FlatLayout> {
    // Built back to front: the front mode is the last one pushed.
    let mut modes: PairList = smallvec::smallvec![last];
    let mut tuple = false;
    for (s, d) in old_rev {
        if s.is_static_value(1) {
            continue;
        }
        let front = modes.last_mut().expect("one mode at least");
        if !tuple && front.0.is_static_value(1) {
            *front = (s, d);
            continue;
        }
        let (fs, fd) = *front;
        // CuTe merges when the front shape is static and `s * d` is provably
        // the front stride: both static, or a static-0 stride (`_0 * s` is
        // `_0` whatever s is) in front of a static-0 stride. A product past
        // i64 is not the front stride: no merge (the layout is kept).
        let merges = mul(s, d, "coalesce")
            .is_ok_and(|p| fs.is_static && p.is_static && fd.is_static && p.value == fd.value);
        if merges {
            *front = (mul(s, fs, "coalesce")?, d);
        } else {
            modes.push((s, d));
            tuple = true;
        }
    }
    modes.reverse();
    // One mode of static size 1 is `_1:_0`, as CuTe's coalesce prints it.
    if !tuple && modes[0].0.is_static_value(1) {
        modes[0] = (DInt::new_static(1), DInt::new_static(0));
    }
    Ok(FlatLayout { modes, tuple })
}

impl FlatLayout {
    /// One integer mode.
    pub(super) fn one(s: DInt, d: DInt) -> FlatLayout {
        FlatLayout {
            modes: smallvec::smallvec![(s, d)],
            tuple: false,
        }
    }
    /// The layout: an integer layout for one mode, else a tuple of the modes.
    pub(super) fn into_layout(self) -> DynLayout {
        if self.tuple {
            LayoutBuilder::tuple_of_pairs(&self.modes)
        } else {
            DynLayout::int(self.modes[0].0, self.modes[0].1)
        }
    }
}

/// CuTe's `coalesce`: fewest modes with the same function on the domain.
///
/// ```
/// use layout_core::{dynamic::coalesce, DynLayout};
/// let l: DynLayout = "(_2,(_4,_8)):(_1,(_2,_8))".parse().unwrap();
/// assert_eq!(coalesce(&l).unwrap().to_string(), "_64:_1");
/// ```
pub fn coalesce(l: &DynLayout) -> R<DynLayout> {
    Ok(coalesce_pairs(l.r().pairs())?.into_layout())
}

/// [`coalesce`] of the flat layout with these (shape, stride) leaves.
pub(super) fn coalesce_pairs(p: impl DoubleEndedIterator<Item = (DInt, DInt)>) -> R<FlatLayout> {
    let mut rev = p.rev();
    match rev.next() {
        Some(last) => bw_coalesce(rev, last),
        None => Ok(FlatLayout::one(DInt::new_static(1), DInt::new_static(0))),
    }
}
