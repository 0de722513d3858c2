//! `coalesce(layout, profile)` and `filter(layout, profile)` on
//! `DynLayout`: the operation at the terminals of the profile, mode by
//! mode, keeping the modes the profile does not reach. Mirrors
//! `algebra/profile.rs`.

use super::by_mode::by_mode;
use super::coalesce::{coalesce_pairs, FlatLayout};
use super::filter::filter_pairs;
use super::{build, DTuple, DynLayout, Kind, LayoutBuilder, LayoutRef, Pairs, TupleRef};
use crate::error::LayoutError;

type R<T> = Result<T, LayoutError>;

/// CuTe's `coalesce(layout, profile)`: coalesce at the terminals of the profile.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Profile (_1,_1): each mode coalesced on its own, (_2,_2):(_1,_2) -> _4:_1.
/// let a = l("((_2,_2),(_3,_1)):((_1,_2),(_4,_12))");
/// let p = layout_core::parse_tuple("(_1,_1)").unwrap();
/// assert_eq!(coalesce_by(&a, &p).unwrap().to_string(), "(_4,_3):(_1,_4)");
/// ```
pub fn coalesce_by(l: &DynLayout, profile: &DTuple) -> R<DynLayout> {
    let flat = |p: Pairs<'_>| coalesce_pairs(p);
    build(|out| by_profile(l.r(), profile.r(), "coalesce", flat, out))
}

/// `flat` of each mode the profile reaches at one of its integers.
fn by_profile(
    l: LayoutRef<'_>,
    profile: TupleRef<'_>,
    op: &'static str,
    flat: fn(Pairs<'_>) -> R<FlatLayout>,
    out: &mut LayoutBuilder,
) -> R<()> {
    match profile.kind() {
        Kind::Int(_) => {
            out.append(flat(l.pairs())?.into_layout().r());
            Ok(())
        }
        Kind::Tuple(p) => by_mode(l, p.len(), op, out, |i, m, out| {
            by_profile(m, p.get(i).expect("i < rank"), op, flat, out)
        }),
    }
}

/// CuTe's `filter(layout, profile)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Profile (_1,_1): mode by mode, (_2,_3):(_0,_1) -> _3:_1 and _4:_3 stays.
/// let p = layout_core::parse_tuple("(_1,_1)").unwrap();
/// assert_eq!(filter_by(&l("((_2,_3),_4):((_0,_1),_3)"), &p).unwrap().to_string(), "(_3,_4):(_1,_3)");
/// ```
pub fn filter_by(l: &DynLayout, profile: &DTuple) -> R<DynLayout> {
    build(|out| by_profile(l.r(), profile.r(), "filter", filter_pairs, out))
}
