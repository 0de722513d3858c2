//! Parsing CuTe notation: `(_2,(_2,_2)):(_4,(_2,_1))`, `8:_1`, `(3,4)`,
//! coordinates `(1,_)` and tilers `(_2:_1,_)`: one scanner, read four ways;
//! and swizzled layouts `Sw<3,4,3> o _0 o (_8,_64):(_64,_1)`, as CuTe (and
//! this library) print them.

use super::{
    compact_left, ComposedLayout, DCoord, DInt, DTuple, DynLayout, Swizzle, Tiler, TupleBuilder,
};
use crate::error::LayoutError;
use alloc::boxed::Box;
use alloc::vec::Vec;

/// The deepest nesting the parser accepts.
pub(crate) const MAX_DEPTH: usize = 64;

/// A term of CuTe notation as written, before it is read as a tuple, a
/// layout, a coordinate or a tiler; each remembers where it starts.
enum Term {
    Int(DInt, usize),
    /// `_`.
    Underscore(usize),
    Tuple(Vec<Term>, usize),
    /// `shape:stride`, the positions of the `:` and of the stride.
    Layout(Box<Term>, Box<Term>, usize, usize),
}

impl Term {
    fn pos(&self) -> usize {
        match self {
            Term::Int(_, p) | Term::Underscore(p) | Term::Tuple(_, p) => *p,
            Term::Layout(s, ..) => s.pos(),
        }
    }
}

/// The one scanner of CuTe notation: every parser (tuples, layouts,
/// coordinates, tilers) reads its grammar, `term (':' term)?` where a term
/// is an integer, `_N`, `_` or a parenthesised list of such expressions.
struct P<'a> {
    s: &'a [u8],
    i: usize,
}

fn parse_err(pos: usize, expected: &'static str) -> LayoutError {
    LayoutError::Parse { pos, expected }
}

