//! `minimize` (Nelder–Mead as SciPy writes it; BFGS and L-BFGS from argmin with More–Thuente line search
//! and central-difference gradients; bounds), `root_find` (SciPy's Brent `brentq`, its secant method,
//! Newton with a numerical derivative) and `curve_fit` (the MINPACK Levenberg–Marquardt of the
//! `levenberg-marquardt` crate, covariance as `scipy.optimize.curve_fit` computes it).

#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(a < b)` is deliberate: it also holds for NaN, which must take the failing branch"
)]

use crate::input::{
    arr, bound, check_keys, compile, get, invalid, names, number, object, opt_bool, opt_count,
    opt_f64, parse_expr, require, rows, variables, vector, Budget, Fun,
};
use argmin::core::{CostFunction, Executor, Gradient, State, TerminationReason};
use argmin::solver::linesearch::MoreThuenteLineSearch;
use argmin::solver::quasinewton::{BFGS, LBFGS};
use beaker_core::{CallContext, ToolError};
use levenberg_marquardt::{LeastSquaresProblem, LevenbergMarquardt};
use nalgebra::{DMatrix, DVector, Dyn, Owned, SVD};
use serde_json::{json, Value};
use std::cell::RefCell;

const EPS: f64 = f64::EPSILON;

/// `limit_exceeded` for an iteration count past `max_iterations`.
fn iteration_limit(ctx: &CallContext, what: &str) -> ToolError {
    ToolError::limit(format!(
        "{what} needs more than {} iterations; the limit is max_iterations = {}",
        ctx.limits.max_iterations, ctx.limits.max_iterations
    ))
}

// ---------------------------------------------------------------- minimize

/// Per-variable bounds and the smooth change of variables (MINUIT's) that lets unconstrained
/// quasi-Newton methods respect them.
#[derive(Clone, Copy)]
struct Bound {
    lo: f64,
    hi: f64,
}

impl Bound {
    fn to_x(self, u: f64) -> f64 {
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (true, true) => self.lo + (self.hi - self.lo) * (u.sin() + 1.0) / 2.0,
            (true, false) => self.lo - 1.0 + (u * u + 1.0).sqrt(),
            (false, true) => self.hi + 1.0 - (u * u + 1.0).sqrt(),
            (false, false) => u,
        }
    }

    /// The internal variable for x (x clipped into the bounds, nudged off them so the map has a slope).
    fn to_u(self, x: f64) -> f64 {
        let x = x.clamp(self.lo, self.hi);
        match (self.lo.is_finite(), self.hi.is_finite()) {
            (true, true) => {
                let t = (2.0 * (x - self.lo) / (self.hi - self.lo) - 1.0)
                    .clamp(-1.0 + 1e-8, 1.0 - 1e-8);
                t.asin()
            }
            (true, false) => ((x - self.lo + 1.0).powi(2) - 1.0).sqrt().max(1e-4),
            (false, true) => ((self.hi - x + 1.0).powi(2) - 1.0).sqrt().max(1e-4),
            (false, false) => x,
        }
    }
}

/// The objective for argmin: counts, remembers the best point, and parks our errors for the caller.
struct Objective<'a, 'b, 'c> {
    f: &'a Fun<'b, 'c>,
    bounds: &'a [Bound],
    best: &'a RefCell<(f64, Vec<f64>)>,
    error: &'a RefCell<Option<ToolError>>,
}

impl Objective<'_, '_, '_> {
    fn x(&self, u: &[f64]) -> Vec<f64> {
        u.iter().zip(self.bounds).map(|(u, b)| b.to_x(*u)).collect()
    }

    fn value(&self, u: &[f64]) -> Result<f64, argmin::core::Error> {
        let x = self.x(u);
        match self.f.eval(&x) {
            Ok(v) => {
                let mut best = self.best.borrow_mut();
                if v < best.0 {
                    *best = (v, x);
                }
                // argmin's line search copes with +inf but not NaN: NaN becomes +inf (a point to avoid).
                Ok(if v.is_nan() { f64::INFINITY } else { v })
            }
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                Err(argmin::core::Error::msg("stopped"))
            }
        }
    }
}

impl CostFunction for Objective<'_, '_, '_> {
    type Param = Vec<f64>;
    type Output = f64;
    fn cost(&self, u: &Vec<f64>) -> Result<f64, argmin::core::Error> {
        self.value(u)
    }
}

