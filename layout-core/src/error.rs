//! Errors of run-time checks.

use crate::typelevel::const_text::Text;
use core::fmt;

/// Why a run-time layout or tensor operation was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LayoutError {
    /// The layout's cosize does not fit `usize`.
    CosizeOverflow,
    /// The layout's size (the product of its shape) does not fit `usize`.
    SizeOverflow,
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
    /// A tensor that starts at `offset` reaches past its storage of `len`
    /// elements: a tile past its matrix. An operation without a predicate
    /// refuses it before touching an element (`copy`, `fill`, `axpby`,
    /// `gemm`); `copy_if` refuses an element its predicate keeps there.
    PastStorage {
        /// The operation.
        op: &'static str,
        /// Which tensor ("source", "destination", "A", ...).
        tensor: &'static str,
        /// Its first element's offset.
        offset: usize,
        /// The storage's length.
        len: usize,
        /// The element past the storage, where one was met: its 1-D index
        /// in the tensor and its offset in the storage.
        element: Option<(usize, usize)>,
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
            LayoutError::SizeOverflow => {
                f.write_str("the layout's size (the product of its shape) overflows usize")
            }
            LayoutError::Overflow { op } => write!(f, "{op}: arithmetic overflow"),
            #[cfg(feature = "alloc")]
            LayoutError::Parse { pos, expected } => write!(f, "at byte {pos}: expected {expected}"),
            #[cfg(feature = "alloc")]
            LayoutError::Invalid { op, why } => write!(f, "{op}: {why}"),
            LayoutError::Refused { op, why } => write!(f, "{op}: {why}"),
            LayoutError::PastStorage {
                op,
                tensor,
                offset,
                len,
                element,
            } => {
                match element {
                    Some((i, k)) => {
                        write!(f, "{op}: element {i} of the {tensor} is at offset {k},")?
                    }
                    None => write!(f, "{op}: the {tensor}, from offset {offset}, reaches")?,
                }
                write!(
                    f,
                    " past its storage of {len} elements (a tile that reaches past its matrix: predicate it, as with copy_if)"
                )
            }
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
    /// The composition is not admissible.
    Composition(CompositionError),
    /// The complement does not exist.
    Complement(ComplementError),
    /// A value of the result (an extent, a stride) does not fit `usize`.
    Arithmetic,
    /// An operand has size 0 where the operation's formula divides by that
    /// size (CuTe's does too): "`what` has size 0: `why`".
    ///
    /// ```
    /// use layout_core::{algebra::try_complement, layout, LayoutError, Refusal};
    /// // complement's new stride is 1 * 0, and CuTe divides the cotarget by it.
    /// let z = 0usize;
    /// let e = try_complement(layout!(z:1), 16usize).unwrap_err();
    /// assert!(matches!(e, LayoutError::Refused { why: Refusal::SizeZero { what: "A", .. }, .. }));
    /// assert!(e.to_string().starts_with("complement: A has size 0: "));
    /// ```
    SizeZero {
        /// Which operand: "A", "B", "the tiler", "the cotarget".
        what: &'static str,
        /// Why that refuses the operation.
        why: &'static str,
    },
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
    /// A coordinate the user gave (a tile coordinate, a coordinate in a tile,
    /// an identity tensor's extent) lies outside what it indexes:
    /// "`kind` `coord` is outside `shape`" in the words of [`Outside`].
    Outside {
        /// What the coordinate is and what it indexes.
        kind: Outside,
        /// The coordinate, as given.
        coord: Note,
        /// That shape or bound in CuTe notation.
        shape: Note,
    },
    /// Thread `idx` is not below the thread count: "thread `idx` is outside
    /// `of` `layout` of `count` threads".
    ThreadOutside {
        /// The thread index.
        idx: usize,
        /// Whose threads.
        of: Threads,
        /// The thread layout, where there is one.
        layout: Option<Note>,
        /// The number of threads (`None`: it overflows `usize`).
        count: Option<usize>,
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

/// What a refused coordinate is and what it indexes (the words of
/// [`Refusal::Outside`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outside {
    /// A tile coordinate, outside the grid of tiles (`local_tile`).
    Tile,
    /// A coordinate in a tile, outside the tile (`outer_partition`).
    Coordinate,
    /// An identity tensor's extent, past what its bit field holds.
    Extent,
}
impl Outside {
    /// The coordinate's name and what it lies outside of.
    ///
    /// ```
    /// use layout_core::error::Outside;
    /// assert_eq!(Outside::Tile.words(), ("tile", "the grid of tiles"));
    /// ```
    pub fn words(self) -> (&'static str, &'static str) {
        match self {
            Outside::Tile => ("tile", "the grid of tiles"),
            Outside::Coordinate => ("coordinate", "the tile"),
            Outside::Extent => (
                "extent",
                "what a mode of an identity tensor of this rank holds, at most",
            ),
        }
    }
}

/// Whose threads a refused thread index counts (the words of
/// [`Refusal::ThreadOutside`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Threads {
    /// A thread layout (`local_partition`).
    Layout,
    /// A TiledMMA's thread layout (`get_slice`).
    TiledMma,
    /// A TiledCopy's threads (`get_slice`).
    TiledCopy,
}
impl Threads {
    /// Their name in a message.
    ///
    /// ```
    /// use layout_core::error::Threads;
    /// assert_eq!(Threads::Layout.words(), "the thread layout");
    /// ```
    pub fn words(self) -> &'static str {
        match self {
            Threads::Layout => "the thread layout",
            Threads::TiledMma => "the TiledMMA's thread layout",
            Threads::TiledCopy => "the TiledCopy's threads",
        }
    }
}