impl P<'_> {
    fn err(&self, expected: &'static str) -> LayoutError {
        parse_err(self.i, expected)
    }
    /// The literal `lit` (after any whitespace), or `Err` expecting `what`.
    fn lit(&mut self, lit: &str, what: &'static str) -> Result<(), LayoutError> {
        self.skip_ws();
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            Ok(())
        } else {
            Err(self.err(what))
        }
    }
    /// The end of the input (after any whitespace).
    fn end(&mut self) -> Result<(), LayoutError> {
        self.skip_ws();
        if self.i != self.s.len() {
            return Err(self.err("end of input"));
        }
        Ok(())
    }
    /// A plain integer (`3`, `-3`), as a swizzle's parameters print.
    fn plain_int(&mut self) -> Result<i64, LayoutError> {
        self.skip_ws();
        let at = self.i;
        match self.s.get(self.i) {
            Some(c) if c.is_ascii_digit() || *c == b'-' => Ok(self.int_value(false)?.value),
            _ => Err(parse_err(at, "an integer")),
        }
    }
    /// `Sw<B,M,S>`.
    fn swizzle(&mut self) -> Result<Swizzle, LayoutError> {
        self.lit("Sw<", "`Sw<` (a swizzle, as `Sw<3,4,3>`)")?;
        let b = self.plain_int()?;
        self.lit(",", "`,`")?;
        let m = self.plain_int()?;
        self.lit(",", "`,`")?;
        let s = self.plain_int()?;
        self.lit(">", "`>`")?;
        Swizzle::new(b, m, s)
    }
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    /// A whole input: one expression, then the end.
    fn all(s: &str) -> Result<Term, LayoutError> {
        let mut p = P {
            s: s.as_bytes(),
            i: 0,
        };
        let t = p.expr(0)?;
        p.end()?;
        Ok(t)
    }
    fn expr(&mut self, depth: usize) -> Result<Term, LayoutError> {
        let t = self.term(depth)?;
        self.skip_ws();
        if self.s.get(self.i) == Some(&b':') {
            let colon = self.i;
            self.i += 1;
            self.skip_ws();
            let at = self.i;
            let d = self.term(depth)?;
            return Ok(Term::Layout(Box::new(t), Box::new(d), colon, at));
        }
        Ok(t)
    }
    fn term(&mut self, depth: usize) -> Result<Term, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(self.err("less nesting (at most 64 levels)"));
        }
        self.skip_ws();
        let at = self.i;
        match self.s.get(self.i) {
            Some(b'(') => {
                self.i += 1;
                let mut v = Vec::new();
                self.skip_ws();
                if self.s.get(self.i) == Some(&b')') {
                    self.i += 1;
                    return Ok(Term::Tuple(v, at));
                }
                loop {
                    v.push(self.expr(depth + 1)?);
                    self.skip_ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b')') => {
                            self.i += 1;
                            return Ok(Term::Tuple(v, at));
                        }
                        _ => return Err(self.err("`,` or `)`")),
                    }
                }
            }
            Some(b'_') => {
                self.i += 1;
                match self.s.get(self.i) {
                    Some(c) if c.is_ascii_digit() || *c == b'-' => self.int(true, at),
                    _ => Ok(Term::Underscore(at)),
                }
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => self.int(false, at),
            _ => Err(self.err("an integer, `_N` or `(`")),
        }
    }
    fn int(&mut self, is_static: bool, at: usize) -> Result<Term, LayoutError> {
        Ok(Term::Int(self.int_value(is_static)?, at))
    }
    fn int_value(&mut self, is_static: bool) -> Result<DInt, LayoutError> {
        let neg = self.s.get(self.i) == Some(&b'-');
        if neg {
            self.i += 1;
        }
        let start = self.i;
        let mut v: i64 = 0;
        while let Some(c) = self.s.get(self.i).filter(|c| c.is_ascii_digit()) {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(i64::from(c - b'0')))
                .ok_or(parse_err(start, "an integer that fits 63 bits"))?;
            self.i += 1;
        }
        if self.i == start {
            return Err(self.err("digits"));
        }
        let value = if neg { -v } else { v };
        Ok(DInt { value, is_static })
    }
}

/// A term read as a tuple of integers.
fn as_tuple(t: Term) -> Result<DTuple, LayoutError> {
    fn put(t: Term, b: &mut TupleBuilder) -> Result<(), LayoutError> {
        match t {
            Term::Int(i, _) => b.leaf(i),
            Term::Tuple(v, _) => {
                let at = b.open();
                v.into_iter().try_for_each(|x| put(x, b))?;
                b.close(at);
            }
            Term::Underscore(p) => {
                return Err(parse_err(
                    p,
                    "an integer (`_` alone keeps a mode in coordinates and tilers)",
                ))
            }
            Term::Layout(_, _, colon, _) => {
                return Err(parse_err(
                    colon,
                    "a tuple (`:` separates a layout's shape and stride)",
                ))
            }
        }
        Ok(())
    }
    let mut b = TupleBuilder::default();
    put(t, &mut b)?;
    Ok(b.finish())
}

/// A term read as a layout: `shape:stride`, or a shape alone (LayoutLeft strides).
fn as_layout(t: Term) -> Result<DynLayout, LayoutError> {
    let (shape_at, shape, stride) = match t {
        Term::Layout(s, d, _, at) => {
            let shape_at = s.pos();
            let shape = as_tuple(*s)?;
            let d = as_tuple(*d)?;
            if !shape.congruent(&d) {
                return Err(parse_err(at, "a stride that nests like the shape"));
            }
            (shape_at, shape, Some(d))
        }
        t => (t.pos(), as_tuple(t)?, None),
    };
    if shape.leaves().iter().any(|l| l.value < 0) {
        return Err(parse_err(shape_at, "non-negative shapes"));
    }
    let stride = match stride {
        Some(d) => d,
        None => compact_left(&shape, DInt::new_static(1))
            .map_err(|_| parse_err(shape_at, "a shape whose compact strides fit 63 bits"))?,
    };
    Ok(DynLayout::raw(shape, stride))
}

