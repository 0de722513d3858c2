//! The typed core's operations on `DynLayout`: coordinates (as
//! `layout/coord.rs`), structural operations (as `layout/ops.rs`), slicing
//! (as `layout/slice.rs`) and `print_layout` (as `layout/print.rs`).

use super::arith::{invalid, mul};
use super::{DInt, DTuple, DynLayout, Kind, LayoutBuilder, LayoutRef, TupleBuilder, TupleRef};
use crate::error::LayoutError;
use crate::layout::print::{self, TableError};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

type R<T> = Result<T, LayoutError>;

/// A coordinate: integers, tuples, and `_` (keep the mode, in slices).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DCoord {
    /// An integer: a 1-D index into the (sub-)shape.
    Int(DInt),
    /// `_`.
    Underscore,
    /// One entry per mode.
    Tuple(Vec<DCoord>),
}

impl core::str::FromStr for DCoord {
    type Err = LayoutError;
    /// Parse a coordinate in CuTe notation: `(1,_,(0,2))`, `_3`, `_`.
    fn from_str(s: &str) -> R<DCoord> {
        super::parse::coord(s)
    }
}

/// CuTe notation, as the parser reads it back: `(1,_,(0,_2))`.
///
/// ```
/// use layout_core::DCoord;
/// let c: DCoord = "(1,_,(0,_2))".parse().unwrap();
/// assert_eq!(c.to_string(), "(1,_,(0,_2))");
/// assert_eq!(c.to_string().parse::<DCoord>().unwrap(), c);
/// ```
impl core::fmt::Display for DCoord {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            DCoord::Int(i) => write!(f, "{i}"),
            DCoord::Underscore => f.write_str("_"),
            DCoord::Tuple(v) => {
                f.write_char('(')?;
                for (k, c) in v.iter().enumerate() {
                    if k > 0 {
                        f.write_char(',')?;
                    }
                    write!(f, "{c}")?;
                }
                f.write_char(')')
            }
        }
    }
}

fn add(a: DInt, b: DInt) -> R<DInt> {
    Ok(DInt {
        value: a
            .value
            .checked_add(b.value)
            .ok_or(LayoutError::Overflow { op: "crd2idx" })?,
        is_static: a.is_static && b.is_static,
    })
}

/// CuTe's `crd2idx(coord, shape, stride)`; `_` counts as 0 (the offset of a slice).
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // (1,2) in (3,4):(4,1): 1*4 + 2*1 = 6.
/// let c: DCoord = "(1,2)".parse().unwrap();
/// let a = l("(3,4):(4,1)");
/// assert_eq!(crd2idx_coord(&c, a.shape(), a.stride()).unwrap().to_string(), "6");
/// ```
pub fn crd2idx_coord(c: &DCoord, s: &DTuple, d: &DTuple) -> R<DInt> {
    crd2idx_ref(c, s.r(), d.r())
}

fn crd2idx_ref(c: &DCoord, s: TupleRef<'_>, d: TupleRef<'_>) -> R<DInt> {
    match (c, s.kind(), d.kind()) {
        (DCoord::Underscore, _, _) => Ok(DInt::new_static(0)),
        (DCoord::Int(i), Kind::Int(_), Kind::Int(d)) => mul(*i, d, "crd2idx"),
        (DCoord::Int(i), Kind::Tuple(ss), Kind::Tuple(ds)) => {
            let last = ss.len().saturating_sub(1);
            let mut rest = *i;
            let mut acc = DInt::new_static(0);
            for (k, (sk, dk)) in ss.zip(ds).enumerate() {
                if k == last {
                    acc = add(acc, crd2idx_ref(&DCoord::Int(rest), sk, dk)?)?;
                } else {
                    let n = sk.product()?;
                    if n.value == 0 {
                        return Err(invalid("crd2idx", format!("mode {sk} has size 0")));
                    }
                    let here = DInt {
                        value: rest.value % n.value,
                        is_static: rest.is_static && n.is_static,
                    };
                    acc = add(acc, crd2idx_ref(&DCoord::Int(here), sk, dk)?)?;
                    rest = DInt {
                        value: rest.value / n.value,
                        is_static: rest.is_static && n.is_static,
                    };
                }
            }
            Ok(acc)
        }
        (DCoord::Tuple(cs), Kind::Tuple(ss), Kind::Tuple(ds)) if cs.len() == ss.len() => cs
            .iter()
            .zip(ss)
            .zip(ds)
            .try_fold(DInt::new_static(0), |acc, ((c, s), d)| {
                add(acc, crd2idx_ref(c, s, d)?)
            }),
        _ => Err(invalid(
            "crd2idx",
            format!("coordinate {c:?} does not fit shape {s}"),
        )),
    }
}

