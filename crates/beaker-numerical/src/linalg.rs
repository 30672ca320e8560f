//! Linear algebra on nalgebra: determinant, inverse, eigen-decomposition, SVD, solve, rank, norms, QR,
//! Cholesky, condition numbers and products. Decompositions run with bounded iteration counts. The SVD (and
//! what rests on it: rank, 2-norm condition, least squares), the symmetric eigen-decomposition and the LU solve
//! of matrices from `dense::FAER_FROM` rows or columns up run on faer instead (`dense`), 2.7–4.5× faster there.

#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(a < b)` is deliberate: it also holds for NaN, which must take the failing branch"
)]

use crate::input::{
    arr, check_keys, get, invalid, matrix, object, opt_choice, pairs, require, rows, vector,
};
use beaker_core::{CallContext, ToolError};
use nalgebra::{Complex, DMatrix, DVector, Dyn, Schur, SymmetricEigen, LU, SVD};
use serde_json::{json, Map, Value};

const EPS: f64 = f64::EPSILON;

/// Iteration cap handed to nalgebra's iterative decompositions (it returns `None` past it).
fn max_niter(n: usize) -> usize {
    1000 * n.max(10)
}

fn square(a: &DMatrix<f64>, op: &str) -> Result<(), ToolError> {
    if a.nrows() != a.ncols() {
        return Err(invalid(format!(
            "`{op}` needs a square matrix; data.A is {}×{}",
            a.nrows(),
            a.ncols()
        )));
    }
    Ok(())
}

fn no_converge(what: &str) -> ToolError {
    ToolError::domain(format!(
        "the {what} did not converge (the matrix may hold values too large or too small for f64)"
    ))
}

/// Singular values, descending.
fn singular_values(a: &DMatrix<f64>) -> Result<Vec<f64>, ToolError> {
    if a.nrows().max(a.ncols()) >= crate::dense::FAER_FROM {
        let mut s = crate::dense::singular_values(a).ok_or_else(|| no_converge("SVD"))?;
        s.sort_by(|x, y| y.total_cmp(x));
        return Ok(s);
    }
    let svd = SVD::try_new(
        a.clone(),
        false,
        false,
        EPS,
        max_niter(a.nrows().max(a.ncols())),
    )
    .ok_or_else(|| no_converge("SVD"))?;
    let mut s: Vec<f64> = svd.singular_values.iter().copied().collect();
    s.sort_by(|x, y| y.total_cmp(x));
    Ok(s)
}

/// The 2-norm condition number (∞ when singular).
fn cond2(a: &DMatrix<f64>) -> Result<f64, ToolError> {
    let s = singular_values(a)?;
    let (max, min) = (s[0], s[s.len() - 1]);
    Ok(if min == 0.0 { f64::INFINITY } else { max / min })
}

/// The 1-norm ‖A‖₁ (largest column sum).
fn norm1(a: &DMatrix<f64>) -> f64 {
    a.column_iter()
        .map(|c| c.iter().map(|x| x.abs()).sum::<f64>())
        .fold(0.0, f64::max)
}

/// Hager's estimate of ‖A⁻¹‖₁ with Higham's refinements (LAPACK's `dlacon`, what `gecon` and so SciPy's
/// `solve` use to warn about ill-conditioning): a few O(n²) solves with the LU factors. ∞ when a solve fails.
fn inv_norm1_estimate(lu: &LU<f64, Dyn, Dyn>, n: usize) -> f64 {
    let (l, u) = (lu.l(), lu.u());
    // Aᵀ x = b with P A = L U: Uᵀ v = b, Lᵀ w = v, x = P⁻¹ w.
    let solve_t = |b: &DVector<f64>| -> Option<DVector<f64>> {
        let v = u.tr_solve_upper_triangular(b)?;
        let mut w = l.tr_solve_lower_triangular(&v)?;
        lu.p().inv_permute_rows(&mut w);
        Some(w)
    };
    inv_norm1_estimate_by(n, |b| lu.solve(b), solve_t)
}