fn as_coord(t: Term) -> Result<DCoord, LayoutError> {
    match t {
        Term::Int(i, _) => Ok(DCoord::Int(i)),
        Term::Underscore(_) => Ok(DCoord::Underscore),
        Term::Tuple(v, _) => Ok(DCoord::Tuple(
            v.into_iter().map(as_coord).collect::<Result<_, _>>()?,
        )),
        Term::Layout(_, _, colon, _) => Err(parse_err(colon, "a coordinate (`:` is for layouts)")),
    }
}

fn as_tiler(t: Term) -> Result<Tiler, LayoutError> {
    match t {
        Term::Int(i, _) => Ok(Tiler::Int(i)),
        Term::Underscore(_) => Ok(Tiler::Underscore),
        Term::Tuple(v, _) => Ok(Tiler::Tuple(
            v.into_iter().map(as_tiler).collect::<Result<_, _>>()?,
        )),
        t @ Term::Layout(..) => as_layout(t).map(Tiler::Layout),
    }
}

/// Parse a swizzle `Sw<B,M,S>`.
pub(crate) fn swizzle(s: &str) -> Result<Swizzle, LayoutError> {
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
    };
    let sw = p.swizzle()?;
    p.end()?;
    Ok(sw)
}

/// Parse a swizzled layout as CuTe prints it: `Sw<B,M,S> o _0 o layout`
/// (the offset must be 0, static `_0` or run-time `0`: a swizzle after a
/// layout, with no offset between, is what [`ComposedLayout`] holds).
pub(crate) fn composed(s: &str) -> Result<ComposedLayout, LayoutError> {
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
    };
    let swizzle = p.swizzle()?;
    p.lit("o", "`o` (a swizzled layout is `Sw<B,M,S> o _0 o layout`)")?;
    p.skip_ws();
    let at = p.i;
    match p.term(0)? {
        Term::Int(DInt { value: 0, .. }, _) => {}
        _ => {
            return Err(parse_err(
                at,
                "the offset `_0` (a swizzled layout is `Sw<B,M,S> o _0 o layout`)",
            ))
        }
    }
    p.lit("o", "`o` (a swizzled layout is `Sw<B,M,S> o _0 o layout`)")?;
    let layout = as_layout(p.expr(0)?)?;
    p.end()?;
    Ok(ComposedLayout { swizzle, layout })
}

/// Parse a tuple or integer in CuTe notation.
pub(crate) fn tuple(s: &str) -> Result<DTuple, LayoutError> {
    as_tuple(P::all(s)?)
}

/// Parse a layout `shape:stride`, or a shape alone (LayoutLeft strides).
pub(crate) fn layout(s: &str) -> Result<DynLayout, LayoutError> {
    as_layout(P::all(s)?)
}

/// Parse a coordinate: `(1,_,(0,2))`, `_3`, `_`.
pub(crate) fn coord(s: &str) -> Result<DCoord, LayoutError> {
    as_coord(P::all(s)?)
}

/// Parse a tiler: `(_2:_1,_4,_)`, `((_2,_2):(_1,_2),_4)`, `(_16,_16)`, `_6:_1`.
pub(crate) fn tiler(s: &str) -> Result<Tiler, LayoutError> {
    as_tiler(P::all(s)?)
}

/// Parse a tuple in CuTe notation (shapes, coordinates, profiles).
///
/// ```
/// use layout_core::parse_tuple;
/// assert_eq!(parse_tuple("(_2,(3,_4))").unwrap().to_string(), "(_2,(3,_4))");
/// assert!(parse_tuple("(2,").is_err());
/// ```
pub fn parse_tuple(s: &str) -> Result<DTuple, LayoutError> {
    tuple(s)
}
