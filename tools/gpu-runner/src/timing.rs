//! The timing protocol of `gpu-runner attention --time`, the same as
//! `gpu-runner sm90`'s and as the anchors compared with them
//! (`kernels/scripts/attention-anchors.py`, the cuBLAS anchor of
//! `kernels/scripts/gpu-bench-sm90.sh`): [`ROUNDS`] rounds, each after the GPU
//! idled [`IDLE`] (a GPU under back-to-back batches clocks lower), of
//! [`WARMUP`] untimed launches then [`LAUNCHES`] timed by two CUDA events;
//! the median round's time per launch.

use crate::text;
use std::time::Duration;

use layout_launch::Stream;

/// Timed rounds.
pub const ROUNDS: usize = 5;
/// Untimed launches at the start of each round.
pub const WARMUP: usize = 2;
/// Timed launches per round.
pub const LAUNCHES: usize = 10;
/// The idle time before each round.
pub const IDLE: Duration = Duration::from_millis(100);

/// Milliseconds per launch of `launch` (which issues one launch on
/// `stream`): the median of [`ROUNDS`] rounds.
pub fn median_round(
    stream: &Stream,
    mut launch: impl FnMut() -> Result<(), String>,
) -> Result<f32, String> {
    let mut times = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        stream.synchronize().map_err(text)?;
        std::thread::sleep(IDLE);
        for _ in 0..WARMUP {
            launch()?;
        }
        let ms = stream
            .time(|| {
                for _ in 0..LAUNCHES {
                    launch().map_err(layout_launch::Error::Invalid)?;
                }
                Ok::<(), layout_launch::Error>(())
            })
            .map_err(text)?;
        times.push(ms / LAUNCHES as f32);
    }
    Ok(median(&mut times))
}

/// The median of `times` (the upper one of an even count); sorts them.
pub fn median(times: &mut [f32]) -> f32 {
    times.sort_by(f32::total_cmp);
    times[times.len() / 2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_median_round() {
        assert_eq!(median(&mut [3.0, 1.0, 5.0, 2.0, 4.0]), 3.0);
        // One slow round (a clock dip) does not move it.
        assert_eq!(median(&mut [0.8, 0.81, 9.0, 0.79, 0.8]), 0.8);
        assert_eq!(median(&mut [2.0]), 2.0);
        assert_eq!(
            (ROUNDS, WARMUP, LAUNCHES, IDLE.as_millis()),
            (5, 2, 10, 100)
        );
    }
}
