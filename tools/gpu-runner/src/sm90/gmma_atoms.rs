//! `gpu-runner gmma-atoms PTX`: every warpgroup MMA atom of the GMMA table
//! run once on the GPU (layout-kernels-sm90-gmma's entry of each), C
//! checked exactly against A·Bᵀ of small integers.

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
    let mut all_ok = true;
    for atom in ATOMS {
        let case = host::case(atom);
        let (da, db) = (
            s.upload(&case.a).map_err(text)?,
            s.upload(&case.b).map_err(text)?,
        );
        let mut dc = s.upload(&vec![u32::MAX; 64 * atom.n]).map_err(text)?;
        let k = module.kernel(atom.name).map_err(text)?;
        crate::launch::gmma_atom_check(s, &k, &da, &db, &mut dc, atom.n)?;
        let c = s.download(&dc).map_err(text)?;
        let (wrong, first) = host::check(atom, &case, &c, 3);
        if wrong > 0 {
            all_ok = false;
            println!(
                "  {}: {wrong} of {} wrong, first (m, n, got, want): {first:?}",
                atom.name,
                64 * atom.n
            );
        }
        let family = format!("{} {}", atom.types, if atom.rs { "RS" } else { "SS" });
        match families.last_mut() {
            Some((f, count, bad)) if *f == family => {
                *count += 1;
                *bad += usize::from(wrong > 0);
            }
            _ => families.push((family, 1, usize::from(wrong > 0))),
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
    println!(
        "gmma atoms: {} of {} exact",
        ATOMS.len() - families.iter().map(|(_, _, b)| b).sum::<usize>(),
        ATOMS.len()
    );
    Ok(all_ok)
}
