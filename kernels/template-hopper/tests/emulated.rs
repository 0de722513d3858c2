//! The kernel's body under the block emulator (every thread of every
//! block, TMA, `wgmma`, the pipeline and the clusters computed as on the
//! GPU): C = alpha · A · Bᵀ + R exact on small integers, with partial
//! tiles in M, N and K.

use layout_device::emulator::{run, Buffer, Launch, TensorMap, TmaSwizzle};
use layout_kernels_sm90::hgemm::{ceil_div, Bf16In, Inputs, BN, FORMS, SMEM_BYTES};
use my_hopper_kernels::gemm_residual_body;

fn bf(x: f32) -> u16 {
    half::bf16::from_f32(x).to_bits()
}

#[test]
fn residual_gemm_is_exact_on_integers() {
    let (m, n, k) = (200, 300, 40);
    let int = |i: usize, r: usize| ((i * 2654435761) % (2 * r + 1)) as f32 - r as f32;
    let a: Vec<f32> = (0..m * k).map(|i| int(i, 2)).collect();
    let b: Vec<f32> = (0..n * k).map(|i| int(i + 5, 2)).collect();
    let r: Vec<f32> = (0..m * n).map(|i| int(i + 11, 8)).collect();
    let alpha = 0.5;
    let form = FORMS[0].1;
    let bk = <Bf16In as Inputs>::BK;
    let ga = Buffer::from_slice(&a.iter().map(|&x| bf(x)).collect::<Vec<_>>());
    let gb = Buffer::from_slice(&b.iter().map(|&x| bf(x)).collect::<Vec<_>>());
    let gr = Buffer::from_slice(&r.iter().map(|&x| bf(x)).collect::<Vec<_>>());
    let c = Buffer::filled(0xffffu16, m * n);
    // The boxes: the block's 128 rows of A; each block of a cluster loads
    // half of B's 256 rows for both.
    let map_a = TensorMap::tiled_2d(&ga, (m, k), k, (form.bm(), bk), TmaSwizzle::B128).unwrap();
    let map_b =
        TensorMap::tiled_2d(&gb, (n, k), k, (BN / form.cluster, bk), TmaSwizzle::B128).unwrap();
    let (pa, pb, pc, pr) = (map_a.ptr(), map_b.ptr(), c.global_mut(), gr.global());
    let tiles = ceil_div(m, form.bm() * form.cluster) * ceil_div(n, BN);
    let launch = Launch::new("gemm_residual_bf16", tiles * form.cluster, form.threads())
        .cluster(form.cluster)
        .shared_bytes(SMEM_BYTES);
    let mnk = (m as u32, n as u32, k as u32);
    run(&launch, move || {
        gemm_residual_body((pa, pb), pc, pr, alpha, mnk)
    })
    .unwrap();
    let c = c.to_vec();
    for i in 0..m {
        for j in 0..n {
            let dot: f32 = (0..k).map(|p| a[i * k + p] * b[j * k + p]).sum();
            assert_eq!(c[i * n + j], bf(alpha * dot + r[i * n + j]), "({i}, {j})");
        }
    }
}
