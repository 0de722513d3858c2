//! `.npy` files (NumPy's format, through `npyz`): arrays of `float32`,
//! `float16`, `uint16` or `uint8` (bf16 and FP8 as their bits) read with
//! their shape and storage order, matrices written C-order little-endian
//! (`<f4`, `<f2`, `<u2`). Nothing here reorders data: an
//! array's elements are kept in the order the file stores them.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use half::f16;
use npyz::{DType, TypeChar, WriterBuilder};

/// How an array's elements are laid out in the file (NumPy's
/// `fortran_order` flag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Row-major: the last index fastest.
    C,
    /// Column-major: the first index fastest.
    Fortran,
}

/// An array's elements, in the file's storage order.
#[derive(Clone, Debug, PartialEq)]
pub enum Data {
    /// `float32` (`<f4` or `>f4`).
    F32(Vec<f32>),
    /// `float16` (`<f2` or `>f2`).
    F16(Vec<f16>),
    /// `uint16` (`<u2` or `>u2`): bf16 as its bits.
    U16(Vec<u16>),
    /// `uint8` (`|u1`): FP8 as its bits.
    U8(Vec<u8>),
    /// `int32` (`<i4` or `>i4`): cumulative sequence offsets.
    I32(Vec<i32>),
    /// Any other dtype: not read.
    Other,
}

/// An array read from a `.npy` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    /// The shape, as the file states it.
    pub shape: Vec<usize>,
    /// The storage order.
    pub order: Order,
    /// The file's dtype (`<f4`, `<f8`, ...).
    pub descr: String,
    /// The elements.
    pub data: Data,
}

impl Array {
    /// NumPy's name of the dtype: "float32", "float16", or the file's
    /// descriptor for any other.
    pub fn dtype_name(&self) -> String {
        match self.data {
            Data::F32(_) => "float32".into(),
            Data::F16(_) => "float16".into(),
            Data::U16(_) => "uint16".into(),
            Data::U8(_) => "uint8".into(),
            Data::I32(_) => "int32".into(),
            Data::Other => format!("'{}'", self.descr),
        }
    }
}

/// Reads a `.npy` file; the error is one line naming the file.
pub fn read(path: &Path) -> Result<Array, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse(&bytes).map_err(|e| format!("{}: not a .npy array NumPy wrote: {e}", path.display()))
}

/// Parses the bytes of a `.npy` file.
pub fn parse(bytes: &[u8]) -> Result<Array, String> {
    let npy = npyz::NpyFile::new(bytes).map_err(|e| one_line(&e))?;
    let shape = npy
        .shape()
        .iter()
        .map(|&d| usize::try_from(d).map_err(|_| format!("dimension {d} is too large")))
        .collect::<Result<Vec<_>, _>>()?;
    let order = match npy.order() {
        npyz::Order::C => Order::C,
        npyz::Order::Fortran => Order::Fortran,
    };
    let dtype = npy.dtype();
    let descr = dtype.descr();
    let plain = match &dtype {
        DType::Plain(t) => Some((t.type_char(), t.size_field())),
        _ => None,
    };
    let data = match plain {
        Some((TypeChar::Float, 4)) => Data::F32(npy.into_vec().map_err(|e| one_line(&e))?),
        Some((TypeChar::Float, 2)) => Data::F16(npy.into_vec().map_err(|e| one_line(&e))?),
        Some((TypeChar::Uint, 2)) => Data::U16(npy.into_vec().map_err(|e| one_line(&e))?),
        Some((TypeChar::Uint, 1)) => Data::U8(npy.into_vec().map_err(|e| one_line(&e))?),
        Some((TypeChar::Int, 4)) => Data::I32(npy.into_vec().map_err(|e| one_line(&e))?),
        _ => Data::Other,
    };
    Ok(Array {
        shape,
        order,
        descr: descr.trim_matches('\'').to_string(),
        data,
    })
}

