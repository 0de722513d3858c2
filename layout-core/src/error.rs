//! Errors of run-time checks.

use core::fmt;

/// Why a run-time layout or tensor operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The layout's cosize does not fit `usize`.
    CosizeOverflow,
    /// An arithmetic step of an operation overflows.
    Overflow {
        /// The operation.
        op: &'static str,
    },
    /// Text that is not CuTe notation.
    #[cfg(feature = "alloc")]
    Parse {
        /// Byte position of the problem.
        pos: usize,
        /// What was expected there.
        expected: &'static str,
    },
    /// An operation's precondition does not hold.
    #[cfg(feature = "alloc")]
    Invalid {
        /// The operation, by CuTe's name.
        op: &'static str,
        /// Which mode and which numbers.
        why: alloc::string::String,
    },
    /// A typed algebra operation refused its run-time input (no allocation:
    /// the reason carries the numbers, not the layouts' text).
    Refused {
        /// The operation, by CuTe's name.
        op: &'static str,
        /// Why.
        why: Refusal,
    },
    /// The storage is shorter than the layout's cosize.
    StorageTooShort {
        /// Elements the layout reaches (offset plus cosize).
        needed: usize,
        /// Elements the storage has.
        len: usize,
    },
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LayoutError::CosizeOverflow => f.write_str("the layout's cosize overflows usize"),
            LayoutError::Overflow { op } => write!(f, "{op}: arithmetic overflow"),
            #[cfg(feature = "alloc")]
            LayoutError::Parse { pos, expected } => write!(f, "at byte {pos}: expected {expected}"),
            #[cfg(feature = "alloc")]
            LayoutError::Invalid { op, why } => write!(f, "{op}: {why}"),
            LayoutError::Refused { op, why } => write!(f, "{op}: {why}"),
            LayoutError::StorageTooShort { needed, len } => write!(
                f,
                "storage of {len} elements is shorter than the {needed} the layout reaches"
            ),
        }
    }
}

#[cfg(feature = "std")]
impl std::error::Error for LayoutError {}

/// Why a typed algebra operation refused its run-time input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The composition is not admissible (see [`crate::admissible::check_composition`]).
    Composition(crate::admissible::CompositionError),
    /// The complement does not exist (see [`crate::admissible::check_complement`]).
    Complement(crate::admissible::ComplementError),
    /// A step divides by a run-time 0 (a layout of size 0) or overflows `usize`.
    Arithmetic,
    /// Mode `mode` of the block has size `block`, which does not divide `target`.
    NotDividing {
        /// The mode.
        mode: usize,
        /// The block's size there.
        block: usize,
        /// The target's size there.
        target: usize,
    },
    /// More leaves than a run-time check examines.
    TooManyLeaves {
        /// How many.
        n: usize,
        /// The most the check takes.
        cap: usize,
    },
    /// A coordinate (a tile, a thread) lies outside the shape it indexes.
    OutOfShape,
    /// A coordinate the user gave (a thread index, a tile coordinate) lies
    /// outside what it indexes: "`what` `coord` is outside `within` `shape`".
    Outside {
        /// What the coordinate is: "thread", "tile", "element".
        what: &'static str,
        /// The coordinate, as given.
        coord: Note,
        /// What it indexes: "the thread layout", "the grid of tiles".
        within: &'static str,
        /// That shape or layout in CuTe notation (with a count where useful).
        shape: Note,
    },
    /// Element `index` (1-D) of a tensor lies at `offset`, past its storage
    /// of `len` elements: a tile that reaches past its matrix.
    PastStorage {
        /// Which tensor ("source", "destination", "A", ...).
        tensor: &'static str,
        /// The element's 1-D index in the tensor.
        index: usize,
        /// Its offset in the storage.
        offset: usize,
        /// The storage's length.
        len: usize,
    },
    /// Two extents that must agree do not: "`a_name` (`a`) differs from
    /// `b_name` (`b`)".
    Differ {
        /// The first extent, e.g. "the source's size", "A's K".
        a_name: &'static str,
        /// Its value.
        a: usize,
        /// The second extent.
        b_name: &'static str,
        /// Its value.
        b: usize,
    },
}

/// A short text an error carries without allocating: a coordinate or a
/// layout in CuTe notation, cut with `...` past 94 bytes.
///
/// ```
/// use layout_core::{error::Note, layout};
/// assert_eq!(Note::of(&layout!((16,16):(1,16))).as_str(), "(_16,_16):(_1,_16)");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Note {
    buf: [u8; Note::CAP],
    len: u8,
}

impl Note {
    const CAP: usize = 94;
    /// The text `v` displays, cut with `...` past the capacity.
    pub fn of(v: &dyn fmt::Display) -> Note {
        let mut n = Note {
            buf: [0; Note::CAP],
            len: 0,
        };
        let _ = fmt::write(&mut n, format_args!("{v}"));
        n
    }
    /// The text a writer produces (a coordinate's `write_crd`, say).
    pub(crate) fn with(w: impl FnOnce(&mut dyn fmt::Write) -> fmt::Result) -> Note {
        let mut n = Note {
            buf: [0; Note::CAP],
            len: 0,
        };
        let _ = w(&mut n);
        n
    }
    /// The text.
    ///
    /// ```
    /// use layout_core::error::Note;
    /// assert_eq!(Note::of(&"(2,0)").as_str(), "(2,0)");
    /// ```
    pub fn as_str(&self) -> &str {
        core::str::from_utf8(&self.buf[..self.len as usize]).unwrap_or("?")
    }
}

impl fmt::Write for Note {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.chars() {
            let len = self.len as usize;
            let w = c.len_utf8();
            if len + w > Note::CAP - 3 {
                // Full: end with "..." once.
                if !self.as_str().ends_with("...") {
                    let end = (len + 3).min(Note::CAP);
                    self.buf[end - 3..end].copy_from_slice(b"...");
                    self.len = end as u8;
                }
                return Ok(());
            }
            c.encode_utf8(&mut self.buf[len..len + w]);
            self.len += w as u8;
        }
        Ok(())
    }
}
impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
impl fmt::Debug for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::const_text::Text;
        match *self {
            Refusal::Composition(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Complement(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Arithmetic => {
                f.write_str("a step divides by 0 (a layout of size 0) or overflows usize")
            }
            Refusal::NotDividing { mode, block, target } => write!(
                f,
                "mode {mode} of the block has size {block}, which does not divide {target}, the size of mode {mode} of the shape"
            ),
            Refusal::TooManyLeaves { n, cap } => write!(
                f,
                "{n} leaves, more than the {cap} its run-time check examines"
            ),
            Refusal::OutOfShape => f.write_str("the coordinate lies outside the shape it indexes"),
            Refusal::Outside {
                what,
                coord,
                within,
                shape,
            } => write!(f, "{what} {coord} is outside {within} {shape}"),
            Refusal::PastStorage {
                tensor,
                index,
                offset,
                len,
            } => write!(
                f,
                "element {index} of the {tensor} is at offset {offset}, past its storage of {len} elements (a tile that reaches past its matrix: predicate it, as with copy_if)"
            ),
            Refusal::Differ {
                a_name,
                a,
                b_name,
                b,
            } => write!(f, "{a_name} ({a}) differs from {b_name} ({b})"),
        }
    }
}