/// [`inv_norm1_estimate`] from any factorisation: `solve` and `solve_t` solve with A and Aᵀ (`None` or a
/// non-finite result: singular).
fn inv_norm1_estimate_by(
    n: usize,
    solve: impl Fn(&DVector<f64>) -> Option<DVector<f64>>,
    solve_t: impl Fn(&DVector<f64>) -> Option<DVector<f64>>,
) -> f64 {
    let l1 = |v: &DVector<f64>| v.iter().map(|x| x.abs()).sum::<f64>();
    let mut x = DVector::from_element(n, 1.0 / n as f64);
    let mut est = 0.0;
    for k in 0..5 {
        let Some(y) = solve(&x) else {
            return f64::INFINITY;
        };
        let e = l1(&y);
        if !e.is_finite() {
            return f64::INFINITY;
        }
        if k > 0 && e <= est {
            break;
        }
        est = e;
        let sign = y.map(|v| if v >= 0.0 { 1.0 } else { -1.0 });
        let Some(z) = solve_t(&sign) else {
            return f64::INFINITY;
        };
        let j = argmax_abs(z.iter().copied());
        if k > 0 && z[j].abs() <= z.dot(&x) {
            break;
        }
        x = DVector::zeros(n);
        x[j] = 1.0;
    }
    if n > 1 {
        let alt = DVector::from_fn(n, |i, _| {
            let s = if i % 2 == 0 { 1.0 } else { -1.0 };
            s * (1.0 + i as f64 / (n - 1) as f64)
        });
        match solve(&alt) {
            Some(y) => est = est.max(2.0 * l1(&y) / (3.0 * n as f64)),
            None => return f64::INFINITY,
        }
    }
    est
}

/// `domain_error` when a 1-norm condition number is at or above 1/ε ≈ 4.5e15 (singular to working precision).
fn nonsingular(cond: f64, op: &str, estimated: bool) -> Result<f64, ToolError> {
    if !(cond < 1.0 / EPS) {
        let shown = if cond.is_finite() {
            format!("{}{cond:.3e}", if estimated { "about " } else { "" })
        } else {
            "infinite".into()
        };
        return Err(ToolError::domain(format!(
            "`{op}`: the matrix is singular to working precision (1-norm condition number {shown}, at or above 1/ε = 4.5e15){}",
            if op == "solve_linear" { "; options.method = \"lstsq\" gives the least-squares solution" } else { "" }
        )));
    }
    Ok(cond)
}

/// Runs a linear-algebra operation.
pub(crate) fn run(
    op: &str,
    data: &Value,
    options: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    let l = &ctx.limits;
    let keys: (&[&str], &[&str]) = match op {
        "solve_linear" => (&["A", "b"], &["method"]),
        "matmul" => (&["A", "B"], &[]),
        "norm" => (&["A", "x"], &["ord"]),
        "rank" => (&["A"], &["tol"]),
        "condition_number" => (&["A"], &["ord"]),
        _ => (&["A"], &[]),
    };
    check_keys(data, keys.0, "data", op)?;
    check_keys(options, keys.1, "options", op)?;
    if op == "norm" && get(data, "A").is_none() {
        let x = vector(require(data, "x", op)?, "data.x", l)?;
        return Ok(json!({"norm": vector_norm(&x, options)?}));
    }
    let a = matrix(require(data, "A", op)?, "data.A", l)?;
    // The second operand is read here, on the worker, so the computation owns everything it needs.
    let second = match op {
        "solve_linear" => Second::Vector(vector(require(data, "b", op)?, "data.b", l)?),
        "matmul" => {
            let bv = require(data, "B", op)?;
            if matches!(bv, Value::Array(r) if r.first().is_some_and(|x| !x.is_array())) {
                let v = vector(bv, "data.B", l)?;
                Second::Column(DMatrix::from_column_slice(v.len(), 1, &v))
            } else {
                Second::Matrix(matrix(bv, "data.B", l)?)
            }
        }
        _ => Second::None,
    };
    ctx.checkpoint()?;
    let (m, n) = (a.nrows() as f64, a.ncols() as f64);
    let work = match &second {
        Second::Matrix(b) | Second::Column(b) => m * n * b.ncols() as f64,
        _ => m * n * m.min(n),
    };
    let (op, options) = (op.to_string(), options.clone());
    crate::offload::run(ctx, work, move |_| compute(&op, a, second, &options))
}

