//! Decoding over a paged KV cache: the problem, its refusals and the split
//! plan of `decode_attn_d*` and `kv_append`
//! (`layout_kernels::maps::decode`'s contract; the launches are
//! [`crate::launch::decode`] and [`crate::launch::kv_append`]).

use layout_kernels::maps::{
    block_size_ok, decode_max_splits, decode_tile, split_plan, SplitPlan, DECODE_HEAD_DIMS,
    DECODE_ROWS,
};
use layout_launch::{DeviceBuffer, Stream};

use crate::Error;

const OP: &str = "decode";

/// The decode kernels' family name: entry points `decode_attn_d64` and
/// `decode_attn_d128` ([`Decode::entry`]), with `kv_append`.
pub const FAMILY: &str = "decode_attn";

/// A decode step's sizes: `batch` sequences of `q_len` new queries each,
/// `q_heads` query heads over `kv_heads` K/V heads of dimension `d`, a
/// cache of `blocks` blocks of `block_size` tokens, a block table of
/// `max_blocks` entries per sequence, and the longest context
/// `max_context` (the split plan's; every context length must be at most
/// it).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decode {
    /// Sequences.
    pub batch: usize,
    /// New queries per sequence, 1 to 16.
    pub q_len: usize,
    /// Query heads.
    pub q_heads: usize,
    /// K/V heads, dividing `q_heads`.
    pub kv_heads: usize,
    /// Head dimension: 64 or 128.
    pub d: usize,
    /// Blocks of the caches.
    pub blocks: usize,
    /// Tokens per block: 16, 32, 64, 128 or 256.
    pub block_size: usize,
    /// Block table entries per sequence.
    pub max_blocks: usize,
    /// The longest context of the batch (at most max_blocks * block_size).
    pub max_context: usize,
    /// Query i of a sequence of context c sees keys 0..=c - q_len + i.
    pub causal: bool,
    /// The softmax scale.
    pub scale: f32,
}

/// What the tensors of a [`Decode`] hold (elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecodeLens {
    /// Q and O: batch * q_len * q_heads * d.
    pub q: usize,
    /// Each cache: blocks * block_size * kv_heads * d.
    pub cache: usize,
    /// The block table: batch * max_blocks.
    pub table: usize,
    /// LSE: batch * q_heads * q_len.
    pub lse: usize,
}

fn mul(xs: &[usize]) -> Option<usize> {
    xs.iter().try_fold(1usize, |a, &x| a.checked_mul(x))
}

impl Decode {
    /// The problem's tensor sizes, or the refusal naming what the kernels
    /// do not take.
    ///
    /// # Errors
    ///
    /// A head dimension other than 64 or 128; q_len outside 1..=16; a
    /// size of 0 (but blocks and max_context); kv_heads not dividing
    /// q_heads; a block size that is not a power of two from 16 to 256;
    /// max_context past max_blocks * block_size; a scale that is not
    /// finite; sizes past the grid or 32-bit token rows.
    pub fn lens(&self) -> Result<DecodeLens, Error> {
        let p = self;
        let refuse = |why: String| Err(Error::refused(OP, why));
        if !DECODE_HEAD_DIMS.contains(&p.d) {
            return refuse(format!(
                "head dimension d = {} is not built (built: 64, 128)",
                p.d
            ));
        }
        if !(1..=16).contains(&p.q_len) {
            return refuse(format!("q_len = {} must be 1 to 16", p.q_len));
        }
        if p.batch == 0 || p.q_heads == 0 || p.kv_heads == 0 || p.max_blocks == 0 {
            return refuse(format!(
                "batch = {}, q_heads = {}, kv_heads = {}, max_blocks = {}: each must be positive",
                p.batch, p.q_heads, p.kv_heads, p.max_blocks
            ));
        }
        if p.q_heads % p.kv_heads != 0 {
            return refuse(format!(
                "kv_heads = {} does not divide q_heads = {}",
                p.kv_heads, p.q_heads
            ));
        }
        if !block_size_ok(p.block_size) {
            return refuse(format!(
                "block_size = {} must be 16, 32, 64, 128 or 256",
                p.block_size
            ));
        }
        if !p.scale.is_finite() {
            return refuse(format!("the scale {} must be finite", p.scale));
        }
        let too_large = || {
            Error::refused(
                OP,
                format!(
                    "batch = {}, q_len = {}, q_heads = {}, kv_heads = {}, blocks = {}, block_size = {}, max_blocks = {}: the tensors are too large",
                    p.batch, p.q_len, p.q_heads, p.kv_heads, p.blocks, p.block_size, p.max_blocks
                ),
            )
        };
        let rows = mul(&[p.blocks, p.block_size]).ok_or_else(too_large)?;
        let keys = mul(&[p.max_blocks, p.block_size]).ok_or_else(too_large)?;
        let q_rows = mul(&[p.batch, p.q_len, p.q_heads]).ok_or_else(too_large)?;
        if rows > u32::MAX as usize || keys > i32::MAX as usize || q_rows > u32::MAX as usize {
            return Err(too_large());
        }
        if p.max_context > keys {
            return refuse(format!(
                "max_context = {} is past max_blocks * block_size = {keys}",
                p.max_context
            ));
        }
        let lens = DecodeLens {
            q: mul(&[p.batch, p.q_len, p.q_heads, p.d]).ok_or_else(too_large)?,
            cache: mul(&[rows, p.kv_heads, p.d]).ok_or_else(too_large)?,
            table: mul(&[p.batch, p.max_blocks]).ok_or_else(too_large)?,
            lse: mul(&[p.batch, p.q_heads, p.q_len]).ok_or_else(too_large)?,
        };
        // Bytes must fit an isize (the device's addresses).
        if lens.q.max(lens.cache) > (isize::MAX as usize) / 4 {
            return Err(too_large());
        }
        let (slabs, bg) = self.grid_yz();
        if slabs > 65535 || bg > 65535 {
            return Err(too_large());
        }
        Ok(lens)
    }