/// CuTe's `idx2crd(i, shape)`: the natural coordinate; the last mode of
/// each tuple takes what the others leave.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints ((1,0,3),(0,0),(0,3)).
/// let s = layout_core::parse_tuple("((4,1,5),(2,1),(1,4))").unwrap();
/// assert_eq!(idx2crd(layout_core::DInt::new_dynamic(133), &s).unwrap().to_string(), "((1,0,3),(0,0),(0,3))");
/// ```
pub fn idx2crd(i: DInt, s: &DTuple) -> R<DTuple> {
    idx2crd_ref(i, s.r())
}

fn idx2crd_ref(i: DInt, s: TupleRef<'_>) -> R<DTuple> {
    fn go(i: DInt, s: TupleRef<'_>, top: bool, out: &mut TupleBuilder) -> R<()> {
        match s.kind() {
            Kind::Int(x) if !top && x.is_static_value(1) => out.leaf(DInt::new_static(0)),
            Kind::Int(_) => out.leaf(i),
            Kind::Tuple(modes) => {
                let last = modes.len().saturating_sub(1);
                let mut rest = i;
                let at = out.open();
                for (k, m) in modes.enumerate() {
                    if k == last {
                        go(rest, m, false, out)?;
                    } else {
                        let n = m.product()?;
                        if n.value == 0 {
                            return Err(invalid("idx2crd", format!("mode {m} has size 0")));
                        }
                        go(
                            DInt {
                                value: rest.value % n.value,
                                is_static: rest.is_static && n.is_static,
                            },
                            m,
                            false,
                            out,
                        )?;
                        rest = DInt {
                            value: rest.value / n.value,
                            is_static: rest.is_static && n.is_static,
                        };
                    }
                }
                out.close(at);
            }
        }
        Ok(())
    }
    let mut out = TupleBuilder::default();
    go(i, s, true, &mut out)?;
    Ok(out.finish())
}

/// CuTe's `crd2crd(coord, src, dst)`: by mode when all are tuples, else through the index.
///
/// ```
/// use layout_core::dynamic::*;
/// // CuTe prints ((0,0),0).
/// let c: DCoord = "(0,0)".parse().unwrap();
/// let (src, dst) = (layout_core::parse_tuple("(4,2)").unwrap(), layout_core::parse_tuple("((2,2),2)").unwrap());
/// assert_eq!(crd2crd(&c, &src, &dst).unwrap().to_string(), "((0,0),0)");
/// ```
pub fn crd2crd(c: &DCoord, src: &DTuple, dst: &DTuple) -> R<DTuple> {
    crd2crd_ref(c, src.r(), dst.r())
}

fn crd2crd_ref(c: &DCoord, src: TupleRef<'_>, dst: TupleRef<'_>) -> R<DTuple> {
    match (c, src.kind(), dst.kind()) {
        (DCoord::Tuple(cs), Kind::Tuple(ss), Kind::Tuple(ds)) if cs.len() == ss.len() && cs.len() == ds.len() => {
            let modes = cs.iter().zip(ss).zip(ds).map(|((c, s), d)| crd2crd_ref(c, s, d)).collect::<R<Vec<_>>>()?;
            Ok(DTuple::tuple(modes))
        }
        (DCoord::Tuple(cs), Kind::Tuple(ss), Kind::Tuple(ds)) => Err(invalid(
            "crd2crd",
            format!("coordinate of rank {}, source shape {src} and target shape {dst} have different ranks ({}, {})", cs.len(), ss.len(), ds.len()),
        )),
        _ => {
            let idx = compact_index(c, src)?.ok_or_else(|| invalid("crd2crd", format!("coordinate {c:?} does not fit {src}")))?;
            idx2crd_ref(idx, dst)
        }
    }
}