/// The operand besides `A` an operation takes.
enum Second {
    None,
    /// `solve_linear`'s `b`.
    Vector(Vec<f64>),
    /// `matmul`'s `B` given as a matrix.
    Matrix(DMatrix<f64>),
    /// `matmul`'s `B` given as a vector: a column, answered as a vector.
    Column(DMatrix<f64>),
}

/// Computes operation `op` of `a` (and its second operand), once every input has been read.
fn compute(
    op: &str,
    a: DMatrix<f64>,
    second: Second,
    options: &Map<String, Value>,
) -> Result<Value, ToolError> {
    match op {
        "determinant" => {
            square(&a, op)?;
            let det = a.lu().determinant();
            if !det.is_finite() {
                return Err(ToolError::domain(
                    "the determinant overflows f64 (its magnitude is beyond 1.8e308)",
                ));
            }
            Ok(json!({ "determinant": det }))
        }
        "inverse" => {
            square(&a, op)?;
            let na = norm1(&a);
            let inv = a.lu().try_inverse();
            let c = inv.as_ref().map_or(f64::INFINITY, |inv| na * norm1(inv));
            nonsingular(c, op, false)?;
            let inv = inv.ok_or_else(|| ToolError::domain("`inverse`: the matrix is singular"))?;
            Ok(json!({"inverse": rows(&inv), "condition_number": c}))
        }
        "eigenvalues" => {
            square(&a, op)?;
            eigen(a)
        }
        "svd" => {
            let (u, s, vt) = thin_svd(a)?;
            let mut order: Vec<usize> = (0..s.len()).collect();
            order.sort_by(|&i, &j| s[j].total_cmp(&s[i]).then(i.cmp(&j)));
            let k = order.len();
            let mut uu = DMatrix::zeros(u.nrows(), k);
            let mut vv = DMatrix::zeros(k, vt.ncols());
            let mut ss = Vec::with_capacity(k);
            for (c, &i) in order.iter().enumerate() {
                // Sign convention: the largest-magnitude entry of each right singular vector is positive.
                let row = vt.row(i);
                let sign = if row[argmax_abs(row.iter().copied())] < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                uu.set_column(c, &(u.column(i) * sign));
                vv.set_row(c, &(row * sign));
                ss.push(s[i]);
            }
            Ok(json!({"U": rows(&uu), "S": arr(&ss), "Vt": rows(&vv)}))
        }
        "solve_linear" => {
            let Second::Vector(b) = second else {
                return Err(invalid("`solve_linear` needs data.b"));
            };
            if b.len() != a.nrows() {
                return Err(invalid(format!(
                    "data.b has {} entries but data.A has {} rows",
                    b.len(),
                    a.nrows()
                )));
            }
            let method = opt_choice(options, "method", &["auto", "lu", "lstsq"], "options")?;
            let b = DVector::from_vec(b);
            let lstsq = method == "lstsq" || (method == "auto" && a.nrows() != a.ncols());
            if !lstsq {
                square(&a, op)?;
                let n = a.nrows();
                let singular = || ToolError::domain("`solve_linear`: the matrix is singular");
                let x = if n >= crate::dense::FAER_FROM {
                    let lu = crate::dense::Lu::new(&a);
                    let est = inv_norm1_estimate_by(n, |b| lu.solve(b), |b| lu.solve_transpose(b));
                    nonsingular(norm1(&a) * est, op, true)?;
                    lu.solve(&b).ok_or_else(singular)?
                } else {
                    let lu = a.clone().lu();
                    nonsingular(norm1(&a) * inv_norm1_estimate(&lu, n), op, true)?;
                    lu.solve(&b).ok_or_else(singular)?
                };
                let r = (&a * &x - &b).norm();
                Ok(
                    json!({"x": arr(x.as_slice()), "method": "LU decomposition", "residual_norm": r}),
                )
            } else {
                let (x, rank) = lstsq_solve(&a, &b)?;
                let r = (&a * &x - &b).norm();
                Ok(
                    json!({"x": arr(x.as_slice()), "method": "least squares (SVD)", "residual_norm": r, "rank": rank}),
                )
            }
        }
        "rank" => {
            let s = singular_values(&a)?;
            let tol = match get(options, "tol") {
                Some(v) => crate::input::number(v, "options.tol")?,
                None => s[0] * a.nrows().max(a.ncols()) as f64 * EPS,
            };
            let r = s.iter().filter(|&&x| x > tol).count();
            Ok(json!({"rank": r, "singular_values": arr(&s), "tol": tol}))
        }
        "norm" => Ok(json!({"norm": matrix_norm(&a, options)?})),
        "qr" => {
            let (m, n) = (a.nrows(), a.ncols());
            let qr = a.qr();
            let (mut q, mut r) = (qr.q(), qr.r());
            // Sign convention: R has a non-negative diagonal (LAPACK's may be negative).
            for i in 0..m.min(n) {
                if r[(i, i)] < 0.0 {
                    r.row_mut(i).neg_mut();
                    q.column_mut(i).neg_mut();
                }
            }
            Ok(json!({"Q": rows(&q), "R": rows(&r)}))
        }
        "cholesky" => {
            square(&a, op)?;
            let scale = a.amax();
            let n = a.nrows();
            for i in 0..n {
                for j in 0..i {
                    if (a[(i, j)] - a[(j, i)]).abs() > 1e-12 * scale {
                        return Err(invalid(format!(
                            "`cholesky` needs a symmetric matrix; A[{i}][{j}] = {} but A[{j}][{i}] = {}",
                            a[(i, j)],
                            a[(j, i)]
                        )));
                    }
                }
            }
            let c = nalgebra::Cholesky::new(a).ok_or_else(|| {
                ToolError::domain("`cholesky`: the matrix is not positive definite")
            })?;
            Ok(json!({"L": rows(&c.l())}))
        }
        "condition_number" => {
            square(&a, op)?;
            let ord = ord_option(options)?;
            let c = match ord.as_str() {
                "2" => cond2(&a)?,
                "-2" => {
                    let s = singular_values(&a)?;
                    s[s.len() - 1] / s[0]
                }
                _ => {
                    let inv = a.clone().lu().try_inverse();
                    match inv {
                        Some(inv) => mat_norm_by(&a, &ord)? * mat_norm_by(&inv, &ord)?,
                        None => f64::INFINITY,
                    }
                }
            };
            if !c.is_finite() {
                return Err(ToolError::domain(
                    "`condition_number`: the matrix is singular, its condition number is infinite",
                ));
            }
            Ok(json!({"condition_number": c, "ord": ord}))
        }
        "matmul" => {
            let (b, vector_b) = match second {
                Second::Matrix(b) => (b, false),
                Second::Column(b) => (b, true),
                _ => return Err(invalid("`matmul` needs data.B")),
            };
            if a.ncols() != b.nrows() {
                return Err(invalid(format!(
                    "cannot multiply a {}×{} matrix by a {}×{} {}",
                    a.nrows(),
                    a.ncols(),
                    b.nrows(),
                    b.ncols(),
                    if vector_b { "vector" } else { "matrix" }
                )));
            }
            let c = &a * &b;
            Ok(json!({"result": if vector_b { arr(c.as_slice()) } else { rows(&c) }}))
        }
        other => Err(invalid(format!("unknown operation `{other}`"))),
    }
}

