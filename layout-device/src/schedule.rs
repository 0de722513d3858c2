//! The order a grid's blocks take their work in, when the work is uneven.

/// The (row block, y, z) that block `block` of a grid `grid` = (row blocks,
/// ys, zs) works on, when a row block's cost grows with its index (a causal
/// mask: row block `m` sees the keys up to its last row).
///
/// The hardware starts blocks roughly in launch order (x fastest). Read in
/// that order, this hands out every (y, z)'s last row block first, then
/// every (y, z)'s next-to-last, and so on: longest first over the whole grid,
/// so the blocks that start last are the shortest and the last wave ends
/// together. (Reversing the row blocks inside each (y, z) still starts the
/// last (y, z)'s longest block near the end: about 13 % of a causal d = 64
/// launch idles in a list-scheduling model of 264 slots.)
///
/// It is a bijection of the grid onto itself:
///
/// ```
/// use layout_device::longest_first;
/// let grid = (3, 2, 2);
/// let order: Vec<_> = (0..12)
///     .map(|i| longest_first((i % 3, i / 3 % 2, i / 6), grid))
///     .collect();
/// // Row block 2 of each of the four (y, z), then row block 1, then 0.
/// assert_eq!(&order[..5], &[(2, 0, 0), (2, 1, 0), (2, 0, 1), (2, 1, 1), (1, 0, 0)]);
/// assert_eq!(order[11], (0, 1, 1));
/// ```
#[inline(always)]
pub fn longest_first(
    block: (usize, usize, usize),
    grid: (usize, usize, usize),
) -> (usize, usize, usize) {
    let ((x, y, z), (gx, gy, gz)) = (block, grid);
    // In 32 bits (a 64-bit division is a long subroutine on the GPU): a
    // grid of 2^32 blocks or more traps.
    if gx * gy * gz > u32::MAX as usize {
        crate::trap()
    }
    let (x, y, z, gx, gy) = (x as u32, y as u32, z as u32, gx as u32, gy as u32);
    // Launch order, then (rank among row blocks, which (y, z)).
    let i = x + gx * (y + gy * z);
    let pairs = gy * gz as u32;
    let (rank, pair) = (i / pairs, i % pairs);
    (
        (gx - 1 - rank) as usize,
        (pair % gy) as usize,
        (pair / gy) as usize,
    )
}

#[cfg(test)]
mod tests {
    use super::longest_first;
    use std::vec::Vec;

    /// Every block of the grid once, and row blocks non-increasing in
    /// launch order.
    #[test]
    fn bijective_and_longest_first() {
        for grid in [
            (1, 1, 1),
            (5, 1, 1),
            (1, 3, 2),
            (4, 3, 2),
            (7, 2, 5),
            (32, 16, 4),
        ] {
            let (gx, gy, gz) = grid;
            let mut seen = Vec::from_iter(core::iter::repeat_n(false, gx * gy * gz));
            let mut last = usize::MAX;
            for z in 0..gz {
                for y in 0..gy {
                    for x in 0..gx {
                        let (m, h, b) = longest_first((x, y, z), grid);
                        assert!(m < gx && h < gy && b < gz);
                        let at = m + gx * (h + gy * b);
                        assert!(!seen[at], "{grid:?}: ({m}, {h}, {b}) twice");
                        seen[at] = true;
                        assert!(m <= last, "{grid:?}: row block {m} after {last}");
                        last = m;
                    }
                }
            }
            assert!(seen.iter().all(|&s| s));
        }
    }
}
