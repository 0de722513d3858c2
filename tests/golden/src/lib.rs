//! The report of the typed golden test and the helpers its generated cases
//! call. The cases themselves are generated into two crates
//! (`layout-golden-0`, `layout-golden-1`) so that they compile in parallel;
//! `tests/golden.rs` (`cargo test --release --test golden`) runs both and
//! prints the report.

#![allow(
    clippy::all,
    missing_docs,
    unused_imports,
    unused_variables,
    unused_braces
)]

use layout_core::*;
use std::collections::BTreeMap;

#[derive(Default)]
pub struct Report {
    pub unsupported: BTreeMap<&'static str, usize>,
    pub counts: BTreeMap<&'static str, (usize, usize)>,
    pub failures: Vec<String>,
    pub deliberate: Vec<String>,
}

pub fn strip_static(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = String::with_capacity(s.len());
    for (i, c) in s.char_indices() {
        if c == '_'
            && b.get(i + 1)
                .is_some_and(|d| d.is_ascii_digit() || *d == b'-')
        {
            continue;
        }
        out.push(c);
    }
    out
}

/// Put `_` in front of the k-th number of a printed coordinate when `flags[k]`.
pub fn mark_static(s: &str, flags: &[bool]) -> String {
    let mut out = String::new();
    let mut k = 0;
    let mut prev_digit = false;
    for c in s.chars() {
        let d = c.is_ascii_digit();
        if d && !prev_digit {
            if flags.get(k).copied().unwrap_or(false) {
                out.push('_');
            }
            k += 1;
        }
        prev_digit = d;
        out.push(c);
    }
    out
}

/// The numbers of a printed tuple, in order.
pub fn numbers(s: &str) -> Vec<u64> {
    s.split(|c: char| !c.is_ascii_digit())
        .filter(|t| !t.is_empty())
        .map(|t| t.parse().unwrap())
        .collect()
}

pub fn short(t: &[usize]) -> String {
    if t.len() <= 16 {
        format!("{t:?}")
    } else {
        format!("{:?}... ({} entries)", &t[..16], t.len())
    }
}

pub fn fmt_int(v: usize, st: bool) -> String {
    if st {
        format!("_{v}")
    } else {
        v.to_string()
    }
}

/// Which leaves of `idx2crd(i, shape)` CuTe keeps static: a static size-1
/// leaf of a tuple shape gives `_0`; otherwise a leaf is static when the
/// index, the leaf and every leaf before it are static.
pub fn idx2crd_static<S: IntTuple>(s: &S, idx_static: bool) -> Vec<bool> {
    if S::IS_INT {
        return vec![idx_static];
    }
    let mut flags = Vec::new();
    let mut prefix_static = true;
    s.for_each_leaf(&mut |v, st| {
        if st && v == 1 {
            flags.push(true);
        } else {
            flags.push(idx_static && prefix_static && st);
            prefix_static &= st;
        }
    });
    flags
}

pub fn crd2crd_static<T: IntTuple>(t: &T, all: bool) -> Vec<bool> {
    let mut flags = Vec::new();
    t.for_each_leaf(&mut |v, st| flags.push(all || (st && v == 1 && !T::IS_INT)));
    flags
}

