//! `regression`: ordinary least squares (simple, multiple, polynomial) by Householder QR with one step of
//! iterative refinement, and logistic regression by Newton's method (IRLS), with statsmodels' inference.

use crate::input::{check_len, finite_at, num, nums, Args};
use crate::sums::{mean, sum};
use beaker_core::ToolError;
use nalgebra::{DMatrix, DVector};
use serde_json::{json, Value};

pub(crate) fn regression(args: &Args) -> Result<Value, ToolError> {
    let kind = args.opt_choice("type", &["linear", "polynomial", "logistic"])?;
    let y = crate::input::sample_values(args.field("y")?, "data.y", args.ctx)?;
    let xv = args.field("x")?;
    let rows = xv.as_array().ok_or_else(|| {
        ToolError::invalid_params("`data.x` must be a list of numbers or of rows")
    })?;
    check_len(rows.len(), "data.x", args.ctx)?;
    // Predictors as columns: one list is one predictor; a list of rows is several.
    let multiple = rows.first().is_some_and(Value::is_array);
    let mut cols: Vec<Vec<f64>> = if multiple {
        let k = rows[0].as_array().map_or(0, Vec::len);
        check_len(rows.len().saturating_mul(k), "data.x (all cells)", args.ctx)?;
        let mut cols = vec![Vec::with_capacity(rows.len()); k];
        for (i, r) in rows.iter().enumerate() {
            let r = r.as_array().filter(|r| r.len() == k).ok_or_else(|| {
                ToolError::invalid_params(format!(
                    "`data.x[{i}]` must be a row of {k} numbers like the first row"
                ))
            })?;
            for (j, v) in r.iter().enumerate() {
                cols[j].push(finite_at(v, || format!("data.x[{i}][{j}]"))?);
            }
        }
        cols
    } else {
        vec![crate::input::sample_values(xv, "data.x", args.ctx)?]
    };
    if cols.iter().any(|c| c.len() != y.len()) {
        return Err(ToolError::invalid_params(format!(
            "`data.x` has {} observations but `data.y` has {}",
            cols.first().map_or(0, Vec::len),
            y.len()
        )));
    }
    if cols.is_empty() {
        return Err(ToolError::invalid_params("`data.x` has no predictors"));
    }
    if kind != "polynomial" && args.options.get("degree").is_some() {
        return Err(ToolError::invalid_params(
            "`options.degree` applies to `\"type\": \"polynomial\"`; add it, or drop the degree",
        ));
    }
    if kind == "polynomial" {
        if multiple {
            return Err(ToolError::invalid_params(
                "polynomial regression takes one predictor: `data.x` must be a list of numbers",
            ));
        }
        let degree = args.opt_f64("degree", 2.0)?;
        if degree < 1.0 || degree.fract() != 0.0 || degree > args.ctx.limits.max_matrix_dim as f64 {
            return Err(ToolError::invalid_params(format!(
                "`options.degree` must be an integer from 1 to {}, got {degree}",
                args.ctx.limits.max_matrix_dim
            )));
        }
        let base = cols[0].clone();
        for d in 2..=degree as i32 {
            cols.push(base.iter().map(|x| x.powi(d)).collect());
        }
    }
    if cols
        .iter()
        .flatten()
        .any(|v| !v.is_finite() || v.abs() > crate::input::MAX_MAGNITUDE)
    {
        return Err(ToolError::limit(
            "a predictor (or a power of it) is beyond ±1e100, where sums of squares overflow a double; \
             rescale x or lower the degree",
        ));
    }
    let p = cols.len() + 1;
    if p as u64 > args.ctx.limits.max_matrix_dim {
        return Err(ToolError::limit(format!(
            "{p} coefficients; the limit is {} (max_matrix_dim)",
            args.ctx.limits.max_matrix_dim
        )));
    }
    check_len(y.len().saturating_mul(p), "the design matrix", args.ctx)?;
    let n = y.len();
    if n <= p - usize::from(kind == "logistic") {
        return Err(ToolError::invalid_params(format!(
            "{n} observations are too few to fit {p} coefficients"
        )));
    }
    let x = DMatrix::from_fn(n, p, |i, j| if j == 0 { 1.0 } else { cols[j - 1][i] });
    args.ctx.checkpoint()?;
    if kind == "logistic" {
        logistic(&x, &y, args)
    } else {
        ols(&x, &y, kind)
    }
}