fn argmax_abs(v: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, -1.0);
    for (i, x) in v.enumerate() {
        if x.abs() > best.1 {
            best = (i, x.abs());
        }
    }
    best.0
}

/// The thin SVD `(U, σ, Vᵀ)`, unordered: faer from `dense::FAER_FROM` up, nalgebra below.
fn thin_svd(a: DMatrix<f64>) -> Result<crate::dense::ThinSvd, ToolError> {
    let n = a.nrows().max(a.ncols());
    if n >= crate::dense::FAER_FROM {
        return crate::dense::svd(&a).ok_or_else(|| no_converge("SVD"));
    }
    let svd = SVD::try_new(a, true, true, EPS, max_niter(n)).ok_or_else(|| no_converge("SVD"))?;
    match (svd.u, svd.v_t) {
        (Some(u), Some(vt)) => Ok((u, svd.singular_values.iter().copied().collect(), vt)),
        _ => Err(no_converge("SVD")),
    }
}

/// Minimum-norm least squares through the SVD, singular values below ε·max(m, n)·σ₁ dropped (NumPy's lstsq).
fn lstsq_solve(a: &DMatrix<f64>, b: &DVector<f64>) -> Result<(DVector<f64>, usize), ToolError> {
    let n = a.nrows().max(a.ncols());
    let (u, s, vt) = thin_svd(a.clone())?;
    let smax = s.iter().copied().fold(0.0, f64::max);
    let tol = EPS * n as f64 * smax;
    let rank = s.iter().filter(|&&x| x > tol).count();
    // x = V · diag(1/σ, σ > tol) · Uᵀ b
    let utb = u.transpose() * b;
    let scaled = DVector::from_fn(s.len(), |i, _| if s[i] > tol { utb[i] / s[i] } else { 0.0 });
    let x = vt.transpose() * scaled;
    if x.iter().any(|v| !v.is_finite()) {
        return Err(ToolError::domain(
            "least squares failed: the solution is not finite",
        ));
    }
    Ok((x, rank))
}