pub fn is_static_crd<Cc: Crd2Idx<S, D>, S: Congruent<D>, D: IntTuple>(
    _c: Cc,
    _l: Layout<S, D>,
) -> bool {
    Cc::STATIC && Layout::<S, D>::IS_STATIC
}
pub fn composition_refusal<A, B: layout_core::algebra::ComposeOnto<A>>(
    _a: &A,
    _b: &B,
) -> Option<&'static str> {
    layout_core::algebra::composition_error::<A, B>()
}
/// Whether the type checker admits `T` as a tiler of `A` for the operation
/// `Op` (the bound the checked algebra requires), read on concrete types
/// by method resolution: `(&probe::<_, _, Op>(&a, &t)).admitted()` finds
/// [`ViaAdmits`] when the bound holds, else [`ViaRefuses`] one autoref later.
pub struct Probe<A, T, Op>(std::marker::PhantomData<(A, T, Op)>);
pub fn probe<A, T, Op>(_a: &A, _t: &T) -> Probe<A, T, Op> {
    Probe(std::marker::PhantomData)
}
pub trait ViaAdmits {
    fn admitted(&self) -> bool;
}
/// The unchecked trait of an operation's tiler, by its marker: its verdict.
pub trait VerdictFor<A, Op> {
    type V;
}
impl<A, T: layout_core::algebra::ComposeOnto<A>>
    VerdictFor<A, layout_core::algebra::admits::ComposeOp> for T
{
    type V = T::Verdict;
}
impl<A, T: layout_core::algebra::DivideParts<A>>
    VerdictFor<A, layout_core::algebra::admits::DivideOp> for T
{
    type V = T::Verdict;
}
impl<A, T: layout_core::algebra::ProductParts<A>>
    VerdictFor<A, layout_core::algebra::admits::ProductOp> for T
{
    type V = T::Verdict;
}
impl<A, T: VerdictFor<A, Op>, Op> ViaAdmits for Probe<A, T, Op>
where
    T::V: layout_core::algebra::admits::Holds<Op>,
{
    fn admitted(&self) -> bool {
        true
    }
}
pub trait ViaRefuses {
    fn admitted(&self) -> bool;
}
impl<A, T, Op> ViaRefuses for &Probe<A, T, Op> {
    fn admitted(&self) -> bool {
        false
    }
}
/// The type checker's verdict on a composition with a layout tiler, as the
/// const check's reason text (`None`: admitted).
pub fn composition_verdict_text<A, B>(_a: &A, _b: &B) -> Option<String>
where
    A: layout_core::algebra::composition::CoalesceX + layout_core::algebra::LayoutParts,
    B: layout_core::algebra::LayoutParts,
    (B::Shape, B::Stride): layout_core::algebra::admits::CompositionVerdict<A::Pairs>,
    <(B::Shape, B::Stride) as layout_core::algebra::admits::CompositionVerdict<A::Pairs>>::Out:
        layout_core::algebra::admits::VerdictValue,
{
    layout_core::algebra::composition_verdict::<A, B>().map(|e| {
        e.text(layout_core::typelevel::const_text::Text::EMPTY)
            .as_str()
            .to_string()
    })
}
pub fn complement_refusal<A: layout_core::algebra::Complement<M>, M>(
    _a: &A,
    _m: &M,
) -> Option<&'static str> {
    layout_core::algebra::complement_error::<A, M>()
}
pub fn complement_default_refusal<A>(_a: &A) -> Option<&'static str>
where
    A: layout_core::algebra::DefaultCotarget + layout_core::algebra::Complement<A::Cot>,
{
    layout_core::algebra::complement_error::<A, A::Cot>()
}
pub fn divide_refusal<A, T: layout_core::algebra::DivideParts<A>>(
    _a: &A,
    _t: &T,
) -> Option<&'static str> {
    layout_core::algebra::divide_error::<A, T>()
}
pub fn product_refusal<A, T: layout_core::algebra::ProductParts<A>>(
    _a: &A,
    _t: &T,
) -> Option<&'static str> {
    layout_core::algebra::product_error::<A, T>()
}
pub fn is_static_shape<S: Congruent<D>, D: IntTuple>(_l: Layout<S, D>) -> bool {
    S::ALL_STATIC
}
pub fn is_static_layout<S: Congruent<D>, D: IntTuple>(_l: Layout<S, D>) -> bool {
    Layout::<S, D>::IS_STATIC
}