impl Gradient for Objective<'_, '_, '_> {
    type Param = Vec<f64>;
    type Gradient = Vec<f64>;
    fn gradient(&self, u: &Vec<f64>) -> Result<Vec<f64>, argmin::core::Error> {
        let mut p = u.clone();
        let mut g = vec![0.0; u.len()];
        for i in 0..u.len() {
            // Central differences with the step that balances truncation and rounding (ε^(1/3)).
            let h = EPS.cbrt() * u[i].abs().max(1.0);
            p[i] = u[i] + h;
            let fp = self.value(&p)?;
            p[i] = u[i] - h;
            let fm = self.value(&p)?;
            p[i] = u[i];
            g[i] = (fp - fm) / (2.0 * h);
        }
        Ok(g)
    }
}

/// Nelder–Mead's answer: the best point, its value, iterations, evaluations, and why it stopped early (if so).
type SimplexEnd = (Vec<f64>, f64, u64, u64, Option<&'static str>);

/// SciPy's `_minimize_neldermead` (non-adaptive coefficients, bounds by clipping).
#[allow(clippy::too_many_arguments, reason = "the method's knobs")]
fn nelder_mead(
    f: &Fun<'_, '_>,
    x0: &[f64],
    bounds: Option<&[Bound]>,
    xatol: f64,
    fatol: f64,
    maxiter: u64,
    maxfev: u64,
    ctx: &CallContext,
) -> Result<SimplexEnd, ToolError> {
    let n = x0.len();
    let (rho, chi, psi, sigma) = (1.0, 2.0, 0.5, 0.5);
    let clip = |x: &mut Vec<f64>| {
        if let Some(b) = bounds {
            for (v, b) in x.iter_mut().zip(b) {
                *v = v.clamp(b.lo, b.hi);
            }
        }
    };
    let mut start = x0.to_vec();
    clip(&mut start);
    let mut sim: Vec<Vec<f64>> = vec![start.clone()];
    for k in 0..n {
        let mut y = start.clone();
        y[k] = if y[k] != 0.0 { 1.05 * y[k] } else { 0.00025 };
        sim.push(y);
    }
    if let Some(b) = bounds {
        for p in sim.iter_mut() {
            for (v, b) in p.iter_mut().zip(b) {
                if *v > b.hi {
                    *v = 2.0 * b.hi - *v;
                }
                *v = v.clamp(b.lo, b.hi);
            }
        }
    }
    let fcalls = std::cell::Cell::new(0u64);
    let call = |x: &[f64]| -> Result<f64, ToolError> {
        fcalls.set(fcalls.get() + 1);
        let v = f.eval(x)?;
        // NaN compares as worst.
        Ok(if v.is_nan() { f64::INFINITY } else { v })
    };
    let mut fsim: Vec<f64> = Vec::with_capacity(n + 1);
    for p in &sim {
        fsim.push(call(p)?);
    }
    let sort = |sim: &mut Vec<Vec<f64>>, fsim: &mut Vec<f64>| {
        let mut idx: Vec<usize> = (0..fsim.len()).collect();
        idx.sort_by(|&a, &b| fsim[a].total_cmp(&fsim[b]));
        *sim = idx.iter().map(|&i| sim[i].clone()).collect();
        *fsim = idx.iter().map(|&i| fsim[i]).collect();
    };
    sort(&mut sim, &mut fsim);
    let mut iterations: u64 = 1;
    while fcalls.get() < maxfev && iterations < maxiter {
        ctx.checkpoint()?;
        if iterations > ctx.limits.max_iterations {
            return Err(iteration_limit(ctx, "Nelder–Mead"));
        }
        let xspread = sim[1..]
            .iter()
            .flat_map(|p| p.iter().zip(&sim[0]).map(|(a, b)| (a - b).abs()))
            .fold(0.0, f64::max);
        let fspread = fsim[1..]
            .iter()
            .map(|v| (fsim[0] - v).abs())
            .fold(0.0, f64::max);
        if xspread <= xatol && fspread <= fatol {
            break;
        }
        let xbar: Vec<f64> = (0..n)
            .map(|j| sim[..n].iter().map(|p| p[j]).sum::<f64>() / n as f64)
            .collect();
        let worst = sim[n].clone();
        let point = |a: f64, b: f64| -> Vec<f64> {
            let mut p: Vec<f64> = (0..n).map(|j| a * xbar[j] - b * worst[j]).collect();
            clip(&mut p);
            p
        };
        let xr = point(1.0 + rho, rho);
        let fxr = call(&xr)?;
        let mut shrink = false;
        if fxr < fsim[0] {
            let xe = point(1.0 + rho * chi, rho * chi);
            let fxe = call(&xe)?;
            if fxe < fxr {
                sim[n] = xe;
                fsim[n] = fxe;
            } else {
                sim[n] = xr;
                fsim[n] = fxr;
            }
        } else if fxr < fsim[n - 1] {
            sim[n] = xr;
            fsim[n] = fxr;
        } else if fxr < fsim[n] {
            let xc = point(1.0 + psi * rho, psi * rho);
            let fxc = call(&xc)?;
            if fxc <= fxr {
                sim[n] = xc;
                fsim[n] = fxc;
            } else {
                shrink = true;
            }
        } else {
            let xcc = point(1.0 - psi, -psi);
            let fxcc = call(&xcc)?;
            if fxcc < fsim[n] {
                sim[n] = xcc;
                fsim[n] = fxcc;
            } else {
                shrink = true;
            }
        }
        if shrink {
            for j in 1..=n {
                let mut p: Vec<f64> = (0..n)
                    .map(|k| sim[0][k] + sigma * (sim[j][k] - sim[0][k]))
                    .collect();
                clip(&mut p);
                fsim[j] = call(&p)?;
                sim[j] = p;
            }
        }
        iterations += 1;
        sort(&mut sim, &mut fsim);
    }
    let fcalls = fcalls.get();
    let reason = if fcalls >= maxfev {
        Some("Maximum number of function evaluations has been exceeded.")
    } else if iterations >= maxiter {
        Some("Maximum number of iterations has been exceeded.")
    } else {
        None
    };
    Ok((sim[0].clone(), fsim[0], iterations, fcalls, reason))
}

/// Runs `minimize`.
pub(crate) fn minimize(
    data: &Value,
    options: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let op = "minimize";
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    check_keys(data, &["function", "x0", "variables", "bounds"], "data", op)?;
    check_keys(
        options,
        &["method", "maxiter", "maxfev", "xatol", "fatol", "gtol"],
        "options",
        op,
    )?;
    let l = &ctx.limits;
    let expr = parse_expr(require(data, "function", op)?, "data.function", ctx)?;
    let x0 = match require(data, "x0", op)? {
        v @ Value::Number(_) => vec![number(v, "data.x0")?],
        v => vector(v, "data.x0", l)?,
    };
    crate::input::check_len(x0.len(), l.max_matrix_dim, "data.x0", "max_matrix_dim")?;
    let vars = variables(data, &expr, &["x"])?;
    if vars.len() != x0.len() {
        return Err(invalid(format!(
            "data.x0 has {} values but the function has {} variables ({}); x0 follows that order",
            x0.len(),
            vars.len(),
            vars.join(", ")
        )));
    }
    let n = x0.len();
    let bounds: Option<Vec<Bound>> = match get(data, "bounds") {
        None => None,
        Some(Value::Array(b)) if b.len() == n => Some(
            b.iter()
                .enumerate()
                .map(|(i, p)| match p {
                    Value::Array(q) if q.len() == 2 => {
                        let side = |v: &Value, d: f64, w: &str| if v.is_null() { Ok(d) } else { bound(v, w) };
                        let lo = side(&q[0], f64::NEG_INFINITY, &format!("data.bounds[{i}][0]"))?;
                        let hi = side(&q[1], f64::INFINITY, &format!("data.bounds[{i}][1]"))?;
                        if !(lo <= hi) {
                            return Err(invalid(format!("data.bounds[{i}]: lower bound {lo} is above upper bound {hi}")));
                        }
                        Ok(Bound { lo, hi })
                    }
                    other => Err(invalid(format!("data.bounds[{i}] must be [low, high] (null or \"inf\" for none), got {other}"))),
                })
                .collect::<Result<_, _>>()?,
        ),
        Some(other) => {
            return Err(invalid(format!(
                "data.bounds must be a list of {n} [low, high] pairs, got {other}"
            )))
        }
    };
    let default_method = if bounds.is_some() { "L-BFGS-B" } else { "BFGS" };
    let method = match get(options, "method") {
        None => default_method.to_string(),
        Some(Value::String(s)) => match s.to_ascii_lowercase().replace(['_', ' '], "-").as_str() {
            "nelder-mead" | "neldermead" => "Nelder-Mead".into(),
            "bfgs" => "BFGS".into(),
            "l-bfgs-b" | "l-bfgs" | "lbfgs" | "lbfgsb" => "L-BFGS-B".into(),
            _ => {
                return Err(invalid(format!(
                    "options.method = {s:?} is not one of: Nelder-Mead, BFGS, L-BFGS-B"
                )))
            }
        },
        Some(v) => return Err(invalid(format!("options.method must be a string, got {v}"))),
    };
    let budget = Budget::new(ctx);
    let f = compile(&expr, &vars, "data.function", &budget)?;
    let start: Vec<f64> = match &bounds {
        Some(b) => x0.iter().zip(b).map(|(x, b)| x.clamp(b.lo, b.hi)).collect(),
        None => x0.clone(),
    };
    let f0 = f.eval(&start)?;
    if !f0.is_finite() {
        return Err(ToolError::domain(format!(
            "data.function is not finite ({f0}) at the start point x0 = {start:?}; start where it is defined"
        )));
    }
    let unbounded = vec![
        Bound {
            lo: f64::NEG_INFINITY,
            hi: f64::INFINITY
        };
        n
    ];
    let b = bounds.as_deref().unwrap_or(&unbounded);
    let (x, fun, iterations, converged, message) = if method == "Nelder-Mead" {
        let maxiter = opt_count(options, "maxiter", 200 * n as u64, "options")?;
        let maxfev = opt_count(options, "maxfev", 200 * n as u64, "options")?;
        let xatol = opt_f64(options, "xatol", 1e-4, (|x| x >= 0.0, "non-negative"))?;
        let fatol = opt_f64(options, "fatol", 1e-4, (|x| x >= 0.0, "non-negative"))?;
        let (x, fun, it, _, reason) = nelder_mead(
            &f,
            &x0,
            bounds.as_deref(),
            xatol,
            fatol,
            maxiter,
            maxfev,
            ctx,
        )?;
        (
            x,
            fun,
            it,
            reason.is_none(),
            reason
                .unwrap_or("Optimization terminated successfully.")
                .to_string(),
        )
    } else {
        let maxiter = opt_count(options, "maxiter", 200 * n as u64, "options")?;
        let gtol = opt_f64(options, "gtol", 1e-5, (|x| x > 0.0, "positive"))?;
        let cap = maxiter.min(l.max_iterations);
        let best = RefCell::new((f64::INFINITY, x0.clone()));
        let error = RefCell::new(None);
        let problem = Objective {
            f: &f,
            bounds: b,
            best: &best,
            error: &error,
        };
        let u0: Vec<f64> = x0.iter().zip(b).map(|(x, b)| b.to_u(*x)).collect();
        let ls = MoreThuenteLineSearch::new();
        let run = if method == "BFGS" && bounds.is_none() {
            let eye: Vec<Vec<f64>> = (0..n)
                .map(|i| (0..n).map(|j| if i == j { 1.0 } else { 0.0 }).collect())
                .collect();
            let solver = BFGS::new(ls)
                .with_tolerance_grad(gtol)
                .map_err(|e| invalid(e.to_string()))?;
            Executor::new(problem, solver)
                .configure(|s| s.param(u0).inv_hessian(eye).max_iters(cap))
                .run()
                .map(|r| {
                    (
                        r.state().get_iter(),
                        r.state().get_termination_reason().cloned(),
                    )
                })
        } else {
            let solver = LBFGS::new(ls, 10)
                .with_tolerance_grad(gtol)
                .map_err(|e| invalid(e.to_string()))?;
            Executor::new(problem, solver)
                .configure(|s| s.param(u0).max_iters(cap))
                .run()
                .map(|r| {
                    (
                        r.state().get_iter(),
                        r.state().get_termination_reason().cloned(),
                    )
                })
        };
        if let Some(e) = error.borrow_mut().take() {
            return Err(e);
        }
        let (bx, bf) = {
            let b = best.borrow();
            (b.1.clone(), b.0)
        };
        match run {
            Ok((iters, reason)) => {
                let (converged, message) = match reason {
                    Some(TerminationReason::SolverConverged) => {
                        (true, "Optimization terminated successfully.".to_string())
                    }
                    Some(TerminationReason::MaxItersReached) if cap < maxiter => {
                        return Err(iteration_limit(ctx, &method))
                    }
                    Some(TerminationReason::MaxItersReached) => (
                        false,
                        "Maximum number of iterations has been exceeded.".to_string(),
                    ),
                    Some(other) => (false, other.text().to_string()),
                    None => (false, "the solver stopped without a reason".to_string()),
                };
                (bx, bf, iters, converged, message)
            }
            Err(e) => (bx, bf, 0, false, format!("the line search failed: {e}")),
        }
    };
    if !fun.is_finite() {
        return Err(ToolError::domain(format!(
            "data.function is not finite at every point tried (best value {fun}); the problem may be unbounded below or undefined near x0"
        )));
    }
    let mut out = json!({
        "x": arr(&x),
        "fun": fun,
        "iterations": iterations,
        "evaluations": budget.used(),
        "converged": converged,
        "method": method,
        "message": message,
    });
    if vars.len() > 1 || get(data, "variables").is_some() {
        out["variables"] = json!(vars);
    }
    Ok(out)
}

// ---------------------------------------------------------------- root_find

/// SciPy's `brentq` (C original in `scipy/optimize/Zeros/brentq.c`): `(root, iterations, converged)`.
fn brentq(
    f: &mut dyn FnMut(f64) -> Result<f64, ToolError>,
    xa: f64,
    xb: f64,
    xtol: f64,
    rtol: f64,
    maxiter: u64,
) -> Result<(f64, u64, bool), ToolError> {
    let (mut xpre, mut xcur) = (xa, xb);
    let (mut xblk, mut fblk, mut spre, mut scur) = (0.0, 0.0, 0.0, 0.0);
    let mut fpre = f(xpre)?;
    let mut fcur = f(xcur)?;
    if fpre == 0.0 {
        return Ok((xpre, 0, true));
    }
    if fcur == 0.0 {
        return Ok((xcur, 0, true));
    }
    if fpre.is_sign_negative() == fcur.is_sign_negative() {
        return Err(ToolError::domain(format!(
            "f(a) and f(b) must have opposite signs: f({xa}) = {fpre}, f({xb}) = {fcur}"
        )));
    }
    let mut iterations = 0;
    for _ in 0..maxiter {
        iterations += 1;
        if fpre != 0.0 && fcur != 0.0 && fpre.is_sign_negative() != fcur.is_sign_negative() {
            xblk = xpre;
            fblk = fpre;
            spre = xcur - xpre;
            scur = spre;
        }
        if fblk.abs() < fcur.abs() {
            xpre = xcur;
            xcur = xblk;
            xblk = xpre;
            fpre = fcur;
            fcur = fblk;
            fblk = fpre;
        }
        let delta = (xtol + rtol * xcur.abs()) / 2.0;
        let sbis = (xblk - xcur) / 2.0;
        if fcur == 0.0 || sbis.abs() < delta {
            return Ok((xcur, iterations, true));
        }
        if spre.abs() > delta && fcur.abs() < fpre.abs() {
            let stry = if xpre == xblk {
                -fcur * (xcur - xpre) / (fcur - fpre)
            } else {
                let dpre = (fpre - fcur) / (xpre - xcur);
                let dblk = (fblk - fcur) / (xblk - xcur);
                -fcur * (fblk * dblk - fpre * dpre) / (dblk * dpre * (fblk - fpre))
            };
            if 2.0 * stry.abs() < spre.abs().min(3.0 * sbis.abs() - delta) {
                spre = scur;
                scur = stry;
            } else {
                spre = sbis;
                scur = sbis;
            }
        } else {
            spre = sbis;
            scur = sbis;
        }
        xpre = xcur;
        fpre = fcur;
        if scur.abs() > delta {
            xcur += scur;
        } else {
            xcur += if sbis > 0.0 { delta } else { -delta };
        }
        fcur = f(xcur)?;
    }
    Ok((xcur, iterations, false))
}

/// SciPy's `newton` without a derivative (the secant method), or with `deriv` (Newton–Raphson).
fn newton(
    f: &mut dyn FnMut(f64) -> Result<f64, ToolError>,
    x0: f64,
    x1: Option<f64>,
    tol: f64,
    rtol: f64,
    maxiter: u64,
    newton: bool,
) -> Result<(f64, u64, bool), ToolError> {
    let close = |a: f64, b: f64| (a - b).abs() <= tol + rtol * b.abs();
    if newton {
        let mut p0 = x0;
        for it in 1..=maxiter {
            let fval = f(p0)?;
            if fval == 0.0 {
                return Ok((p0, it, true));
            }
            let h = EPS.cbrt() * p0.abs().max(1.0);
            let d = (f(p0 + h)? - f(p0 - h)?) / (2.0 * h);
            if d == 0.0 {
                return Err(ToolError::domain(format!(
                    "the derivative is zero at x = {p0}; Newton's method cannot continue (try a bracket)"
                )));
            }
            let p = p0 - fval / d;
            if close(p, p0) {
                return Ok((p, it, true));
            }
            p0 = p;
        }
        return Ok((p0, maxiter, false));
    }
    let mut p0 = x0;
    let mut p1 = match x1 {
        Some(x1) => x1,
        None => {
            let p = x0 * (1.0 + 1e-4);
            p + if p >= 0.0 { 1e-4 } else { -1e-4 }
        }
    };
    let mut q0 = f(p0)?;
    let mut q1 = f(p1)?;
    if q1.abs() < q0.abs() {
        std::mem::swap(&mut p0, &mut p1);
        std::mem::swap(&mut q0, &mut q1);
    }
    for it in 1..=maxiter {
        let p = if q1 == q0 {
            // The secant is flat: SciPy stops at the midpoint.
            return Ok(((p1 + p0) / 2.0, it, p1 == p0));
        } else if q1.abs() > q0.abs() {
            (-q0 / q1 * p1 + p0) / (1.0 - q0 / q1)
        } else {
            (-q1 / q0 * p0 + p1) / (1.0 - q1 / q0)
        };
        if close(p, p1) {
            return Ok((p, it, true));
        }
        p0 = p1;
        q0 = q1;
        p1 = p;
        q1 = f(p1)?;
    }
    Ok((p1, maxiter, false))
}

/// Runs `root_find`.
pub(crate) fn root_find(
    data: &Value,
    options: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let op = "root_find";
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    check_keys(
        data,
        &["function", "bracket", "x0", "x1", "variables"],
        "data",
        op,
    )?;
    check_keys(
        options,
        &["method", "xtol", "rtol", "maxiter"],
        "options",
        op,
    )?;
    let expr = parse_expr(require(data, "function", op)?, "data.function", ctx)?;
    let vars = variables(data, &expr, &["x"])?;
    if vars.len() != 1 {
        return Err(invalid(format!(
            "`root_find` solves f(x) = 0 in one variable; data.function has {} ({})",
            vars.len(),
            vars.join(", ")
        )));
    }
    let budget = Budget::new(ctx);
    let fun = compile(&expr, &vars, "data.function", &budget)?;
    let name = vars[0].clone();
    let mut f = |x: f64| -> Result<f64, ToolError> {
        let v = fun.eval(&[x])?;
        if v.is_nan() {
            return Err(ToolError::domain(format!(
                "data.function is NaN at {name} = {x}"
            )));
        }
        Ok(v)
    };
    let has_bracket = get(data, "bracket").is_some();
    let method = match get(options, "method") {
        None if has_bracket => "brentq",
        None => "secant",
        Some(Value::String(s)) => match s.to_ascii_lowercase().as_str() {
            "brentq" | "brent" => "brentq",
            "secant" => "secant",
            "newton" => "newton",
            _ => {
                return Err(invalid(format!(
                    "options.method = {s:?} is not one of: brentq, secant, newton"
                )))
            }
        },
        Some(v) => return Err(invalid(format!("options.method must be a string, got {v}"))),
    };
    let maxiter = opt_count(
        options,
        "maxiter",
        if method == "brentq" { 100 } else { 50 },
        "options",
    )?;
    if maxiter > ctx.limits.max_iterations {
        return Err(iteration_limit(ctx, "options.maxiter"));
    }
    let (root, iterations, converged) = if method == "brentq" {
        let br =
            match get(data, "bracket") {
                Some(Value::Array(b)) if b.len() == 2 => (
                    number(&b[0], "data.bracket[0]")?,
                    number(&b[1], "data.bracket[1]")?,
                ),
                Some(other) => {
                    return Err(invalid(format!("data.bracket must be [a, b], got {other}")))
                }
                None => return Err(invalid(
                    "method brentq needs data.bracket = [a, b] with f(a), f(b) of opposite signs",
                )),
            };
        let xtol = opt_f64(options, "xtol", 2e-12, (|x| x > 0.0, "positive"))?;
        let rtol = opt_f64(
            options,
            "rtol",
            4.0 * EPS,
            (|x| x >= 4.0 * EPS, "at least 4ε = 8.9e-16"),
        )?;
        brentq(&mut f, br.0, br.1, xtol, rtol, maxiter)?
    } else {
        let x0 = match get(data, "x0") {
            Some(v) => number(v, "data.x0")?,
            None => {
                return Err(invalid(format!(
                    "method {method} needs data.x0 (a starting point); or give data.bracket"
                )))
            }
        };
        let x1 = get(data, "x1").map(|v| number(v, "data.x1")).transpose()?;
        let tol = opt_f64(options, "xtol", 1.48e-8, (|x| x > 0.0, "positive"))?;
        let rtol = opt_f64(options, "rtol", 0.0, (|x| x >= 0.0, "non-negative"))?;
        newton(&mut f, x0, x1, tol, rtol, maxiter, method == "newton")?
    };
    let fv = fun.eval(&[root])?;
    let mut out = json!({
        "root": root,
        "converged": converged,
        "iterations": iterations,
        "function_value": fv,
        "evaluations": budget.used(),
        "method": method,
    });
    if !converged {
        out["message"] = json!(format!(
            "no convergence after {iterations} iterations (options.maxiter = {maxiter}); the last iterate is returned"
        ));
    }
    Ok(out)
}

// ---------------------------------------------------------------- curve_fit

struct Fit<'a, 'b, 'c> {
    model: &'a Fun<'b, 'c>,
    x: &'a [f64],
    y: &'a [f64],
    sigma: Option<&'a [f64]>,
    p: DVector<f64>,
    vars: RefCell<Vec<f64>>,
    error: &'a RefCell<Option<ToolError>>,
}

