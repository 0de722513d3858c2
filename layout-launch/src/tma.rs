//! Tensor maps for Hopper's Tensor Memory Accelerator: what
//! `cp.async.bulk.tensor` copies a box of a global matrix by, encoded on
//! the host by the driver (`cuTensorMapEncodeTiled`) after the checks the
//! driver would otherwise fail on, or not make at all.
#![allow(unsafe_code)]

use cudarc::driver::sys::{
    self, CUtensorMapDataType, CUtensorMapFloatOOBfill, CUtensorMapInterleave,
    CUtensorMapL2promotion, CUtensorMapSwizzle,
};
use cudarc::driver::{DevicePtr, DeviceRepr};

use crate::{DeviceBuffer, Error, Stream};

/// The swizzle TMA writes a box to shared memory with (the box's inner
/// extent, in bytes, may not exceed it): CuTe's `Sw<B,4,3>` on byte
/// addresses, what the GMMA atoms of the same name expect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TmaSwizzle {
    /// None: the box row by row.
    None,
    /// 32-byte swizzle (`Sw<1,4,3>`).
    B32,
    /// 64-byte swizzle (`Sw<2,4,3>`).
    B64,
    /// 128-byte swizzle (`Sw<3,4,3>`).
    B128,
}

impl TmaSwizzle {
    /// The largest box row in bytes (none: no limit but 16-byte multiples).
    fn span(self) -> Option<usize> {
        match self {
            TmaSwizzle::None => None,
            TmaSwizzle::B32 => Some(32),
            TmaSwizzle::B64 => Some(64),
            TmaSwizzle::B128 => Some(128),
        }
    }
    fn raw(self) -> CUtensorMapSwizzle {
        match self {
            TmaSwizzle::None => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_NONE,
            TmaSwizzle::B32 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
            TmaSwizzle::B64 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
            TmaSwizzle::B128 => CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        }
    }
}

/// An element type TMA moves.
pub trait TmaElement: DeviceRepr {
    /// The driver's name of the type.
    const DATA_TYPE: CUtensorMapDataType;
}

impl TmaElement for u16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT16;
}
impl TmaElement for f32 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}
impl TmaElement for half::f16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
impl TmaElement for half::bf16 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
/// Bytes: FP8 (e4m3, e5m2) and 8-bit integers travel as their bits.
impl TmaElement for u8 {
    const DATA_TYPE: CUtensorMapDataType = CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_UINT8;
}

/// A tensor map: 128 opaque bytes the driver encodes, passed to a kernel
/// in global memory (upload it; Rust kernels cannot take CUDA's
/// `__grid_constant__` parameter), 64-byte aligned.
#[repr(C, align(64))]
#[derive(Clone, Copy)]
pub struct TensorMap {
    raw: [u64; 16],
}

impl std::fmt::Debug for TensorMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TensorMap(..)")
    }
}

// SAFETY: plain data, `#[repr(C)]`, the driver's `CUtensorMap`.
unsafe impl DeviceRepr for TensorMap {}

/// The checks of a 2-D tiled tensor map, before the driver sees it: what
/// it refuses, each with a one-line reason.
fn check_2d(
    elem: usize,
    len: usize,
    (rows, cols): (usize, usize),
    row_stride: usize,
    (box_rows, box_cols): (u32, u32),
    swizzle: TmaSwizzle,
) -> Result<(), Error> {
    let bad = |why: String| Err(Error::Invalid(format!("tensor map: {why}")));
    if rows == 0 || cols == 0 {
        return bad(format!("an empty {rows} x {cols} matrix"));
    }
    if row_stride < cols {
        return bad(format!(
            "row stride {row_stride} is less than the {cols} columns"
        ));
    }
    let bytes = row_stride.checked_mul(elem);
    if rows > 1 && bytes.is_none_or(|b| b % 16 != 0 || b >= 1 << 40) {
        return bad(format!(
            "row stride {row_stride} x {elem} bytes is not a multiple of 16 bytes below 2^40"
        ));
    }
    let needed = (rows - 1)
        .checked_mul(row_stride)
        .and_then(|x| x.checked_add(cols));
    if needed.is_none_or(|n| n > len) {
        return bad(format!(
            "{rows} x {cols} with row stride {row_stride} reaches past the buffer of {len} elements"
        ));
    }
    if rows as u64 > 1 << 32 || cols as u64 > 1 << 32 {
        return bad(format!("{rows} x {cols}: an extent above 2^32"));
    }
    if !(1..=256).contains(&box_rows) || !(1..=256).contains(&box_cols) {
        return bad(format!("box {box_rows} x {box_cols}: each side 1 to 256"));
    }
    let row_bytes = box_cols as usize * elem;
    if row_bytes % 16 != 0 {
        return bad(format!(
            "a box row of {row_bytes} bytes is not a multiple of 16"
        ));
    }
    if let Some(span) = swizzle.span() {
        if row_bytes > span {
            return bad(format!(
                "a box row of {row_bytes} bytes exceeds the {span}-byte swizzle"
            ));
        }
    }
    Ok(())
}

