//! `layout`: the explorer. Shows layouts in CuTe notation with their
//! tables, evaluates expressions of the algebra, and draws pictures.

mod copy;
mod draw;
mod eval;
mod mma;

use clap::{Parser, Subcommand};
use layout_core::dynamic as d;
use layout_core::DynLayout;
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
    /// A layout in CuTe notation, its size, cosize, rank, depth and table.
    Show {
        /// The layout, e.g. `(3,4):(4,1)` or a shape alone.
        layout: String,
    },
    /// Evaluate an expression: `composition((6,2):(8,2), (4,3):(3,1))`.
    Eval {
        /// The expression.
        expr: String,
        /// Also print the result's table.
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
    },
    /// Draw a TiledMMA's A, B and C partitions as SVG (cells colored by
    /// thread, labelled T#V#): PREFIX_A.svg (M x K), PREFIX_B.svg (N x K),
    /// PREFIX_C.svg (M x N).
    Mma {
        /// The tiled MMA: `sm80:1x1x1`, `sm80:2x2x1`, `sm80:4x1x1` (the
        /// 16x8x16 tensor-core atom over that many warps in M, N, K),
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

fn show(l: &DynLayout) -> Result<String, String> {
    let e = |e: layout_core::LayoutError| e.to_string();
    let mut out = format!(
        "size {}  cosize {}  rank {}  depth {}\n",
        l.size().map_err(e)?,
        l.cosize().map_err(e)?,
        l.rank(),
        l.depth()
    );
    if l.rank() == 2 {
        out += &d::print_layout(l).map_err(e)?;
    } else {
        let t: Vec<String> = l
            .table()
            .map_err(e)?
            .iter()
            .map(|x| x.to_string())
            .collect();
        out = format!("{l}\n{out}offsets: {}\n", t.join(" "));
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

fn cells(l: &DynLayout, tv: &Option<String>) -> Result<(i64, i64, Vec<draw::Cell>), String> {
    match tv {
        Some(spec) => {
            let (r, c) = tile(spec)?;
            draw::tv_grid(l, r, c)
        }
        None => draw::grid(l),
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
        o += &format!("-- {title}\n{}\n", show(&parse_layout(l)?)?);
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
        Some(Cmd::Show { layout }) => show(&parse_layout(&layout)?),
        Some(Cmd::Eval { expr, table }) => {
            let v = eval::eval(&expr).map_err(|e| format!("at byte {}: {}", e.pos, e.msg))?;
            let mut out = format!("{v}\n");
            if let (true, eval::Val::Layout(l)) = (table, &v) {
                out += &show(l)?;
            }
            Ok(out)
        }
        Some(Cmd::Svg { layout, output, tv }) => {
            let l = parse_layout(&layout)?;
            let (r, c, cells) = cells(&l, &tv)?;
            std::fs::write(&output, draw::svg(&l.to_string(), r, c, &cells))
                .map_err(|e| format!("{output}: {e}"))?;
            Ok(format!("wrote {output} ({} cells)\n", cells.len()))
        }
        Some(Cmd::Mma { spec, output }) => {
            let tv = mma::tiled(&spec)?;
            let (m, n, k) = tv.mnk;
            let mut out = String::new();
            for (x, l, r, c) in [("A", &tv.a, m, k), ("B", &tv.b, n, k), ("C", &tv.c, m, n)] {
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
            let l = parse_layout(&layout)?;
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
            print!("{out}");
            ExitCode::SUCCESS
        }
        Err(msg) => {
            eprintln!("layout: {}", msg.lines().next().unwrap_or(""));
            ExitCode::from(2)
        }
    }
}
