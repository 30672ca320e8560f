//! nalgebra 0.34 (what `numerical` uses) against faer 0.23, single-threaded (tool calls run one per worker), on the
//! dense operations of `numerical`'s linalg: LU solve, least squares by SVD (the tool's lstsq), symmetric
//! eigendecomposition, general eigenvalues (nalgebra: Schur), and the full SVD. Prints the median of repeated
//! runs per size, and each pair's largest difference in results as a sanity check.

use std::hint::black_box;
use std::time::{Duration, Instant};

/// A deterministic matrix with entries in [-1, 1) (an LCG: the same matrices on every run).
fn entries(rows: usize, cols: usize, seed: u64) -> Vec<f64> {
    let mut s = seed;
    (0..rows * cols)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        })
        .collect()
}

/// Median wall time of `f` over enough runs to fill about `budget`.
fn median(budget: Duration, mut f: impl FnMut()) -> Duration {
    let start = Instant::now();
    f();
    let once = start.elapsed().max(Duration::from_nanos(100));
    let runs = (budget.as_nanos() / once.as_nanos()).clamp(5, 2001) as usize;
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn na(rows: usize, cols: usize, v: &[f64]) -> nalgebra::DMatrix<f64> {
    nalgebra::DMatrix::from_row_slice(rows, cols, v)
}

fn fa(rows: usize, cols: usize, v: &[f64]) -> faer::Mat<f64> {
    faer::Mat::from_fn(rows, cols, |i, j| v[i * cols + j])
}

fn report(op: &str, n: usize, a: Duration, b: Duration, diff: f64) {
    println!(
        "{op:<14} n={n:<4} nalgebra {:>12.1} µs   faer {:>12.1} µs   nalgebra/faer {:>6.2}   max |Δ| {diff:.1e}",
        a.as_secs_f64() * 1e6,
        b.as_secs_f64() * 1e6,
        a.as_secs_f64() / b.as_secs_f64()
    );
}

fn main() {
    use faer::linalg::solvers::{Solve, SolveLstsq};
    faer::set_global_parallelism(faer::Par::Seq);
    let budget = Duration::from_millis(1500);
    const EPS: f64 = f64::EPSILON;
    for n in [10usize, 100, 500] {
        let av = entries(n, n, 1);
        let bv = entries(n, 1, 2);
        let (a_na, b_na) = (na(n, n, &av), nalgebra::DVector::from_vec(bv.clone()));
        let (a_fa, b_fa) = (fa(n, n, &av), fa(n, 1, &bv));

        let x1 = a_na.clone().lu().solve(&b_na).expect("nonsingular");
        let x2 = a_fa.partial_piv_lu().solve(&b_fa);
        let diff = (0..n).map(|i| (x1[i] - x2[(i, 0)]).abs()).fold(0.0, f64::max);
        let t1 = median(budget, || {
            black_box(black_box(&a_na).clone().lu().solve(black_box(&b_na)));
        });
        let t2 = median(budget, || {
            black_box(black_box(&a_fa).partial_piv_lu().solve(black_box(&b_fa)));
        });
        report("solve (LU)", n, t1, t2, diff);

        // Least squares on a 2n x n system: SVD in both (the tool's method, for the rank), and faer's QR.
        let tv = entries(2 * n, n, 3);
        let cv = entries(2 * n, 1, 4);
        let (t_na, c_na) = (na(2 * n, n, &tv), nalgebra::DVector::from_vec(cv.clone()));
        let (t_fa, c_fa) = (fa(2 * n, n, &tv), fa(2 * n, 1, &cv));
        let lstsq_na = |t: &nalgebra::DMatrix<f64>, c: &nalgebra::DVector<f64>| {
            let svd = nalgebra::SVD::try_new(t.clone(), true, true, EPS, 0).expect("svd");
            svd.solve(c, 1e-12).expect("solve")
        };
        let lstsq_fa = |t: &faer::Mat<f64>, c: &faer::Mat<f64>| {
            let svd = t.thin_svd().expect("svd");
            let (u, s, v) = (svd.U(), svd.S(), svd.V());
            let utc = u.transpose() * c;
            let scaled = faer::Mat::from_fn(utc.nrows(), 1, |i, _| {
                let si = s[i];
                if si > 1e-12 { utc[(i, 0)] / si } else { 0.0 }
            });
            v * scaled
        };
        let y1 = lstsq_na(&t_na, &c_na);
        let y2 = lstsq_fa(&t_fa, &c_fa);
        let diff = (0..n).map(|i| (y1[i] - y2[(i, 0)]).abs()).fold(0.0, f64::max);
        let t1 = median(budget, || {
            black_box(lstsq_na(black_box(&t_na), black_box(&c_na)));
        });
        let t2 = median(budget, || {
            black_box(lstsq_fa(black_box(&t_fa), black_box(&c_fa)));
        });
        report("lstsq (SVD)", n, t1, t2, diff);
        let t3 = median(budget, || {
            black_box(black_box(&t_fa).qr().solve_lstsq(black_box(&c_fa)));
        });
        report("lstsq faer QR", n, t1, t3, 0.0);

        // Symmetric eigendecomposition of A + Aᵀ.
        let sv: Vec<f64> = (0..n * n).map(|k| av[k] + av[(k % n) * n + k / n]).collect();
        let (s_na, s_fa) = (na(n, n, &sv), fa(n, n, &sv));
        let mut e1: Vec<f64> = nalgebra::SymmetricEigen::new(s_na.clone()).eigenvalues.iter().copied().collect();
        e1.sort_by(f64::total_cmp);
        let mut e2 = s_fa.self_adjoint_eigenvalues(faer::Side::Lower).expect("evd");
        e2.sort_by(f64::total_cmp);
        let diff = e1.iter().zip(&e2).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        let t1 = median(budget, || {
            black_box(nalgebra::SymmetricEigen::new(black_box(&s_na).clone()));
        });
        let t2 = median(budget, || {
            black_box(black_box(&s_fa).self_adjoint_eigen(faer::Side::Lower).expect("evd"));
        });
        report("eig symmetric", n, t1, t2, diff);

        // General eigenvalues.
        let abs_sorted = |mut v: Vec<f64>| {
            v.sort_by(f64::total_cmp);
            v
        };
        let g1 = abs_sorted(
            nalgebra::Schur::try_new(a_na.clone(), EPS, 0)
                .expect("schur")
                .complex_eigenvalues()
                .iter()
                .map(|z| z.norm())
                .collect(),
        );
        let g2 = abs_sorted(a_fa.eigenvalues().expect("evd").iter().map(|z| z.norm()).collect());
        let diff = g1.iter().zip(&g2).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        let t1 = median(budget, || {
            let s = nalgebra::Schur::try_new(black_box(&a_na).clone(), EPS, 0).expect("schur");
            black_box(s.complex_eigenvalues());
        });
        let t2 = median(budget, || {
            black_box(black_box(&a_fa).eigenvalues().expect("evd"));
        });
        report("eig general", n, t1, t2, diff);

        // Full SVD with both factors.
        let mut s1: Vec<f64> = nalgebra::SVD::try_new(a_na.clone(), true, true, EPS, 0)
            .expect("svd")
            .singular_values
            .iter()
            .copied()
            .collect();
        s1.sort_by(f64::total_cmp);
        let svd2 = a_fa.svd().expect("svd");
        let mut s2: Vec<f64> = (0..n).map(|i| svd2.S()[i]).collect();
        s2.sort_by(f64::total_cmp);
        let diff = s1.iter().zip(&s2).map(|(x, y)| (x - y).abs()).fold(0.0, f64::max);
        let t1 = median(budget, || {
            black_box(nalgebra::SVD::try_new(black_box(&a_na).clone(), true, true, EPS, 0));
        });
        let t2 = median(budget, || {
            black_box(black_box(&a_fa).svd().expect("svd"));
        });
        report("svd", n, t1, t2, diff);
    }
}
