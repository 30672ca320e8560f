//! `interpolate`: 1-D linear (`numpy.interp`), cubic splines (`scipy.interpolate.CubicSpline`, not-a-knot
//! or natural), PCHIP (`PchipInterpolator`); 2-D bilinear (`RegularGridInterpolator`, linear) and bicubic
//! (the tensor-product not-a-knot cubic spline, as `RectBivariateSpline(kx=3, ky=3, s=0)`).
//! Cubic formulas follow SciPy's `_cubic.py` (BSD-3-Clause).

#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(a < b)` is deliberate: it also holds for NaN, which must take the failing branch"
)]

use crate::input::{
    arr, check_keys, check_len, get, invalid, matrix, object, opt_bool, opt_choice, require, vector,
};
use beaker_core::{CallContext, ToolError};
use serde_json::{json, Value};

/// A piecewise cubic in Hermite form: values and slopes at the knots.
pub(crate) struct Cubic {
    x: Vec<f64>,
    /// Per interval, `[c3, c2, c1, c0]` in powers of (t − xᵢ), as SciPy's `PPoly` holds them.
    c: Vec<[f64; 4]>,
}

impl Cubic {
    /// SciPy's `CubicHermiteSpline` from values `y` and slopes `s`.
    fn hermite(x: &[f64], y: &[f64], s: &[f64]) -> Cubic {
        let c = (0..x.len() - 1)
            .map(|i| {
                let dx = x[i + 1] - x[i];
                let slope = (y[i + 1] - y[i]) / dx;
                let t = (s[i] + s[i + 1] - 2.0 * slope) / dx;
                [t / dx, (slope - s[i]) / dx - t, s[i], y[i]]
            })
            .collect();
        Cubic { x: x.to_vec(), c }
    }

    /// Evaluates (the end intervals extend beyond the knots).
    pub(crate) fn eval(&self, t: f64) -> f64 {
        let i = interval(&self.x, t);
        let d = t - self.x[i];
        let c = &self.c[i];
        ((c[0] * d + c[1]) * d + c[2]) * d + c[3]
    }
}

/// The index i of the interval [xᵢ, xᵢ₊₁] holding t (clamped to the first and last intervals).
fn interval(x: &[f64], t: f64) -> usize {
    let n = x.len();
    // partition_point: first index with x > t.
    let p = x.partition_point(|v| *v <= t);
    p.saturating_sub(1).min(n - 2)
}

/// Boundary conditions for a cubic spline.
#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Bc {
    NotAKnot,
    Natural,
}

/// SciPy's `CubicSpline(x, y, bc_type)`: slopes from a tridiagonal system.
pub(crate) fn cubic_spline(x: &[f64], y: &[f64], bc: Bc) -> Cubic {
    let n = x.len();
    let dx: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let slope: Vec<f64> = (0..n - 1).map(|i| (y[i + 1] - y[i]) / dx[i]).collect();
    if n == 2 && bc == Bc::NotAKnot {
        return Cubic::hermite(x, y, &[slope[0], slope[0]]);
    }
    if n == 3 && bc == Bc::NotAKnot {
        // The parabola through the three points.
        let a = nalgebra::Matrix3::new(
            1.0,
            1.0,
            0.0,
            dx[1],
            2.0 * (dx[0] + dx[1]),
            dx[0],
            0.0,
            1.0,
            1.0,
        );
        let b = nalgebra::Vector3::new(
            2.0 * slope[0],
            3.0 * (dx[0] * slope[1] + dx[1] * slope[0]),
            2.0 * slope[1],
        );
        let s = a.lu().solve(&b).unwrap_or(b);
        return Cubic::hermite(x, y, s.as_slice());
    }
    // Tridiagonal: lower[i] at (i+1, i), diag[i], upper[i] at (i, i+1).
    let mut lower = vec![0.0; n - 1];
    let mut diag = vec![0.0; n];
    let mut upper = vec![0.0; n - 1];
    let mut b = vec![0.0; n];
    for i in 1..n - 1 {
        diag[i] = 2.0 * (dx[i - 1] + dx[i]);
        upper[i] = dx[i - 1];
        lower[i - 1] = dx[i];
        b[i] = 3.0 * (dx[i] * slope[i - 1] + dx[i - 1] * slope[i]);
    }
    match bc {
        Bc::NotAKnot => {
            let d = x[2] - x[0];
            diag[0] = dx[1];
            upper[0] = d;
            b[0] = ((dx[0] + 2.0 * d) * dx[1] * slope[0] + dx[0] * dx[0] * slope[1]) / d;
            let d = x[n - 1] - x[n - 3];
            diag[n - 1] = dx[n - 3];
            lower[n - 2] = d;
            b[n - 1] = (dx[n - 2] * dx[n - 2] * slope[n - 3]
                + (2.0 * d + dx[n - 2]) * dx[n - 3] * slope[n - 2])
                / d;
        }
        Bc::Natural => {
            diag[0] = 2.0 * dx[0];
            upper[0] = dx[0];
            b[0] = 3.0 * (y[1] - y[0]);
            diag[n - 1] = 2.0 * dx[n - 2];
            lower[n - 2] = dx[n - 2];
            b[n - 1] = 3.0 * (y[n - 1] - y[n - 2]);
        }
    }
    let s = tridiagonal(&lower, &diag, &upper, &b);
    Cubic::hermite(x, y, &s)
}