    /// Row blocks per K/V head and (sequence, K/V head) pairs: the grid's
    /// y and z.
    pub(crate) fn grid_yz(&self) -> (usize, usize) {
        let group = self.q_heads / self.kv_heads;
        (
            (self.q_len * group).div_ceil(DECODE_ROWS),
            self.batch * self.kv_heads,
        )
    }

    /// The split plan on a GPU of `sms` SMs (`maps::split_plan`).
    ///
    /// # Errors
    ///
    /// The refusals of [`Decode::lens`].
    pub fn plan(&self, sms: usize) -> Result<SplitPlan, Error> {
        self.lens()?;
        let (slabs, bg) = self.grid_yz();
        Ok(split_plan(self.d, slabs * bg, self.max_context, sms))
    }

    /// The plan that splits the context every `split_keys` keys (a
    /// positive multiple of the tile: 128 keys at d = 64, 64 at d = 128),
    /// in place of [`Decode::plan`]'s rule.
    ///
    /// ```
    /// use layout_gpu::decode::Decode;
    /// let p = Decode {
    ///     batch: 1, q_len: 1, q_heads: 32, kv_heads: 8, d: 128, blocks: 8, block_size: 64,
    ///     max_blocks: 8, max_context: 500, causal: false, scale: 0.088,
    /// };
    /// // ceil(500 / 128) = 4 splits of 128 keys.
    /// assert_eq!(p.plan_every(128)?.splits, 4);
    /// assert!(p.plan_every(100).is_err());
    /// # Ok::<(), layout_gpu::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// The refusals of [`Decode::lens`] and of [`Decode::check_plan`].
    pub fn plan_every(&self, split_keys: usize) -> Result<SplitPlan, Error> {
        self.lens()?;
        let plan = SplitPlan {
            splits: self.max_context.div_ceil(split_keys.max(1)).max(1),
            split_keys,
        };
        self.check_plan(plan)?;
        Ok(plan)
    }

    /// Whether a launch runs `plan`: splits of a positive multiple of the
    /// tile that cover `max_context`, at most [`decode_max_splits`] of them
    /// (what the merging block's shared memory holds).
    ///
    /// # Errors
    ///
    /// [`Error::Refused`] naming the plan and the bound it breaks.
    pub fn check_plan(&self, plan: SplitPlan) -> Result<(), Error> {
        let tile = decode_tile(self.d);
        let most = decode_max_splits(self.d);
        let why = if plan.split_keys == 0 || plan.split_keys % tile != 0 {
            format!(
                "{} keys a split must be a positive multiple of {tile}",
                plan.split_keys
            )
        } else if plan.splits == 0 || plan.splits > most {
            format!(
                "{} splits: 1 to {most} merge at d = {}",
                plan.splits, self.d
            )
        } else if plan.splits.saturating_mul(plan.split_keys) < self.max_context {
            format!(
                "{} splits of {} keys do not cover max_context = {}",
                plan.splits, plan.split_keys, self.max_context
            )
        } else {
            return Ok(());
        };
        Err(Error::refused(OP, why))
    }

    /// The entry point of the attention.
    pub fn entry(&self) -> String {
        format!("{FAMILY}_d{}", self.d)
    }

    /// The elements of the split partials under `plan`: O (splits x batch
    /// x q_len x q_heads x d f32) and LSE (splits x batch x q_len x
    /// q_heads f32); none when the plan does not split.
    ///
    /// # Errors
    ///
    /// The refusals of [`Decode::lens`]; sizes that overflow.
    pub fn workspace_lens(&self, plan: SplitPlan) -> Result<(usize, usize), Error> {
        let l = self.lens()?;
        if plan.splits <= 1 {
            return Ok((0, 0));
        }
        let lse = plan.splits.checked_mul(l.lse);
        let o = lse.and_then(|x| x.checked_mul(self.d));
        match (o, lse) {
            (Some(o), Some(lse)) if o <= (isize::MAX as usize) / 4 => Ok((o, lse)),
            _ => Err(Error::refused(
                OP,
                format!("{} splits: the partial results are too large", plan.splits),
            )),
        }
    }
}