impl Fit<'_, '_, '_> {
    fn residuals_at(&self, p: &DVector<f64>) -> Result<DVector<f64>, ToolError> {
        let mut vars = self.vars.borrow_mut();
        let k = p.len();
        vars[..k].copy_from_slice(p.as_slice());
        let mut r = DVector::zeros(self.x.len());
        for i in 0..self.x.len() {
            vars[k] = self.x[i];
            let v = self.model.eval(&vars)? - self.y[i];
            r[i] = match self.sigma {
                Some(s) => v / s[i],
                None => v,
            };
        }
        Ok(r)
    }

    /// MINPACK's `fdjac2` forward differences (step √ε·|pⱼ|, or √ε when pⱼ = 0).
    fn jacobian_at(&self, p: &DVector<f64>, r0: &DVector<f64>) -> Result<DMatrix<f64>, ToolError> {
        let (m, n) = (r0.len(), p.len());
        let mut j = DMatrix::zeros(m, n);
        let mut q = p.clone();
        for c in 0..n {
            let mut h = EPS.sqrt() * p[c].abs();
            if h == 0.0 {
                h = EPS.sqrt();
            }
            q[c] = p[c] + h;
            let r = self.residuals_at(&q)?;
            q[c] = p[c];
            j.set_column(c, &((r - r0) / h));
        }
        Ok(j)
    }

    fn park<T>(&self, r: Result<T, ToolError>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(e) => {
                *self.error.borrow_mut() = Some(e);
                None
            }
        }
    }
}