/// An error's message on one line.
fn one_line(e: &dyn std::fmt::Display) -> String {
    e.to_string()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// An element type this module writes.
pub trait Element: npyz::Serialize {
    /// Its little-endian `.npy` descriptor.
    const DESCR: &'static str;
}

impl Element for f32 {
    const DESCR: &'static str = "<f4";
}

impl Element for f16 {
    const DESCR: &'static str = "<f2";
}

impl Element for u16 {
    const DESCR: &'static str = "<u2";
}

fn write_to<T: Element, W: Write>(out: W, shape: &[usize], data: &[T]) -> Result<(), String> {
    if shape.iter().product::<usize>() != data.len() {
        return Err(format!("{} elements for shape {shape:?}", data.len()));
    }
    let ty: npyz::TypeStr = T::DESCR.parse().map_err(|e| one_line(&e))?;
    let dtype = DType::new_scalar(ty);
    let shape: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    let mut w = npyz::WriteOptions::new()
        .dtype(dtype)
        .shape(&shape)
        .writer(out)
        .begin_nd()
        .map_err(|e| one_line(&e))?;
    w.extend(data.iter()).map_err(|e| one_line(&e))?;
    w.finish().map_err(|e| one_line(&e))
}

/// Writes a C-order `.npy` array of `shape` holding `data`; the error is
/// one line naming the file.
pub fn write<T: Element>(path: &Path, shape: &[usize], data: &[T]) -> Result<(), String> {
    let fail = |e: String| format!("cannot write {}: {e}", path.display());
    let file = File::create(path).map_err(|e| fail(e.to_string()))?;
    let mut out = BufWriter::new(file);
    write_to(&mut out, shape, data).map_err(fail)?;
    out.flush().map_err(|e| fail(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of a C-order `.npy` array of `shape` holding `data`.
    fn to_bytes<T: Element>(shape: &[usize], data: &[T]) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        write_to(&mut out, shape, data)?;
        Ok(out)
    }

    /// A `.npy` file as the format specifies it (version 1.0: magic,
    /// version, header length, a dict padded with spaces to a multiple of
    /// 64 bytes ending in a newline), independent of npyz's writer.
    fn npy_bytes(descr: &str, fortran: bool, shape: &str, data: &[u8]) -> Vec<u8> {
        let fortran = if fortran { "True" } else { "False" };
        let mut dict =
            format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}");
        while (10 + dict.len() + 1) % 64 != 0 {
            dict.push(' ');
        }
        dict.push('\n');
        let mut out = b"\x93NUMPY\x01\x00".to_vec();
        out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
        out.extend_from_slice(dict.as_bytes());
        out.extend_from_slice(data);
        out
    }

    /// The header dict of bytes written here.
    fn header(bytes: &[u8]) -> String {
        let len = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
        String::from_utf8(bytes[10..10 + len].to_vec()).unwrap()
    }

    #[test]
    fn f32_round_trip_through_a_file() {
        let data: Vec<f32> = (0..12).map(|i| i as f32 * 0.25 - 1.0).collect();
        let path =
            std::env::temp_dir().join(format!("gpu-runner-npy-{}-f32.npy", std::process::id()));
        write(&path, &[3, 4], &data).unwrap();
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            header(&bytes)
                .starts_with("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4, ), }"),
            "{}",
            header(&bytes)
        );
        assert_eq!((10 + header(&bytes).len()) % 64, 0);
        let a = read(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(
            a,
            Array {
                shape: vec![3, 4],
                order: Order::C,
                descr: "<f4".into(),
                data: Data::F32(data),
            }
        );
        assert_eq!(a.dtype_name(), "float32");
    }

    #[test]
    fn f16_round_trip_keeps_every_bit_pattern() {
        // Every finite f16, the infinities and a NaN: bits unchanged.
        let data: Vec<f16> = (0..=u16::MAX)
            .filter(|&b| !f16::from_bits(b).is_nan() || b == 0x7e00)
            .map(f16::from_bits)
            .collect();
        let shape = [data.len() / 2, 2];
        let bytes = to_bytes(&shape, &data[..shape[0] * 2]).unwrap();
        assert!(header(&bytes).starts_with("{'descr': '<f2', 'fortran_order': False, 'shape': ("));
        let a = parse(&bytes).unwrap();
        assert_eq!(a.shape, shape);
        assert_eq!(a.order, Order::C);
        assert_eq!(a.dtype_name(), "float16");
        let Data::F16(got) = a.data else {
            panic!("not f16")
        };
        let bits = |v: &[f16]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&data[..shape[0] * 2]));
        // Little-endian payload: 1.0 is 0x3c00.
        let one = to_bytes(&[1], &[f16::ONE]).unwrap();
        assert_eq!(one[one.len() - 2..], [0x00, 0x3c]);
    }

    /// Empty arrays (an empty GEMM's operands and C): np.save of
    /// np.zeros((0, 32), '<f2') has shape (0, 32) and no payload; written
    /// back, a 0 x 128 C has the same header shape and no payload.
    #[test]
    fn empty_arrays_read_and_write() {
        let a = parse(&npy_bytes("<f2", false, "(0, 32)", &[])).unwrap();
        assert_eq!(a.shape, [0, 32]);
        assert_eq!(a.data, Data::F16(Vec::new()));
        let bytes = to_bytes::<f32>(&[0, 128], &[]).unwrap();
        assert!(
            header(&bytes).contains("'shape': (0, 128, )"),
            "{}",
            header(&bytes)
        );
        assert_eq!(bytes.len(), 10 + header(&bytes).len());
        assert_eq!(parse(&bytes).unwrap().shape, [0, 128]);
    }

    #[test]
    fn reads_files_as_numpy_writes_them() {
        // np.save of np.asfortranarray(np.arange(6, dtype='<f2').reshape(2, 3)):
        // storage order kept (column-major: 0, 3, 1, 4, 2, 5).
        let halves: Vec<u8> = [0.0f32, 3.0, 1.0, 4.0, 2.0, 5.0]
            .iter()
            .flat_map(|&x| f16::from_f32(x).to_le_bytes())
            .collect();
        let a = parse(&npy_bytes("<f2", true, "(2, 3)", &halves)).unwrap();
        assert_eq!(a.shape, [2, 3]);
        assert_eq!(a.order, Order::Fortran);
        let want: Vec<f16> = [0.0, 3.0, 1.0, 4.0, 2.0, 5.0].map(f16::from_f32).to_vec();
        assert_eq!(a.data, Data::F16(want));
        // Big-endian f32 reads as its values.
        let be: Vec<u8> = [1.5f32, -2.0]
            .iter()
            .flat_map(|x| x.to_be_bytes())
            .collect();
        let a = parse(&npy_bytes(">f4", false, "(2,)", &be)).unwrap();
        assert_eq!(a.data, Data::F32(vec![1.5, -2.0]));
        assert_eq!(a.shape, [2]);
        // Another dtype: its descriptor, no data.
        let a = parse(&npy_bytes("<f8", false, "(1, 1)", &1.0f64.to_le_bytes())).unwrap();
        assert_eq!((a.data, a.descr.as_str()), (Data::Other, "<f8"));
        let a = parse(&npy_bytes("<i8", false, "(1,)", &7i64.to_le_bytes())).unwrap();
        assert_eq!(a.dtype_name(), "'<i8'");
    }

    /// bf16 and FP8 travel as their bits: np.save of a uint16 array
    /// (little- or big-endian) and of a uint8 one read as those bits, and a
    /// written uint16 C reads back.
    #[test]
    fn bit_patterns_read_as_stored() {
        let le: Vec<u8> = [0x3f80u16, 0xc040]
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect();
        let a = parse(&npy_bytes("<u2", false, "(1, 2)", &le)).unwrap();
        assert_eq!(
            (a.data, a.shape),
            (Data::U16(vec![0x3f80, 0xc040]), vec![1, 2])
        );
        // int32, both byte orders (np.array([0, 3, 70], '<i4')).
        let le: Vec<u8> = [0i32, 3, 70].iter().flat_map(|x| x.to_le_bytes()).collect();
        let a = parse(&npy_bytes("<i4", false, "(3,)", &le)).unwrap();
        assert_eq!(
            (a.dtype_name(), a.data),
            ("int32".to_string(), Data::I32(vec![0, 3, 70]))
        );
        let be: Vec<u8> = [-2i32].iter().flat_map(|x| x.to_be_bytes()).collect();
        assert_eq!(
            parse(&npy_bytes(">i4", false, "(1,)", &be)).unwrap().data,
            Data::I32(vec![-2])
        );
        let be = [0x3f, 0x80];
        let a = parse(&npy_bytes(">u2", false, "(1,)", &be)).unwrap();
        assert_eq!(a.data, Data::U16(vec![0x3f80]));
        let a = parse(&npy_bytes("|u1", true, "(2, 2)", &[0x38, 0x40, 0xb8, 0])).unwrap();
        assert_eq!(
            (a.dtype_name(), a.order, a.data),
            (
                "uint8".to_string(),
                Order::Fortran,
                Data::U8(vec![0x38, 0x40, 0xb8, 0])
            )
        );
        let bytes = to_bytes(&[1, 3], &[1u16, 2, 0xffff]).unwrap();
        assert!(
            header(&bytes).starts_with("{'descr': '<u2', 'fortran_order': False, 'shape': (1, 3")
        );
        assert_eq!(parse(&bytes).unwrap().data, Data::U16(vec![1, 2, 0xffff]));
    }

    #[test]
    fn unreadable_files_are_one_line_errors() {
        let missing = Path::new("/nonexistent/gpu-runner/a.npy");
        let e = read(missing).unwrap_err();
        assert!(
            e.starts_with("cannot read /nonexistent/gpu-runner/a.npy: "),
            "{e}"
        );
        for bad in [&b"not an npy file"[..], &b"\x93NUMPY\x01\x00\xff"[..], &[]] {
            let e = parse(bad).unwrap_err();
            assert!(!e.contains('\n'), "{e}");
        }
        // Data shorter than the shape says.
        let short = npy_bytes("<f4", false, "(2, 2)", &[0; 12]);
        assert!(parse(&short).is_err());
        let e = write(Path::new("/nonexistent/gpu-runner/c.npy"), &[1], &[1.0f32]).unwrap_err();
        assert!(
            e.starts_with("cannot write /nonexistent/gpu-runner/c.npy: "),
            "{e}"
        );
        assert!(to_bytes(&[2, 2], &[1.0f32]).is_err());
    }
}
