//! Admissibility of composition and complement, as `const fn`s over leaf
//! values: the same code refuses a static input at compile time (typed
//! algebra, post-monomorphisation) and a run-time input with an `Err`
//! (`DynLayout`). The refusals are [`crate::error::CompositionError`] and
//! [`crate::error::ComplementError`].

use crate::error::{ComplementError, CompositionError, COMPLEMENT_CAP};
use crate::typelevel::arith::{quot, rem};

const fn gcd(a: usize, b: usize) -> usize {
    let (mut a, mut b) = (a, b);
    while b != 0 {
        let t = rem(a, b);
        a = b;
        b = t;
    }
    a
}

/// `max over 0 <= j < s of (j*d mod p)`, in closed form where one exists.
/// Native-width arithmetic (the check also runs at run time, where 128-bit
/// division is a library call): every product is below `p` or checked.
#[inline]
const fn max_residue(s: usize, d: usize, p: usize) -> usize {
    if s <= 1 || rem(d, p) == 0 {
        return 0;
    }
    if rem(p, d) == 0 {
        let n = if quot(p, d) < s { quot(p, d) } else { s };
        return d * (n - 1);
    }
    let g = gcd(d, p);
    if s >= quot(p, g) || s > 1 << 20 {
        return p - g;
    }
    let (mut best, mut r, step) = (0, 0, rem(d, p));
    let mut j = 0;
    while j < s {
        if r > best {
            best = r;
        }
        // r = (j * d) mod p, advanced without overflow: r + step < 2p.
        r = if r >= p - step {
            r - (p - step)
        } else {
            r + step
        };
        j += 1;
    }
    best
}

/// Whether `A' o B` is admissible: `a` holds the sizes of A' (A coalesced,
/// a static size-1 last mode counted as 2), `bs`/`bd` B's leaf shapes and
/// strides (absolute values). Each leaf of B must walk A' cleanly
/// ([`walk_leaf`]), and the leaves must not carry into each other across a
/// boundary of A' ([`next_boundary`], [`leaf_residue`]).
#[inline]
pub const fn check_composition(
    a: &[usize],
    bs: &[usize],
    bd: &[usize],
) -> Result<(), CompositionError> {
    let mut live = 0;
    let mut l = 0;
    while l < bs.len() {
        match walk_leaf(a, bs[l], bd[l]) {
            Ok(true) => live += 1,
            Ok(false) => {}
            Err(e) => return Err(e),
        }
        l += 1;
    }
    if live > 1 {
        let (mut p, mut i) = (1, 0);
        while let Some(q) = next_boundary(a, i, p) {
            p = q;
            let mut total: usize = 0;
            let mut l = 0;
            while l < bs.len() {
                // Saturated, the sum is still at least p: refused below.
                total = total.saturating_add(leaf_residue(bs[l], bd[l], p));
                l += 1;
            }
            if total >= p {
                return Err(CompositionError::Overlap { i, p });
            }
            i += 1;
        }
        if boundary_overflows(a, i, p) {
            let mut total: u128 = 0;
            let mut l = 0;
            while l < bs.len() {
                total = total.saturating_add(leaf_reach(bs[l], bd[l]));
                l += 1;
            }
            if total > usize::MAX as u128 {
                return Err(CompositionError::PastUsize { i });
            }
        }
    }
    Ok(())
}

/// Whether the boundaries of A' (sizes `a`) stopped at mode `i`, with
/// `p` the product of the sizes before it, because the next boundary
/// `p * a[i]` does not fit `usize` while modes of A' follow it. B's leaves
/// cannot carry across a boundary past `usize` unless their reaches
/// ([`leaf_reach`]) add up past `usize`.
#[inline(always)]
pub const fn boundary_overflows(a: &[usize], i: usize, p: usize) -> bool {
    i + 1 < a.len() && a[i] != 0 && p.checked_mul(a[i]).is_none()
}

/// The largest offset of leaf `s:d` of B, `(s - 1) * d` (0 when it stays):
/// a bound on its residue modulo any boundary.
#[inline(always)]
pub const fn leaf_reach(s: usize, d: usize) -> u128 {
    if s > 1 {
        (s as u128 - 1) * d as u128
    } else {
        0
    }
}

