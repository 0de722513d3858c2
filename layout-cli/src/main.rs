//! `layout`: the explorer. Shows layouts in CuTe notation with their
//! tables, evaluates expressions of the algebra, and draws pictures.

mod copy;
mod draw;
mod eval;
mod mma;

use clap::{Parser, Subcommand};
use layout_core::dynamic as d;
use layout_core::dynamic::ComposedLayout;
use layout_core::{DynLayout, LayoutError};
use std::fmt;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "layout",
    about = "Explore CuTe layouts: show, evaluate, draw. With no command, a short tour."
)]
struct Cli {
    #[command(subcommand)]
    cmd: Option<Cmd>,
}

#[derive(Subcommand)]
enum Cmd {
    /// A layout in CuTe notation, its size, cosize, rank, depth and table
    /// (at most 65536 entries: show a part of a bigger one).
    Show {
        /// The layout, e.g. `(3,4):(4,1)` or a shape alone, or a swizzled
        /// layout as CuTe prints it, `Sw<3,4,3> o _0 o (_8,_64):(_64,_1)`.
        layout: String,
    },
    /// Evaluate an expression: `composition((6,2):(8,2), (4,3):(3,1))`.
    Eval {
        /// The expression.
        expr: String,
        /// Also print the result's table (at most 65536 entries).
        #[arg(long)]
        table: bool,
    },
    /// Draw a rank-2 layout (or, with --tv, a thread-value layout) as SVG.
    Svg {
        /// The layout.
        layout: String,
        /// Output file.
        #[arg(short, long)]
        output: String,
        /// Draw a (thread,value) layout over a tile of ROWSxCOLS, e.g. `--tv 16x16`.
        #[arg(long, value_name = "ROWSxCOLS")]
        tv: Option<String>,
        /// Shared memory of elements of this many bytes (1, 2, 4, 8, 16):
        /// color each cell by the 16-byte chunk of its 128-byte line (what a
        /// swizzle permutes) and label it with its offset and bank, e.g.
        /// `svg 'Sw<3,3,3> o _0 o (_8,_64):(_64,_1)' --chunks 2` for CuTe's
        /// 128-byte-swizzled f16 GMMA atom.
        #[arg(long, value_name = "ELEM_BYTES")]
        chunks: Option<i64>,
    },
    /// Draw a TiledMMA's A, B and C partitions as SVG (cells colored by
    /// thread, labelled T#V#): PREFIX_A.svg (M x K), PREFIX_B.svg (N x K),
    /// PREFIX_C.svg (M x N).
    Mma {
        /// The tiled MMA: `sm80:1x1x1`, `sm80:2x2x1`, `sm80:4x1x1` (the
        /// 16x8x16 tensor-core atom over that many warps in M, N, K),
        /// `sm90:64x64x16`, `sm90:64x128x16`, `sm90:64x256x16` (Hopper's
        /// warpgroup MMA: C only, A and B are read from shared memory),
        /// `sm90:64x256x16/2x1x1` (two warpgroups along M, hgemm_sm90's),
        /// `fma:16x16x1` (one multiply-add per thread) or
        /// `fma:(4,4)x(8,2)x1` (the same threads, each warp a 4x8 block).
        spec: String,
        /// Output prefix.
        #[arg(short, long)]
        output: String,
    },
    /// Draw a TiledCopy's partitions as SVG (cells colored by thread,
    /// labelled T#V#): PREFIX_S.svg (what each thread reads) and
    /// PREFIX_D.svg (what it writes), over the copy's M x N tile.
    Copy {
        /// The tiled copy: `sgemm_2:nt`, `sgemm_2:tn` (CuTe's SGEMM tile
        /// copies), `ldsm:a`, `ldsm:b` (`ldmatrix` of an SM80 TiledMMA's
        /// operands) or `cp_async` (8 halves per thread).
        spec: String,
        /// Output prefix.
        #[arg(short, long)]
        output: String,
    },
    /// Print a LaTeX (TikZ) picture of a rank-2 or thread-value layout.
    Latex {
        /// The layout.
        layout: String,
        /// Draw a (thread,value) layout over a tile of ROWSxCOLS.
        #[arg(long, value_name = "ROWSxCOLS")]
        tv: Option<String>,
    },
}

