//! FlashAttention's online softmax over the query rows a thread holds: the
//! running row maxima and sums across key tiles, the lazy rescale, the
//! exponentials as one FMA each, and the epilogue's 1/sum and log-sum-exp.
//! Written once for every attention kernel; the kernel brings its own
//! register layouts (which S value is in which row) and its warp's row
//! reduction.

use crate::{each, exp2, fma, log2};

/// How far (base 2) a row's maximum may outgrow the reference its
/// exponentials are taken against before the warp rescales: P stays below
/// 2^8, which f16 holds with its usual relative precision, and the rescale
/// of O (one multiply per accumulator) is skipped until then.
pub const RESCALE_SLACK: f32 = 8.0;

/// The online softmax state of `R` rows of one thread (an MMA
/// accumulator's row slots: `AccRows::rows`).
///
/// Scores are taken unscaled: a row's maximum and the exponentials use the
/// factor `|scale| · log2 e` ([`OnlineSoftmax::negative`] says when S must
/// be negated first), so that each P is one `fma` and one `exp2`. A scale
/// of 0 is taken as the least normal float: every exponent is then 0 to
/// f32's precision, and a masked `-inf` stays `-inf` instead of NaN.
///
/// ```
/// use layout_device::OnlineSoftmax;
/// // One row, scale 1, its lanes' reduction and the warp's vote the
/// // identity (a thread alone).
/// let mut sm = OnlineSoftmax::<1>::new(1.0);
/// let scores = [0.0f32, 2.0f32.ln()];
/// sm.update([scores[1]], |m| m, |g| g, |_| ());
/// let p: f32 = scores.iter().map(|&s| sm.p(s, 0)).sum(); // 1/2 + 1
/// assert!((p - 1.5).abs() < 1e-6);
/// let inv = sm.finish(|s| s);
/// assert!((inv[0] - 1.0 / 1.5).abs() < 1e-6);
/// assert!((sm.lse(0) - (1.0f32 + 2.0).ln()).abs() < 1e-6); // ln(e^0 + e^ln2)
/// ```
#[derive(Clone, Copy, Debug)]
pub struct OnlineSoftmax<const R: usize> {
    /// Each row's reference maximum, in base-2 units of the scaled score
    /// (`-inf` while every key seen is masked).
    pub row_max: [f32; R],
    /// Each row's sum of P (this thread's share until [`finish`](Self::finish)).
    pub row_sum: [f32; R],
    scale2: f32,
    negative: bool,
}

impl<const R: usize> OnlineSoftmax<R> {
    /// The state before the first tile, for softmax(scale · Q·Kᵀ).
    #[inline(always)]
    pub fn new(scale: f32) -> Self {
        // |scale| · log2 e, at least the least normal float.
        let a = f32::from_bits((scale * core::f32::consts::LOG2_E).to_bits() & 0x7fff_ffff);
        OnlineSoftmax {
            row_max: [f32::NEG_INFINITY; R],
            row_sum: [0.0; R],
            scale2: if a > f32::MIN_POSITIVE {
                a
            } else {
                f32::MIN_POSITIVE
            },
            negative: scale < 0.0,
        }
    }

    /// Whether the scale is negative: S is then negated before its row
    /// maxima and exponentials (a branch a whole block takes alike).
    #[inline(always)]
    pub fn negative(&self) -> bool {
        self.negative
    }

    /// The factor of the unscaled scores in base-2 units: `|scale| · log2
    /// e`.
    #[inline(always)]
    pub fn scale2(&self) -> f32 {
        self.scale2
    }

    /// One key tile's row maxima `mx` (this thread's, of the unscaled
    /// scores, masked keys `-inf`): `reduce` combines a row's value over
    /// the lanes holding the row (a [`shfl_xor_reduce`](crate::shfl_xor_reduce)
    /// by `max` on the accumulator's lane masks), `any` is the warp's vote
    /// ([`warp_any`](crate::warp_any)). When some row of the warp outgrew
    /// its reference by more than [`RESCALE_SLACK`], every reference moves
    /// to its row's new maximum, the sums are rescaled, and `rescale` gets
    /// each row's factor, by which the caller rescales O's accumulators of
    /// the row (now, or once an O += P·V in flight is done); returns
    /// whether it did.
    #[inline(always)]
    pub fn update(
        &mut self,
        mut mx: [f32; R],
        reduce: impl Fn(f32) -> f32,
        any: impl FnOnce(bool) -> bool,
        rescale: impl FnOnce(&[f32; R]),
    ) -> bool {
        // In base-2 units.
        each::<R>(
            #[inline(always)]
            |r| mx[r] = self.row_max[r].max(mx[r] * self.scale2),
        );
        let mut grown = false;
        each::<R>(
            #[inline(always)]
            |r| {
                mx[r] = reduce(mx[r]);
                grown |= mx[r] > self.row_max[r] + RESCALE_SLACK;
            },
        );
        let grown = any(grown);
        if grown {
            let mut corr = [0f32; R];
            each::<R>(
                #[inline(always)]
                |r| {
                    // A row with every key masked so far keeps -inf and is
                    // left as it is (0 rather than NaN).
                    corr[r] = if mx[r] == f32::NEG_INFINITY {
                        1.0
                    } else {
                        exp2(self.row_max[r] - mx[r])
                    };
                    self.row_max[r] = mx[r];
                    self.row_sum[r] *= corr[r];
                },
            );
            rescale(&corr);
        }
        grown
    }