/// Solves a tridiagonal system with partial pivoting (as LAPACK's banded solver does).
fn tridiagonal(lower: &[f64], diag: &[f64], upper: &[f64], b: &[f64]) -> Vec<f64> {
    let n = diag.len();
    // Rows as (a0, a1, a2) = entries at columns i, i+1, i+2 after elimination (pivoting may fill i+2).
    let mut d = diag.to_vec();
    let mut u1: Vec<f64> = (0..n)
        .map(|i| if i + 1 < n { upper[i] } else { 0.0 })
        .collect();
    let mut u2 = vec![0.0; n];
    let mut l: Vec<f64> = lower.to_vec();
    let mut r = b.to_vec();
    for i in 0..n - 1 {
        // Row i+1 currently: l[i] at column i, d[i+1] at i+1, u1[i+1] at i+2.
        if l[i].abs() > d[i].abs() {
            // Swap rows i and i+1.
            let (ri0, ri1, ri2) = (d[i], u1[i], u2[i]);
            let (rj0, rj1, rj2) = (l[i], d[i + 1], if i + 1 < n - 1 { u1[i + 1] } else { 0.0 });
            d[i] = rj0;
            u1[i] = rj1;
            u2[i] = rj2;
            l[i] = ri0;
            d[i + 1] = ri1;
            if i + 1 < n - 1 {
                u1[i + 1] = ri2;
            }
            r.swap(i, i + 1);
        }
        let m = if d[i] != 0.0 { l[i] / d[i] } else { 0.0 };
        d[i + 1] -= m * u1[i];
        if i + 1 < n - 1 {
            u1[i + 1] -= m * u2[i];
        }
        r[i + 1] -= m * r[i];
    }
    let mut s = vec![0.0; n];
    for i in (0..n).rev() {
        let mut v = r[i];
        if i + 1 < n {
            v -= u1[i] * s[i + 1];
        }
        if i + 2 < n {
            v -= u2[i] * s[i + 2];
        }
        s[i] = v / d[i];
    }
    s
}

fn sign(v: f64) -> f64 {
    if v > 0.0 {
        1.0
    } else if v < 0.0 {
        -1.0
    } else {
        0.0
    }
}

fn pchip_edge(h0: f64, h1: f64, m0: f64, m1: f64) -> f64 {
    let d = ((2.0 * h0 + h1) * m0 - h0 * m1) / (h0 + h1);
    if sign(d) != sign(m0) {
        0.0
    } else if sign(m0) != sign(m1) && d.abs() > 3.0 * m0.abs() {
        3.0 * m0
    } else {
        d
    }
}

/// SciPy's `PchipInterpolator` (Fritsch–Butland slopes, shape-preserving ends).
pub(crate) fn pchip(x: &[f64], y: &[f64]) -> Cubic {
    let n = x.len();
    let h: Vec<f64> = x.windows(2).map(|w| w[1] - w[0]).collect();
    let m: Vec<f64> = (0..n - 1).map(|i| (y[i + 1] - y[i]) / h[i]).collect();
    if n == 2 {
        return Cubic::hermite(x, y, &[m[0], m[0]]);
    }
    let mut d = vec![0.0; n];
    for k in 1..n - 1 {
        let cond = sign(m[k]) != sign(m[k - 1]) || m[k] == 0.0 || m[k - 1] == 0.0;
        if !cond {
            let w1 = 2.0 * h[k] + h[k - 1];
            let w2 = h[k] + 2.0 * h[k - 1];
            let whmean = (w1 / m[k - 1] + w2 / m[k]) / (w1 + w2);
            d[k] = 1.0 / whmean;
        }
    }
    d[0] = pchip_edge(h[0], h[1], m[0], m[1]);
    d[n - 1] = pchip_edge(h[n - 2], h[n - 3], m[n - 2], m[n - 3]);
    Cubic::hermite(x, y, &d)
}

