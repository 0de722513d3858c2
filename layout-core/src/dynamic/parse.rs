//! Parsing CuTe notation: `(_2,(_2,_2)):(_4,(_2,_1))`, `8:_1`, `(3,4)`.

use super::{compact_left, DInt, DTuple, DynLayout};
use crate::error::LayoutError;
use alloc::vec::Vec;

/// The deepest nesting any parser accepts (the layout parser's limit).
pub(crate) const MAX_DEPTH: usize = 64;

/// `Err` when parentheses in `s` nest deeper than [`MAX_DEPTH`]: checked in
/// one pass before the splitting parsers (tilers, coordinates) recurse, so
/// that they recurse at most that deep and stay linear in the length.
pub(crate) fn check_depth(s: &str) -> Result<(), LayoutError> {
    let mut depth = 0usize;
    for (i, c) in s.bytes().enumerate() {
        match c {
            b'(' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return Err(LayoutError::Parse {
                        pos: i,
                        expected: "less nesting (at most 64 levels)",
                    });
                }
            }
            b')' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

struct P<'a> {
    s: &'a [u8],
    i: usize,
}

impl P<'_> {
    fn err(&self, expected: &'static str) -> LayoutError {
        LayoutError::Parse {
            pos: self.i,
            expected,
        }
    }
    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }
    fn node(&mut self, depth: usize) -> Result<DTuple, LayoutError> {
        if depth > MAX_DEPTH {
            return Err(self.err("less nesting (at most 64 levels)"));
        }
        self.skip_ws();
        match self.s.get(self.i) {
            Some(b'(') => {
                self.i += 1;
                let mut v = Vec::new();
                self.skip_ws();
                if self.s.get(self.i) == Some(&b')') {
                    self.i += 1;
                    return Ok(DTuple::Tuple(v));
                }
                loop {
                    v.push(self.node(depth + 1)?);
                    self.skip_ws();
                    match self.s.get(self.i) {
                        Some(b',') => self.i += 1,
                        Some(b')') => {
                            self.i += 1;
                            return Ok(DTuple::Tuple(v));
                        }
                        _ => return Err(self.err("`,` or `)`")),
                    }
                }
            }
            Some(b'_') => {
                self.i += 1;
                self.int(true)
            }
            Some(c) if c.is_ascii_digit() || *c == b'-' => self.int(false),
            _ => Err(self.err("an integer, `_N` or `(`")),
        }
    }
    fn int(&mut self, st: bool) -> Result<DTuple, LayoutError> {
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
                .ok_or(LayoutError::Parse {
                    pos: start,
                    expected: "an integer that fits 63 bits",
                })?;
            self.i += 1;
        }
        if self.i == start {
            return Err(self.err("digits"));
        }
        Ok(DTuple::Int(DInt {
            value: if neg { -v } else { v },
            is_static: st,
        }))
    }
}

/// Parse a tuple or integer in CuTe notation.
pub(crate) fn tuple(s: &str) -> Result<DTuple, LayoutError> {
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
    };
    let t = p.node(0)?;
    p.skip_ws();
    if p.i != s.len() {
        return Err(p.err("end of input"));
    }
    Ok(t)
}

/// Parse a layout `shape:stride`, or a shape alone (LayoutLeft strides).
pub(crate) fn layout(s: &str) -> Result<DynLayout, LayoutError> {
    let mut p = P {
        s: s.as_bytes(),
        i: 0,
    };
    let shape = p.node(0)?;
    p.skip_ws();
    let stride = if p.s.get(p.i) == Some(&b':') {
        p.i += 1;
        let at = p.i;
        let d = p.node(0)?;
        if !shape.congruent(&d) {
            return Err(LayoutError::Parse {
                pos: at,
                expected: "a stride that nests like the shape",
            });
        }
        d
    } else {
        compact_left(&shape, DInt::new_static(1))
            .map_err(|_| p.err("a shape whose compact strides fit 63 bits"))?
    };
    p.skip_ws();
    if p.i != s.len() {
        return Err(p.err("end of input"));
    }
    if let Some(bad) = shape.leaves().iter().find(|l| l.value < 0) {
        let _ = bad;
        return Err(LayoutError::Parse {
            pos: 0,
            expected: "non-negative shapes",
        });
    }
    Ok(DynLayout::raw(shape, stride))
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
