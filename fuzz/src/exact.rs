//! An exact model of a layout for the differential target: a printed layout
//! (either algebra's `Display`, CuTe notation) read into `i128` leaves, so
//! that no `usize` or `i64` limit applies, and its function, size and
//! cosize evaluated by the definitions (`None` only past `i128`). It shares
//! no code with `layout-core`: the oracle the typed and run-time algebras
//! are checked against.

/// A shape or stride: an integer or a tuple.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum T {
    /// An integer (static or not: the model does not care).
    Leaf(i128),
    /// A tuple of modes.
    Tuple(Vec<T>),
}

/// A layout `shape:stride` with exact leaves.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ex {
    /// The shape.
    pub s: T,
    /// The stride, nested as the shape.
    pub d: T,
}

fn tuple(b: &[u8], at: &mut usize) -> Option<T> {
    if *b.get(*at)? == b'(' {
        *at += 1;
        let mut v = Vec::new();
        if *b.get(*at)? == b')' {
            *at += 1;
            return Some(T::Tuple(v));
        }
        loop {
            v.push(tuple(b, at)?);
            match *b.get(*at)? {
                b',' => *at += 1,
                b')' => {
                    *at += 1;
                    return Some(T::Tuple(v));
                }
                _ => return None,
            }
        }
    }
    if b.get(*at) == Some(&b'_') {
        *at += 1;
    }
    let neg = b.get(*at) == Some(&b'-');
    if neg {
        *at += 1;
    }
    let start = *at;
    let mut v: i128 = 0;
    while let Some(c) = b.get(*at).filter(|c| c.is_ascii_digit()) {
        v = v.checked_mul(10)?.checked_add((c - b'0') as i128)?;
        *at += 1;
    }
    if *at == start {
        return None;
    }
    Some(T::Leaf(if neg { -v } else { v }))
}

/// Read a tuple in CuTe notation (`(_4,3)`, `12`).
pub fn parse_tuple(text: &str) -> Option<T> {
    let b = text.as_bytes();
    let mut at = 0;
    let t = tuple(b, &mut at)?;
    (at == b.len()).then_some(t)
}

impl Ex {
    /// Read `shape:stride` in CuTe notation (`(_4,3):(_1,4)`).
    pub fn parse(text: &str) -> Option<Ex> {
        let (s, d) = text.split_once(':')?;
        let (s, d) = (parse_tuple(s)?, parse_tuple(d)?);
        congruent(&s, &d).then_some(Ex { s, d })
    }
    /// Top-level mode `i` (an integer layout is its own mode 0).
    pub fn mode(&self, i: usize) -> Option<Ex> {
        match (&self.s, &self.d) {
            (T::Tuple(s), T::Tuple(d)) => Some(Ex {
                s: s.get(i)?.clone(),
                d: d.get(i)?.clone(),
            }),
            _ if i == 0 => Some(self.clone()),
            _ => None,
        }
    }
    /// Whether the shape is an integer (not a tuple).
    pub fn is_int(&self) -> bool {
        matches!(self.s, T::Leaf(_))
    }
    /// The number of top-level modes (1 for an integer layout).
    pub fn rank(&self) -> usize {
        match &self.s {
            T::Tuple(v) => v.len(),
            T::Leaf(_) => 1,
        }
    }
    /// The (shape, stride) leaves in order.
    pub fn leaves(&self) -> Vec<(i128, i128)> {
        let mut out = Vec::new();
        pairs(&self.s, &self.d, &mut out);
        out
    }
    /// The number of coordinates.
    pub fn size(&self) -> Option<i128> {
        size(&self.s)
    }
    /// One past the largest offset for offsets of 0 and up: 0 for size 0,
    /// else `1 + sum (s - 1) * |d|`.
    pub fn cosize(&self) -> Option<i128> {
        if self.size()? == 0 {
            return Some(0);
        }
        let mut hi: i128 = 0;
        for (s, d) in self.leaves() {
            hi = hi.checked_add((s - 1).checked_mul(d.checked_abs()?)?)?;
        }
        hi.checked_add(1)
    }
    /// The offset of 1-D index `i` (colexicographic; the last mode takes
    /// what the others leave, as CuTe's). `None` when a mode the index
    /// passes through has size 0 (CuTe divides by it) or past `i128`.
    pub fn at(&self, i: i128) -> Option<i128> {
        eval(&self.s, &self.d, i)
    }
}

fn congruent(s: &T, d: &T) -> bool {
    match (s, d) {
        (T::Leaf(x), T::Leaf(_)) => *x >= 0,
        (T::Tuple(a), T::Tuple(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| congruent(x, y))
        }
        _ => false,
    }
}

fn pairs(s: &T, d: &T, out: &mut Vec<(i128, i128)>) {
    match (s, d) {
        (T::Leaf(x), T::Leaf(y)) => out.push((*x, *y)),
        (T::Tuple(a), T::Tuple(b)) => a.iter().zip(b).for_each(|(x, y)| pairs(x, y, out)),
        _ => unreachable!("congruent by construction"),
    }
}