/// `numpy.interp` inside the range (linear extension outside, when extrapolating).
fn linear(x: &[f64], y: &[f64], t: f64) -> f64 {
    let i = interval(x, t);
    if t == x[i + 1] {
        return y[i + 1];
    }
    let slope = (y[i + 1] - y[i]) / (x[i + 1] - x[i]);
    slope * (t - x[i]) + y[i]
}

fn increasing(x: &[f64], what: &str) -> Result<(), ToolError> {
    if let Some(i) = (1..x.len()).find(|&i| !(x[i] > x[i - 1])) {
        return Err(invalid(format!(
            "{what} must be strictly increasing; {what}[{}] = {} is not above {what}[{}] = {}",
            i,
            x[i],
            i - 1,
            x[i - 1]
        )));
    }
    Ok(())
}

fn in_range(
    t: f64,
    x: &[f64],
    what: impl FnOnce() -> String,
    extrapolate: bool,
) -> Result<(), ToolError> {
    if !extrapolate && (t < x[0] || t > x[x.len() - 1]) {
        let what = what();
        return Err(ToolError::domain(format!(
            "{what} = {t} is outside the data range [{}, {}]; set options.extrapolate = true to extrapolate",
            x[0],
            x[x.len() - 1]
        )));
    }
    Ok(())
}