fn eigen(a: DMatrix<f64>) -> Result<Value, ToolError> {
    let n = a.nrows();
    let symmetric = (0..n).all(|i| (0..i).all(|j| a[(i, j)] == a[(j, i)]));
    if symmetric {
        let (eigenvalues, eigenvectors) = if n >= crate::dense::FAER_FROM {
            crate::dense::symmetric_eigen(&a).ok_or_else(|| no_converge("eigen-decomposition"))?
        } else {
            let e = SymmetricEigen::try_new(a, EPS, max_niter(n))
                .ok_or_else(|| no_converge("eigen-decomposition"))?;
            (e.eigenvalues.iter().copied().collect(), e.eigenvectors)
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| eigenvalues[i].total_cmp(&eigenvalues[j]).then(i.cmp(&j)));
        let values: Vec<f64> = order.iter().map(|&i| eigenvalues[i]).collect();
        let vectors: Vec<Value> = order
            .iter()
            .map(|&i| {
                let c = eigenvectors.column(i);
                let sign = if c[argmax_abs(c.iter().copied())] < 0.0 {
                    -1.0
                } else {
                    1.0
                };
                arr(&c.iter().map(|x| x * sign).collect::<Vec<_>>())
            })
            .collect();
        return Ok(
            json!({"eigenvalues": arr(&values), "eigenvectors": vectors, "symmetric": true}),
        );
    }
    let schur = Schur::try_new(a.clone(), EPS, max_niter(n))
        .ok_or_else(|| no_converge("eigenvalue iteration"))?;
    let mut values: Vec<Complex<f64>> = schur.complex_eigenvalues().iter().copied().collect();
    // Exact conjugate pairs from the real Schur form: keep the pair together, +im first.
    values.sort_by(|x, y| x.re.total_cmp(&y.re).then(y.im.total_cmp(&x.im)));
    let scale = a.amax().max(f64::MIN_POSITIVE);
    let ac: DMatrix<Complex<f64>> = a.map(|x| Complex::new(x, 0.0));
    let mut vectors: Vec<DVector<Complex<f64>>> = Vec::with_capacity(n);
    for (k, &lambda) in values.iter().enumerate() {
        // Earlier eigenvectors of (nearly) the same eigenvalue: the new one is made orthogonal to them.
        let same: Vec<usize> = (0..k)
            .filter(|&j| (values[j] - lambda).norm() <= 1e-8 * scale)
            .collect();
        let against: Vec<&DVector<Complex<f64>>> = same.iter().map(|&j| &vectors[j]).collect();
        let mut v = inverse_iteration(&ac, lambda, scale, &against, k);
        // A defective eigenvalue has fewer independent eigenvectors than its multiplicity: then the
        // orthogonalised vector is no eigenvector, and (as LAPACK does) a parallel one is returned instead.
        if !same.is_empty() && residual(&ac, &v, lambda) > 1e-6 * scale {
            v = inverse_iteration(&ac, lambda, scale, &[], k);
        }
        vectors.push(v);
    }
    let vecs: Vec<Value> = vectors.iter().map(|v| pairs(v.as_slice())).collect();
    Ok(json!({"eigenvalues": pairs(&values), "eigenvectors": vecs, "symmetric": false}))
}