/// Whether leaf `s:d` of B walks A' (sizes `a`) cleanly: `Ok(true)` when it
/// moves (a live leaf), `Ok(false)` when it stays at 0.
#[inline(always)]
pub const fn walk_leaf(a: &[usize], s: usize, d: usize) -> Result<bool, CompositionError> {
    if s <= 1 || d == 0 {
        return Ok(false);
    }
    let (mut r, mut t) = (d, s);
    let mut i = 0;
    while i + 1 < a.len() {
        let c = a[i];
        if c == 0 {
            break;
        }
        if rem(r, c) == 0 {
            r = quot(r, c);
            i += 1;
            continue;
        }
        if rem(c, r) != 0 {
            // The walk ends inside this mode when (t-1)*r < c.
            let ends = match (t - 1).checked_mul(r) {
                Some(x) => x < c,
                None => false,
            };
            if ends {
                break;
            }
            return Err(CompositionError::NotDividing { s, d, i, c });
        }
        let n = quot(c, r);
        if t <= n {
            break;
        }
        if rem(t, n) != 0 {
            return Err(CompositionError::NotMultiple { s, d, n, i, c });
        }
        t /= n;
        r = 1;
        i += 1;
    }
    Ok(true)
}

/// The product of A''s sizes up to boundary `i` (`p` up to boundary
/// `i - 1`), or `None` past the last boundary, at a size 0, or when the
/// product does not fit `usize` ([`boundary_overflows`] tells that case
/// apart: it is checked on B's reach instead).
#[inline(always)]
pub const fn next_boundary(a: &[usize], i: usize, p: usize) -> Option<usize> {
    if i + 1 >= a.len() {
        return None;
    }
    match p.checked_mul(a[i]) {
        Some(x) if x != 0 => Some(x),
        _ => None,
    }
}

/// How far leaf `s:d` reaches modulo `p`: the leaves of B overlap at a
/// boundary of A' when their reaches add up to `p` or more.
#[inline(always)]
pub const fn leaf_residue(s: usize, d: usize, p: usize) -> usize {
    if s > 1 && d != 0 {
        max_residue(s, d, p)
    } else {
        0
    }
}

/// The definition of `complement(A, M)` checked on the modes of
/// `(filter(A), R)` (shapes `s`, strides `d`, any order): sorted by stride,
/// every stride must exceed the largest offset of the modes below it
/// (injective), and the modes must stack from 1 up to `m` (cover `[0, m)`).
/// Modes of size 1 or stride 0 are ignored. More than [`COMPLEMENT_CAP`]
/// other modes are refused.
pub const fn check_complement(s: &[usize], d: &[usize], m: usize) -> Result<(), ComplementError> {
    let (ss, dd, n) = match sorted_modes(s, d) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let mut below: u128 = 0;
    let mut reach: u128 = 1;
    let mut k = 0;
    while k < n {
        let (sk, dk) = (ss[k] as u128, dd[k] as u128);
        if dk <= below {
            return Err(ComplementError::NotStacking {
                s: ss[k],
                d: dd[k],
                below: clamp(below),
            });
        }
        below += (sk - 1) * dk;
        if dk == reach {
            reach = sk * dk;
        }
        k += 1;
    }
    if m > 1 && reach < m as u128 {
        return Err(ComplementError::Gap {
            reach: reach as usize,
            m,
        });
    }
    Ok(())
}

/// The modes of size above 1 and stride not 0, sorted by stride (stable):
/// shapes, strides and their count; more than [`COMPLEMENT_CAP`] are refused.
#[allow(clippy::type_complexity)]
const fn sorted_modes(
    s: &[usize],
    d: &[usize],
) -> Result<([usize; COMPLEMENT_CAP], [usize; COMPLEMENT_CAP], usize), ComplementError> {
    let mut ss = [0usize; COMPLEMENT_CAP];
    let mut dd = [0usize; COMPLEMENT_CAP];
    let mut n = 0;
    let mut i = 0;
    while i < s.len() {
        if s[i] > 1 && d[i] != 0 {
            if n == COMPLEMENT_CAP {
                return Err(ComplementError::TooManyModes { n: n + 1 });
            }
            // insertion sort by stride
            let mut j = n;
            while j > 0 && dd[j - 1] > d[i] {
                ss[j] = ss[j - 1];
                dd[j] = dd[j - 1];
                j -= 1;
            }
            ss[j] = s[i];
            dd[j] = d[i];
            n += 1;
        }
        i += 1;
    }
    Ok((ss, dd, n))
}