impl LeastSquaresProblem<f64, Dyn, Dyn> for Fit<'_, '_, '_> {
    type ResidualStorage = Owned<f64, Dyn>;
    type JacobianStorage = Owned<f64, Dyn, Dyn>;
    type ParameterStorage = Owned<f64, Dyn>;

    fn set_params(&mut self, p: &DVector<f64>) {
        self.p.copy_from(p);
    }

    fn params(&self) -> DVector<f64> {
        self.p.clone()
    }

    fn residuals(&self) -> Option<DVector<f64>> {
        if self.error.borrow().is_some() {
            return None;
        }
        let r = self.residuals_at(&self.p);
        self.park(r)
    }

    fn jacobian(&self) -> Option<DMatrix<f64>> {
        if self.error.borrow().is_some() {
            return None;
        }
        let r = self
            .residuals_at(&self.p)
            .and_then(|r0| self.jacobian_at(&self.p, &r0));
        self.park(r)
    }
}

/// Runs `curve_fit`.
pub(crate) fn curve_fit(
    data: &Value,
    options: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let op = "curve_fit";
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    check_keys(
        data,
        &["model", "x", "y", "p0", "sigma", "parameters"],
        "data",
        op,
    )?;
    check_keys(
        options,
        &["absolute_sigma", "maxfev", "ftol", "xtol", "gtol"],
        "options",
        op,
    )?;
    let l = &ctx.limits;
    let expr = parse_expr(require(data, "model", op)?, "data.model", ctx)?;
    let x = vector(require(data, "x", op)?, "data.x", l)?;
    let y = vector(require(data, "y", op)?, "data.y", l)?;
    if x.len() != y.len() {
        return Err(invalid(format!(
            "data.x has {} values but data.y has {}",
            x.len(),
            y.len()
        )));
    }
    let params: Vec<String> = match get(data, "parameters") {
        Some(v) => names(v, "data.parameters")?,
        None => expr
            .variables()
            .iter()
            .filter(|v| *v != "x")
            .cloned()
            .collect(),
    };
    if params.is_empty() {
        return Err(invalid(
            "data.model has no parameters to fit (every name other than x is a parameter)",
        ));
    }
    if params.iter().any(|p| p == "x") {
        return Err(invalid(
            "data.parameters must not contain `x`, the independent variable",
        ));
    }
    crate::input::check_len(
        params.len(),
        l.max_matrix_dim,
        "the parameters",
        "max_matrix_dim",
    )?;
    let k = params.len();
    let p0 = match get(data, "p0") {
        Some(v) => {
            let p = vector(v, "data.p0", l)?;
            if p.len() != k {
                return Err(invalid(format!(
                    "data.p0 has {} values for {k} parameters ({})",
                    p.len(),
                    params.join(", ")
                )));
            }
            p
        }
        None => vec![1.0; k],
    };
    let sigma = match get(data, "sigma") {
        Some(v) => {
            let s = vector(v, "data.sigma", l)?;
            if s.len() != y.len() {
                return Err(invalid(format!(
                    "data.sigma has {} values but data.y has {}",
                    s.len(),
                    y.len()
                )));
            }
            if let Some(i) = s.iter().position(|v| !(*v > 0.0)) {
                return Err(invalid(format!(
                    "data.sigma[{i}] = {} must be positive",
                    s[i]
                )));
            }
            Some(s)
        }
        None => None,
    };
    let absolute_sigma = opt_bool(options, "absolute_sigma", false)?;
    let maxfev = opt_count(options, "maxfev", 200 * (k as u64 + 1), "options")?;
    let ftol = opt_f64(options, "ftol", 1.49012e-8, (|x| x >= 0.0, "non-negative"))?;
    let xtol = opt_f64(options, "xtol", 1.49012e-8, (|x| x >= 0.0, "non-negative"))?;
    let gtol = opt_f64(options, "gtol", 0.0, (|x| x >= 0.0, "non-negative"))?;
    let mut order = params.clone();
    order.push("x".into());
    let budget = Budget::new(ctx);
    let model = compile(&expr, &order, "data.model", &budget)?;
    let error = RefCell::new(None);
    let fit = Fit {
        model: &model,
        x: &x,
        y: &y,
        sigma: sigma.as_deref(),
        p: DVector::from_vec(p0),
        vars: RefCell::new(vec![0.0; k + 1]),
        error: &error,
    };
    let start = fit.residuals_at(&fit.p)?;
    if let Some(i) = start.iter().position(|r| !r.is_finite()) {
        return Err(ToolError::domain(format!(
            "data.model is not finite at x = {} with the initial parameters p0",
            x[i]
        )));
    }
    let patience = (maxfev as usize).div_ceil(k + 1).max(1);
    let lm = LevenbergMarquardt::new()
        .with_ftol(ftol)
        .with_xtol(xtol)
        .with_gtol(gtol)
        .with_stepbound(100.0)
        .with_patience(patience);
    let (fit, report) = lm.minimize(fit);
    if let Some(e) = error.borrow_mut().take() {
        return Err(e);
    }
    let p = fit.p.clone();
    let r = fit.residuals_at(&p)?;
    let rss = r.norm_squared();
    let converged = report.termination.was_successful();
    let mut out = json!({
        "params": arr(p.as_slice()),
        "parameters": params,
        "residual_sum_of_squares": rss,
        "converged": converged,
        "evaluations": budget.used(),
    });
    if !converged {
        out["message"] = json!(format!(
            "Levenberg–Marquardt stopped: {:?}",
            report.termination
        ));
    }
    let m = x.len();
    if m <= k && !absolute_sigma {
        out["message"] = json!(format!(
            "the covariance cannot be estimated: {m} data points for {k} parameters leave no degrees of freedom"
        ));
        return Ok(out);
    }
    let j = fit.jacobian_at(&p, &r)?;
    let svd = SVD::try_new(j, false, true, EPS, 1000 * k.max(10));
    let cov = svd.and_then(|s| {
        let vt = s.v_t?;
        let smax = s.singular_values.max();
        if s.singular_values
            .iter()
            .any(|v| *v <= EPS * m.max(k) as f64 * smax)
        {
            return None;
        }
        // (JᵀJ)⁻¹ = V S⁻² Vᵀ.
        let sinv2 = DMatrix::from_diagonal(&s.singular_values.map(|v| 1.0 / (v * v)));
        Some(vt.transpose() * sinv2 * vt)
    });
    match cov {
        Some(mut c) => {
            if !absolute_sigma {
                c *= rss / (m - k) as f64;
            }
            let se: Vec<f64> = (0..k).map(|i| c[(i, i)].sqrt()).collect();
            out["covariance"] = rows(&c);
            out["std_errors"] = arr(&se);
        }
        None => {
            out["message"] = json!(
                "the covariance cannot be estimated: the Jacobian is singular at the solution (a parameter has no effect, or two act alike)"
            );
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brentq_matches_scipy_on_the_seed_example() {
        let mut f = |x: f64| Ok(x * x * x - x - 2.0);
        let (root, _, ok) = brentq(&mut f, 1.0, 2.0, 2e-12, 4.0 * EPS, 100).unwrap();
        assert!(ok);
        assert!((root - 1.5213797068045676).abs() < 4e-12);
    }

    #[test]
    fn bound_maps_round_trip_inside_the_box() {
        for b in [
            Bound { lo: -1.0, hi: 3.0 },
            Bound {
                lo: 2.0,
                hi: f64::INFINITY,
            },
            Bound {
                lo: f64::NEG_INFINITY,
                hi: -5.0,
            },
        ] {
            for x in [-0.5f64, 0.0, 2.5, 7.0, -9.0] {
                let inside = x.clamp(b.lo, b.hi);
                let back = b.to_x(b.to_u(x));
                assert!((back - inside).abs() < 1e-6, "{x} -> {back}");
                assert!(back >= b.lo && back <= b.hi);
            }
        }
    }
}