fn parse_layout(s: &str) -> Result<DynLayout, String> {
    s.parse::<DynLayout>().map_err(|e| format!("`{s}`: {e}"))
}

/// The most entries a command prints: a table's cells, an offsets list's
/// offsets (the cells the pictures draw, too). At most about 22 bytes an
/// entry, so a table or list stays within a few megabytes.
const MAX_ENTRIES: i64 = layout_core::layout::print::PRINT_LIMIT as i64;

/// What `show` shows and the pictures draw: a layout, or a swizzled layout.
enum Shown {
    Layout(DynLayout),
    Swizzled(ComposedLayout),
}

impl fmt::Display for Shown {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Shown::Layout(l) => write!(f, "{l}"),
            Shown::Swizzled(c) => write!(f, "{c}"),
        }
    }
}

impl Shown {
    /// Either one, as it prints: `Sw<B,M,S> o _0 o layout` or a layout.
    fn parse(s: &str) -> Result<Shown, String> {
        if s.trim_start().starts_with("Sw") {
            s.parse::<ComposedLayout>()
                .map(Shown::Swizzled)
                .map_err(|e| format!("`{s}`: {e}"))
        } else {
            parse_layout(s).map(Shown::Layout)
        }
    }
    /// The layout (under the swizzle): the domain, and CuTe's cosize.
    fn layout(&self) -> &DynLayout {
        match self {
            Shown::Layout(l) => l,
            Shown::Swizzled(c) => &c.layout,
        }
    }
    fn call(&self, i: i64) -> Result<i64, LayoutError> {
        match self {
            Shown::Layout(l) => l.call(i),
            Shown::Swizzled(c) => c.call(i),
        }
    }
    /// How to see a part of it, for a refusal.
    fn part_hint(&self) -> &'static str {
        match self {
            Shown::Layout(_) => "show a part of it: a smaller layout, or a slice (layout eval 'slice(COORD, LAYOUT)' --table, where a `_` in COORD keeps a mode)",
            Shown::Swizzled(_) => "show a part of it: the swizzle over a smaller layout",
        }
    }
}

/// `Err` (one line: what, and how to see a part) past [`MAX_ENTRIES`].
fn within_cap(x: &Shown, what: &str, n: i64, rows: Option<i64>) -> Result<(), String> {
    let too_many = n > MAX_ENTRIES || rows.is_some_and(|r| r > MAX_ENTRIES);
    if too_many {
        return Err(format!(
            "{x}: {what} is more than the {MAX_ENTRIES} entries printed; {}",
            x.part_hint()
        ));
    }
    Ok(())
}

