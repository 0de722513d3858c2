//! Shared helpers of the fuzz targets: a byte cursor and small layouts
//! built from bytes (so the oracle spends its time on valid inputs).

use layout_core::{DTuple, DynLayout, Tiler};

/// Reads bytes in order; 0 once they run out.
pub struct Bytes<'a>(pub &'a [u8]);

impl Bytes<'_> {
    /// The next byte.
    pub fn next(&mut self) -> u8 {
        match self.0.split_first() {
            Some((b, rest)) => {
                self.0 = rest;
                *b
            }
            None => 0,
        }
    }
}

/// One leaf pair `shape:stride` as text: shape 1..=6, stride -2..=13, each
/// static (`_n`) or not.
fn leaf(b: &mut Bytes) -> (String, String) {
    let (x, y) = (b.next(), b.next());
    let s = 1 + (x % 6) as i64;
    let d = (y % 16) as i64 - 2;
    let st = |v: i64, on: bool| if on { format!("_{v}") } else { v.to_string() };
    (st(s, x & 0x40 != 0), st(d, y & 0x40 != 0))
}

/// A layout of rank 1..=3, each mode a leaf or a pair of leaves.
pub fn layout(b: &mut Bytes) -> Option<DynLayout> {
    let rank = 1 + b.next() % 3;
    let (mut s, mut d) = (Vec::new(), Vec::new());
    for _ in 0..rank {
        if b.next() % 4 == 0 {
            let ((s0, d0), (s1, d1)) = (leaf(b), leaf(b));
            s.push(format!("({s0},{s1})"));
            d.push(format!("({d0},{d1})"));
        } else {
            let (s0, d0) = leaf(b);
            s.push(s0);
            d.push(d0);
        }
    }
    format!("({}):({})", s.join(","), d.join(",")).parse().ok()
}

/// A tiler: a layout, or a tuple of 1..=2 layouts or integers.
pub fn tiler(b: &mut Bytes) -> Option<Tiler> {
    match b.next() % 3 {
        0 => Some(Tiler::Layout(layout(b)?)),
        1 => {
            let n = 1 + b.next() % 8;
            format!("{n}").parse().ok()
        }
        _ => {
            let (x, y) = (1 + b.next() % 4, 1 + b.next() % 4);
            format!("({x},{y})").parse().ok()
        }
    }
}

/// A small positive integer tuple (a cotarget).
pub fn small_tuple(b: &mut Bytes) -> Option<DTuple> {
    let n = 1 + (b.next() % 64) as i64;
    layout_core::parse_tuple(&n.to_string()).ok()
}
