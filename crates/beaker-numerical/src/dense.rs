//! Large dense decompositions on faer. From [`FAER_FROM`] rows or columns up, faer's blocked algorithms are
//! 2.7–4.5× faster than nalgebra's (SVD, symmetric eigen, LU: docs/PERFORMANCE.md); below it nalgebra's lower setup
//! cost wins, so `linalg` keeps nalgebra there. Results come back as nalgebra matrices: every convention the tool
//! applies afterwards (ordering, signs) is applied once, to either.

use nalgebra::{DMatrix, DVector};
use std::sync::Once;

/// A thin SVD `(U, σ, Vᵀ)`: U is m×k, σ has k values (unordered), Vᵀ is k×n, k = min(m, n).
pub(crate) type ThinSvd = (DMatrix<f64>, Vec<f64>, DMatrix<f64>);

/// The size (largest dimension) from which the SVD, the symmetric eigen-decomposition and the LU solve run on faer.
pub(crate) const FAER_FROM: usize = 150;

/// faer parallelises inside one decomposition by default; a tool call runs on one worker of a pool that is
/// already one thread per core, so it must not spread over the others.
fn sequential() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| faer::set_global_parallelism(faer::Par::Seq));
}

fn to_faer(a: &DMatrix<f64>) -> faer::Mat<f64> {
    faer::Mat::from_fn(a.nrows(), a.ncols(), |i, j| a[(i, j)])
}

fn to_nalgebra(m: faer::MatRef<'_, f64>) -> DMatrix<f64> {
    DMatrix::from_fn(m.nrows(), m.ncols(), |i, j| m[(i, j)])
}

/// The thin SVD `A = U·diag(σ)·Vᵀ`: `(U, σ, Vᵀ)` with `k = min(m, n)` columns, rows; `None` if it fails.
pub(crate) fn svd(a: &DMatrix<f64>) -> Option<ThinSvd> {
    sequential();
    let f = to_faer(a).thin_svd().ok()?;
    let s: Vec<f64> = (0..f.S().dim()).map(|i| f.S()[i]).collect();
    let vt = to_nalgebra(f.V().transpose());
    Some((to_nalgebra(f.U()), s, vt))
}

/// The singular values (in no particular order); `None` if the SVD fails.
pub(crate) fn singular_values(a: &DMatrix<f64>) -> Option<Vec<f64>> {
    sequential();
    to_faer(a).singular_values().ok()
}

/// An LU factorisation with partial pivoting, for solves with A and Aᵀ.
pub(crate) struct Lu(faer::linalg::solvers::PartialPivLu<f64>);

impl Lu {
    /// Factorises the square matrix `a`.
    pub(crate) fn new(a: &DMatrix<f64>) -> Lu {
        sequential();
        Lu(to_faer(a).partial_piv_lu())
    }

    /// x with A x = b; `None` when A is singular (the solve gives non-finite values).
    pub(crate) fn solve(&self, b: &DVector<f64>) -> Option<DVector<f64>> {
        use faer::linalg::solvers::Solve;
        let mut x = faer::Mat::from_fn(b.len(), 1, |i, _| b[i]);
        self.0.solve_in_place(x.as_mut());
        finite(x)
    }

    /// x with Aᵀ x = b; `None` when A is singular.
    pub(crate) fn solve_transpose(&self, b: &DVector<f64>) -> Option<DVector<f64>> {
        use faer::linalg::solvers::Solve;
        let mut x = faer::Mat::from_fn(b.len(), 1, |i, _| b[i]);
        self.0.solve_transpose_in_place(x.as_mut());
        finite(x)
    }
}

fn finite(x: faer::Mat<f64>) -> Option<DVector<f64>> {
    let v = DVector::from_fn(x.nrows(), |i, _| x[(i, 0)]);
    v.iter().all(|x| x.is_finite()).then_some(v)
}

/// Eigenvalues and unit eigenvectors (columns) of a symmetric matrix, from its lower triangle.
pub(crate) fn symmetric_eigen(a: &DMatrix<f64>) -> Option<(Vec<f64>, DMatrix<f64>)> {
    sequential();
    let e = to_faer(a).self_adjoint_eigen(faer::Side::Lower).ok()?;
    let values: Vec<f64> = (0..e.S().dim()).map(|i| e.S()[i]).collect();
    Some((values, to_nalgebra(e.U())))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// faer and nalgebra agree on the decompositions the dispatch swaps (values to 1e-12 relative).
    #[test]
    fn faer_agrees_with_nalgebra() {
        let n = 40;
        let mut seed = 7u64;
        let a = DMatrix::from_fn(n + 5, n, |_, _| {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        });
        let (u, s, vt) = svd(&a).unwrap();
        let rebuilt = &u * DMatrix::from_diagonal(&nalgebra::DVector::from_vec(s.clone())) * &vt;
        assert!((rebuilt - &a).amax() < 1e-12);
        let mut s1 = s.clone();
        let mut s2: Vec<f64> = a
            .clone()
            .svd(false, false)
            .singular_values
            .iter()
            .copied()
            .collect();
        s1.sort_by(f64::total_cmp);
        s2.sort_by(f64::total_cmp);
        assert!(s1
            .iter()
            .zip(&s2)
            .all(|(x, y)| (x - y).abs() <= 1e-12 * y.abs().max(1.0)));
        let mut s3 = singular_values(&a).unwrap();
        s3.sort_by(f64::total_cmp);
        assert!(s3
            .iter()
            .zip(&s2)
            .all(|(x, y)| (x - y).abs() <= 1e-12 * y.abs().max(1.0)));
        let square = a.rows(0, n).into_owned();
        let b = DVector::from_fn(n, |i, _| i as f64 - 3.0);
        let lu = Lu::new(&square);
        let x = lu.solve(&b).unwrap();
        assert!((&square * &x - &b).amax() < 1e-10);
        let xt = lu.solve_transpose(&b).unwrap();
        assert!((square.transpose() * &xt - &b).amax() < 1e-10);
        assert!(Lu::new(&DMatrix::zeros(3, 3))
            .solve(&DVector::from_element(3, 1.0))
            .is_none());
        let sym = &a.transpose() * &a;
        let (values, vectors) = symmetric_eigen(&sym).unwrap();
        for (k, lambda) in values.iter().enumerate() {
            let v = vectors.column(k);
            assert!((&sym * v - v * *lambda).amax() < 1e-10 * lambda.abs().max(1.0));
            assert!((v.norm() - 1.0).abs() < 1e-12);
        }
    }
}