/// The product of a tuple's leaves.
pub fn size(t: &T) -> Option<i128> {
    match t {
        T::Leaf(x) => Some(*x),
        T::Tuple(v) => v.iter().try_fold(1i128, |a, x| a.checked_mul(size(x)?)),
    }
}

fn eval(s: &T, d: &T, i: i128) -> Option<i128> {
    match (s, d) {
        (T::Leaf(_), T::Leaf(d)) => i.checked_mul(*d),
        (T::Tuple(ss), T::Tuple(ds)) => {
            let mut rest = i;
            let mut acc: i128 = 0;
            for (k, (x, y)) in ss.iter().zip(ds).enumerate() {
                let part = if k + 1 == ss.len() {
                    eval(x, y, rest)?
                } else {
                    let n = size(x)?;
                    if n == 0 {
                        return None;
                    }
                    let p = eval(x, y, rest % n)?;
                    rest /= n;
                    p
                };
                acc = acc.checked_add(part)?;
            }
            Some(acc)
        }
        _ => None,
    }
}

/// Whether the layout's function strictly increases with the index (CuTe's
/// postcondition of a complement): sorted as given, each mode of size
/// above 1 steps past everything the modes before it reach.
pub fn increasing(l: &Ex) -> bool {
    let mut below: i128 = 0;
    for (s, d) in l.leaves() {
        if s <= 1 {
            continue;
        }
        if d <= below {
            return false;
        }
        below = match (s - 1).checked_mul(d).and_then(|x| x.checked_add(below)) {
            Some(b) => b,
            None => return false,
        };
    }
    true
}

/// The definition of `complement(A, M) = R`, exactly: the modes of A and
/// R (sizes above 1, strides not 0) sorted by stride stack, each stride
/// above everything the modes below it reach, so `(A, R)` is one to one;
/// and they stack from 1 without a gap up to `M` or more, so `(A, R)`
/// covers `[0, M)`. `Err` says which fails.
pub fn complement_holds(a: &Ex, r: &Ex, m: i128) -> Result<(), String> {
    let mut modes: Vec<(i128, i128)> = a
        .leaves()
        .into_iter()
        .chain(r.leaves())
        .filter(|&(s, d)| s > 1 && d != 0)
        .collect();
    if let Some(&(s, d)) = modes.iter().find(|&&(_, d)| d < 0) {
        return Err(format!("mode {s}:{d} has a negative stride"));
    }
    modes.sort_by_key(|&(_, d)| d);
    let (mut below, mut reach): (i128, i128) = (0, 1);
    for &(s, d) in &modes {
        if d <= below {
            return Err(format!(
                "mode {s}:{d} lands on the modes below it (they reach {below})"
            ));
        }
        below = (s - 1)
            .checked_mul(d)
            .and_then(|x| x.checked_add(below))
            .ok_or("past i128")?;
        if d == reach {
            reach = s.checked_mul(d).ok_or("past i128")?;
        }
    }
    if m > 1 && reach < m {
        return Err(format!("the modes cover [0, {reach}), not [0, {m})"));
    }
    Ok(())
}

/// The leaves as a sorted list: two layouts with the same leaves in any
/// nesting (a divide and its zipped form) compare equal.
pub fn leaf_multiset(l: &Ex) -> Vec<(i128, i128)> {
    let mut v = l.leaves();
    v.sort_unstable();
    v
}

/// Indices to check in `[0, n)`: all of them up to 64, else the ends and
/// `extra` (fuzzed) spread over the range.
pub fn indices(n: i128, extra: &[u64]) -> Vec<i128> {
    if n <= 0 {
        return Vec::new();
    }
    if n <= 64 {
        return (0..n).collect();
    }
    let mut v: Vec<i128> = vec![0, 1, 2, n / 2, n - 2, n - 1];
    for &e in extra {
        v.push(e as i128 % n);
        // Near the top as well, where the numbers are largest.
        v.push(n - 1 - (e as i128 % n));
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_reads_and_evaluates() {
        let l = Ex::parse("((_2,3),4):((_1,5),_60)").unwrap();
        assert_eq!(l.size(), Some(24));
        // 7 = (1, 0) in (2,3) then 1 in mode 1: 1*1 + 0*5 + 1*60.
        assert_eq!(l.at(7), Some(61));
        assert_eq!(l.cosize(), Some(1 + 1 + 10 + 180));
        let big = Ex::parse("18446744073709551615:2").unwrap();
        assert_eq!(big.at(3), Some(6));
        assert!(complement_holds(
            &Ex::parse("4:2").unwrap(),
            &Ex::parse("(2,2):(1,8)").unwrap(),
            16
        )
        .is_ok());
        assert!(
            complement_holds(&Ex::parse("4:2").unwrap(), &Ex::parse("2:1").unwrap(), 16).is_err()
        );
    }
}