/// The checks of a 3-D tiled tensor map (`planes` matrices): each plane's
/// as [`check_2d`]'s, then the plane stride and the planes' reach.
fn check_3d(
    elem: usize,
    len: usize,
    (planes, rows, cols): (usize, usize, usize),
    (plane_stride, row_stride): (usize, usize),
    boxes: (u32, u32),
    swizzle: TmaSwizzle,
) -> Result<(), Error> {
    check_2d(elem, len, (rows, cols), row_stride, boxes, swizzle)?;
    let bad = |why: String| Err(Error::Invalid(format!("tensor map: {why}")));
    if planes == 0 || planes as u64 > 1 << 32 {
        return bad(format!("{planes} planes: 1 to 2^32"));
    }
    let bytes = plane_stride.checked_mul(elem);
    if planes > 1 && bytes.is_none_or(|b| b % 16 != 0 || b >= 1 << 40) {
        return bad(format!(
            "plane stride {plane_stride} x {elem} bytes is not a multiple of 16 bytes below 2^40"
        ));
    }
    let needed = (planes - 1)
        .checked_mul(plane_stride)
        .and_then(|x| x.checked_add((rows - 1) * row_stride + cols));
    if needed.is_none_or(|n| n > len) {
        return bad(format!(
            "{planes} planes of {rows} x {cols} with strides ({plane_stride}, {row_stride}) reach past the buffer of {len} elements"
        ));
    }
    Ok(())
}

/// A 2-D tensor map's parameters read off a global layout: the rows and
/// columns in memory order (the unit-stride mode is the columns), the row
/// stride, and the box in the same order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TmaShape {
    /// `(rows, cols)`: cols is the layout's unit-stride mode.
    pub rows_cols: (usize, usize),
    /// Elements from one row to the next.
    pub row_stride: usize,
    /// The box, `(rows, cols)`.
    pub box_rows_cols: (u32, u32),
    /// Whether the layout's mode 0 is the rows (a row-major (M,K) layout);
    /// false when mode 0 is the unit-stride mode (column-major).
    pub mode0_is_rows: bool,
}

