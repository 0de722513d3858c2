//! Uploads operands, runs a GEMM and attention with the layout kernels,
//! downloads the results and checks an entry of each against the CPU.

use layout_gpu::{attention::Problem, f16, Error, Gpu};

fn main() -> Result<(), Error> {
    let gpu = Gpu::new(0)?;
    let s = gpu.stream();
    println!("{:?}", gpu);

    // C = A · Bᵀ: A 256 x 64, B 128 x 64 (f16), C f32, on tensor cores.
    let (m, n, k) = (256, 128, 64);
    let a: Vec<f16> = (0..m * k).map(|i| f16::from_f32((i % 7) as f32 - 3.0)).collect();
    let b: Vec<f16> = (0..n * k).map(|i| f16::from_f32((i % 5) as f32 - 2.0)).collect();
    let (da, db) = (s.upload(&a)?, s.upload(&b)?);
    let mut dc = s.zeros::<f32>(m * n)?;
    gpu.hgemm_sm80(&da, &db, &mut dc, (m, n, k))?;
    let c = s.download(&dc)?;
    let (i, j) = (255, 127);
    let want: f32 = (0..k).map(|p| a[i * k + p].to_f32() * b[j * k + p].to_f32()).sum();
    println!("hgemm: C[{i}][{j}] = {} (CPU: {want})", c[i * n + j]);

    // Attention: 2 sequences of 100 queries and 300 keys, 4 heads of 64.
    let p = Problem { batch: 2, seq_q: 100, seq_k: 300, heads: 4, kv_heads: 4, d: 64, causal: true, bottom_right: false, window: None, scale: 0.125, packed: None };
    let lens = p.lens()?;
    let val = |x: usize| f16::from_f32(((x * 37) % 101) as f32 / 101.0 - 0.5);
    let (q, kv): (Vec<f16>, Vec<f16>) = ((0..lens.q).map(val).collect(), (0..lens.kv).map(val).collect());
    let (dq, dk, dv) = (s.upload(&q)?, s.upload(&kv)?, s.upload(&kv)?);
    let (mut o, mut lse) = (s.zeros::<f16>(lens.q)?, s.zeros::<f32>(lens.lse)?);
    gpu.attention((&dq, &dk, &dv), &mut o, &mut lse, &p)?;
    let o = s.download(&o)?;
    // Row 0 of (batch 0, head 0) sees key 0 only (causal): O = V's row 0.
    let (got, want): (Vec<f32>, Vec<f32>) = (0..4).map(|x| (o[x].to_f32(), kv[x].to_f32())).unzip();
    println!("attention ({}): O[0][0][0][..4] = {got:?} (V[0][0][0][..4] = {want:?})", gpu.attention_family().name);
    Ok(())
}