/// A value an error names (a coordinate, a shape, a layout), kept as its
/// CuTe text with `?` for each run-time leaf and the run-time values (the
/// first three; further ones print as `?`), so that making the error costs
/// a few stores (no formatting: a kernel's refusal path stays free of
/// calls) and printing it gives CuTe notation.
///
/// ```
/// use layout_core::{error::Note, layout};
/// let n = 16;
/// assert_eq!(Note::value(&layout!((16,n):(1,16))).to_string(), "(_16,16):(_1,_16)");
/// assert_eq!(Note::num(300).to_string(), "300");
/// ```
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Note {
    /// `None`: the note is the number `vals[0]`.
    text: Option<&'static Text>,
    vals: [usize; Note::VALS],
    n: u8,
}

impl Note {
    const VALS: usize = 3;
    /// A number.
    #[inline(always)]
    pub fn num(v: usize) -> Note {
        Note {
            text: None,
            vals: [v, 0, 0],
            n: 1,
        }
    }
    /// A coordinate, shape or layout, kept as data until printed.
    #[inline(always)]
    pub fn value<T: NoteText>(v: &T) -> Note {
        let mut note = Note {
            text: Some(const { &T::TEXT }),
            vals: [0; Note::VALS],
            n: 0,
        };
        v.note_vals(&mut note);
        note
    }
    /// Record the next run-time value (past the capacity, `?` is printed).
    #[doc(hidden)]
    #[inline(always)]
    pub fn push(&mut self, v: usize) {
        if (self.n as usize) < Note::VALS {
            self.vals[self.n as usize] = v;
            self.n += 1;
        }
    }
}

impl fmt::Display for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(text) = self.text else {
            return write!(f, "{}", self.vals[0]);
        };
        let mut next = self.vals[..self.n as usize].iter();
        for c in text.as_str().chars() {
            match (c, next.as_slice().first()) {
                ('?', Some(v)) => {
                    write!(f, "{v}")?;
                    next.next();
                }
                (c, _) => write!(f, "{c}")?,
            }
        }
        Ok(())
    }
}
impl fmt::Debug for Note {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "\"{self}\"")
    }
}