/// How far the modes of a static `filter(A)` and the gaps the complement
/// fills between them stack from 1: `Ok((reach, next))`, where `next` is the
/// stride the complement's rest starts at. When `reach == next` the rest
/// covers any cotarget; otherwise a cotarget above `reach` leaves a gap
/// (checked at run time when the cotarget is a run-time value).
pub const fn complement_reach(s: &[usize], d: &[usize]) -> Result<(usize, usize), ComplementError> {
    let (ss, dd, n) = match sorted_modes(s, d) {
        Ok(x) => x,
        Err(e) => return Err(e),
    };
    let (mut below, mut reach, mut next) = (0u128, 1u128, 1u128);
    let mut whole = true;
    let mut k = 0;
    while k < n {
        let (sk, dk) = (ss[k] as u128, dd[k] as u128);
        if dk <= below {
            return Err(ComplementError::NotStacking {
                s: ss[k],
                d: dd[k],
                below: clamp(below),
            });
        }
        if whole {
            // The gap below this mode is filled with `dk / next` copies of
            // what is below; only an exact quotient reaches `dk`.
            if dk % next == 0 {
                reach = sk * dk;
            } else {
                reach = next * (dk / next);
                whole = false;
            }
        }
        below = below.saturating_add((sk - 1) * dk);
        next = sk * dk;
        k += 1;
    }
    Ok((clamp(reach), clamp(next)))
}

/// `x`, or `usize::MAX` past it (a bound in a message or a comparison
/// that only needs to know it is past `usize`).
const fn clamp(x: u128) -> usize {
    if x > usize::MAX as u128 {
        usize::MAX
    } else {
        x as usize
    }
}

/// Where the composition's fold divides by a size 0 (CuTe's
/// `composition_impl` does), for static values (the fold's own steps find
/// it for run-time ones): the fold walks A''s modes before its last with
/// each leaf of B of stride not 0, taking `min(ceil(c / d), rest)` of a
/// mode unless that or the rest is 1, dividing the rest by it and the
/// stride by `c`. `Err(("A", why))` for a mode of A' of size 0 on the way,
/// `Err(("B", why))` for a leaf of B of size 0 that takes a mode.
pub const fn zero_division(
    a: &[usize],
    bs: &[usize],
    bd: &[usize],
) -> Result<(), (&'static str, &'static str)> {
    if a.len() < 2 {
        return Ok(());
    }
    let mut l = 0;
    while l < bs.len() && l < bd.len() {
        let (mut rest, mut d) = (bs[l], bd[l]);
        if d != 0 {
            let mut i = 0;
            while i + 1 < a.len() {
                let c = a[i];
                if c == 0 {
                    return Err(("A", size_zero::COMPOSE_A));
                }
                let next = c.div_ceil(d);
                if next != 1 && rest != 1 {
                    let new = if next < rest { next } else { rest };
                    if new == 0 {
                        return Err(("B", size_zero::COMPOSE_B));
                    }
                    rest /= new;
                }
                d = d.div_ceil(c);
                i += 1;
            }
        }
        l += 1;
    }
    Ok(())
}

/// Why a size 0 refuses an operation, as both algebras say it (after
/// "`what` has size 0: ", [`crate::Refusal::SizeZero`]). CuTe's formulas
/// divide by the size there; where they do not (a divide of a size-0
/// layout by an integer cotarget, a product by a size-0 tiler) both
/// algebras compute CuTe's result instead.
pub mod size_zero {
    /// complement(A, M) with size(A) = 0.
    pub const COMPLEMENT: &str =
        "it reaches no offset, so it has no complement (CuTe's complement divides by its size)";
    /// logical_product(A, B) with size(A) = 0.
    pub const PRODUCT: &str = "it reaches no offset, so it has no complement to lay copies of it out with (CuTe's complement divides by its size)";
    /// logical_divide(A, T) with size(T) = 0.
    pub const TILER: &str =
        "a tiler of size 0 has no complement (CuTe's complement divides by its size)";
    /// A tuple cotarget with a mode of size 0.
    pub const COTARGET: &str = "CuTe's complement divides by each mode of a tuple cotarget, and one is 0 (an integer cotarget 0 gives an empty complement)";
    /// A' has a mode of size 0 before its last.
    pub const COMPOSE_A: &str = "composition divides by the size of each mode of A before its last (CuTe's composition_impl), and one is 0";
    /// B has a mode of size 0 and A' more than one mode.
    pub const COMPOSE_B: &str = "composing a mode of size 0 with a layout of more than one mode divides by that 0 (CuTe's composition_impl)";
}
