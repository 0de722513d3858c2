//! Shared helpers of the fuzz targets: a byte cursor and small layouts
//! built from bytes (so the oracle spends its time on valid inputs).

use layout_core::{DTuple, DynLayout, Tiler};

pub mod exact;

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

impl Bytes<'_> {
    /// A run-time extent or stride for the typed algebra: small values
    /// (0 included) most often, then powers of two and their neighbours,
    /// values near 2^63 and 2^64 (where `i64` and `usize` end), and any
    /// 64-bit value.
    pub fn leaf(&mut self) -> usize {
        let (kind, arg) = (self.next(), self.next() as usize);
        match kind % 10 {
            0..=3 => arg % 10,
            4 => arg | (self.next() as usize) << 8,
            5 => 1 << (arg % 64),
            6 => (1usize << (arg % 64)).wrapping_add(if arg & 64 != 0 { 1 } else { usize::MAX }),
            7 => (1usize << 63).wrapping_add(arg % 8).wrapping_sub(4),
            8 => usize::MAX - arg % 8,
            _ => (0..8).fold(arg, |v, _| v << 8 | self.next() as usize),
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