/// Runs `interpolate`.
pub(crate) fn run(data: &Value, options: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let op = "interpolate";
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    let l = &ctx.limits;
    let method = crate::input::method(data, options, "linear")?;
    let extrapolate = opt_bool(options, "extrapolate", false)?;
    match method.as_str() {
        "linear" | "cubic" | "pchip" => {
            check_keys(data, &["x", "y", "x_new", "method"], "data", op)?;
            check_keys(options, &["method", "bc", "extrapolate"], "options", op)?;
            let x = vector(require(data, "x", op)?, "data.x", l)?;
            let y = vector(require(data, "y", op)?, "data.y", l)?;
            if x.len() != y.len() {
                return Err(invalid(format!(
                    "data.x has {} values but data.y has {}",
                    x.len(),
                    y.len()
                )));
            }
            if x.len() < 2 {
                return Err(invalid("interpolation needs at least 2 points"));
            }
            increasing(&x, "data.x")?;
            let single = matches!(get(data, "x_new"), Some(Value::Number(_)));
            let x_new = match require(data, "x_new", op)? {
                v @ Value::Number(_) => vec![crate::input::number(v, "data.x_new")?],
                v => vector(v, "data.x_new", l)?,
            };
            for &t in &x_new {
                in_range(t, &x, || "data.x_new".into(), extrapolate)?;
            }
            ctx.checkpoint()?;
            let bc = match opt_choice(options, "bc", &["not-a-knot", "natural"], "options")? {
                "natural" => Bc::Natural,
                _ => Bc::NotAKnot,
            };
            let values: Vec<f64> = match method.as_str() {
                "linear" => x_new.iter().map(|&t| linear(&x, &y, t)).collect(),
                "cubic" => {
                    let s = cubic_spline(&x, &y, bc);
                    x_new.iter().map(|&t| s.eval(t)).collect()
                }
                _ => {
                    let s = pchip(&x, &y);
                    x_new.iter().map(|&t| s.eval(t)).collect()
                }
            };
            Ok(if single {
                json!({"values": arr(&values), "value": values[0]})
            } else {
                json!({"values": arr(&values)})
            })
        }
        "bilinear" | "bicubic" => {
            check_keys(data, &["x", "y", "z", "points", "method"], "data", op)?;
            check_keys(options, &["method", "extrapolate"], "options", op)?;
            let x = vector(require(data, "x", op)?, "data.x", l)?;
            let y = vector(require(data, "y", op)?, "data.y", l)?;
            increasing(&x, "data.x")?;
            increasing(&y, "data.y")?;
            let z = matrix(require(data, "z", op)?, "data.z", l)?;
            if z.nrows() != x.len() || z.ncols() != y.len() {
                return Err(invalid(format!(
                    "data.z must be len(x) × len(y) = {}×{} (z[i][j] at (x[i], y[j])), got {}×{}",
                    x.len(),
                    y.len(),
                    z.nrows(),
                    z.ncols()
                )));
            }
            let min = if method == "bicubic" { 4 } else { 2 };
            if x.len() < min || y.len() < min {
                return Err(invalid(format!(
                    "`{method}` needs at least {min} grid points along x and y"
                )));
            }
            let pts = match require(data, "points", op)? {
                Value::Array(a) => a,
                other => {
                    return Err(invalid(format!(
                        "data.points must be a list of [x, y] pairs, got {other}"
                    )))
                }
            };
            check_len(pts.len(), l.max_array_len, "data.points", "max_array_len")?;
            if pts.is_empty() {
                return Err(invalid("data.points is empty"));
            }
            let mut points = Vec::with_capacity(pts.len());
            for (i, p) in pts.iter().enumerate() {
                match p {
                    Value::Array(q) if q.len() == 2 => {
                        let px =
                            crate::input::number_with(&q[0], || format!("data.points[{i}][0]"))?;
                        let py =
                            crate::input::number_with(&q[1], || format!("data.points[{i}][1]"))?;
                        in_range(px, &x, || format!("data.points[{i}][0]"), extrapolate)?;
                        in_range(py, &y, || format!("data.points[{i}][1]"), extrapolate)?;
                        points.push((px, py));
                    }
                    other => {
                        return Err(invalid(format!(
                            "data.points[{i}] must be an [x, y] pair, got {other}"
                        )))
                    }
                }
            }
            let values: Vec<f64> = if method == "bilinear" {
                points
                    .iter()
                    .map(|&(px, py)| {
                        let (i, j) = (interval(&x, px), interval(&y, py));
                        let tx = (px - x[i]) / (x[i + 1] - x[i]);
                        let ty = (py - y[j]) / (y[j + 1] - y[j]);
                        z[(i, j)] * (1.0 - tx) * (1.0 - ty)
                            + z[(i + 1, j)] * tx * (1.0 - ty)
                            + z[(i, j + 1)] * (1.0 - tx) * ty
                            + z[(i + 1, j + 1)] * tx * ty
                    })
                    .collect()
            } else {
                // Splines along y for each grid row, then one spline along x per point.
                let rows: Vec<Cubic> = (0..x.len())
                    .map(|i| {
                        let zi: Vec<f64> = (0..y.len()).map(|j| z[(i, j)]).collect();
                        cubic_spline(&y, &zi, Bc::NotAKnot)
                    })
                    .collect();
                let mut out = Vec::with_capacity(points.len());
                for (k, &(px, py)) in points.iter().enumerate() {
                    if k % 256 == 0 {
                        ctx.checkpoint()?;
                    }
                    let col: Vec<f64> = rows.iter().map(|r| r.eval(py)).collect();
                    out.push(cubic_spline(&x, &col, Bc::NotAKnot).eval(px));
                }
                out
            };
            Ok(json!({"values": arr(&values)}))
        }
        other => Err(invalid(format!(
            "data.method = {other:?} is not one of: linear, cubic, pchip, bilinear, bicubic"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn natural_spline_has_zero_second_derivative_at_the_ends() {
        let x = [0.0, 1.0, 2.5, 3.0, 4.0];
        let y = [1.0, -2.0, 0.5, 3.0, 2.0];
        let s = cubic_spline(&x, &y, Bc::Natural);
        // Second derivative of c3 d³ + c2 d² + … at d = 0 is 2 c2; at the right end 6 c3 h + 2 c2.
        assert!(s.c[0][1].abs() < 1e-14);
        let h = x[4] - x[3];
        let last = s.c[3];
        assert!((6.0 * last[0] * h + 2.0 * last[1]).abs() < 1e-12);
        for (xi, yi) in x.iter().zip(y) {
            assert!((s.eval(*xi) - yi).abs() < 1e-14);
        }
    }

    #[test]
    fn not_a_knot_reproduces_cubics_exactly() {
        let f = |x: f64| 2.0 * x * x * x - x * x + 3.0 * x - 5.0;
        let x = [0.0, 0.7, 1.1, 2.0, 3.5, 4.0];
        let y: Vec<f64> = x.iter().map(|v| f(*v)).collect();
        let s = cubic_spline(&x, &y, Bc::NotAKnot);
        for t in [0.3, 1.5, 2.9, 3.9] {
            assert!((s.eval(t) - f(t)).abs() < 1e-11, "{t}");
        }
    }

    #[test]
    fn pchip_is_monotone_on_monotone_data() {
        let x = [0.0, 1.0, 2.0, 3.0, 4.0];
        let y = [0.0, 0.1, 5.0, 5.1, 10.0];
        let s = pchip(&x, &y);
        let mut prev = f64::NEG_INFINITY;
        for k in 0..=400 {
            let v = s.eval(k as f64 / 100.0);
            assert!(v >= prev - 1e-12);
            prev = v;
        }
    }
}
