//! CuTe's `print_layout`: the ASCII table of a rank-2 layout.

use crate::layout::ops::{mode_sizes_2, Rank2};
use crate::layout::{Congruent, Layout};
use crate::typelevel::tuple::IntTuple;
use core::fmt;

/// How many decimal digits `x` has.
fn num_digits(mut x: usize) -> usize {
    let mut n = 1;
    while x >= 10 {
        x /= 10;
        n += 1;
    }
    n
}

/// The most cells `print_layout` draws (and the explorer's `show`, `svg`
/// and `latex`): a bigger layout is one line saying so; print a part of it
/// (a `slice` or a `local_tile`) instead.
pub const PRINT_LIMIT: usize = 1 << 16;

/// Whether a table of `rows` x `cols` cells is within [`PRINT_LIMIT`]:
/// the rows and the columns count alone too (a table of no columns still
/// has a line per row).
pub(crate) fn fits(rows: usize, cols: usize) -> bool {
    rows.checked_mul(cols)
        .is_some_and(|c| c <= PRINT_LIMIT && rows <= PRINT_LIMIT && cols <= PRINT_LIMIT)
}

/// Why [`write_table`] stopped: the writer failed, or a cell did.
pub(crate) enum TableError<E> {
    /// The writer's error.
    Write(fmt::Error),
    /// The cell's error.
    Cell(E),
}

impl<E> From<fmt::Error> for TableError<E> {
    fn from(e: fmt::Error) -> Self {
        TableError::Write(e)
    }
}

/// CuTe's `print_layout` table, byte for byte: `head` on its own line, the
/// column numbers, then `rows` rows of `cols` cells, cell `(m, n)` showing
/// `cell(m + rows * n)` (the 1-D index: the last mode is not reduced),
/// right-aligned in a cell as wide as `cosize` has digits, plus a space on
/// each side. The typed and the run-time `print_layout` both draw with it;
/// the caller checks the size ([`fits`]). The first failing cell stops it.
pub(crate) fn write_table<V: fmt::Display, E>(
    f: &mut dyn fmt::Write,
    head: &dyn fmt::Display,
    rows: usize,
    cols: usize,
    cosize: usize,
    mut cell: impl FnMut(usize) -> Result<V, E>,
) -> Result<(), TableError<E>> {
    let width = num_digits(cosize) + 2;
    let delim = |f: &mut dyn fmt::Write| -> fmt::Result {
        f.write_str("    ")?;
        for _ in 0..cols {
            f.write_char('+')?;
            for _ in 0..width {
                f.write_char('-')?;
            }
        }
        f.write_str("+\n")
    };
    writeln!(f, "{head}")?;
    f.write_str("    ")?;
    for n in 0..cols {
        write!(f, "  {:>w$} ", n, w = width - 2)?;
    }
    f.write_char('\n')?;
    for m in 0..rows {
        delim(f)?;
        write!(f, "{m:>2}  ")?;
        for n in 0..cols {
            let v = cell(m + rows * n).map_err(TableError::Cell)?;
            write!(f, "| {:>w$} ", v, w = width - 2)?;
        }
        f.write_str("|\n")?;
    }
    delim(f)?;
    Ok(())
}

/// Write CuTe's `print_layout` table of a rank-2 layout, byte for byte; a
/// layout of more than [`PRINT_LIMIT`] cells (or a cosize past `usize`) is
/// one line saying so.
///
/// ```
/// use layout_core::{layout, print_layout};
/// let big = print_layout(layout!((1000,1000):(1,1000)));
/// assert_eq!(big.lines().count(), 1);
/// assert!(big.contains("more than 65536 cells"));
/// ```
///
/// ```
/// use layout_core::{layout, print_layout};
/// let text = print_layout(layout!((2,4):(1,2)));
/// assert_eq!(text.lines().nth(3).unwrap(), " 0  | 0 | 2 | 4 | 6 |");
/// ```
pub fn write_layout_table<S: Congruent<D> + Rank2, D: IntTuple>(
    f: &mut dyn fmt::Write,
    l: Layout<S, D>,
) -> fmt::Result {
    let (rows, cols) = mode_sizes_2(&l.shape());
    let (true, Some(cosize)) = (fits(rows, cols), l.checked_cosize()) else {
        return writeln!(
            f,
            "{l}: more than {PRINT_LIMIT} cells (or offsets past usize) to print; print a part of it (slice or local_tile)"
        );
    };
    let cell = |i| Ok::<_, core::convert::Infallible>(l.call(i));
    match write_table(f, &l, rows, cols, cosize, cell) {
        Ok(()) => Ok(()),
        Err(TableError::Write(e)) => Err(e),
        Err(TableError::Cell(never)) => match never {},
    }
}

/// CuTe's `print_layout` as a string.
///
/// ```
/// use layout_core::{layout, print_layout};
/// // Rows are mode 0, columns mode 1, each cell the offset.
/// let t = print_layout(layout!((2,2):(1,2)));
/// assert!(t.starts_with("(_2,_2):(_1,_2)"));
/// assert!(t.contains("| 0 | 2 |") && t.contains("| 1 | 3 |"), "{t}");
/// ```
#[cfg(feature = "alloc")]
pub fn print_layout<S: Congruent<D> + Rank2, D: IntTuple>(
    l: Layout<S, D>,
) -> alloc::string::String {
    let mut s = alloc::string::String::new();
    let _ = write_layout_table(&mut s, l);
    s
}

/// A tiler in CuTe notation: `_`, a static or run-time integer, a layout,
/// or a tuple of those (`(_32,(_8,_2,_2):(_1,_16,_8),_16)`).
///
/// ```
/// use layout_core::{layout, layout::print::TilerText, Underscore, C};
/// let mut s = String::new();
/// (C::<32>, layout!((8,2):(1,16)), Underscore).write_tiler(&mut s).unwrap();
/// assert_eq!(s, "(_32,(_8,_2):(_1,_16),_)");
/// ```
pub trait TilerText {
    /// Write the tiler.
    fn write_tiler(&self, f: &mut dyn fmt::Write) -> fmt::Result;
}
impl TilerText for crate::layout::coord::Underscore {
    fn write_tiler(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        f.write_str("_")
    }
}
macro_rules! leaf_tiler_text {
    ($t:ty; $($g:tt)*) => {
        impl<$($g)*> TilerText for $t {
            fn write_tiler(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                self.write_cute(f)
            }
        }
    };
}
crate::typelevel::int::for_each_leaf!(leaf_tiler_text);
impl<S: Congruent<D>, D: IntTuple> TilerText for Layout<S, D> {
    fn write_tiler(&self, f: &mut dyn fmt::Write) -> fmt::Result {
        write!(f, "{self}")
    }
}
macro_rules! tuple_tiler_text {
    ($($t:ident $i:tt),+) => {
        impl<$($t: TilerText),+> TilerText for ($($t,)+) {
            fn write_tiler(&self, f: &mut dyn fmt::Write) -> fmt::Result {
                f.write_str("(")?;
                $(
                    if $i > 0 {
                        f.write_str(",")?;
                    }
                    self.$i.write_tiler(f)?;
                )+
                f.write_str(")")
            }
        }
    };
}
tuple_tiler_text!(T0 0);
tuple_tiler_text!(T0 0, T1 1);
tuple_tiler_text!(T0 0, T1 1, T2 2);
tuple_tiler_text!(T0 0, T1 1, T2 2, T3 3);