/// What CuTe's `make_tma_copy` reads off a rank-2 global layout for a box
/// of `tile` (in the layout's mode order): the mode of stride 1 becomes
/// TMA's inner dimension, the other one's stride the row stride. Refused
/// (one line) for a layout that is not rank 2 with flat modes, or has no
/// mode of stride 1, a negative or zero stride on the other, or a tile
/// side that is not positive.
///
/// ```
/// use layout_launch::{tma_shape, TmaShape};
/// // A row-major 200 x 136 matrix (K contiguous), boxes of 64 x 64.
/// let l = "(200,136):(136,_1)".parse().unwrap();
/// assert_eq!(tma_shape(&l, (64, 64)).unwrap(), TmaShape {
///     rows_cols: (200, 136), row_stride: 136, box_rows_cols: (64, 64), mode0_is_rows: true });
/// // Column-major: mode 0 is contiguous, so it is TMA's inner dimension.
/// let l = "(128,96):(_1,128)".parse().unwrap();
/// assert_eq!(tma_shape(&l, (64, 32)).unwrap().rows_cols, (96, 128));
/// assert!(tma_shape(&"(8,8):(2,16)".parse().unwrap(), (8, 8)).is_err());
/// ```
pub fn tma_shape(layout: &layout_core::DynLayout, tile: (u32, u32)) -> Result<TmaShape, Error> {
    let bad = |why: String| Error::Invalid(format!("tensor map of {layout}: {why}"));
    if layout.rank() != 2 || layout.depth() > 1 {
        return Err(bad("a rank-2 layout with flat modes is needed".into()));
    }
    let leaf =
        |t: &layout_core::DTuple, i: usize| t.mode(i).and_then(|m| m.as_int()).map(|d| d.value);
    let (s0, s1) = (leaf(layout.shape(), 0), leaf(layout.shape(), 1));
    let (d0, d1) = (leaf(layout.stride(), 0), leaf(layout.stride(), 1));
    let (Some(s0), Some(s1), Some(d0), Some(d1)) = (s0, s1, d0, d1) else {
        return Err(bad("a rank-2 layout with flat modes is needed".into()));
    };
    if tile.0 == 0 || tile.1 == 0 {
        return Err(bad(format!("an empty {} x {} box", tile.0, tile.1)));
    }
    let positive = |x: i64| usize::try_from(x).ok().filter(|&x| x > 0);
    let (rows, cols, stride, boxes, mode0_is_rows) = match (d0, d1) {
        (_, 1) => (s0, s1, d0, tile, true),
        (1, _) => (s1, s0, d1, (tile.1, tile.0), false),
        _ => return Err(bad("no mode of stride 1 (TMA's innermost dimension)".into())),
    };
    let (Some(rows), Some(cols), Some(row_stride)) =
        (positive(rows), positive(cols), positive(stride))
    else {
        return Err(bad(
            "its extents and the outer stride must be positive".into()
        ));
    };
    Ok(TmaShape {
        rows_cols: (rows, cols),
        row_stride,
        box_rows_cols: boxes,
        mode0_is_rows,
    })
}

impl Stream {
    /// The tensor map of the matrix `layout` describes over `buffer`,
    /// copied by boxes of `tile` (in the layout's mode order), with
    /// `swizzle`: [`tma_shape`] then [`Stream::tensor_map_2d`], with both
    /// one's refusals.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), layout_launch::Error> {
    /// use layout_launch::{Device, TmaSwizzle};
    /// let gpu = Device::new(0)?;
    /// let a = gpu.stream().zeros::<u16>(4096 * 1024)?;
    /// // A is M x K = 4096 x 1024, K-major; 128 x 64 tiles (CuTe's SW128 atom tiled).
    /// let l = "(4096,1024):(1024,_1)".parse().unwrap();
    /// let map = gpu.stream().tensor_map(&a, &l, (128, 64), TmaSwizzle::B128)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tensor_map<T: TmaElement>(
        &self,
        buffer: &DeviceBuffer<T>,
        layout: &layout_core::DynLayout,
        tile: (u32, u32),
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, Error> {
        let s = tma_shape(layout, tile)?;
        self.tensor_map_2d(buffer, s.rows_cols, s.row_stride, s.box_rows_cols, swizzle)
    }

    /// The tensor map of a row-major `rows x cols` matrix of `T` in
    /// `buffer` (`row_stride` elements from row to row), copied by boxes of
    /// `box_rows x box_cols` into shared memory with `swizzle`; elements
    /// past the matrix read as zero. [`Error::Invalid`] for an empty
    /// matrix, a row stride that is not a multiple of 16 bytes, a matrix
    /// past the buffer, a box side outside 1..=256, a box row that is not a
    /// multiple of 16 bytes or exceeds the swizzle.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), layout_launch::Error> {
    /// use layout_launch::{Device, TmaSwizzle};
    /// let gpu = Device::new(0)?;
    /// let a = gpu.stream().zeros::<u16>(4096 * 4096)?;
    /// // 64 x 64 f16 boxes, 128-byte swizzle: CuTe's K-major SW128 GMMA atom.
    /// let map = gpu.stream().tensor_map_2d(&a, (4096, 4096), 4096, (64, 64), TmaSwizzle::B128)?;
    /// let on_gpu = gpu.stream().upload(&[map])?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tensor_map_2d<T: TmaElement>(
        &self,
        buffer: &DeviceBuffer<T>,
        (rows, cols): (usize, usize),
        row_stride: usize,
        (box_rows, box_cols): (u32, u32),
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, Error> {
        let elem = std::mem::size_of::<T>();
        check_2d(
            elem,
            buffer.len(),
            (rows, cols),
            row_stride,
            (box_rows, box_cols),
            swizzle,
        )?;
        self.encode(
            buffer,
            &[cols as u64, rows as u64],
            &[(row_stride * elem) as u64],
            &[box_cols, box_rows],
            swizzle,
        )
    }