/// What a [`Note`] can name: its CuTe text as a constant (`?` for a
/// run-time leaf) and its run-time values in order. Integers, `_`, tuples
/// of those, and layouts.
pub trait NoteText: Copy {
    /// CuTe notation, `?` for each run-time leaf.
    #[doc(hidden)]
    const TEXT: Text;
    /// Push the run-time leaves' values, in order.
    #[doc(hidden)]
    fn note_vals(&self, n: &mut Note);
}
macro_rules! leaf_note {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> NoteText for $t {
            const TEXT: Text = <$t as crate::typelevel::tuple::IntTuple>::TEXT;
            #[inline(always)]
            fn note_vals(&self, n: &mut Note) {
                if <$t as crate::typelevel::int::Int>::STATIC.is_none() {
                    n.push(crate::typelevel::int::Int::value(*self));
                }
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_note);
macro_rules! note_tuple {
    ($($t:ident),*) => {
        #[allow(non_snake_case, unused_mut, unused_variables, unused_assignments)]
        impl<$($t: NoteText),*> NoteText for ($($t,)*) {
            const TEXT: Text = {
                let mut t = Text::EMPTY.byte(b'(');
                let mut first = true;
                $(
                    if !first {
                        t = t.byte(b',');
                    }
                    first = false;
                    t = t.text($t::TEXT);
                )*
                t.byte(b')')
            };
            #[inline(always)]
            fn note_vals(&self, n: &mut Note) {
                let ($($t,)*) = self;
                $($t.note_vals(n);)*
            }
        }
    };
}
crate::typelevel::tuple::for_each_tuple!(note_tuple);
impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use crate::typelevel::const_text::Text;
        match *self {
            Refusal::Composition(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Complement(e) => f.write_str(e.text(Text::EMPTY).as_str()),
            Refusal::Arithmetic => f.write_str("a value of the result does not fit usize"),
            Refusal::SizeZero { what, why } => write!(f, "{what} has size 0: {why}"),
            Refusal::NotDividing { mode, block, target } => write!(
                f,
                "mode {mode} of the block has size {block}, which does not divide {target}, the size of mode {mode} of the shape"
            ),
            Refusal::TooManyLeaves { n, cap } => write!(
                f,
                "{n} leaves, more than the {cap} its run-time check examines"
            ),
            Refusal::OutOfShape => f.write_str("the coordinate lies outside the shape it indexes"),
            Refusal::Outside { kind, coord, shape } => {
                let (what, within) = kind.words();
                write!(f, "{what} {coord} is outside {within} {shape}")
            }
            Refusal::ThreadOutside {
                idx,
                of,
                layout,
                count,
            } => {
                write!(f, "thread {idx} is outside {}", of.words())?;
                if let Some(l) = layout {
                    write!(f, " {l}")?;
                }
                match count {
                    Some(n) => write!(f, " of {n} threads"),
                    None => f.write_str(", whose size overflows usize"),
                }
            }
            Refusal::Differ {
                a_name,
                a,
                b_name,
                b,
            } => write!(f, "{a_name} ({a}) differs from {b_name} ({b})"),
        }
    }
}

/// Why a composition `A o B` is refused. Sizes and strides are those of A'
/// (A coalesced) and of B's leaves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompositionError {
    /// B's leaf `s:d` neither divides nor is divided by A's mode `i` of size `c`.
    NotDividing {
        /// B's leaf shape.
        s: usize,
        /// B's leaf stride.
        d: usize,
        /// A's mode.
        i: usize,
        /// Its size.
        c: usize,
    },
    /// B's leaf `s:d` covers `n` elements of A's mode `i` (size `c`) but `s` is not a multiple of `n`.
    NotMultiple {
        /// B's leaf shape.
        s: usize,
        /// B's leaf stride.
        d: usize,
        /// How much of A's mode it covers.
        n: usize,
        /// A's mode.
        i: usize,
        /// Its size.
        c: usize,
    },
    /// B's modes overlap, so their offsets carry past A's mode `i` (boundary `p`).
    Overlap {
        /// A's mode.
        i: usize,
        /// The boundary `size(A'_0) * ... * size(A'_i)`.
        p: usize,
    },
    /// The boundary after A's mode `i` is past `usize` and B's offsets,
    /// added up, reach past `usize` too: whether B's modes carry across
    /// that boundary is not checked, so the composition is refused.
    ///
    /// ```
    /// use layout_core::{layout, try_composition};
    /// // A's modes (_2, 2^63 + 1) end past usize; B reaches 3 + 4 * 2^62.
    /// let (n, m) = ((1usize << 63) + 1, (1usize << 62) + 1);
    /// let e = try_composition(layout!(((2, n), 48):((1, 31), 37)), layout!((4, m):(1, 4)));
    /// assert!(e.unwrap_err().to_string().contains("span more than usize holds"));
    /// ```
    PastUsize {
        /// A's mode.
        i: usize,
    },
}