    /// P of an unscaled score `s` of row slot `row` after this tile's
    /// [`update`](Self::update): `exp2(s · |scale| log2 e - reference)`,
    /// added to the row's sum.
    #[inline(always)]
    pub fn p(&mut self, s: f32, row: usize) -> f32 {
        // What the exponential subtracts: the reference, 0 for a row that
        // saw no key (-inf - -inf would be NaN). Derived here, not kept: a
        // kept copy is one more register per row across the key loop (the
        // optimiser carries it rather than recompute it); derived, it is
        // one select per row and tile (the same value for every score).
        let base = if self.row_max[row] == f32::NEG_INFINITY {
            0.0
        } else {
            self.row_max[row]
        };
        let e = exp2(fma(s, self.scale2, -base));
        self.row_sum[row] += e;
        e
    }

    /// The epilogue: each row's sum over its lanes (`reduce`, by addition)
    /// and its inverse, by which O's accumulators of the row are scaled (0
    /// for a row that saw no key: O = 0, FlashAttention's definition).
    ///
    /// ```
    /// use layout_device::OnlineSoftmax;
    /// let mut sm = OnlineSoftmax::<1>::new(1.0);
    /// // Every key of the row masked.
    /// sm.update([f32::NEG_INFINITY], |m| m, |g| g, |_| ());
    /// assert_eq!(sm.p(f32::NEG_INFINITY, 0), 0.0);
    /// assert_eq!(sm.finish(|s| s), [0.0]);
    /// assert_eq!(sm.lse(0), f32::NEG_INFINITY);
    /// ```
    #[inline(always)]
    pub fn finish(&mut self, reduce: impl Fn(f32) -> f32) -> [f32; R] {
        let mut inv = [0f32; R];
        each::<R>(
            #[inline(always)]
            |r| {
                self.row_sum[r] = reduce(self.row_sum[r]);
                // A row that saw no key: O = 0 (not 0 · inf = NaN).
                inv[r] = if self.row_sum[r] > 0.0 {
                    1.0 / self.row_sum[r]
                } else {
                    0.0
                };
            },
        );
        inv
    }