/// ‖A v − λ v‖₂.
fn residual(a: &DMatrix<Complex<f64>>, v: &DVector<Complex<f64>>, lambda: Complex<f64>) -> f64 {
    (a * v - v * lambda).norm()
}

/// The eigenvector of `a` for `lambda` by inverse iteration on A − (λ + δ)I, unit 2-norm, its
/// largest-magnitude entry real and positive.
fn inverse_iteration(
    a: &DMatrix<Complex<f64>>,
    lambda: Complex<f64>,
    scale: f64,
    against: &[&DVector<Complex<f64>>],
    seed: usize,
) -> DVector<Complex<f64>> {
    let n = a.nrows();
    let shift = lambda + Complex::new(scale * 1e-10, 0.0);
    let mut m = a.clone();
    for i in 0..n {
        m[(i, i)] -= shift;
    }
    let lu = m.lu();
    // A start vector that differs per eigenvalue, so repeated eigenvalues find independent vectors.
    let mut v = DVector::from_fn(n, |i, _| {
        Complex::new(1.0 + ((i * 7 + seed * 3) % 11) as f64 / 10.0, 0.0)
    });
    for _ in 0..3 {
        for u in against {
            let p = u.dotc(&v);
            v -= *u * p;
        }
        let w = lu.solve(&v).unwrap_or_else(|| v.clone());
        let norm = w.norm();
        if !(norm.is_finite() && norm > 0.0) {
            break;
        }
        v = w / Complex::new(norm, 0.0);
    }
    for u in against {
        let p = u.dotc(&v);
        v -= *u * p;
    }
    let norm = v.norm();
    if norm > 0.0 {
        v /= Complex::new(norm, 0.0);
    }
    let k = argmax_abs(v.iter().map(|c| c.norm()));
    let phase = v[k].conj() / Complex::new(v[k].norm().max(f64::MIN_POSITIVE), 0.0);
    v.map(|c| {
        let z = c * phase;
        // Exact zeros instead of ±1e-17 rounding noise (the vector has unit norm).
        let clean = |x: f64| if x.abs() < 1e-15 { 0.0 } else { x };
        Complex::new(clean(z.re), clean(z.im))
    })
}

fn ord_option(options: &Map<String, Value>) -> Result<String, ToolError> {
    Ok(match get(options, "ord") {
        None => "default".into(),
        Some(Value::Number(n)) => n.to_string().trim_end_matches(".0").to_string(),
        Some(Value::String(s)) => s.trim().to_ascii_lowercase(),
        Some(v) => {
            return Err(invalid(format!(
                "options.ord must be a number or a string, got {v}"
            )))
        }
    })
    .map(|s| if s == "default" { "2".to_string() } else { s })
}

