//! The explorer, run as a user runs it.

use std::process::Command;

fn layout(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_layout"))
        .args(args)
        .output()
        .expect("run layout");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn tour_shows_the_seeds() {
    let (code, out, _) = layout(&[]);
    assert_eq!(code, 0);
    assert!(out.contains("size 12  cosize 16"), "padded layout: {out}");
    assert!(out.contains("size 12  cosize 4"), "broadcast layout: {out}");
    assert!(
        out.contains("= ((_2,_2),(_3,_2)):((_4,_1),(_8,_2))"),
        "zipped_divide (seed 004): {out}"
    );
    assert!(
        out.contains("= ((_3,_2),(_2,_5)):((_1,_6),(_3,_12))"),
        "blocked_product (seed 004): {out}"
    );
}

#[test]
fn show_prints_the_table() {
    let (code, out, _) = layout(&["show", "(_2,_4):(_1,_2)"]);
    assert_eq!(code, 0);
    assert!(out.contains(" 0  | 0 | 2 | 4 | 6 |"), "{out}");
    let (_, out, _) = layout(&["show", "(_2,_2,_2):(_4,_2,_1)"]);
    assert!(out.contains("offsets: 0 4 2 6 1 5 3 7"), "{out}");
}

#[test]
fn eval_examples() {
    // Expected values: the seeds' hand computations and CuTe's printed results.
    for (expr, want) in [
        (
            "composition((_6,_2):(_8,_2), (_4,_3):(_3,_1))",
            "((_2,_2),_3):((_24,_2),_8)",
        ),
        (
            "zipped_divide((_6,_4):(_4,_1), (_2,_2))",
            "((_2,_2),(_3,_2)):((_4,_1),(_8,_2))",
        ),
        (
            "blocked_product((_3,_2):(_1,_3), (_2,_5):(_1,_2))",
            "((_3,_2),(_2,_5)):((_1,_6),(_3,_12))",
        ),
        ("complement((_4,_8):(_32,_1), _1024)", "(_4,_8):(_8,_128)"),
        ("coalesce((_2,(_4,_8)):(_1,(_2,_8)))", "_64:_1"),
        ("right_inverse((_4,_8):(_8,_1))", "(_8,_4):(_4,_1)"),
        ("left_inverse((_4,_8):(_16,_1))", "(_16,_4):(_4,_1)"),
    ] {
        let (code, out, err) = layout(&["eval", expr]);
        assert_eq!(code, 0, "{expr}: {err}");
        assert_eq!(out.trim(), want, "{expr}");
    }
}

#[test]
fn bad_input_is_one_line_and_status_2() {
    for args in [
        &["eval", "composition((_4,_6):(_1,_5), _6:_1)"][..],
        &["eval", "frobnicate(4:1)"],
        &["eval", "coalesce((2,3):(1,2)"],
        &["show", "(2,3):(1"],
        &["show", "(2,3):(1,2,3)"],
        &["svg", "(2,2,2):(1,2,4)", "-o", "/dev/null"],
    ] {
        let (code, out, err) = layout(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    }
}

#[test]
fn svg_is_well_formed_with_one_cell_per_element() {
    let dir = std::env::temp_dir().join(format!("layout-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("h.svg");
    let (code, _, err) = layout(&[
        "svg",
        "(_2,(_2,_2)):(_4,(_2,_1))",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let rects: Vec<_> = doc
        .descendants()
        .filter(|n| n.has_tag_name("rect"))
        .collect();
    assert_eq!(rects.len(), 8);
    // The offsets of (_2,(_2,_2)):(_4,(_2,_1)) are 0..8, each in one cell.
    let mut labels: Vec<i64> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .filter_map(|t| t.parse().ok())
        .collect();
    labels.sort();
    assert_eq!(
        labels.len(),
        8 + 2 + 4,
        "cell labels plus row and column indices"
    );

    // Thread-value: SM80's A layout over a 16x16 tile, 256 cells labelled T#V#.
    let tv = dir.join("tv.svg");
    let (code, _, err) = layout(&[
        "svg",
        "((_4,_8),(_2,_2,_2)):((_32,_1),(_16,_8,_128))",
        "--tv",
        "16x16",
        "-o",
        tv.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&tv).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        256
    );
    assert!(text.contains(">T0V1<"));
}

#[test]
fn latex_draws_every_cell() {
    let (code, out, _) = layout(&["latex", "(_2,_4):(_1,_2)"]);
    assert_eq!(code, 0);
    assert_eq!(out.matches("\\node[fill=").count(), 8);
    assert!(out.contains("\\begin{tikzpicture}"));
}

/// The (x, y) of the label `label` in a drawn SVG.
fn cell_xy(doc: &roxmltree::Document, label: &str) -> (f64, f64) {
    let t = doc
        .descendants()
        .find(|n| n.has_tag_name("text") && n.text() == Some(label))
        .unwrap_or_else(|| panic!("no cell {label}"));
    (
        t.attribute("x").unwrap().parse().unwrap(),
        t.attribute("y").unwrap().parse().unwrap(),
    )
}

#[test]
fn mma_draws_the_three_partitions() {
    let dir = std::env::temp_dir().join(format!("layout-cli-mma-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("sm80");
    let (code, out, err) = layout(&["mma", "sm80:2x2x1", "-o", prefix.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 3);
    // 2x2 warps of the 16x8x16 atom: A is 32x16, B 16x16, C 32x16, every
    // element drawn once with a thread and value.
    for (x, cells) in [("A", 512), ("B", 256), ("C", 512)] {
        let text = std::fs::read_to_string(format!("{}_{x}.svg", prefix.display())).unwrap();
        let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
        assert_eq!(
            doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
            cells,
            "{x}"
        );
        assert!(text.contains(">T0V0<"), "{x}");
    }
    // C of the m16n8 atom: thread 1 holds C(0,2) and C(0,3) (values 0, 1),
    // thread 4 holds C(1,0); warp 1 (threads 32..63) the rows 16..31.
    let text = std::fs::read_to_string(format!("{}_C.svg", prefix.display())).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let at = |label: &str| cell_xy(&doc, label);
    let (x0, y0) = at("T0V0");
    let (x1, _) = at("T1V0");
    let (_, y4) = at("T4V0");
    let (_, y32) = at("T32V0");
    assert!(x1 > x0 && y4 > y0 && y32 > y4);
    // Threads of a nested atom layout: thread t0 + 4 t1 + 32 t2 + 128 t3 of
    // ((4,4),(8,2),1):((1,32),(4,128),0) computes C(t0 + 4 t2, t1 + 8 t3),
    // so warp 0 is the 4 x 8 block at the origin.
    let warps = dir.join("fma");
    let (code, out, err) = layout(&["mma", "fma:(4,4)x(8,2)x1", "-o", warps.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("wrote"), "{out}");
    let text = std::fs::read_to_string(format!("{}_C.svg", warps.display())).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let cell = |label: &str| cell_xy(&doc, label);
    let (t0, t1, t4, t32, t31) = (
        cell("T0V0"),
        cell("T1V0"),
        cell("T4V0"),
        cell("T32V0"),
        cell("T31V0"),
    );
    // T1 one row down, T4 one column right, T32 four rows down, T31 at (3, 7).
    let (dx, dy) = (t4.0 - t0.0, t1.1 - t0.1);
    assert!(dx > 0.0 && dy > 0.0 && t1.0 == t0.0 && t4.1 == t0.1);
    assert_eq!((t32.0, t32.1), (t0.0, t0.1 + 4.0 * dy));
    assert_eq!((t31.0, t31.1), (t0.0 + 7.0 * dx, t0.1 + 3.0 * dy));
    // Hopper's warpgroup MMA: C only (A and B come from shared memory).
    // Thread t = lane + 32 w holds C(16 w + lane / 4, 2 (lane % 4)) first:
    // thread 37 (warp 1, lane 5) is at row 17, column 2, a row below
    // thread 33 and a column pair right of thread 36.
    let wg = dir.join("sm90");
    let (code, out, err) = layout(&["mma", "sm90:64x64x16", "-o", wg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.lines().filter(|l| l.contains("not drawn")).count(),
        2,
        "{out}"
    );
    assert!(!std::path::Path::new(&format!("{}_A.svg", wg.display())).exists());
    let text = std::fs::read_to_string(format!("{}_C.svg", wg.display())).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        4096
    );
    let cell = |label: &str| cell_xy(&doc, label);
    let (t0, t1, t4, t37, t36, t33) = (
        cell("T0V0"),
        cell("T1V0"),
        cell("T4V0"),
        cell("T37V0"),
        cell("T36V0"),
        cell("T33V0"),
    );
    let (dx, dy) = ((t1.0 - t0.0) / 2.0, t4.1 - t0.1);
    assert!(dx > 0.0 && dy > 0.0);
    assert_eq!((t37.0, t37.1), (t0.0 + 2.0 * dx, t0.1 + 17.0 * dy));
    assert_eq!((t36.0, t36.1), (t0.0, t0.1 + 17.0 * dy));
    assert_eq!((t33.0, t33.1), (t0.0 + 2.0 * dx, t0.1 + 16.0 * dy));
    // hgemm_sm90's two consumer warpgroups along M: the second (threads
    // 128..256) holds rows 64..128 as the first holds 0..64, so thread
    // 128 + 37 is at row 64 + 17, column 2; the tile is 128 x 256.
    let wg2 = dir.join("sm90x2");
    let (code, _, err) = layout(&["mma", "sm90:64x256x16/2x1x1", "-o", wg2.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(format!("{}_C.svg", wg2.display())).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        128 * 256
    );
    let cell = |label: &str| cell_xy(&doc, label);
    let (u0, u1, u4, u165) = (cell("T0V0"), cell("T1V0"), cell("T4V0"), cell("T165V0"));
    let (dx, dy) = ((u1.0 - u0.0) / 2.0, u4.1 - u0.1);
    assert_eq!((u165.0, u165.1), (u0.0 + 2.0 * dx, u0.1 + 81.0 * dy));
    // An unknown tiled MMA: one line, status 2.
    let (code, _, err) = layout(&["mma", "sm80:3x1x1", "-o", prefix.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1);
}

#[test]
fn copy_draws_source_and_destination() {
    let dir = std::env::temp_dir().join(format!("layout-cli-copy-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let prefix = dir.join("nt");
    let (code, out, err) = layout(&["copy", "sgemm_2:nt", "-o", prefix.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.lines().count(), 2);
    // CuTe's sgemm_2 NT copy: thread t reads rows 4 (t % 32) .. + 3 of
    // column t / 32 of the 128 x 8 tile, every element once.
    let text = std::fs::read_to_string(format!("{}_S.svg", prefix.display())).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        1024
    );
    let cell = |label: &str| cell_xy(&doc, label);
    let (t0, t0v1, t1, t32) = (cell("T0V0"), cell("T0V1"), cell("T1V0"), cell("T32V0"));
    let dy = t0v1.1 - t0.1;
    assert!(dy > 0.0 && t0v1.0 == t0.0);
    assert_eq!((t1.0, t1.1), (t0.0, t0.1 + 4.0 * dy));
    assert!(t32.0 > t0.0 && t32.1 == t0.1);
    // ldmatrix of an operand shared by two warps: each element drawn once.
    let (code, _, err) = layout(&["copy", "ldsm:a", "-o", dir.join("a").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(format!("{}_D.svg", dir.join("a").display())).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    assert_eq!(
        doc.descendants().filter(|n| n.has_tag_name("rect")).count(),
        32 * 16
    );
    let (code, _, err) = layout(&["copy", "tma", "-o", prefix.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert_eq!(err.lines().count(), 1);
}

/// Hostile input: huge layouts to print or draw, tables of no columns,
/// unparsable bare text, nesting too deep. Each is one line and status 2,
/// at once (no hang, no abort).
#[test]
fn hostile_input_is_refused_at_once() {
    let deep_calls = format!("{}1:1{}", "composition(".repeat(200), ",1:1)".repeat(200));
    let deep_tiler = format!(
        "composition(8:1, {}1{})",
        "(".repeat(20000),
        ")".repeat(20000)
    );
    let deep_coord = format!("crd2idx({}1{}, 8:1)", "(".repeat(20000), ")".repeat(20000));
    let cases: Vec<Vec<&str>> = vec![
        vec!["show", "(100000,100000):(1,100000)"],
        vec!["show", "(9223372036854775807,0):(1,1)"],
        vec!["eval", "make_layout((100000,100000))", "--table"],
        vec!["svg", "(100000,100000):(1,100000)", "-o", "/dev/null"],
        vec![
            "svg",
            "((4,8),(2,2)):((32,1),(16,8))",
            "--tv",
            "100000000x100000000",
            "-o",
            "/dev/null",
        ],
        vec!["latex", "(100000,100000):(1,100000)"],
        vec!["eval", "(((("],
        vec!["eval", &deep_calls],
        vec!["eval", &deep_tiler],
        vec!["eval", &deep_coord],
        vec!["eval", "make_layout(-3)"],
        vec!["eval", "logical_divide(8:1, -2)"],
        vec!["eval", "complement(0:1, 4)"],
    ];
    for args in cases {
        let t = std::time::Instant::now();
        let (code, _, err) = layout(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(t.elapsed().as_secs() < 5, "{args:?} took {:?}", t.elapsed());
    }
}

#[test]
fn every_listed_function_is_dispatched() {
    // The list an unknown name shows comes from the dispatch table: every
    // name in it is known (a call with no arguments is refused for its
    // arguments, never as an unknown function), and the ops CuTe users reach
    // for first are in it.
    let (code, _, err) = layout(&["eval", "frobnicate(4:1)"]);
    assert_eq!(code, 2);
    let list = err.split("known: ").nth(1).expect("a list of functions");
    let names: Vec<&str> = list.trim().split(", ").collect();
    for want in [
        "composition",
        "zipped_divide",
        "tile_to_shape",
        "upcast",
        "swizzle",
    ] {
        assert!(names.contains(&want), "{want} missing from {names:?}");
    }
    for name in names {
        let (code, _, err) = layout(&["eval", &format!("{name}()")]);
        assert_eq!(code, 2, "{name}");
        assert!(!err.contains("unknown function"), "{name}: {err}");
    }
}

/// A count that grows a layout is bounded: a one-line error and exit 2,
/// not an allocation without bound (nested or not).
#[test]
fn eval_refuses_counts_that_grow_without_bound() {
    for expr in [
        "append(3:1, 1:0, 155555555555)",
        "prepend(3:1, 1:0, 9223372036854775807)",
        "append(append(3,28),append(7,2,28),155555555555)",
        "append(1:1, append(1:1, append(1:1, 1:0, 1000), 1000), 1000)",
    ] {
        let (code, out, err) = layout(&["eval", expr]);
        assert_eq!(code, 2, "{expr}: {out}");
        assert_eq!(err.trim().lines().count(), 1, "{expr}: {err}");
        assert!(err.contains("nodes"), "{expr}: {err}");
    }
}

/// The most entries a table or an offsets list prints (the pictures' cell
/// limit): past it a command says how to see a part and exits with 2.
const CAP: usize = 65536;

/// `Swizzle<B,M,S>` by its definition (S >= 0): the B bits at M + S XOR-ed
/// into the B bits at M.
fn sw_def(b: u32, m: u32, s: u32, x: i64) -> i64 {
    let mask = ((1i64 << b) - 1) << (m + s);
    x ^ ((x & mask) >> s)
}

/// The offsets of a printed `offsets: ...` line.
fn offsets_of(out: &str) -> Vec<i64> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("offsets: "))
        .unwrap_or_else(|| panic!("no offsets line in {}", &out[..out.len().min(300)]));
    line.split(' ').map(|x| x.parse().unwrap()).collect()
}

/// The cells of a printed `print_layout` table, row by row.
fn table_of(out: &str) -> Vec<Vec<i64>> {
    out.lines()
        .filter(|l| l.contains('|'))
        .map(|l| {
            l.split('|')
                .skip(1)
                .filter(|c| !c.trim().is_empty())
                .map(|c| c.trim().parse().unwrap())
                .collect()
        })
        .collect()
}

/// Every command that prints a table, an offsets list or a picture refuses
/// one past the cap: status 2, nothing on stdout, one line on stderr that
/// says how to see a part, at once.
#[test]
fn big_output_is_refused_with_how_to_see_a_part() {
    let dir = std::env::temp_dir().join(format!("layout-cli-cap-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("big.svg");
    let svg = svg.to_str().unwrap();
    let cases: Vec<Vec<&str>> = vec![
        // The reproducers (140 MB, 140 MB, 100+ MB before).
        vec!["show", "(16777216):(1)"],
        vec!["eval", "swizzle(3,4,3, 16777216:1)"],
        vec!["eval", "make_layout((16777216))", "--table"],
        vec!["eval", "make_layout((4096,4096))", "--table"],
        // One past the cap, each kind of output.
        vec!["show", "(65537):(1)"],
        vec!["show", "(2,2,16385):(1,2,4)"],
        vec!["show", "(256,257):(1,256)"],
        vec!["show", "(65537,0):(1,1)"],
        vec!["show", "Sw<3,4,3> o _0 o 65537:1"],
        vec!["show", "Sw<3,4,3> o _0 o (256,257):(257,1)"],
        vec!["eval", "swizzle(3,4,3, 65537:1)"],
        vec!["eval", "swizzle(3,4,3, (256,257):(257,1))", "--table"],
        vec!["eval", "Sw<3,4,3> o _0 o 65537:1"],
        vec!["eval", "make_layout((65537))", "--table"],
        vec!["eval", "make_layout((256,257))", "--table"],
        vec!["svg", "(256,257):(1,256)", "-o", svg],
        vec!["svg", "Sw<3,4,3> o _0 o (256,257):(257,1)", "-o", svg],
        vec!["latex", "(256,257):(1,256)"],
    ];
    for args in cases {
        let t = std::time::Instant::now();
        let (code, out, err) = layout(&args);
        assert_eq!(code, 2, "{args:?}: {err}");
        assert!(out.is_empty(), "{args:?} printed {} bytes", out.len());
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        // The message names the cap and a way to see a part.
        assert!(err.contains("65536"), "{args:?}: {err}");
        assert!(
            err.contains("part") || err.contains("smaller"),
            "{args:?}: {err}"
        );
        assert!(err.len() < 400, "{args:?}: {err}");
        assert!(t.elapsed().as_secs() < 5, "{args:?} took {:?}", t.elapsed());
    }
    assert!(
        !std::path::Path::new(svg).exists(),
        "a refused picture wrote a file"
    );
}

/// The largest accepted outputs are printed whole, every entry as its
/// definition gives it.
#[test]
fn the_largest_accepted_outputs_are_printed() {
    // 65536:1 lists i at index i.
    let (code, out, err) = layout(&["show", "(65536):(1)"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(offsets_of(&out), (0..CAP as i64).collect::<Vec<_>>());
    let (code, out, err) = layout(&["eval", "make_layout((65536))", "--table"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(offsets_of(&out).len(), CAP);
    // Rank 3, 2 x 2 x 16384 column-major: the same list.
    let (code, out, err) = layout(&["show", "(2,2,16384):(1,2,4)"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(offsets_of(&out), (0..CAP as i64).collect::<Vec<_>>());
    // A 256 x 256 table: cell (m, n) of (256,256):(1,256) is m + 256 n.
    let (code, out, err) = layout(&["show", "(256,256):(1,256)"]);
    assert_eq!(code, 0, "{err}");
    let t = table_of(&out);
    assert_eq!(t.len(), 256);
    for (m, row) in t.iter().enumerate() {
        let want: Vec<i64> = (0..256).map(|n| m as i64 + 256 * n).collect();
        assert_eq!(row, &want, "row {m}");
    }
    // A column of 65536 rows (one cell each) is within the cap too.
    let (code, out, err) = layout(&["show", "(65536,1):(1,0)"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(table_of(&out).len(), CAP);
    // The swizzle's offsets: Sw<3,4,3> of i at index i.
    let (code, out, err) = layout(&["eval", "swizzle(3,4,3, 65536:1)"]);
    assert_eq!(code, 0, "{err}");
    let want: Vec<i64> = (0..CAP as i64).map(|i| sw_def(3, 4, 3, i)).collect();
    assert_eq!(offsets_of(&out), want);
    // The widest cells (offsets near 2^63) on the largest table stay
    // within a few megabytes.
    let (code, out, err) = layout(&["show", "(1,65536):(1,140737488355328)"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.len() < 6 << 20, "{} bytes", out.len());
    // Pictures: 256 x 256 cells drawn.
    let (code, out, err) = layout(&["latex", "(256,256):(1,256)"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches("\\node[fill=").count(), CAP);
}

/// CuTe prints a swizzled layout `Sw<3,4,3> o _0 o (_8,_64):(_64,_1)`; the
/// explorer prints it so too, and reads it back: `show` gives its size,
/// cosize (CuTe's: the layout's) and table, each cell the swizzle of the
/// layout's offset.
#[test]
fn swizzled_layouts_are_shown_and_read_back() {
    let text = "Sw<3,4,3> o _0 o (_8,_64):(_64,_1)";
    let (code, out, err) = layout(&["show", text]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("size _512  cosize _512  rank 2  depth 1\n"),
        "{out}"
    );
    assert!(out.contains(text), "{out}");
    let t = table_of(&out);
    assert_eq!(t.len(), 8);
    for (m, row) in t.iter().enumerate() {
        let want: Vec<i64> = (0..64)
            .map(|n| sw_def(3, 4, 3, 64 * m as i64 + n))
            .collect();
        assert_eq!(row, &want, "row {m}");
    }
    // By hand: (2,0) is offset 128 (bit 7), which flips bit 4: 144.
    assert_eq!(t[2][0], 144);

    // What `eval` prints reads back, in `show` and in `eval`.
    let (code, out, err) = layout(&["eval", "swizzle(1,0,1, (_2,_4):(_4,_1))"]);
    assert_eq!(code, 0, "{err}");
    let printed = out.lines().next().unwrap();
    assert_eq!(printed, "Sw<1,0,1> o _0 o (_2,_4):(_4,_1)");
    // (m, n) -> 4 m + n, then bit 1 flips bit 0: by index 0 4 1 5 3 7 2 6.
    assert_eq!(offsets_of(&out), [0, 4, 1, 5, 3, 7, 2, 6]);
    let (code, again, err) = layout(&["eval", printed]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(again, out);
    let (code, shown, err) = layout(&["show", printed]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(table_of(&shown), [vec![0, 1, 3, 2], vec![4, 5, 7, 6]]);
    // Rank 1: its offsets listed, as for a layout.
    let (code, out, err) = layout(&["show", "Sw<1,0,1> o _0 o 8:1"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(offsets_of(&out), [0, 1, 3, 2, 4, 5, 7, 6]);

    // Drawn: one cell per element, and Sw<3,3,3> over offsets 0..512
    // (bits 6..9 XOR-ed into bits 3..6, an involution below 512) labels the
    // cells with 0..512, each once.
    let dir = std::env::temp_dir().join(format!("layout-cli-sw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("sw.svg");
    let (code, _, err) = layout(&[
        "svg",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "-o",
        file.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&file).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let mut labels: Vec<i64> = doc
        .descendants()
        .filter(|n| {
            n.has_tag_name("text")
                && n.prev_sibling_element()
                    .is_some_and(|r| r.has_tag_name("rect"))
        })
        .filter_map(|n| n.text()?.parse().ok())
        .collect();
    labels.sort();
    assert_eq!(labels, (0..512).collect::<Vec<_>>());
    // (1,0) is offset 64, bit 6, which flips bit 3: 72; (2,0) is 128,
    // bit 7, which flips bit 4: 144. Rows 0, 1, 2 of column 0.
    let cell = |label: &str| {
        let t = doc
            .descendants()
            .find(|n| {
                n.has_tag_name("text")
                    && n.text() == Some(label)
                    && n.prev_sibling_element()
                        .is_some_and(|r| r.has_tag_name("rect"))
            })
            .unwrap_or_else(|| panic!("no cell {label}"));
        let at = |a: &str| t.attribute(a).unwrap().parse::<f64>().unwrap();
        (at("x"), at("y"))
    };
    let (c0, c72, c144) = (cell("0"), cell("72"), cell("144"));
    assert!(c0.0 == c72.0 && c72.0 == c144.0, "one column");
    assert!(
        c72.1 > c0.1 && c144.1 - c72.1 == c72.1 - c0.1,
        "rows 0, 1, 2"
    );

    // Bad swizzled text: one line, status 2.
    for args in [
        &["show", "Sw<3,4,3> o _8 o 8:1"][..],
        &["show", "Sw<3,4,2> o _0 o 8:1"],
        &["show", "Sw<3,4,3> o _0"],
        &["eval", "coalesce(Sw<1,0,1> o _0 o 8:1)"],
        &["eval", "Sw<1,0"],
        &[
            "svg",
            "Sw<1,0,1> o _0 o (2,2):(1,2)",
            "--tv",
            "2x2",
            "-o",
            "/dev/null",
        ],
    ] {
        let (code, out, err) = layout(args);
        assert_eq!(code, 2, "{args:?}: {out}{err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}

/// `svg --chunks`: CuTe's 128-byte-swizzled f16 GMMA atom, cells colored by
/// 16-byte chunk and labelled with offset and bank. By hand, for
/// `Sw<3,3,3>` over `(8,64):(64,1)`: cell (r, c) holds `(64 r + c) ^ ((r %
/// 8) << 3)`, its chunk `(c / 8) ^ r`, its bank `(offset * 2 / 4) % 32`.
#[test]
fn svg_colors_a_swizzled_atom_by_chunk() {
    let dir = std::env::temp_dir().join(format!("layout-cli-chunks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("sw128.svg");
    let (code, _, err) = layout(&[
        "svg",
        "Sw<3,3,3> o _0 o (_8,_64):(_64,_1)",
        "--chunks",
        "2",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&out).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    // The rect drawn just before a cell's text is that cell's.
    let fill = |label: &str| {
        let nodes: Vec<_> = doc.descendants().filter(|n| n.is_element()).collect();
        let at = nodes
            .iter()
            .position(|n| n.has_tag_name("text") && n.text() == Some(label))
            .unwrap_or_else(|| panic!("no cell {label}"));
        nodes[at - 1].attribute("fill").unwrap().to_string()
    };
    let (x0, y0) = cell_xy(&doc, "0 b0");
    // Row 1, column 0: offset 72 (chunk 1), bank 36 % 32 = 4.
    let (x, y) = cell_xy(&doc, "72 b4");
    assert_eq!(x, x0);
    assert!(y > y0);
    // Row 1, column 8: offset 64 (chunk 0 again), bank 0.
    let (x8, y8) = cell_xy(&doc, "64 b0");
    assert!(x8 > x0 && y8 == y);
    assert_eq!(fill("64 b0"), fill("0 b0"));
    assert_ne!(fill("72 b4"), fill("0 b0"));
    // An element size that is not a power of two up to 16: one line, status 2.
    let (code, _, err) = layout(&[
        "svg",
        "(4,4):(4,1)",
        "--chunks",
        "3",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!((code, err.lines().count()), (2, 1));
}
