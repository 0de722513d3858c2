//! `gpu-runner gmma-atoms PTX`: every warpgroup MMA atom of the GMMA table
//! run once on the GPU (layout-kernels-sm90-gmma's entry of each; the
//! 16-bit ones also with B N-major), C checked exactly against A·Bᵀ of
//! small integers.

use crate::text;
use layout_kernels_sm90_gmma::{host, ATOMS};
use layout_launch::Device;

/// Runs every atom's check; prints a line a family (the atoms of one
/// instruction type and operand form, all N) and each wrong atom's first
/// wrong elements; `Ok(false)` when an atom is wrong.
pub fn run(ptx: &std::path::Path) -> Result<bool, String> {
    let gpu = Device::new(0).map_err(text)?;
    let module = gpu.load_ptx_file(ptx).map_err(text)?;
    let s = gpu.stream();
    // (family, form) -> (atoms, wrong atoms), in the table's order.
    let mut families: Vec<(String, usize, usize)> = Vec::new();
    let runs = ATOMS
        .iter()
        .flat_map(|a| [(a, false), (a, true)])
        .filter(|(a, mn)| !mn || a.b_mn());
    for (atom, mn) in runs {
        let case = host::case(atom);
        let (da, db) = (
            s.upload(&case.a).map_err(text)?,
            s.upload(&case.b).map_err(text)?,
        );
        let mut dc = s.upload(&vec![u32::MAX; 64 * atom.n]).map_err(text)?;
        let entry = if mn {
            format!("{}_MN", atom.name)
        } else {
            atom.name.to_string()
        };
        let k = module.kernel(&entry).map_err(text)?;
        crate::launch::gmma_atom_check(s, &k, &da, &db, &mut dc, atom.n)?;
        let c = s.download(&dc).map_err(text)?;
        let (wrong, first) = host::check(atom, &case, &c, 3);
        if wrong > 0 {
            println!(
                "  {entry}: {wrong} of {} wrong, first (m, n, got, want): {first:?}",
                64 * atom.n
            );
        }
        let family = format!(
            "{} {}{}",
            atom.types,
            if atom.rs { "RS" } else { "SS" },
            if mn { ", B N-major" } else { "" }
        );
        match families.iter_mut().find(|(f, _, _)| *f == family) {
            Some((_, count, bad)) => {
                *count += 1;
                *bad += usize::from(wrong > 0);
            }
            None => families.push((family, 1, usize::from(wrong > 0))),
        }
    }
    for (f, count, bad) in &families {
        println!(
            "gmma {f}: {}",
            if *bad == 0 {
                format!("{count} atoms exact")
            } else {
                format!("{bad} of {count} atoms wrong")
            }
        );
    }
    let total: usize = families.iter().map(|(_, c, _)| c).sum();
    let bad: usize = families.iter().map(|(_, _, b)| b).sum();
    println!(
        "gmma atoms: {} of {total} checks exact ({} atoms; the 16-bit ones with B K- and N-major)",
        total - bad,
        ATOMS.len()
    );
    Ok(bad == 0)
}