impl Report {
    pub fn record(
        &mut self,
        op: &'static str,
        id: &str,
        ok: bool,
        detail: impl FnOnce() -> String,
    ) {
        let e = self.counts.entry(op).or_default();
        if ok {
            e.0 += 1;
        } else {
            e.1 += 1;
            self.failures.push(format!("{op} {id}: {}", detail()));
        }
    }
    pub fn same(exact: bool, got: &str, exp: &str) -> bool {
        if exact {
            got == exp
        } else {
            strip_static(got) == strip_static(exp)
        }
    }
    pub fn layout<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        exact: bool,
        out: Layout<S, D>,
        exp: &str,
        table: Option<&[usize]>,
    ) {
        // The all-dynamic build cannot know that a 1 is a size-1 mode (CuTe
        // gives those static `_0` strides), so it is compared by table.
        let got = out.to_string();
        let got_table = out.table();
        let ok = (!exact || got == exp) && table.is_none_or(|t| t == got_table.as_slice());
        self.record(op, id, ok, || {
            format!(
                "got {got} {}, CuTe {exp} {} (exact: {exact})",
                short(&got_table),
                short(table.unwrap_or(&[]))
            )
        });
    }
    /// Compact strides: exact, or (all-dynamic build) equal on every leaf whose shape is not 1.
    pub fn strides<S: IntTuple, T: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        exact: bool,
        shape: &S,
        out: &T,
        exp: &str,
    ) {
        let got = to_cute_string(out);
        let ok = if exact {
            got == exp
        } else {
            let mut sizes = Vec::new();
            shape.for_each_leaf(&mut |v, _| sizes.push(v));
            let mine = numbers(&got);
            let cute = numbers(exp);
            mine.len() == cute.len()
                && sizes.len() == mine.len()
                && (0..mine.len()).all(|k| sizes[k] == 1 || mine[k] == cute[k])
        };
        self.record(op, id, ok, || format!("got {got}, CuTe {exp}"));
    }
    pub fn int(&mut self, op: &'static str, id: &str, exact: bool, v: usize, st: bool, exp: &str) {
        let got = fmt_int(v, st);
        self.record(op, id, Self::same(exact, &got, exp), || {
            format!("got {got}, CuTe {exp}")
        });
    }
    pub fn coord<T: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        exact: bool,
        out: &T,
        flags: &[bool],
        exp: &str,
    ) {
        let got = mark_static(&to_cute_string(out), flags);
        self.record(op, id, Self::same(exact, &got, exp), || {
            format!("got {got}, CuTe {exp}")
        });
    }
    pub fn text(&mut self, op: &'static str, id: &str, exact: bool, got: &str, exp: &str) {
        self.record(op, id, Self::same(exact, got, exp), || {
            format!("got\n{got}CuTe\n{exp}")
        });
    }
    #[allow(clippy::too_many_arguments)]
    pub fn slice_and_offset<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        exact: bool,
        out: Layout<S, D>,
        off: usize,
        st: bool,
        exp: &str,
        table: Option<&[usize]>,
    ) {
        let got = format!("({},{})", out, fmt_int(off, st));
        let got_table = out.table();
        let ok = Self::same(exact, &got, exp) && table.is_none_or(|t| t == got_table.as_slice());
        self.record(op, id, ok, || {
            format!(
                "got {got} {}, CuTe {exp} {}",
                short(&got_table),
                short(table.unwrap_or(&[]))
            )
        });
    }
    /// A record of a form the typed API does not offer yet.
    #[allow(dead_code)]
    /// A typed algebra result: exact print and table against CuTe, and the
    /// same print as the run-time algebra (`DynLayout`).
    pub fn algebra<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        out: Layout<S, D>,
        dl: Result<DynLayout, LayoutError>,
        exp: &str,
        table: Option<&[usize]>,
    ) {
        let got = out.to_string();
        let got_table = out.table();
        let dyn_text = match &dl {
            Ok(l) => l.to_string(),
            Err(e) => format!("Err({e})"),
        };
        // A static result is a zero-sized type.
        let zst = !Layout::<S, D>::IS_STATIC || std::mem::size_of::<Layout<S, D>>() == 0;
        let ok =
            got == exp && table.is_none_or(|t| t == got_table.as_slice()) && dyn_text == got && zst;
        self.record(op, id, ok, || {
            format!(
                "got {got} {} (zero-sized if static: {zst}), DynLayout {dyn_text}, CuTe {exp} {}",
                short(&got_table),
                short(table.unwrap_or(&[]))
            )
        });
    }
    /// A tensor partition: its layout (print and table) and the offset of
    /// its first element in the storage, all exactly CuTe's.
    pub fn partition<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        out: Result<(Layout<S, D>, usize), LayoutError>,
        exp: &str,
        table: Option<&[usize]>,
        offset: usize,
    ) {
        let (got, got_table, got_off) = match &out {
            Ok((l, off)) => (l.to_string(), l.table(), *off),
            Err(e) => (format!("Err({e})"), Vec::new(), 0),
        };
        let ok = got == exp && table.is_none_or(|t| t == got_table.as_slice()) && got_off == offset;
        self.record(op, id, ok, || {
            format!(
                "got {got} {} offset {got_off}, CuTe {exp} {} offset {offset}",
                short(&got_table),
                short(table.unwrap_or(&[]))
            )
        });
    }
    /// [`Report::algebra`] for a fallible op. Refusing is right only where
    /// CuTe's printed result breaks its own post-condition `size(R) ==
    /// size(B)` (B given as text), and the run-time algebra refuses too.
    pub fn algebra_try<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        out: Result<Layout<S, D>, LayoutError>,
        dl: Result<DynLayout, LayoutError>,
        exp: &str,
        table: Option<&[usize]>,
        b: &str,
    ) {
        let b_size = b.parse::<DynLayout>().ok().and_then(|l| l.size().ok());
        let breaks = table
            .zip(b_size)
            .is_some_and(|(t, n)| t.len() as i64 != n.value);
        self.algebra_try_by(op, id, out, dl, exp, table, breaks, || {
            format!(
                "CuTe {exp} has size {} for B = {b}",
                table.map_or(0, |t| t.len())
            )
        });
    }
    /// [`Report::algebra_try`] for a divide: refusing is right only where
    /// CuTe's printed result has fewer elements than A (given as text), which
    /// a divide (A rearranged into tiles) cannot have, and the run-time
    /// algebra refuses too.
    pub fn algebra_try_divide<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        out: Result<Layout<S, D>, LayoutError>,
        dl: Result<DynLayout, LayoutError>,
        exp: &str,
        table: Option<&[usize]>,
        a: &str,
    ) {
        let a_size = a.parse::<DynLayout>().ok().and_then(|l| l.size().ok());
        let breaks = table
            .zip(a_size)
            .is_some_and(|(t, n)| (t.len() as i64) < n.value);
        self.algebra_try_by(op, id, out, dl, exp, table, breaks, || {
            format!(
                "CuTe {exp} has size {}, below size(A) for A = {a}",
                table.map_or(0, |t| t.len())
            )
        });
    }
    #[allow(clippy::too_many_arguments)]
    fn algebra_try_by<S: Congruent<D>, D: IntTuple>(
        &mut self,
        op: &'static str,
        id: &str,
        out: Result<Layout<S, D>, LayoutError>,
        dl: Result<DynLayout, LayoutError>,
        exp: &str,
        table: Option<&[usize]>,
        breaks: bool,
        why: impl FnOnce() -> String,
    ) {
        match out {
            Ok(l) => self.algebra(op, id, l, dl, exp, table),
            Err(e) => {
                let same = dl
                    .as_ref()
                    .err()
                    .is_some_and(|x| same_refusal(&e.to_string(), &x.to_string()));
                if breaks && same {
                    self.deliberate
                        .push(format!("{id}: {}; refused: {e}", why()));
                }
                self.record(op, id, breaks && same, || {
                    format!("refused: {e}; CuTe {exp}")
                });
            }
        }
    }
    /// A table alone (a composed layout's offsets).
    pub fn table(&mut self, op: &'static str, id: &str, got: &[usize], table: Option<&[usize]>) {
        let ok = table.is_none_or(|t| t == got);
        self.record(op, id, ok, || {
            format!(
                "table {} vs CuTe {}",
                short(got),
                short(table.unwrap_or(&[]))
            )
        });
    }
    /// An inadmissible static input: the typed op's predicate must refuse it.
    pub fn refused(&mut self, op: &'static str, id: &str, why: Option<&'static str>) {
        self.record(op, id, why.is_some(), || "accepted".to_string());
    }
    /// Count a static refusal against the type checker's: it refuses (does
    /// not admit) exactly the compositions the const check refuses
    /// (`why` names a composition), and, where `verdict` is given (a
    /// layout tiler), with the same reason and values.
    pub fn typed_refusal(
        &mut self,
        op: &'static str,
        id: &str,
        admitted: bool,
        why: Option<&'static str>,
        verdict: Option<Option<String>>,
    ) {
        let why = why.unwrap_or("");
        let composition = why.starts_with("composition:") || why.contains(": composition:");
        // A divide by a tiler of static size 0 or of an A coalescing to a
        // tuple with a mode of static size 0, and a product of an A of
        // static size 0, are refused by the type checker too, before the
        // composition, and so are a tiler or a product's A with overlapping
        // modes.
        let zero_size = [
            layout_core::algebra::admissible::size_zero::TILER,
            layout_core::algebra::admissible::size_zero::COTARGET,
            layout_core::algebra::admissible::size_zero::PRODUCT,
        ]
        .iter()
        .any(|reason| why.contains(&format!(" has size 0: {reason}")));
        // A divide's tiler, or a product's A, whose modes overlap.
        let overlap = why.contains("(a stride is not above the modes below it)");
        let typed = composition || zero_size || overlap;
        let same = match &verdict {
            Some(Some(v)) => composition && why.ends_with(v.as_str()),
            Some(None) => !composition,
            None => true,
        };
        self.record(op, id, admitted != typed && same, || {
            format!("type checker admitted: {admitted}, verdict {verdict:?}; const check: {why:?}")
        });
    }
    /// Count a build of a form the typed API lacks.
    pub fn unsupported(&mut self, op: &'static str) {
        *self.unsupported.entry(op).or_default() += 1;
    }
    /// Called by generated code for records it could not turn into Rust.
    #[allow(dead_code)]
    pub fn broken(&mut self, op: &'static str, why: &str) {
        self.record(op, "", false, || format!("not generated: {why}"));
    }
}

/// Whether the typed algebra's refusal `typed` ("op: reason", no layouts:
/// it is built without allocating) gives the same reason as the run-time
/// algebra's `dynamic` ("op: A o B: reason").
pub fn same_refusal(typed: &str, dynamic: &str) -> bool {
    match typed.split_once(": ") {
        Some((op, why)) => dynamic.starts_with(op) && dynamic.ends_with(why),
        None => typed == dynamic,
    }
}