fn compact_index(c: &DCoord, s: TupleRef<'_>) -> R<Option<DInt>> {
    Ok(match (c, s.kind()) {
        (DCoord::Int(i), _) => Some(*i),
        (DCoord::Tuple(cs), Kind::Tuple(ss)) if cs.len() == ss.len() => {
            let mut acc = DInt::new_static(0);
            let mut scale = DInt::new_static(1);
            for (c, s) in cs.iter().zip(ss) {
                let Some(ci) = compact_index(c, s)? else {
                    return Ok(None);
                };
                acc = add(acc, mul(ci, scale, "crd2crd")?)?;
                scale = mul(scale, s.product()?, "crd2crd")?;
            }
            Some(acc)
        }
        _ => None,
    })
}

impl DynLayout {
    /// CuTe's `flatten`.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(_4,(3,2)):(_1,(_4,12))".parse().unwrap();
    /// assert_eq!(l.flatten().to_string(), "(_4,3,2):(_1,_4,12)");
    /// ```
    pub fn flatten(&self) -> DynLayout {
        DynLayout::raw(self.shape().flatten(), self.stride().flatten())
    }
    /// The modes, checked that `[b, e)` is a range of them.
    fn modes_in(&self, op: &'static str, b: usize, e: usize) -> R<Vec<DynLayout>> {
        let m = self.modes();
        if b > e || e > m.len() {
            return Err(invalid(
                op,
                format!(
                    "[{b}, {e}) is not a range of the {} modes of {self}",
                    m.len()
                ),
            ));
        }
        Ok(m)
    }
    /// CuTe's `group<b,e>`.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3,4):(1,2,6)".parse().unwrap();
    /// assert_eq!(l.group(1, 3).unwrap().to_string(), "(2,(3,4)):(1,(2,6))");
    /// assert!(l.group(2, 4).is_err());
    /// ```
    pub fn group(&self, b: usize, e: usize) -> R<DynLayout> {
        let m = self.modes_in("group", b, e)?;
        let mut out: Vec<DynLayout> = m[..b].to_vec();
        out.push(DynLayout::from_modes(m[b..e].to_vec()));
        out.extend_from_slice(&m[e..]);
        Ok(DynLayout::from_modes(out))
    }
    /// CuTe's `select<i...>`.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3,4):(1,2,6)".parse().unwrap();
    /// assert_eq!(l.select(&[2, 0]).unwrap().to_string(), "(4,2):(6,1)");
    /// assert!(l.select(&[3]).is_err());
    /// ```
    pub fn select(&self, idx: &[usize]) -> R<DynLayout> {
        let m = self.modes();
        let out = idx
            .iter()
            .map(|&i| {
                m.get(i)
                    .cloned()
                    .ok_or_else(|| invalid("select", format!("no mode {i} in {self}")))
            })
            .collect::<R<_>>()?;
        Ok(DynLayout::from_modes(out))
    }
    /// CuTe's `take<b,e>`: modes `[b, e)`.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3,4):(1,2,6)".parse().unwrap();
    /// assert_eq!(l.take(0, 2).unwrap().to_string(), "(2,3):(1,2)");
    /// ```
    pub fn take(&self, b: usize, e: usize) -> R<DynLayout> {
        Ok(DynLayout::from_modes(
            self.modes_in("take", b, e)?[b..e].to_vec(),
        ))
    }
    /// CuTe's `get<i>`.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3,4):(1,2,6)".parse().unwrap();
    /// assert_eq!(l.get(1).unwrap().to_string(), "3:2");
    /// assert!(l.get(3).is_err());
    /// ```
    pub fn get(&self, i: usize) -> R<DynLayout> {
        self.mode(i)
            .ok_or_else(|| invalid("get", format!("no mode {i} in {self}")))
    }
    /// CuTe's `append<n>(l, x)`: pad with `x` up to rank `n` (at least one).
    /// `Err` when the result would hold more than [`DynLayout::MAX_NODES`]
    /// nodes (a count from input cannot make a layout without bound).
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3):(1,2)".parse().unwrap();
    /// let x: DynLayout = "1:0".parse().unwrap();
    /// assert_eq!(l.append(&x, Some(4)).unwrap().to_string(), "(2,3,1,1):(1,2,0,0)");
    /// assert_eq!(l.append(&x, None).unwrap().to_string(), "(2,3,1):(1,2,0)");
    /// assert!(l.append(&x, Some(1 << 40)).is_err());
    /// ```
    pub fn append(&self, x: &DynLayout, n: Option<usize>) -> R<DynLayout> {
        self.pad("append", x, n, false)
    }
    /// CuTe's `prepend<n>(l, x)`: [`DynLayout::append`] at the front.
    ///
    /// ```
    /// use layout_core::DynLayout;
    /// let l: DynLayout = "(2,3):(1,2)".parse().unwrap();
    /// let x: DynLayout = "1:0".parse().unwrap();
    /// assert_eq!(l.prepend(&x, None).unwrap().to_string(), "(1,2,3):(0,1,2)");
    /// assert_eq!(l.prepend(&x, Some(3)).unwrap().to_string(), "(1,2,3):(0,1,2)");
    /// assert!(l.prepend(&x, Some(usize::MAX)).is_err());
    /// ```
    pub fn prepend(&self, x: &DynLayout, n: Option<usize>) -> R<DynLayout> {
        self.pad("prepend", x, n, true)
    }
    /// `self`'s modes and copies of `x` up to rank `n`, the copies first
    /// when `front`.
    fn pad(&self, op: &'static str, x: &DynLayout, n: Option<usize>, front: bool) -> R<DynLayout> {
        let rank = self.rank();
        let target = n.unwrap_or(rank + 1).max(rank + 1);
        let copies = target - rank;
        let nodes = copies
            .checked_mul(x.node_count())
            .and_then(|c| c.checked_add(self.node_count()))
            .filter(|&t| t <= Self::MAX_NODES);
        if nodes.is_none() {
            return Err(invalid(
                op,
                format!(
                    "{copies} copies of {x} would make a layout of more than {} nodes",
                    Self::MAX_NODES
                ),
            ));
        }
        let own = self.r().modes();
        let pads = core::iter::repeat_n(x.r(), copies);
        Ok(if front {
            LayoutBuilder::of_modes(pads.chain(own))
        } else {
            LayoutBuilder::of_modes(own.chain(pads))
        })
    }
}