fn vector_norm(x: &[f64], options: &Map<String, Value>) -> Result<f64, ToolError> {
    let ord = match get(options, "ord") {
        None => 2.0,
        Some(v) => crate::input::bound(v, "options.ord")?,
    };
    let a = x.iter().map(|v| v.abs());
    let r = if ord == f64::INFINITY {
        a.fold(0.0, f64::max)
    } else if ord == f64::NEG_INFINITY {
        a.fold(f64::INFINITY, f64::min)
    } else if ord == 0.0 {
        x.iter().filter(|v| **v != 0.0).count() as f64
    } else if ord == 2.0 {
        DVector::from_column_slice(x).norm()
    } else if ord == 1.0 {
        a.sum()
    } else {
        a.map(|v| v.powf(ord)).sum::<f64>().powf(1.0 / ord)
    };
    if !r.is_finite() {
        return Err(crate::input::not_finite("the norm"));
    }
    Ok(r)
}

fn matrix_norm(a: &DMatrix<f64>, options: &Map<String, Value>) -> Result<f64, ToolError> {
    let ord = match get(options, "ord") {
        None => "fro".to_string(),
        Some(_) => ord_option(options)?,
    };
    mat_norm_by(a, &ord)
}

fn mat_norm_by(a: &DMatrix<f64>, ord: &str) -> Result<f64, ToolError> {
    let col_sums = || {
        a.column_iter()
            .map(|c| c.iter().map(|x| x.abs()).sum::<f64>())
    };
    let row_sums = || a.row_iter().map(|r| r.iter().map(|x| x.abs()).sum::<f64>());
    Ok(match ord {
        "fro" => a.norm(),
        "nuc" => singular_values(a)?.iter().sum(),
        "1" => col_sums().fold(0.0, f64::max),
        "-1" => col_sums().fold(f64::INFINITY, f64::min),
        "inf" => row_sums().fold(0.0, f64::max),
        "-inf" => row_sums().fold(f64::INFINITY, f64::min),
        "2" => singular_values(a)?[0],
        "-2" => {
            let s = singular_values(a)?;
            s[s.len() - 1]
        }
        other => {
            return Err(invalid(format!(
                "options.ord = {other:?} is not a matrix norm; use \"fro\", \"nuc\", 1, -1, 2, -2, \"inf\" or \"-inf\""
            )))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_defective_matrix_gets_true_eigenvectors() {
        // [[1, 1], [0, 1]] has one eigenvector (e1) for its double eigenvalue 1; NumPy returns it twice.
        let a = DMatrix::from_row_slice(2, 2, &[1.0, 1.0, 0.0, 1.0]);
        let r = eigen(a).unwrap();
        for v in r["eigenvectors"].as_array().unwrap() {
            let x: Vec<f64> = v
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[0].as_f64().unwrap())
                .collect();
            assert!(x[0] > 0.999_999 && x[1].abs() < 1e-6, "{x:?}");
        }
    }

    #[test]
    fn inverse_iteration_finds_independent_vectors_for_a_repeated_eigenvalue() {
        // Non-symmetric, eigenvalue 2 twice with two independent eigenvectors (e1, e2).
        let a = DMatrix::from_row_slice(3, 3, &[2.0, 0.0, 1.0, 0.0, 2.0, 0.0, 0.0, 0.0, 3.0]);
        let r = eigen(a.clone()).unwrap();
        let vecs = r["eigenvectors"].as_array().unwrap();
        let v = |k: usize| -> Vec<f64> {
            vecs[k]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p[0].as_f64().unwrap())
                .collect()
        };
        let (v0, v1) = (v(0), v(1));
        let dot: f64 = v0.iter().zip(&v1).map(|(a, b)| a * b).sum();
        assert!(dot.abs() < 1e-8, "{v0:?} {v1:?}");
        for k in 0..3 {
            let x = DVector::from_vec(v(k));
            let lambda = r["eigenvalues"][k][0].as_f64().unwrap();
            assert!((&a * &x - &x * lambda).norm() < 1e-10);
        }
    }
}