/// Least squares by QR, refusing a rank-deficient design.
fn lstsq(x: &DMatrix<f64>, y: &DVector<f64>) -> Result<(DVector<f64>, DMatrix<f64>), ToolError> {
    // Scale columns to unit norm first: QR is then insensitive to the predictors' units (Longley).
    let p = x.ncols();
    let scale: Vec<f64> = (0..p)
        .map(|j| {
            let s = x.column(j).norm();
            if s > 0.0 {
                s
            } else {
                1.0
            }
        })
        .collect();
    let xs = DMatrix::from_fn(x.nrows(), p, |i, j| x[(i, j)] / scale[j]);
    let qr = xs.clone().qr();
    let r = qr.r();
    let diag_max = (0..p).map(|i| r[(i, i)].abs()).fold(0.0, f64::max);
    if (0..p).any(|i| r[(i, i)].abs() <= diag_max * 1e-13) {
        return Err(ToolError::domain(
            "the predictors are collinear (the design matrix is rank-deficient); drop a redundant column",
        ));
    }
    let q = qr.q();
    let solve = |rhs: &DVector<f64>| -> Result<DVector<f64>, ToolError> {
        r.solve_upper_triangular(&(q.transpose() * rhs))
            .ok_or_else(|| ToolError::domain("the design matrix is singular"))
    };
    let mut b = solve(y)?;
    // One step of iterative refinement on the residual.
    let resid = y - &xs * &b;
    b += solve(&resid)?;
    let rinv = r
        .clone()
        .try_inverse()
        .ok_or_else(|| ToolError::domain("the design matrix is singular"))?;
    // (XᵀX)⁻¹ = R⁻¹R⁻ᵀ, unscaled back to the original columns.
    let xtx_inv_s = &rinv * rinv.transpose();
    let beta = DVector::from_fn(p, |j, _| b[j] / scale[j]);
    let xtx_inv = DMatrix::from_fn(p, p, |i, j| xtx_inv_s[(i, j)] / (scale[i] * scale[j]));
    Ok((beta, xtx_inv))
}

fn ols(x: &DMatrix<f64>, yv: &[f64], kind: &str) -> Result<Value, ToolError> {
    let (n, p) = (x.nrows(), x.ncols());
    let y = DVector::from_column_slice(yv);
    let (beta, xtx_inv) = lstsq(x, &y)?;
    let fitted = x * &beta;
    let resid: Vec<f64> = (0..n).map(|i| yv[i] - fitted[i]).collect();
    let ssr = sum(resid.iter().map(|r| r * r));
    let my = mean(yv);
    let sst = sum(yv.iter().map(|v| (v - my) * (v - my)));
    let df_resid = (n - p) as f64;
    let df_model = (p - 1) as f64;
    let sigma2 = ssr / df_resid;
    let se: Vec<f64> = (0..p).map(|j| (sigma2 * xtx_inv[(j, j)]).sqrt()).collect();
    let t: Vec<f64> = (0..p).map(|j| beta[j] / se[j]).collect();
    let pv: Vec<f64> = t
        .iter()
        .map(|t| 2.0 * crate::distributions::t_cdf(df_resid, -t.abs()))
        .collect();
    if sst == 0.0 {
        return Err(ToolError::domain("`data.y` is constant: R² is undefined"));
    }
    let r2 = 1.0 - ssr / sst;
    let adj = 1.0 - (1.0 - r2) * (n as f64 - 1.0) / df_resid;
    let f = ((sst - ssr) / df_model) / sigma2;
    let fp = crate::distributions::f_cdf_sf(df_model, df_resid, f).1;
    let coef: Vec<f64> = beta.iter().copied().collect();
    Ok(json!({
        "type": kind,
        "coefficients": nums(&coef),
        "std_errors": nums(&se),
        "t_values": nums(&t),
        "p_values": nums(&pv),
        "r_squared": num(r2),
        "adj_r_squared": num(adj),
        "f_statistic": num(f),
        "f_p_value": num(fp),
        "residual_std_error": num(sigma2.sqrt()),
        "residual_sum_of_squares": num(ssr),
        "df_residuals": num(df_resid),
        "df_model": num(df_model),
        "n": n,
    }))
}