/// Where a split decode keeps its partial results until the last split of
/// each row block merges them: allocated once and reused across steps, so
/// that a decode step is its launch and nothing else. Every split block
/// writes all of its partials, so the buffers need no clearing. It also
/// holds the counters the splits count themselves in (zeros between
/// launches), allocated at the first step that needs them.
#[derive(Debug)]
pub struct DecodeWorkspace {
    pub(crate) o_part: DeviceBuffer<f32>,
    pub(crate) lse_part: DeviceBuffer<f32>,
    pub(crate) count: Option<DeviceBuffer<u32>>,
}

impl DecodeWorkspace {
    /// A workspace for `p` under `plan` (empty when the plan does not
    /// split).
    ///
    /// # Errors
    ///
    /// The refusals of [`Decode::workspace_lens`]; the driver's.
    pub fn new(stream: &Stream, p: &Decode, plan: SplitPlan) -> Result<Self, Error> {
        let (o, lse) = p.workspace_lens(plan)?;
        Ok(DecodeWorkspace {
            o_part: stream.zeros::<f32>(o).map_err(Error::Device)?,
            lse_part: stream.zeros::<f32>(lse).map_err(Error::Device)?,
            count: None,
        })
    }

    /// A workspace of the caller's buffers: O's partials and LSE's (see
    /// [`Decode::workspace_lens`]).
    pub fn from_buffers(o_part: DeviceBuffer<f32>, lse_part: DeviceBuffer<f32>) -> Self {
        DecodeWorkspace {
            o_part,
            lse_part,
            count: None,
        }
    }

    /// Whether it holds `p`'s partials under `plan`.
    pub fn fits(&self, p: &Decode, plan: SplitPlan) -> bool {
        p.workspace_lens(plan)
            .is_ok_and(|(o, lse)| self.o_part.len() >= o && self.lse_part.len() >= lse)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> Decode {
        Decode {
            batch: 2,
            q_len: 1,
            q_heads: 32,
            kv_heads: 8,
            d: 128,
            blocks: 100,
            block_size: 64,
            max_blocks: 50,
            max_context: 3000,
            causal: false,
            scale: 0.088,
        }
    }

    /// The split partials: none unsplit; with 4 splits of batch 2 x 32
    /// heads x 1 query, 4 x 64 LSEs and 4 x 64 x 128 O values.
    #[test]
    fn workspace_sizes() {
        let plan = |splits| SplitPlan {
            splits,
            split_keys: 1024,
        };
        assert_eq!(p().workspace_lens(plan(1)).unwrap(), (0, 0));
        assert_eq!(p().workspace_lens(plan(4)).unwrap(), (4 * 64 * 128, 4 * 64));
        assert!(p()
            .workspace_lens(plan(usize::MAX / 8))
            .unwrap_err()
            .to_string()
            .contains("the partial results are too large"));
    }

    #[test]
    fn sizes_and_refusals() {
        assert_eq!(
            p().lens().unwrap(),
            DecodeLens {
                q: 2 * 32 * 128,
                cache: 100 * 64 * 8 * 128,
                table: 100,
                lse: 64
            }
        );
        let msg = |q: Decode| q.lens().unwrap_err().to_string();
        assert_eq!(
            msg(Decode { d: 96, ..p() }),
            "decode: head dimension d = 96 is not built (built: 64, 128)"
        );
        assert_eq!(
            msg(Decode { q_len: 17, ..p() }),
            "decode: q_len = 17 must be 1 to 16"
        );
        assert_eq!(
            msg(Decode { kv_heads: 3, ..p() }),
            "decode: kv_heads = 3 does not divide q_heads = 32"
        );
        assert_eq!(
            msg(Decode {
                block_size: 48,
                ..p()
            }),
            "decode: block_size = 48 must be 16, 32, 64, 128 or 256"
        );
        assert_eq!(
            msg(Decode {
                max_context: 3201,
                ..p()
            }),
            "decode: max_context = 3201 is past max_blocks * block_size = 3200"
        );
        assert_eq!(
            msg(Decode {
                scale: f32::NAN,
                ..p()
            }),
            "decode: the scale NaN must be finite"
        );
        assert!(msg(Decode {
            blocks: usize::MAX,
            ..p()
        })
        .ends_with("the tensors are too large"));
        assert!(msg(Decode { batch: 0, ..p() }).contains("each must be positive"));
        // Grid: 32 / 8 = 4 rows a K/V head (one row block), 2 x 8 pairs;
        // the split rule's (16 blocks, 3000 keys: 47 tiles of 64).
        assert_eq!(p().grid_yz(), (1, 16));
        assert_eq!(p().plan(132).unwrap(), split_plan(128, 16, 3000, 132));
        // A problem the kernels refuse has no plan (and no division by 0).
        assert!(Decode { kv_heads: 0, ..p() }.plan(132).is_err());
        assert_eq!(p().entry(), "decode_attn_d128");
    }
}