    /// Row `r`'s log-sum-exp of the scaled scores, natural log (after
    /// [`finish`](Self::finish)): `-inf` for a row that saw no key.
    #[inline(always)]
    pub fn lse(&self, r: usize) -> f32 {
        (self.row_max[r] + log2(self.row_sum[r])) * core::f32::consts::LN_2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::vec::Vec;

    /// softmax and log-sum-exp of one row by the definition, in f64.
    fn reference(scores: &[f32], scale: f32) -> (Vec<f64>, f64) {
        let x: Vec<f64> = scores
            .iter()
            .map(|&s| f64::from(s) * f64::from(scale))
            .collect();
        let m = x.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = x.iter().map(|v| (v - m).exp()).sum();
        (
            x.iter().map(|v| (v - m).exp() / sum).collect(),
            m + sum.ln(),
        )
    }

    /// The online softmax of one row over `tiles` (a thread alone: the
    /// lanes' reduction and the vote are the identity), O of a single
    /// column `v`: softmax · v, and the log-sum-exp; and how often it
    /// rescaled.
    fn online(tiles: &[&[f32]], v: &[f32], scale: f32) -> (f32, f32, usize) {
        let mut sm = OnlineSoftmax::<1>::new(scale);
        let (mut o, mut at, mut rescales) = (0f32, 0, 0);
        for tile in tiles {
            let sign = if sm.negative() { -1.0 } else { 1.0 };
            let mx = tile
                .iter()
                .map(|&s| sign * s)
                .fold(f32::NEG_INFINITY, f32::max);
            if sm.update([mx], |m| m, |g| g, |corr| o *= corr[0]) {
                rescales += 1;
            }
            for &s in tile.iter() {
                o += sm.p(sign * s, 0) * v[at];
                at += 1;
            }
        }
        let inv = sm.finish(|s| s);
        (o * inv[0], sm.lse(0), rescales)
    }

    fn check(tiles: &[&[f32]], scale: f32) {
        let scores: Vec<f32> = tiles.concat();
        let v: Vec<f32> = (0..scores.len()).map(|i| (i % 5) as f32 - 2.0).collect();
        let (p, lse) = reference(&scores, scale);
        let want: f64 = p.iter().zip(&v).map(|(p, &v)| p * f64::from(v)).sum();
        let (o, l, _) = online(tiles, &v, scale);
        assert!(
            (f64::from(o) - want).abs() < 1e-5,
            "O {o} against {want} ({tiles:?}, scale {scale})"
        );
        assert!(
            (f64::from(l) - lse).abs() < 1e-5 * lse.abs().max(1.0),
            "lse {l} against {lse}"
        );
    }

    #[test]
    fn agrees_with_the_definition_across_tiles() {
        check(&[&[0.5, -1.0, 3.0], &[2.0, 7.5], &[-4.0, 0.0, 1.0]], 0.7);
        check(&[&[10.0, 20.0], &[40.0, 80.0]], 1.0);
        check(&[&[1.0, 2.0, 3.0]], 0.125);
    }

    /// The reference moves only when a row outgrows it by more than the
    /// slack (in base-2 units): P then stays below 2^8.
    #[test]
    fn rescales_past_the_slack_only() {
        let v = [1.0f32; 4];
        let ln2 = core::f32::consts::LN_2;
        // Scale ln 2: a score s is s in base-2 units. 0, then 7.9: within
        // the slack (P up to 2^7.9); then 16.5: past it.
        assert_eq!(online(&[&[0.0], &[7.9]], &v, ln2).2, 1);
        assert_eq!(online(&[&[0.0], &[7.9], &[16.5]], &v, ln2).2, 2);
        let none = |_: &[f32; 1]| ();
        let mut sm = OnlineSoftmax::<1>::new(ln2);
        sm.update([0.0], |m| m, |g| g, none);
        assert!(!sm.update([7.9], |m| m, |g| g, |_| panic!("rescaled within the slack")));
        assert!(sm.p(7.9, 0) < 256.0);
        let mut corr = [0.0];
        assert!(sm.update([8.5], |m| m, |g| g, |c| corr = *c));
        assert!((corr[0] - exp2(-8.5)).abs() < 1e-9, "{corr:?}");
        // The warp's vote: one row that grew moves every row of the warp.
        let mut two = OnlineSoftmax::<2>::new(ln2);
        two.update([0.0, 0.0], |m| m, |g| g, |_| ());
        assert!(two.update([1.0, 1.0], |m| m, |_| true, |_| ()));
        assert_eq!(two.row_max, [1.0, 1.0]);
    }

    /// A row whose keys are all masked so far keeps -inf and P = 0 (never
    /// NaN), and a row that never sees a key ends with log-sum-exp -inf and
    /// the inverse 0 (O = 0, FlashAttention's definition; 1/0 would make
    /// O = 0 · inf = NaN).
    #[test]
    fn masked_rows_stay_finite() {
        let mut sm = OnlineSoftmax::<2>::new(0.5);
        let inf = f32::NEG_INFINITY;
        let mut corr = [0.0; 2];
        assert!(sm.update([inf, 1.0], |m| m, |g| g, |c| corr = *c));
        assert_eq!(corr[0], 1.0);
        assert_eq!(sm.p(inf, 0), 0.0);
        assert!(sm.p(1.0, 1) > 0.0);
        let inv = sm.finish(|s| s);
        assert_eq!(sm.lse(0), inf);
        assert_eq!(inv[0], 0.0);
        assert!(inv[1].is_finite() && inv[1] > 0.0);
        assert!(sm.lse(1).is_finite());
    }

    /// Scale 0: every P is 1 (the mean of V), a masked key still 0; a
    /// negative scale: the softmax of -|scale| s.
    #[test]
    fn zero_and_negative_scales() {
        let v = [1.0f32, 3.0, 5.0];
        let (o, lse, _) = online(&[&[1.0, 50.0, -7.0]], &v, 0.0);
        assert!((o - 3.0).abs() < 1e-6, "{o}");
        assert!((lse - 3f32.ln()).abs() < 1e-6, "{lse}");
        let mut sm = OnlineSoftmax::<1>::new(0.0);
        sm.update([1.0], |m| m, |g| g, |_| ());
        assert_eq!(sm.p(f32::NEG_INFINITY, 0), 0.0);
        check(&[&[0.5, -1.0], &[3.0, 2.0]], -0.7);
        assert!(
            OnlineSoftmax::<1>::new(-0.5).negative() && !OnlineSoftmax::<1>::new(0.5).negative()
        );
    }
}