    /// The tensor map of `planes` row-major `rows x cols` matrices of `T`
    /// in `buffer`, plane p's row r at `p · plane_stride + r · row_stride`
    /// elements, copied by boxes of `box_rows x box_cols` of one plane:
    /// a batch of matrices, whose boxes read zeros past a plane's last row
    /// rather than the next plane's first (a (batch, seq, heads, d) tensor
    /// is `batch` planes of `seq x heads · d`). Refused (one line) as
    /// [`Stream::tensor_map_2d`] for each plane, and for a plane stride
    /// that is not a multiple of 16 bytes below 2^40, planes that reach past
    /// the buffer, or more than 2^32 planes.
    ///
    /// ```no_run
    /// # fn main() -> Result<(), layout_launch::Error> {
    /// use layout_launch::{Device, TmaSwizzle};
    /// let gpu = Device::new(0)?;
    /// // Q of (batch 2, seq 1000, heads 8, d 64): boxes of 128 rows of one
    /// // head's 64 columns.
    /// let q = gpu.stream().zeros::<u16>(2 * 1000 * 8 * 64)?;
    /// let map = gpu.stream().tensor_map_3d(&q, (2, 1000, 512), (1000 * 512, 512), (128, 64), TmaSwizzle::B128)?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn tensor_map_3d<T: TmaElement>(
        &self,
        buffer: &DeviceBuffer<T>,
        (planes, rows, cols): (usize, usize, usize),
        (plane_stride, row_stride): (usize, usize),
        (box_rows, box_cols): (u32, u32),
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, Error> {
        let elem = std::mem::size_of::<T>();
        check_3d(
            elem,
            buffer.len(),
            (planes, rows, cols),
            (plane_stride, row_stride),
            (box_rows, box_cols),
            swizzle,
        )?;
        self.encode(
            buffer,
            &[cols as u64, rows as u64, planes as u64],
            &[(row_stride * elem) as u64, (plane_stride * elem) as u64],
            &[box_cols, box_rows, 1],
            swizzle,
        )
    }