/// CuTe's `append<N>(layout)`: pad with `_1:_0` up to rank N.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Padded with _1:_0 up to rank 3.
/// assert_eq!(append_to_rank(&l("(_2,_3):(_1,_2)"), 3).to_string(), "(_2,_3,_1):(_1,_2,_0)");
/// ```
pub fn append_to_rank(l: &DynLayout, n: usize) -> DynLayout {
    let mut out = LayoutBuilder::default();
    let at = out.open();
    l.r().modes().for_each(|m| out.append(m));
    for _ in l.rank()..n {
        out.leaf(DInt::new_static(1), DInt::new_static(0));
    }
    out.close(at);
    out.finish()
}

fn lift(c: &DCoord, l: LayoutRef<'_>, keep_under: bool, out: &mut LayoutBuilder) -> R<()> {
    match (c, l.s.kind()) {
        (DCoord::Tuple(cs), Kind::Tuple(ss)) if cs.len() == ss.len() => cs
            .iter()
            .zip(l.modes())
            .try_for_each(|(c, m)| lift(c, m, keep_under, out)),
        (DCoord::Tuple(_), _) => Err(invalid(
            "slice",
            format!("coordinate {c:?} does not fit {}", l.s),
        )),
        (DCoord::Underscore, _) if keep_under => {
            out.append(l);
            Ok(())
        }
        (DCoord::Int(_), _) if !keep_under => {
            out.append(l);
            Ok(())
        }
        _ => Ok(()),
    }
}

/// The modes of `l` that `lift` keeps, as a tuple layout.
fn lifted(c: &DCoord, l: &DynLayout, keep_under: bool) -> R<DynLayout> {
    let mut out = LayoutBuilder::default();
    let at = out.open();
    lift(c, l.r(), keep_under, &mut out)?;
    out.close(at);
    Ok(out.finish())
}

