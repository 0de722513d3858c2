//! Pictures of layouts: SVG and LaTeX (TikZ), for rank-2 layouts (each cell
//! shows its offset) and thread-value layouts (cells colored by thread and
//! labelled `T#V#`).

use layout_core::{DynLayout, LayoutError};
use std::fmt::Write as _;

/// One cell of a picture.
pub struct Cell {
    /// Row.
    pub m: i64,
    /// Column.
    pub n: i64,
    /// Text in the cell.
    pub label: String,
    /// Color index (thread), if any.
    pub color: Option<i64>,
}

/// The cells of a rank-2 layout `l` (named `name`), or of a swizzled layout
/// over it: `(m, n)` shows `offset(m + rows * n)`.
pub fn grid(
    l: &DynLayout,
    name: &str,
    offset: impl Fn(i64) -> Result<i64, LayoutError>,
) -> Result<(i64, i64, Vec<Cell>), String> {
    if l.rank() != 2 {
        return Err(format!(
            "a picture needs a rank-2 layout, {name} has rank {}",
            l.rank()
        ));
    }
    let e = |e: LayoutError| e.to_string();
    let (rows, cols) = (l.mode_size(0).map_err(e)?, l.mode_size(1).map_err(e)?);
    within_limit(&name, rows, cols)?;
    let mut cells = Vec::new();
    for n in 0..cols {
        for m in 0..rows {
            let off = offset(m + rows * n).map_err(|e| e.to_string())?;
            cells.push(Cell {
                m,
                n,
                label: off.to_string(),
                color: None,
            });
        }
    }
    Ok((rows, cols, cells))
}

/// Colors each cell of an offsets picture by the 16-byte chunk of its
/// 128-byte line (offsets in elements of `bytes` bytes: `(offset * bytes /
/// 16) % 8`, the unit a GMMA swizzle permutes) and labels it with its
/// offset and its bank (`(offset * bytes / 4) % 32`).
pub fn color_by_chunk(cells: &mut [Cell], bytes: i64) -> Result<(), String> {
    if ![1, 2, 4, 8, 16].contains(&bytes) {
        return Err(format!(
            "--chunks {bytes}: an element is 1, 2, 4, 8 or 16 bytes"
        ));
    }
    for c in cells.iter_mut() {
        let off: i64 = c
            .label
            .parse()
            .map_err(|_| format!("cell ({}, {}) has no offset", c.m, c.n))?;
        let byte = off * bytes;
        c.color = Some((byte / 16) % 8);
        c.label = format!("{off} b{}", (byte / 4) % 32);
    }
    Ok(())
}

/// Pictures draw at most `PRINT_LIMIT` cells.
fn within_limit(l: &dyn std::fmt::Display, a: i64, b: i64) -> Result<(), String> {
    let limit = layout_core::layout::print::PRINT_LIMIT as i64;
    match a.checked_mul(b) {
        Some(n) if (0..=limit).contains(&n) && a <= limit && b <= limit => Ok(()),
        _ => Err(format!(
            "{l}: a picture of {a}x{b} cells is beyond the {limit} drawn; draw a part of it (slice or local_tile)"
        )),
    }
}

/// The cells of a thread-value layout `(T,V) -> q` over an `rows x cols`
/// tile, `q = m + rows * n`.
pub fn tv_grid(l: &DynLayout, rows: i64, cols: i64) -> Result<(i64, i64, Vec<Cell>), String> {
    if l.rank() != 2 {
        return Err(format!(
            "a thread-value layout has rank 2 (thread, value); {l} has rank {}",
            l.rank()
        ));
    }
    let e = |e: LayoutError| e.to_string();
    let (threads, values) = (l.mode_size(0).map_err(e)?, l.mode_size(1).map_err(e)?);
    within_limit(&l, threads, values)?;
    within_limit(&l, rows, cols)?;
    let mut cells = Vec::new();
    for v in 0..values {
        for t in 0..threads {
            let q = l.call(t + threads * v).map_err(|e| e.to_string())?;
            if q < 0 || q >= rows * cols {
                return Err(format!(
                    "T{t}V{v} maps to {q}, outside the {rows}x{cols} tile"
                ));
            }
            cells.push(Cell {
                m: q % rows,
                n: q / rows,
                label: format!("T{t}V{v}"),
                color: Some(t),
            });
        }
    }
    Ok((rows, cols, cells))
}

fn color(t: Option<i64>) -> String {
    match t {
        None => "#ffffff".into(),
        Some(t) => {
            // Eight distinct pastel hues, cycled, with lightness varying by group of eight.
            const HUES: [u32; 8] = [0, 210, 120, 45, 280, 170, 330, 90];
            let h = HUES[(t % 8) as usize];
            let l = 85 - ((t / 8) % 4) * 8;
            format!("hsl({h},70%,{l}%)")
        }
    }
}

/// An SVG picture: one `<rect>` and one `<text>` per cell.
pub fn svg(title: &str, rows: i64, cols: i64, cells: &[Cell]) -> String {
    let (cw, ch, pad) = (48, 28, 30);
    let (w, h) = (pad + cols * cw + 10, pad + rows * ch + 10);
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="monospace" font-size="11">"#
    );
    let _ = writeln!(s, "<title>{}</title>", escape(title));
    for n in 0..cols {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{n}</text>"#,
            pad + n * cw + cw / 2,
            pad - 8
        );
    }
    for m in 0..rows {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" text-anchor="end">{m}</text>"#,
            pad - 6,
            pad + m * ch + ch / 2 + 4
        );
    }
    for c in cells {
        let (x, y) = (pad + c.n * cw, pad + c.m * ch);
        let _ = writeln!(
            s,
            r#"<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{}" stroke="black"/><text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            color(c.color),
            x + cw / 2,
            y + ch / 2 + 4,
            escape(&c.label)
        );
    }
    s.push_str("</svg>\n");
    s
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A LaTeX (TikZ) picture of the same cells, as a standalone document.
pub fn latex(title: &str, rows: i64, cols: i64, cells: &[Cell]) -> String {
    let mut s = String::new();
    s.push_str("\\documentclass[convert]{standalone}\n\\usepackage{tikz}\n\\begin{document}\n");
    let _ = writeln!(s, "% {title}");
    s.push_str("\\begin{tikzpicture}[x={(0cm,-1cm)},y={(1cm,0cm)},every node/.style={minimum size=1cm, outer sep=0pt}]\n");
    for c in cells {
        let fill = match c.color {
            None => "white".to_string(),
            Some(t) => format!(
                "{{rgb,255:red,{};green,{};blue,{}}}",
                100 + (t * 53) % 155,
                100 + (t * 97) % 155,
                100 + (t * 31) % 155
            ),
        };
        let _ = writeln!(
            s,
            "\\node[fill={fill}] at ({},{}) {{\\shortstack{{{}}}}};",
            c.m, c.n, c.label
        );
    }
    let _ = writeln!(
        s,
        "\\draw[color=black,thick,shift={{(-0.5,-0.5)}}] (0,0) grid ({rows},{cols});"
    );
    for m in 0..rows {
        let _ = writeln!(s, "\\node at ({m},-1) {{\\Large{{\\texttt{{{m}}}}}}};");
    }
    for n in 0..cols {
        let _ = writeln!(s, "\\node at (-1,{n}) {{\\Large{{\\texttt{{{n}}}}}}};");
    }
    s.push_str("\\end{tikzpicture}\n\\end{document}\n");
    s
}
