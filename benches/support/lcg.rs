//! The reproducible input stream the numeric benches share with their SciPy timing scripts
//! (`benches/bench_common.py` implements the same generator).

/// `n` uniforms in [0, 1) from a 64-bit LCG (Knuth's MMIX constants), the top 53 bits of each state.
pub fn uniforms(seed: u64, n: usize) -> Vec<f64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}