impl CompositionError {
    /// The reason as compile-time text (after `A o B: `).
    pub const fn text(self, t: Text) -> Text {
        match self {
            CompositionError::NotDividing { s, d, i, c } => t
                .str("stride ")
                .num(d)
                .str(" of B's mode ")
                .num(s)
                .byte(b':')
                .num(d)
                .str(" does not divide, and is not divided by, A's mode ")
                .num(i)
                .str(" of size ")
                .num(c),
            CompositionError::NotMultiple { s, d, n, i, c } => t
                .str("B's mode ")
                .num(s)
                .byte(b':')
                .num(d)
                .str(" covers ")
                .num(n)
                .str(" of A's mode ")
                .num(i)
                .str(" (size ")
                .num(c)
                .str(") but its size ")
                .num(s)
                .str(" is not a multiple of ")
                .num(n),
            CompositionError::Overlap { i, p } => t
                .str("B's modes overlap, so their offsets carry past A's mode ")
                .num(i)
                .str(" (boundary ")
                .num(p)
                .byte(b')'),
            CompositionError::PastUsize { i } => t
                .str("A's modes up to mode ")
                .num(i)
                .str(" span more than usize holds and B's offsets add up past usize, so whether B's modes carry across that boundary is not checked"),
        }
    }
}

/// The most modes a complement check examines (CuTe's complement has no
/// such limit; past it the check refuses rather than run long).
pub const COMPLEMENT_CAP: usize = 64;

/// Why a complement is refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComplementError {
    /// Mode `s:d`, sorted by stride, lands inside the span `below` of the modes under it.
    NotStacking {
        /// Shape of the mode.
        s: usize,
        /// Stride of the mode.
        d: usize,
        /// The largest offset of the modes with smaller strides (`usize::MAX`
        /// when it is past `usize`).
        below: usize,
    },
    /// The modes leave a gap below `reach`, so `[0, m)` is not covered.
    Gap {
        /// How far the modes stack from 1 without a gap.
        reach: usize,
        /// The cotarget size.
        m: usize,
    },
    /// Mode `s:d`, sorted by stride, starts inside the span `span` of the
    /// modes below it (its stride divided by the span is 0).
    NotMultiple {
        /// Shape of the mode.
        s: usize,
        /// Stride of the mode.
        d: usize,
        /// The span of the modes with smaller strides.
        span: usize,
    },
    /// More modes than the check examines.
    TooManyModes {
        /// How many.
        n: usize,
    },
}

impl ComplementError {
    /// The reason as compile-time text.
    pub const fn text(self, t: Text) -> Text {
        match self {
            ComplementError::NotStacking { s, d, below } => t
                .str("mode ")
                .num(s)
                .byte(b':')
                .num(d)
                .str(" does not stack on the modes below it (stride ")
                .num(d)
                .str(" is not above their largest offset ")
                .num(below)
                .str("), so no layout fills the gaps"),
            ComplementError::Gap { reach, m } => t
                .str("its modes and the complement's leave a gap below ")
                .num(reach)
                .str(", so [0, ")
                .num(m)
                .str(") is not covered"),
            ComplementError::NotMultiple { s, d, span } => t
                .str("mode ")
                .num(s)
                .byte(b':')
                .num(d)
                .str(" does not stack on the modes below it (stride ")
                .num(d)
                .str(" is not a multiple of their span ")
                .num(span)
                .str("), so no layout fills the gaps"),
            ComplementError::TooManyModes { n } => t
                .num(n)
                .str(" modes, more than the ")
                .num(COMPLEMENT_CAP)
                .str(" the check examines"),
        }
    }
}