/// `offsets: L(0) L(1) ...`, within [`MAX_ENTRIES`].
fn offsets(x: &Shown) -> Result<String, String> {
    let e = |e: LayoutError| e.to_string();
    let n = x.layout().size().map_err(e)?.value;
    within_cap(x, &format!("a list of {n} offsets"), n, None)?;
    let t = (0..n)
        .map(|i| x.call(i).map(|o| o.to_string()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)?;
    Ok(format!("offsets: {}\n", t.join(" ")))
}

fn show(x: &Shown) -> Result<String, String> {
    let e = |e: LayoutError| e.to_string();
    let l = x.layout();
    let mut out = format!(
        "size {}  cosize {}  rank {}  depth {}\n",
        l.size().map_err(e)?,
        l.cosize().map_err(e)?,
        l.rank(),
        l.depth()
    );
    if l.rank() == 2 {
        let (rows, cols) = (l.mode_size(0).map_err(e)?, l.mode_size(1).map_err(e)?);
        // A table of no columns still has a line per row: rows count alone too.
        let cells = rows.checked_mul(cols).unwrap_or(i64::MAX);
        within_cap(
            x,
            &format!("a table of {rows}x{cols} cells"),
            cells,
            Some(rows),
        )?;
        out += &match x {
            Shown::Layout(l) => d::print_layout(l),
            Shown::Swizzled(c) => c.print_layout(),
        }
        .map_err(e)?;
    } else {
        out = format!("{x}\n{out}{}", offsets(x)?);
    }
    Ok(out)
}

/// Writes `{output}_{x}.svg`: the thread-value layout `l` over an `r` x `c`
/// tile. An element several threads hold (a TiledMMA's A and B along the
/// other operand's warps, an operand copy shared by them) is drawn once,
/// with its lowest thread, as CuTe's `print_latex` does.
fn draw_partition(
    spec: &str,
    output: &str,
    x: &str,
    l: &str,
    r: i64,
    c: i64,
) -> Result<String, String> {
    let l = parse_layout(l)?;
    let (r, c, mut cells) = draw::tv_grid(&l, r, c)?;
    cells.sort_by_key(|x| (x.m, x.n, x.color));
    cells.dedup_by_key(|x| (x.m, x.n));
    let file = format!("{output}_{x}.svg");
    let title = format!("{spec} {x}: {l}");
    std::fs::write(&file, draw::svg(&title, r, c, &cells)).map_err(|e| format!("{file}: {e}"))?;
    Ok(format!("wrote {file} ({x} {r}x{c}: {l})\n"))
}

fn tile(spec: &str) -> Result<(i64, i64), String> {
    let (a, b) = spec
        .split_once(['x', ','])
        .ok_or_else(|| format!("`{spec}`: expected ROWSxCOLS"))?;
    let p = |x: &str| {
        x.trim()
            .parse::<i64>()
            .map_err(|_| format!("`{spec}`: expected ROWSxCOLS"))
    };
    Ok((p(a)?, p(b)?))
}

fn cells(x: &Shown, tv: &Option<String>) -> Result<(i64, i64, Vec<draw::Cell>), String> {
    match (tv, x) {
        (Some(spec), Shown::Layout(l)) => {
            let (r, c) = tile(spec)?;
            draw::tv_grid(l, r, c)
        }
        (Some(_), Shown::Swizzled(_)) => Err(format!(
            "{x}: a thread-value layout is a layout, not a swizzled layout"
        )),
        (None, x) => draw::grid(x.layout(), &x.to_string(), |i| x.call(i)),
    }
}

fn tour() -> Result<String, String> {
    let mut o = String::new();
    let step = |o: &mut String, title: &str, expr: &str| -> Result<(), String> {
        let v = eval::eval(expr).map_err(|e| format!("{expr}: {}", e.msg))?;
        *o += &format!("-- {title}\n{expr}\n  = {v}\n");
        Ok(())
    };
    o += "A layout maps coordinates to offsets through shape:stride.\n\n";
    for (title, l) in [
        ("row-major 3x4", "(3,4):(4,1)"),
        ("column-major 3x4", "(3,4):(1,3)"),
        (
            "padded rows: size counts coordinates, cosize the span",
            "(3,4):(6,1)",
        ),
        ("broadcast: stride 0 aliases the rows", "(3,4):(0,1)"),
        (
            "hierarchical: the second mode is (2,2)",
            "(_2,(_2,_2)):(_4,(_2,_1))",
        ),
    ] {
        o += &format!("-- {title}\n{}\n", show(&Shown::parse(l)?)?);
    }
    step(
        &mut o,
        "the row of the padded layout at m=1 (its offset is the data pointer's move)",
        "slice((1,_), (3,4):(6,1))",
    )?;
    step(&mut o, "... at offset", "crd2idx((3,4):(6,1), (1,0))")?;
    step(
        &mut o,
        "zipped_divide: 2x2 tiles of a 6x4 row-major matrix",
        "zipped_divide((_6,_4):(_4,_1), (_2,_2))",
    )?;
    step(
        &mut o,
        "blocked_product: a 3x2 tile repeated 2x5",
        "blocked_product((_3,_2):(_1,_3), (_2,_5):(_1,_2))",
    )?;
    step(
        &mut o,
        "composition",
        "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))",
    )?;
    step(
        &mut o,
        "right_inverse of a coalesced layout",
        "right_inverse(coalesce((_2,(_2,_2)):(_4,(_2,_1))))",
    )?;
    o += "\nTry: layout show '(2,(2,2)):(4,(2,1))', layout eval 'complement((_4,_8):(_32,_1), _1024)'\n";
    Ok(o)
}

fn run(cli: Cli) -> Result<String, String> {
    match cli.cmd {
        None => tour(),
        Some(Cmd::Show { layout }) => show(&Shown::parse(&layout)?),
        Some(Cmd::Eval { expr, table }) => {
            let v = eval::eval(&expr).map_err(|e| format!("at byte {}: {}", e.pos, e.msg))?;
            let mut out = format!("{v}\n");
            match (v, table) {
                (eval::Val::Layout(l), true) => out += &show(&Shown::Layout(l))?,
                (eval::Val::Swizzled(c), true) => out += &show(&Shown::Swizzled(c))?,
                // A swizzled layout is listed by its offsets, as `swizzle` always did.
                (eval::Val::Swizzled(c), false) => out += &offsets(&Shown::Swizzled(c))?,
                _ => {}
            }
            Ok(out)
        }
        Some(Cmd::Svg {
            layout,
            output,
            tv,
            chunks,
        }) => {
            let l = Shown::parse(&layout)?;
            let (r, c, mut cells) = cells(&l, &tv)?;
            if let Some(bytes) = chunks {
                if tv.is_some() {
                    return Err("--chunks colors offsets; a thread-value picture has none".into());
                }
                draw::color_by_chunk(&mut cells, bytes)?;
            }
            std::fs::write(&output, draw::svg(&l.to_string(), r, c, &cells))
                .map_err(|e| format!("{output}: {e}"))?;
            Ok(format!("wrote {output} ({} cells)\n", cells.len()))
        }
        Some(Cmd::Mma { spec, output }) => {
            let tv = mma::tiled(&spec)?;
            let (m, n, k) = tv.mnk;
            let mut out = String::new();
            for (x, l, r, c) in [("A", &tv.a, m, k), ("B", &tv.b, n, k), ("C", &tv.c, m, n)] {
                if tv.smem_ab && x != "C" {
                    // A warpgroup MMA reads A and B from shared memory: each
                    // thread maps to every element, nothing of its own.
                    out += &format!(
                        "{x}: {l} (read from shared memory by the whole warpgroup; not drawn)\n"
                    );
                    continue;
                }
                out += &draw_partition(&spec, &output, x, l, r, c)?;
            }
            Ok(out)
        }
        Some(Cmd::Copy { spec, output }) => {
            let tv = copy::tiled(&spec)?;
            let (m, n) = tv.mn;
            let mut out = String::new();
            for (x, l) in [("S", &tv.s), ("D", &tv.d)] {
                out += &draw_partition(&spec, &output, x, l, m, n)?;
            }
            Ok(out)
        }
        Some(Cmd::Latex { layout, tv }) => {
            let l = Shown::parse(&layout)?;
            let (r, c, cells) = cells(&l, &tv)?;
            Ok(draw::latex(&l.to_string(), r, c, &cells))
        }
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    match run(cli) {
        Ok(out) => {
            // A reader that stops early (`| head`) is not an error.
            use std::io::Write as _;
            let mut so = std::io::stdout().lock();
            match so.write_all(out.as_bytes()).and_then(|()| so.flush()) {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("layout: {e}");
                    ExitCode::from(2)
                }
                _ => ExitCode::SUCCESS,
            }
        }
        Err(msg) => {
            eprintln!("layout: {}", msg.lines().next().unwrap_or(""));
            ExitCode::from(2)
        }
    }
}