/// CuTe's `slice(coord, layout)`: the modes marked `_`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints (8):(6).
/// let c: DCoord = "(_,2)".parse().unwrap();
/// assert_eq!(slice(&c, &l("(8,(2,3)):(6,(1,2))")).unwrap().to_string(), "(8):(6)");
/// ```
pub fn slice(c: &DCoord, l: &DynLayout) -> R<DynLayout> {
    match c {
        DCoord::Underscore => Ok(l.clone()),
        DCoord::Int(_) => Ok(DynLayout::from_modes(Vec::new())),
        DCoord::Tuple(_) => lifted(c, l, true),
    }
}

/// CuTe's `dice(coord, layout)`: the modes not marked `_`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((2,3)):((1,2)).
/// let c: DCoord = "(_,2)".parse().unwrap();
/// assert_eq!(dice(&c, &l("(8,(2,3)):(6,(1,2))")).unwrap().to_string(), "((2,3)):((1,2))");
/// ```
pub fn dice(c: &DCoord, l: &DynLayout) -> R<DynLayout> {
    match c {
        DCoord::Underscore => Ok(DynLayout::from_modes(Vec::new())),
        DCoord::Int(_) => Ok(l.clone()),
        DCoord::Tuple(_) => lifted(c, l, false),
    }
}

/// CuTe's `slice_and_offset(coord, layout)`.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // CuTe prints ((3):(4),3).
/// let c: DCoord = "(0,_,3)".parse().unwrap();
/// let (s, off) = slice_and_offset(&c, &l("(2,3,4):(12,4,1)")).unwrap();
/// assert_eq!((s.to_string(), off.to_string()), ("(3):(4)".to_string(), "3".to_string()));
/// ```
pub fn slice_and_offset(c: &DCoord, l: &DynLayout) -> R<(DynLayout, DInt)> {
    let off = crd2idx_coord(c, l.shape(), l.stride())?;
    Ok((slice(c, l)?, off))
}

/// CuTe's `print_layout` table of a rank-2 layout.
///
/// ```
/// use layout_core::dynamic::*;
/// use layout_core::DynLayout;
/// let l = |s: &str| s.parse::<DynLayout>().unwrap();
/// // Rows are mode 0, columns mode 1, each cell the offset.
/// let t = print_layout(&l("(_2,_2):(_1,_2)")).unwrap();
/// assert!(t.starts_with("(_2,_2):(_1,_2)"));
/// assert!(t.contains("| 0 | 2 |") && t.contains("| 1 | 3 |"), "{t}");
/// ```
pub fn print_layout(l: &DynLayout) -> R<String> {
    print_table(l, l, "print_layout", |i| l.call(i))
}

/// CuTe's `print_layout` of a rank-2 `layout` (or of something whose
/// domain and cosize are that layout's: a swizzled layout), headed by
/// `head`, each cell `offset(m + rows * n)`, drawn by the typed
/// `print_layout`'s renderer; refused past
/// [`PRINT_LIMIT`](crate::layout::print::PRINT_LIMIT) cells.
pub(crate) fn print_table(
    head: &dyn core::fmt::Display,
    l: &DynLayout,
    op: &'static str,
    offset: impl Fn(i64) -> R<i64>,
) -> R<String> {
    if l.rank() != 2 {
        return Err(invalid(op, format!("{head} is not rank 2")));
    }
    let (rows, cols) = (l.mode_size(0)?, l.mode_size(1)?);
    let size = match (usize::try_from(rows), usize::try_from(cols)) {
        (Ok(r), Ok(c)) if print::fits(r, c) => Some((r, c)),
        _ => None,
    };
    let Some((rows, cols)) = size else {
        return Err(invalid(
            op,
            format!(
                "{head}: more than {} cells to print; print a part of it (slice or local_tile)",
                print::PRINT_LIMIT
            ),
        ));
    };
    // One past the largest offset: not negative.
    let cosize = usize::try_from(l.cosize()?.value).unwrap_or(0);
    let mut f = String::new();
    match print::write_table(&mut f, head, rows, cols, cosize, |i| offset(i as i64)) {
        Err(TableError::Cell(e)) => Err(e),
        // A `String` takes every write.
        Ok(()) | Err(TableError::Write(_)) => Ok(f),
    }
}

/// Print an integer result as CuTe does.
///
/// ```
/// use layout_core::dynamic::*;
/// assert_eq!(int_text(layout_core::DInt::new_static(4)), "_4");
/// ```
pub fn int_text(i: DInt) -> String {
    format!("{i}")
}
