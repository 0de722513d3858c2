//! Launch dimensions.

use std::fmt;

use crate::Error;

/// A grid (in blocks) or block (in threads) size, x fastest. Made from a
/// `u32` (x), a pair (x, y) or a triple; from `usize` values by
/// `try_from`, which refuses one past `u32::MAX`.
///
/// ```
/// use layout_launch::Dim3;
///
/// assert_eq!(Dim3::from(256), Dim3 { x: 256, y: 1, z: 1 });
/// assert_eq!(Dim3::from((32, 4)), Dim3 { x: 32, y: 4, z: 1 });
/// assert_eq!(Dim3::try_from((4096usize / 128, 384usize / 128)).unwrap(), Dim3 { x: 32, y: 3, z: 1 });
/// assert!(Dim3::try_from(1usize << 40).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// Along x (`blockIdx.x`'s or `threadIdx.x`'s range).
    pub x: u32,
    /// Along y.
    pub y: u32,
    /// Along z.
    pub z: u32,
}

impl Dim3 {
    /// x · y · z, as a `u128` (cannot overflow).
    pub fn count(self) -> u128 {
        u128::from(self.x) * u128::from(self.y) * u128::from(self.z)
    }

    /// `self` as cudarc's triple, or [`Error::Invalid`] naming `what`
    /// ("grid", "block") when a dimension is 0.
    pub(crate) fn positive(self, what: &str) -> Result<(u32, u32, u32), Error> {
        if self.count() == 0 {
            return Err(Error::Invalid(format!(
                "{what} {self}: every dimension must be positive"
            )));
        }
        Ok((self.x, self.y, self.z))
    }
}

impl fmt::Display for Dim3 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.x, self.y, self.z)
    }
}

impl From<u32> for Dim3 {
    fn from(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }
}

impl From<(u32, u32)> for Dim3 {
    fn from((x, y): (u32, u32)) -> Self {
        Dim3 { x, y, z: 1 }
    }
}

impl From<(u32, u32, u32)> for Dim3 {
    fn from((x, y, z): (u32, u32, u32)) -> Self {
        Dim3 { x, y, z }
    }
}

fn narrow(v: usize) -> Result<u32, Error> {
    u32::try_from(v).map_err(|_| Error::Invalid(format!("launch dimension {v} is too large")))
}

impl TryFrom<usize> for Dim3 {
    type Error = Error;
    fn try_from(x: usize) -> Result<Self, Error> {
        Ok(Dim3::from(narrow(x)?))
    }
}

impl TryFrom<(usize, usize)> for Dim3 {
    type Error = Error;
    fn try_from((x, y): (usize, usize)) -> Result<Self, Error> {
        Ok(Dim3::from((narrow(x)?, narrow(y)?)))
    }
}

impl TryFrom<(usize, usize, usize)> for Dim3 {
    type Error = Error;
    fn try_from((x, y, z): (usize, usize, usize)) -> Result<Self, Error> {
        Ok(Dim3::from((narrow(x)?, narrow(y)?, narrow(z)?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn conversions_and_refusals() {
        assert_eq!(Dim3::from((1, 2, 3)).count(), 6);
        assert_eq!(
            Dim3::from((u32::MAX, u32::MAX, u32::MAX)).count(),
            u128::from(u32::MAX).pow(3)
        );
        assert_eq!(
            Dim3::try_from((1usize, 2usize, 3usize)).unwrap(),
            Dim3::from((1, 2, 3))
        );
        let e = Dim3::try_from((1usize, 1usize << 32)).unwrap_err();
        assert_eq!(e.to_string(), "launch dimension 4294967296 is too large");
        assert_eq!(Dim3::from(7).positive("block").unwrap(), (7, 1, 1));
        let e = Dim3::from((4, 0)).positive("grid").unwrap_err();
        assert_eq!(
            e.to_string(),
            "grid (4, 0, 1): every dimension must be positive"
        );
    }
}