    /// `cuTensorMapEncodeTiled` of a checked map: extents innermost first,
    /// the byte strides of all but the innermost, the box.
    fn encode<T: TmaElement>(
        &self,
        buffer: &DeviceBuffer<T>,
        dims: &[u64],
        strides: &[u64],
        boxes: &[u32],
        swizzle: TmaSwizzle,
    ) -> Result<TensorMap, Error> {
        let rank = dims.len();
        assert!(strides.len() + 1 == rank && boxes.len() == rank && (1..=5).contains(&rank));
        let (ptr, _read) = buffer.slice.device_ptr(self.cuda_stream());
        let steps = [1u32; 5];
        let mut map = TensorMap { raw: [0; 16] };
        // SAFETY: every pointer is to a live local array of the rank's
        // length (strides: rank - 1; asserted); `map` is 128 writable
        // bytes, 64-byte aligned; the address is the buffer's (256-byte
        // aligned), which the caller's checks cover for the given extents
        // and strides.
        let r = unsafe {
            sys::cuTensorMapEncodeTiled(
                (&mut map as *mut TensorMap).cast(),
                T::DATA_TYPE,
                rank as u32,
                ptr as *mut std::ffi::c_void,
                dims.as_ptr(),
                strides.as_ptr(),
                boxes.as_ptr(),
                steps.as_ptr(),
                CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle.raw(),
                CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            )
        };
        r.result()
            .map_err(|e| self.failed("encode a tensor map", e))?;
        Ok(map)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What is refused before the driver: each with its reason.
    #[test]
    fn bad_tensor_maps_are_refused_on_the_host() {
        let ok = check_2d(
            2,
            4096 * 4096,
            (4096, 4096),
            4096,
            (64, 64),
            TmaSwizzle::B128,
        );
        assert!(ok.is_ok());
        let msg = |r: Result<(), Error>| r.unwrap_err().to_string();
        assert_eq!(
            msg(check_2d(2, 100, (10, 10), 10, (8, 8), TmaSwizzle::None)),
            "tensor map: row stride 10 x 2 bytes is not a multiple of 16 bytes below 2^40"
        );
        assert_eq!(
            msg(check_2d(2, 1000, (64, 64), 64, (64, 64), TmaSwizzle::B128)),
            "tensor map: 64 x 64 with row stride 64 reaches past the buffer of 1000 elements"
        );
        assert_eq!(
            msg(check_2d(
                2,
                1 << 20,
                (512, 512),
                512,
                (300, 64),
                TmaSwizzle::B128
            )),
            "tensor map: box 300 x 64: each side 1 to 256"
        );
        assert_eq!(
            msg(check_2d(
                2,
                1 << 20,
                (512, 512),
                512,
                (64, 128),
                TmaSwizzle::B128
            )),
            "tensor map: a box row of 256 bytes exceeds the 128-byte swizzle"
        );
        assert_eq!(
            msg(check_2d(
                2,
                1 << 20,
                (512, 512),
                512,
                (64, 4),
                TmaSwizzle::None
            )),
            "tensor map: a box row of 8 bytes is not a multiple of 16"
        );
        assert_eq!(
            msg(check_2d(
                2,
                1 << 20,
                (0, 512),
                512,
                (64, 64),
                TmaSwizzle::B128
            )),
            "tensor map: an empty 0 x 512 matrix"
        );
        assert_eq!(
            msg(check_2d(
                2,
                1 << 20,
                (8, 512),
                100,
                (8, 64),
                TmaSwizzle::B128
            )),
            "tensor map: row stride 100 is less than the 512 columns"
        );
        assert_eq!(std::mem::size_of::<TensorMap>(), 128);
    }

    /// A batch of matrices: each plane checked as a matrix, then the plane
    /// stride and the planes' reach, each refusal with its reason.
    #[test]
    fn bad_3d_tensor_maps_are_refused_on_the_host() {
        let b = TmaSwizzle::B128;
        // (batch 2, seq 1000, heads 8, d 64) as 2 planes of 1000 x 512.
        let len = 2 * 1000 * 512;
        assert!(check_3d(2, len, (2, 1000, 512), (512_000, 512), (128, 64), b).is_ok());
        let msg = |r: Result<(), Error>| r.unwrap_err().to_string();
        assert_eq!(
            msg(check_3d(2, len - 1, (2, 1000, 512), (512_000, 512), (128, 64), b)),
            "tensor map: 2 planes of 1000 x 512 with strides (512000, 512) reach past the buffer of 1023999 elements"
        );
        assert_eq!(
            msg(check_3d(2, len, (2, 1000, 512), (4004, 512), (128, 64), b)),
            "tensor map: plane stride 4004 x 2 bytes is not a multiple of 16 bytes below 2^40"
        );
        assert_eq!(
            msg(check_3d(
                2,
                len,
                (0, 1000, 512),
                (512_000, 512),
                (128, 64),
                b
            )),
            "tensor map: 0 planes: 1 to 2^32"
        );
        assert_eq!(
            msg(check_3d(
                2,
                len,
                (2, 1000, 512),
                (512_000, 512),
                (128, 128),
                b
            )),
            "tensor map: a box row of 256 bytes exceeds the 128-byte swizzle"
        );
    }

    /// Layouts a 2-D tensor map cannot describe are refused by name.
    #[test]
    fn layouts_without_a_2d_map_are_refused() {
        let msg = |l: &str, tile| {
            tma_shape(&l.parse().unwrap(), tile)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            msg("(4,4,4):(16,4,1)", (4, 4)),
            "tensor map of (4,4,4):(16,4,1): a rank-2 layout with flat modes is needed"
        );
        assert_eq!(
            msg("((2,4),8):((1,2),8)", (4, 4)),
            "tensor map of ((2,4),8):((1,2),8): a rank-2 layout with flat modes is needed"
        );
        assert_eq!(
            msg("(8,8):(2,16)", (8, 8)),
            "tensor map of (8,8):(2,16): no mode of stride 1 (TMA's innermost dimension)"
        );
        assert_eq!(
            msg("(8,8):(-8,1)", (8, 8)),
            "tensor map of (8,8):(-8,1): its extents and the outer stride must be positive"
        );
        assert_eq!(
            msg("(8,8):(8,1)", (0, 8)),
            "tensor map of (8,8):(8,1): an empty 0 x 8 box"
        );
    }
}
