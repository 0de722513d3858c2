//! What the divides and products share on `DynLayout`: an operation applied
//! mode by mode (a tuple tiler's or a profile's), CuTe's `zip2_by`, and the
//! unpacking of a zipped result into the tiled and flat forms. Mirrors
//! `algebra/by_mode.rs`.

use super::arith::invalid;
use super::{DynLayout, LKind, LayoutBuilder, LayoutRef, Tiler};
use crate::error::LayoutError;
use alloc::format;
use alloc::string::ToString;

type R<T> = Result<T, LayoutError>;

/// Write `l` into `out` with `f` applied to the modes the profile (or
/// tiler) reaches; the other modes are kept.
pub(super) fn by_mode(
    l: LayoutRef<'_>,
    n: usize,
    op: &'static str,
    out: &mut LayoutBuilder,
    mut f: impl FnMut(usize, LayoutRef<'_>, &mut LayoutBuilder) -> R<()>,
) -> R<()> {
    if n > l.rank() {
        return Err(invalid(
            op,
            format!("{n} modes given for layout {l} of rank {}", l.rank()),
        ));
    }
    let at = out.open();
    for (i, m) in l.modes().enumerate() {
        if i < n {
            f(i, m, out)?;
        } else {
            out.append(m);
        }
    }
    out.close(at);
    Ok(())
}

/// CuTe's `zip2_by`: gather the first and second halves of the modes the tiler reaches.
pub(super) fn zip2_by(l: LayoutRef<'_>, t: &Tiler) -> R<DynLayout> {
    let Tiler::Tuple(ts) = t else {
        return Ok(l.to_layout());
    };
    let mut out = LayoutBuilder::default();
    let whole = out.open();
    // The first halves, then the second halves (and the modes the tiler
    // does not reach); a nested tuple tiler's mode is regrouped in each pass.
    for half in 0..2 {
        let part = out.open();
        for (i, m) in l.modes().enumerate() {
            let Some(ti) = ts.get(i) else {
                if half == 1 {
                    out.append(m);
                }
                continue;
            };
            let zipped;
            let z = if let Tiler::Tuple(_) = ti {
                zipped = zip2_by(m, ti)?;
                zipped.r()
            } else if m.rank() != 2 {
                // `_` keeps a mode: only a rank-2 one splits into two
                // halves (any other rank would lose or lack modes).
                return Err(invalid("zip2_by", format!("mode {m} is not rank 2")));
            } else {
                m
            };
            match z.kind() {
                LKind::Tuple(mut halves) if halves.len() == 2 => {
                    let first = halves.next();
                    let h = if half == 0 { first } else { halves.next() };
                    out.append(h.expect("two halves"));
                }
                _ => {
                    return Err(invalid(
                        "zip2_by",
                        "a divided mode is not rank 2".to_string(),
                    ))
                }
            }
        }
        out.close(part);
    }
    out.close(whole);
    Ok(out.finish())
}

/// Which modes of a zipped result `((tile), (rest))` [`unpack`] spreads
/// into the top level.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Unpack {
    /// The rest: the tiled form `((tile), rest0, rest1, ...)`.
    Rest,
    /// The tile and the rest: the flat form `(tile0, ..., rest0, ...)`.
    TileAndRest,
}

/// The zipped result `l` with the modes `which` names spread into the top
/// level (a mode of rank 1 stays as it is).
pub(super) fn unpack(l: &DynLayout, which: Unpack) -> DynLayout {
    let mut out = LayoutBuilder::default();
    let at = out.open();
    for (i, m) in l.r().modes().enumerate() {
        // CuTe slices with `repeat<rank>(_)`, which is a tuple only for rank > 1.
        let open = i == 1 || (i == 0 && which == Unpack::TileAndRest);
        match (open, m.kind()) {
            (true, LKind::Tuple(v)) if v.len() > 1 => v.for_each(|x| out.append(x)),
            _ => out.append(m),
        }
    }
    out.close(at);
    out.finish()
}