fn logistic(x: &DMatrix<f64>, yv: &[f64], args: &Args) -> Result<Value, ToolError> {
    if let Some(i) = yv.iter().position(|&v| v != 0.0 && v != 1.0) {
        return Err(ToolError::invalid_params(format!(
            "logistic regression needs `data.y` of 0s and 1s; data.y[{i}] is {}",
            yv[i]
        )));
    }
    if yv.iter().all(|&v| v == yv[0]) {
        return Err(ToolError::domain(format!(
            "every outcome in `data.y` is {}: logistic regression needs both 0s and 1s",
            yv[0]
        )));
    }
    let (n, p) = (x.nrows(), x.ncols());
    let y = DVector::from_column_slice(yv);
    let max_iter = args.ctx.limits.max_iterations.min(100) as usize;
    let mut beta = DVector::<f64>::zeros(p);
    let mut converged = false;
    let mut iterations = 0;
    let mut hess_inv = DMatrix::<f64>::identity(p, p);
    for it in 1..=max_iter {
        args.ctx.checkpoint()?;
        iterations = it;
        let eta = x * &beta;
        let prob = eta.map(sigmoid);
        if (0..n).all(|i| (y[i] - prob[i]).abs() < 1e-10) {
            return Err(ToolError::domain(
                "perfect separation: a combination of the predictors predicts every outcome, so the \
                 maximum-likelihood coefficients are infinite",
            ));
        }
        let w = prob.map(|q| q * (1.0 - q));
        let grad = x.transpose() * (&y - &prob);
        let xw = DMatrix::from_fn(n, p, |i, j| x[(i, j)] * w[i]);
        let hess = x.transpose() * xw;
        let chol = hess.clone().cholesky().ok_or_else(|| {
            ToolError::domain(
                "the information matrix is singular (collinear predictors or separation)",
            )
        })?;
        let step = chol.solve(&grad);
        hess_inv = chol.inverse();
        beta += &step;
        let size = step.amax();
        if size <= 1e-12 * (1.0 + beta.amax()) {
            converged = true;
            break;
        }
    }
    // Final quantities at the estimate.
    let eta = x * &beta;
    let ll = sum((0..n).map(|i| {
        // log σ(η) = -log1p(e^{-η}), computed stably on both signs.
        let e = eta[i];
        if y[i] == 1.0 {
            -softplus(-e)
        } else {
            -softplus(e)
        }
    }));
    let ybar = mean(yv);
    let ll_null = if ybar > 0.0 && ybar < 1.0 {
        n as f64 * (ybar * ybar.ln() + (1.0 - ybar) * (1.0 - ybar).ln())
    } else {
        0.0
    };
    let se: Vec<f64> = (0..p).map(|j| hess_inv[(j, j)].sqrt()).collect();
    let z: Vec<f64> = (0..p).map(|j| beta[j] / se[j]).collect();
    let pv: Vec<f64> = z.iter().map(|z| 2.0 * crate::normal::sf(z.abs())).collect();
    let coef: Vec<f64> = beta.iter().copied().collect();
    let mut out = json!({
        "type": "logistic",
        "coefficients": nums(&coef),
        "std_errors": nums(&se),
        "z_values": nums(&z),
        "p_values": nums(&pv),
        "log_likelihood": num(ll),
        "null_log_likelihood": num(ll_null),
        "pseudo_r_squared": num(if ll_null != 0.0 { 1.0 - ll / ll_null } else { f64::NAN }),
        "converged": converged,
        "iterations": iterations,
        "n": n,
    });
    if !converged {
        out["message"] = json!(format!(
            "Newton's method did not converge in {iterations} iterations (quasi-separation?)"
        ));
    }
    Ok(out)
}

fn sigmoid(e: f64) -> f64 {
    if e >= 0.0 {
        1.0 / (1.0 + (-e).exp())
    } else {
        let t = e.exp();
        t / (1.0 + t)
    }
}

/// `log(1 + e^x)` without overflow.
fn softplus(x: f64) -> f64 {
    if x > 30.0 {
        x + (-x).exp()
    } else {
        x.exp().ln_1p()
    }
}
