//! Initial value problems, ported from SciPy's `solve_ivp` (BSD-3-Clause): RK45 (Dormand–Prince 5(4) with
//! its quartic dense output), DOP853 (Dormand–Prince 8(5,3), 7th-order dense output) and Radau (implicit
//! Radau IIA of order 5, for stiff problems, with simplified Newton iterations and a finite-difference
//! Jacobian). Step-size control, initial step selection and messages follow SciPy, so step sequences and
//! `nfev` agree with SciPy's closely.

#![allow(
    clippy::needless_range_loop,
    reason = "index loops mirror the published algorithms (QUADPACK, SciPy) line by line"
)]
#![allow(
    clippy::excessive_precision,
    reason = "coefficients as published; the compiler rounds each to the nearest double"
)]
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    reason = "`!(a < b)` is deliberate: it also holds for NaN, which must take the failing branch"
)]

use crate::dop853 as d8;
use crate::input::{
    arr, bound, check_keys, check_len, compile, get, invalid, names, number, object, opt_choice,
    opt_f64, parse_expr, require, vector, Budget, Fun,
};
use beaker_core::{CallContext, ToolError};
use nalgebra::{Complex, DMatrix, DVector, LU};
use serde_json::{json, Value};

const EPS: f64 = f64::EPSILON;
const SAFETY: f64 = 0.9;
const MIN_FACTOR: f64 = 0.2;
const MAX_FACTOR: f64 = 10.0;
const TOO_SMALL_STEP: &str = "Required step size is less than spacing between numbers.";
const SUCCESS: &str = "The solver successfully reached the end of the integration interval.";

/// The right-hand side: one compiled expression per component, variables `[t, y...]`.
struct System<'b, 'c> {
    eqs: Vec<Fun<'b, 'c>>,
    vars: Vec<f64>,
    /// Extra slots after the state (the alias `y` for a scalar problem).
    alias: bool,
    nfev: u64,
}

impl System<'_, '_> {
    fn eval(&mut self, t: f64, y: &[f64], out: &mut [f64]) -> Result<(), ToolError> {
        self.nfev += 1;
        self.vars[0] = t;
        self.vars[1..=y.len()].copy_from_slice(y);
        if self.alias {
            self.vars[y.len() + 1] = y[0];
        }
        for (o, e) in out.iter_mut().zip(&self.eqs) {
            *o = e.eval(&self.vars)?;
        }
        Ok(())
    }
}

fn rms(v: impl Iterator<Item = f64>, n: usize) -> f64 {
    (v.map(|x| x * x).sum::<f64>() / n as f64).sqrt()
}

/// SciPy's `select_initial_step`.
#[allow(
    clippy::too_many_arguments,
    reason = "a direct port of SciPy's function"
)]
fn initial_step(
    sys: &mut System<'_, '_>,
    t0: f64,
    y0: &[f64],
    t_bound: f64,
    max_step: f64,
    f0: &[f64],
    direction: f64,
    order: f64,
    rtol: f64,
    atol: &[f64],
) -> Result<f64, ToolError> {
    let n = y0.len();
    let interval = (t_bound - t0).abs();
    if interval == 0.0 {
        return Ok(0.0);
    }
    let scale: Vec<f64> = (0..n).map(|i| atol[i] + y0[i].abs() * rtol).collect();
    let d0 = rms((0..n).map(|i| y0[i] / scale[i]), n);
    let d1 = rms((0..n).map(|i| f0[i] / scale[i]), n);
    let h0 = if d0 < 1e-5 || d1 < 1e-5 {
        1e-6
    } else {
        0.01 * d0 / d1
    };
    let h0 = h0.min(interval);
    let y1: Vec<f64> = (0..n).map(|i| y0[i] + h0 * direction * f0[i]).collect();
    let mut f1 = vec![0.0; n];
    sys.eval(t0 + h0 * direction, &y1, &mut f1)?;
    let d2 = rms((0..n).map(|i| (f1[i] - f0[i]) / scale[i]), n) / h0;
    let h1 = if d1 <= 1e-15 && d2 <= 1e-15 {
        (h0 * 1e-3).max(1e-6)
    } else {
        (0.01 / d1.max(d2)).powf(1.0 / (order + 1.0))
    };
    Ok((100.0 * h0).min(h1).min(interval).min(max_step))
}

fn min_step(t: f64, direction: f64) -> f64 {
    10.0 * (next_toward(t, direction) - t).abs()
}

/// `np.nextafter(t, direction * inf)`.
fn next_toward(t: f64, direction: f64) -> f64 {
    if t == 0.0 {
        return direction * f64::from_bits(1);
    }
    let bits = t.to_bits();
    let up = (direction > 0.0) == (t > 0.0);
    f64::from_bits(if up { bits + 1 } else { bits - 1 })
}

/// What every solver shares.
struct State {
    n: usize,
    t: f64,
    y: Vec<f64>,
    f: Vec<f64>,
    t_old: f64,
    y_old: Vec<f64>,
    t_bound: f64,
    direction: f64,
    rtol: f64,
    atol: Vec<f64>,
    max_step: f64,
    h_abs: f64,
}

enum Method {
    Rk45,
    Dop853,
    Radau,
}

/// An explicit Runge–Kutta pair (RK45 or DOP853).
struct Rk {
    dop853: bool,
    /// Stage derivatives, one row of `n` per stage (DOP853 keeps its 3 extra dense-output stages too).
    k: Vec<Vec<f64>>,
    h_previous: f64,
}

const RK45_C: [f64; 6] = [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0];
const RK45_A: [[f64; 5]; 6] = [
    [0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
    ],
];
const RK45_B: [f64; 6] = [
    35.0 / 384.0,
    0.0,
    500.0 / 1113.0,
    125.0 / 192.0,
    -2187.0 / 6784.0,
    11.0 / 84.0,
];
const RK45_E: [f64; 7] = [
    -71.0 / 57600.0,
    0.0,
    71.0 / 16695.0,
    -71.0 / 1920.0,
    17253.0 / 339200.0,
    -22.0 / 525.0,
    1.0 / 40.0,
];
/// Dense output coefficients (Shampine's optimal c6), as in SciPy.
const RK45_P: [[f64; 4]; 7] = [
    [
        1.0,
        -8048581381.0 / 2820520608.0,
        8663915743.0 / 2820520608.0,
        -12715105075.0 / 11282082432.0,
    ],
    [0.0, 0.0, 0.0, 0.0],
    [
        0.0,
        131558114200.0 / 32700410799.0,
        -68118460800.0 / 10900136933.0,
        87487479700.0 / 32700410799.0,
    ],
    [
        0.0,
        -1754552775.0 / 470086768.0,
        14199869525.0 / 1410260304.0,
        -10690763975.0 / 1880347072.0,
    ],
    [
        0.0,
        127303824393.0 / 49829197408.0,
        -318862633887.0 / 49829197408.0,
        701980252875.0 / 199316789632.0,
    ],
    [
        0.0,
        -282668133.0 / 205662961.0,
        2019193451.0 / 616988883.0,
        -1453857185.0 / 822651844.0,
    ],
    [
        0.0,
        40617522.0 / 29380423.0,
        -110615467.0 / 29380423.0,
        69997945.0 / 29380423.0,
    ],
];

impl Rk {
    fn stages(&self) -> usize {
        if self.dop853 {
            d8::N_STAGES
        } else {
            6
        }
    }

    fn a(&self, s: usize, j: usize) -> f64 {
        if self.dop853 {
            d8::A[s][j]
        } else {
            RK45_A[s][j]
        }
    }

    fn c(&self, s: usize) -> f64 {
        if self.dop853 {
            d8::C[s]
        } else {
            RK45_C[s]
        }
    }

    fn b(&self, j: usize) -> f64 {
        if self.dop853 {
            d8::B[j]
        } else {
            RK45_B[j]
        }
    }

    fn error_norm(&self, h: f64, scale: &[f64]) -> f64 {
        let n = scale.len();
        let stages = self.stages() + 1;
        let dot = |e: &[f64], i: usize| (0..stages).map(|s| self.k[s][i] * e[s]).sum::<f64>();
        if self.dop853 {
            let (mut e5, mut e3) = (0.0, 0.0);
            for i in 0..n {
                e5 += (dot(&d8::E5, i) / scale[i]).powi(2);
                e3 += (dot(&d8::E3, i) / scale[i]).powi(2);
            }
            if e5 == 0.0 && e3 == 0.0 {
                return 0.0;
            }
            let denom = e5 + 0.01 * e3;
            h.abs() * e5 / (denom * n as f64).sqrt()
        } else {
            rms((0..n).map(|i| dot(&RK45_E, i) * h / scale[i]), n)
        }
    }

    /// One accepted step (SciPy's `RungeKutta._step_impl`); `Ok(false)` when the step became too small.
    fn step(&mut self, st: &mut State, sys: &mut System<'_, '_>) -> Result<bool, ToolError> {
        let (t, n) = (st.t, st.n);
        let order = if self.dop853 { 7.0 } else { 4.0 };
        let exponent = -1.0 / (order + 1.0);
        let min_step = min_step(t, st.direction);
        let mut h_abs = if st.h_abs > st.max_step {
            st.max_step
        } else if st.h_abs < min_step {
            min_step
        } else {
            st.h_abs
        };
        let mut rejected = false;
        let mut y_new = vec![0.0; n];
        let mut arg = vec![0.0; n];
        let stages = self.stages();
        loop {
            if h_abs < min_step {
                return Ok(false);
            }
            let mut h = h_abs * st.direction;
            let mut t_new = t + h;
            if st.direction * (t_new - st.t_bound) > 0.0 {
                t_new = st.t_bound;
            }
            h = t_new - t;
            h_abs = h.abs();
            self.k[0].copy_from_slice(&st.f);
            for s in 1..stages {
                for i in 0..n {
                    let dy: f64 = (0..s).map(|j| self.k[j][i] * self.a(s, j)).sum();
                    arg[i] = st.y[i] + dy * h;
                }
                let mut out = std::mem::take(&mut self.k[s]);
                let r = sys.eval(t + self.c(s) * h, &arg, &mut out);
                self.k[s] = out;
                r?;
            }
            for i in 0..n {
                let dy: f64 = (0..stages).map(|j| self.k[j][i] * self.b(j)).sum();
                y_new[i] = st.y[i] + h * dy;
            }
            let mut out = std::mem::take(&mut self.k[stages]);
            let r = sys.eval(t + h, &y_new, &mut out);
            self.k[stages] = out;
            r?;
            let scale: Vec<f64> = (0..n)
                .map(|i| st.atol[i] + st.y[i].abs().max(y_new[i].abs()) * st.rtol)
                .collect();
            let err = self.error_norm(h, &scale);
            if err < 1.0 {
                let mut factor = if err == 0.0 {
                    MAX_FACTOR
                } else {
                    MAX_FACTOR.min(SAFETY * err.powf(exponent))
                };
                if rejected {
                    factor = factor.min(1.0);
                }
                h_abs *= factor;
                self.h_previous = h;
                st.y_old = std::mem::replace(&mut st.y, y_new);
                st.t_old = t;
                st.t = t_new;
                st.h_abs = h_abs;
                st.f.copy_from_slice(&self.k[stages]);
                return Ok(true);
            }
            // `max` with a NaN error (a non-finite stage) picks MIN_FACTOR, as Python's max does.
            h_abs *= MIN_FACTOR.max(SAFETY * err.powf(exponent));
            rejected = true;
        }
    }

    /// The dense output of the last step, evaluated at each of `ts` (DOP853 first computes its extra stages).
    fn dense(
        &mut self,
        st: &State,
        sys: &mut System<'_, '_>,
        ts: &[f64],
        out: &mut [Vec<f64>],
    ) -> Result<(), ToolError> {
        let n = st.n;
        let h = st.t - st.t_old;
        if !self.dop853 {
            // Q = Kᵀ P, y = y_old + h Q [x, x², x³, x⁴].
            let mut q = vec![[0.0; 4]; n];
            for (i, qi) in q.iter_mut().enumerate() {
                for (c, qc) in qi.iter_mut().enumerate() {
                    *qc = (0..7).map(|s| self.k[s][i] * RK45_P[s][c]).sum();
                }
            }
            for &t in ts {
                let x = (t - st.t_old) / h;
                let p = [x, x * x, x * x * x, x * x * x * x];
                for i in 0..n {
                    let v: f64 = (0..4).map(|c| q[i][c] * p[c]).sum();
                    out[i].push(st.y_old[i] + h * v);
                }
            }
            return Ok(());
        }
        let hp = self.h_previous;
        let mut arg = vec![0.0; n];
        for s in d8::N_STAGES + 1..d8::N_STAGES_EXTENDED {
            for i in 0..n {
                let dy: f64 = (0..s).map(|j| self.k[j][i] * d8::A[s][j]).sum();
                arg[i] = st.y_old[i] + dy * hp;
            }
            let mut o = std::mem::take(&mut self.k[s]);
            let r = sys.eval(st.t_old + d8::C[s] * hp, &arg, &mut o);
            self.k[s] = o;
            r?;
        }
        let mut f = vec![vec![0.0; n]; d8::INTERPOLATOR_POWER];
        for i in 0..n {
            let dy = st.y[i] - st.y_old[i];
            let f_old = self.k[0][i];
            f[0][i] = dy;
            f[1][i] = hp * f_old - dy;
            f[2][i] = 2.0 * dy - hp * (st.f[i] + f_old);
            for r in 0..4 {
                f[3 + r][i] = hp
                    * (0..d8::N_STAGES_EXTENDED)
                        .map(|s| d8::D[r][s] * self.k[s][i])
                        .sum::<f64>();
            }
        }
        for &t in ts {
            let x = (t - st.t_old) / h;
            for i in 0..n {
                let mut y = 0.0;
                for (j, row) in f.iter().rev().enumerate() {
                    y += row[i];
                    y *= if j % 2 == 0 { x } else { 1.0 - x };
                }
                out[i].push(y + st.y_old[i]);
            }
        }
        Ok(())
    }
}

// Radau IIA (order 5) constants, as in SciPy's radau.py.
const S6: f64 = 2.449_489_742_783_178; // 6 ** 0.5
const RADAU_C: [f64; 3] = [(4.0 - S6) / 10.0, (4.0 + S6) / 10.0, 1.0];
const RADAU_E: [f64; 3] = [
    (-13.0 - 7.0 * S6) / 3.0,
    (-13.0 + 7.0 * S6) / 3.0,
    -1.0 / 3.0,
];
const RADAU_T: [[f64; 3]; 3] = [
    [
        0.09443876248897524,
        -0.14125529502095421,
        0.03002919410514742,
    ],
    [
        0.25021312296533332,
        0.20412935229379994,
        -0.38294211275726192,
    ],
    [1.0, 1.0, 0.0],
];
const RADAU_TI: [[f64; 3]; 3] = [
    [
        4.17871859155190428,
        0.32768282076106237,
        0.52337644549944951,
    ],
    [
        -4.17871859155190428,
        -0.32768282076106237,
        0.47662355450055044,
    ],
    [
        0.50287263494578682,
        -2.57192694985560522,
        0.59603920482822492,
    ],
];
const RADAU_P: [[f64; 3]; 3] = [
    [
        13.0 / 3.0 + 7.0 * S6 / 3.0,
        -23.0 / 3.0 - 22.0 * S6 / 3.0,
        10.0 / 3.0 + 5.0 * S6,
    ],
    [
        13.0 / 3.0 - 7.0 * S6 / 3.0,
        -23.0 / 3.0 + 22.0 * S6 / 3.0,
        10.0 / 3.0 - 5.0 * S6,
    ],
    [1.0 / 3.0, -8.0 / 3.0, 10.0 / 3.0],
];
const NEWTON_MAXITER: usize = 6;

fn mu_real() -> f64 {
    3.0 + 3f64.powf(2.0 / 3.0) - 3f64.powf(1.0 / 3.0)
}

fn mu_complex() -> Complex<f64> {
    Complex::new(
        3.0 + 0.5 * (3f64.powf(1.0 / 3.0) - 3f64.powf(2.0 / 3.0)),
        -0.5 * (3f64.powf(5.0 / 6.0) + 3f64.powf(7.0 / 6.0)),
    )
}

type RealLu = LU<f64, nalgebra::Dyn, nalgebra::Dyn>;
/// What the simplified Newton iteration returns: converged, iterations, the stage increments Z, the rate.
type Newton = (bool, usize, DMatrix<f64>, Option<f64>);
type ComplexLu = LU<Complex<f64>, nalgebra::Dyn, nalgebra::Dyn>;

struct Radau {
    jac: DMatrix<f64>,
    current_jac: bool,
    lu_real: Option<RealLu>,
    lu_complex: Option<ComplexLu>,
    h_abs_old: Option<f64>,
    error_norm_old: Option<f64>,
    newton_tol: f64,
    /// Dense output of the last step: `Q` (n×3) with `y = y_old + Q [x, x², x³]`.
    q: Option<DMatrix<f64>>,
    njev: u64,
    nlu: u64,
}

/// A forward-difference Jacobian of the right-hand side at `(t, y)`.
fn num_jac(
    sys: &mut System<'_, '_>,
    t: f64,
    y: &[f64],
    f: &[f64],
    atol: &[f64],
) -> Result<DMatrix<f64>, ToolError> {
    let n = y.len();
    let mut j = DMatrix::zeros(n, n);
    let mut yp = y.to_vec();
    let mut fp = vec![0.0; n];
    for c in 0..n {
        let mut h = EPS.sqrt() * y[c].abs().max(atol[c]).max(EPS.sqrt());
        let yc = y[c] + h;
        h = yc - y[c];
        yp[c] = yc;
        sys.eval(t, &yp, &mut fp)?;
        yp[c] = y[c];
        for r in 0..n {
            j[(r, c)] = (fp[r] - f[r]) / h;
        }
    }
    Ok(j)
}

impl Radau {
    fn dense_at(&self, st: &State, t: f64, i: usize) -> f64 {
        let x = (t - st.t_old) / (st.t - st.t_old);
        match &self.q {
            Some(q) => st.y_old[i] + q[(i, 0)] * x + q[(i, 1)] * x * x + q[(i, 2)] * x * x * x,
            None => st.y[i],
        }
    }

    fn factor(&mut self, h: f64, n: usize) -> Result<(), ToolError> {
        if self.lu_real.is_none() || self.lu_complex.is_none() {
            let mr = mu_real() / h;
            let mc = mu_complex() / h;
            let a = DMatrix::from_fn(n, n, |r, c| if r == c { mr } else { 0.0 }) - &self.jac;
            let b = DMatrix::from_fn(n, n, |r, c| {
                Complex::new(-self.jac[(r, c)], 0.0)
                    + if r == c { mc } else { Complex::new(0.0, 0.0) }
            });
            self.lu_real = Some(a.lu());
            self.lu_complex = Some(b.lu());
            self.nlu += 2;
        }
        Ok(())
    }

    #[allow(
        clippy::too_many_arguments,
        reason = "a direct port of SciPy's function"
    )]
    fn collocation(
        &self,
        sys: &mut System<'_, '_>,
        t: f64,
        y: &[f64],
        h: f64,
        z0: &DMatrix<f64>,
        scale: &[f64],
    ) -> Result<Newton, ToolError> {
        let n = y.len();
        let (Some(lur), Some(luc)) = (&self.lu_real, &self.lu_complex) else {
            return Ok((false, 0, z0.clone(), None));
        };
        let mr = mu_real() / h;
        let mc = mu_complex() / h;
        let ti = DMatrix::from_fn(3, 3, |r, c| RADAU_TI[r][c]);
        let tm = DMatrix::from_fn(3, 3, |r, c| RADAU_T[r][c]);
        let mut w = &ti * z0;
        let mut z = z0.clone();
        let mut f = DMatrix::zeros(3, n);
        let mut dw_norm_old: Option<f64> = None;
        let mut rate: Option<f64> = None;
        let mut converged = false;
        let mut k = 0;
        let mut arg = vec![0.0; n];
        let mut out = vec![0.0; n];
        while k < NEWTON_MAXITER {
            for i in 0..3 {
                for c in 0..n {
                    arg[c] = y[c] + z[(i, c)];
                }
                sys.eval(t + h * RADAU_C[i], &arg, &mut out)?;
                for c in 0..n {
                    f[(i, c)] = out[c];
                }
            }
            if !f.iter().all(|x| x.is_finite()) {
                break;
            }
            let f_real = DVector::from_fn(n, |c, _| {
                (0..3).map(|i| f[(i, c)] * RADAU_TI[0][i]).sum::<f64>() - mr * w[(0, c)]
            });
            let f_complex = DVector::from_fn(n, |c, _| {
                let s: Complex<f64> = (0..3)
                    .map(|i| f[(i, c)] * Complex::new(RADAU_TI[1][i], RADAU_TI[2][i]))
                    .sum();
                s - mc * Complex::new(w[(1, c)], w[(2, c)])
            });
            let (Some(dr), Some(dc)) = (lur.solve(&f_real), luc.solve(&f_complex)) else {
                break;
            };
            let mut dw = DMatrix::zeros(3, n);
            for c in 0..n {
                dw[(0, c)] = dr[c];
                dw[(1, c)] = dc[c].re;
                dw[(2, c)] = dc[c].im;
            }
            let dw_norm = rms(
                (0..3)
                    .flat_map(|i| (0..n).map(move |c| (i, c)))
                    .map(|(i, c)| dw[(i, c)] / scale[c]),
                3 * n,
            );
            if let Some(old) = dw_norm_old {
                rate = Some(dw_norm / old);
            }
            if let Some(r) = rate {
                if r >= 1.0
                    || r.powi((NEWTON_MAXITER - k) as i32) / (1.0 - r) * dw_norm > self.newton_tol
                {
                    break;
                }
            }
            w += &dw;
            z = &tm * &w;
            if dw_norm == 0.0 || rate.is_some_and(|r| r / (1.0 - r) * dw_norm < self.newton_tol) {
                converged = true;
                break;
            }
            dw_norm_old = Some(dw_norm);
            k += 1;
        }
        Ok((converged, k + 1, z, rate))
    }

    fn step(&mut self, st: &mut State, sys: &mut System<'_, '_>) -> Result<bool, ToolError> {
        let (t, n) = (st.t, st.n);
        let y = st.y.clone();
        let min_step = min_step(t, st.direction);
        let (mut h_abs, h_abs_old, error_norm_old) = if st.h_abs > st.max_step {
            (st.max_step, None, None)
        } else if st.h_abs < min_step {
            (min_step, None, None)
        } else {
            (st.h_abs, self.h_abs_old, self.error_norm_old)
        };
        let mut rejected = false;
        loop {
            if h_abs < min_step {
                return Ok(false);
            }
            let mut h = h_abs * st.direction;
            let mut t_new = t + h;
            if st.direction * (t_new - st.t_bound) > 0.0 {
                t_new = st.t_bound;
            }
            h = t_new - t;
            h_abs = h.abs();
            let z0 = match self.q {
                None => DMatrix::zeros(3, n),
                Some(_) => {
                    DMatrix::from_fn(3, n, |i, c| self.dense_at(st, t + h * RADAU_C[i], c) - y[c])
                }
            };
            let scale: Vec<f64> = (0..n).map(|c| st.atol[c] + y[c].abs() * st.rtol).collect();
            let mut outcome;
            loop {
                self.factor(h, n)?;
                outcome = self.collocation(sys, t, &y, h, &z0, &scale)?;
                if outcome.0 || self.current_jac {
                    break;
                }
                self.jac = num_jac(sys, t, &y, &st.f, &st.atol)?;
                self.njev += 1;
                self.current_jac = true;
                self.lu_real = None;
                self.lu_complex = None;
            }
            let (converged, n_iter, z, rate) = outcome;
            if !converged {
                h_abs *= 0.5;
                self.lu_real = None;
                self.lu_complex = None;
                continue;
            }
            let y_new: Vec<f64> = (0..n).map(|c| y[c] + z[(2, c)]).collect();
            let ze: Vec<f64> = (0..n)
                .map(|c| (0..3).map(|i| z[(i, c)] * RADAU_E[i]).sum::<f64>() / h)
                .collect();
            let Some(lur) = &self.lu_real else {
                return Ok(false);
            };
            let rhs = DVector::from_fn(n, |c, _| st.f[c] + ze[c]);
            let mut error = lur
                .solve(&rhs)
                .unwrap_or_else(|| DVector::from_element(n, f64::NAN));
            let scale: Vec<f64> = (0..n)
                .map(|c| st.atol[c] + y[c].abs().max(y_new[c].abs()) * st.rtol)
                .collect();
            let mut error_norm = rms((0..n).map(|c| error[c] / scale[c]), n);
            let safety =
                0.9 * (2 * NEWTON_MAXITER + 1) as f64 / (2 * NEWTON_MAXITER + n_iter) as f64;
            if rejected && error_norm > 1.0 {
                let yy: Vec<f64> = (0..n).map(|c| y[c] + error[c]).collect();
                let mut fy = vec![0.0; n];
                sys.eval(t, &yy, &mut fy)?;
                let rhs = DVector::from_fn(n, |c, _| fy[c] + ze[c]);
                error = lur
                    .solve(&rhs)
                    .unwrap_or_else(|| DVector::from_element(n, f64::NAN));
                error_norm = rms((0..n).map(|c| error[c] / scale[c]), n);
            }
            if !(error_norm <= 1.0) {
                let factor = predict_factor(h_abs, h_abs_old, error_norm, error_norm_old);
                h_abs *= MIN_FACTOR.max(safety * factor);
                self.lu_real = None;
                self.lu_complex = None;
                rejected = true;
                continue;
            }
            let recompute_jac = n_iter > 2 && rate.is_some_and(|r| r > 1e-3);
            let mut factor = predict_factor(h_abs, h_abs_old, error_norm, error_norm_old);
            factor = MAX_FACTOR.min(safety * factor);
            if !recompute_jac && factor < 1.2 {
                factor = 1.0;
            } else {
                self.lu_real = None;
                self.lu_complex = None;
            }
            let mut f_new = vec![0.0; n];
            sys.eval(t_new, &y_new, &mut f_new)?;
            if recompute_jac {
                self.jac = num_jac(sys, t_new, &y_new, &f_new, &st.atol)?;
                self.njev += 1;
                self.current_jac = true;
            } else {
                self.current_jac = false;
            }
            self.h_abs_old = Some(st.h_abs);
            self.error_norm_old = Some(error_norm);
            st.h_abs = h_abs * factor;
            st.y_old = y;
            st.t_old = t;
            st.t = t_new;
            st.y = y_new;
            st.f = f_new;
            // Q = Zᵀ P.
            self.q = Some(DMatrix::from_fn(n, 3, |c, j| {
                (0..3).map(|i| z[(i, c)] * RADAU_P[i][j]).sum()
            }));
            return Ok(true);
        }
    }
}

fn predict_factor(
    h_abs: f64,
    h_abs_old: Option<f64>,
    error_norm: f64,
    error_norm_old: Option<f64>,
) -> f64 {
    let multiplier = match (h_abs_old, error_norm_old) {
        (Some(ho), Some(eo)) if error_norm != 0.0 => h_abs / ho * (eo / error_norm).powf(0.25),
        _ => 1.0,
    };
    let e = if error_norm == 0.0 {
        f64::INFINITY
    } else {
        error_norm.powf(-0.25)
    };
    multiplier.min(1.0) * e
}

/// Runs the `ode` operation.
pub(crate) fn solve(data: &Value, options: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
    let op = "ode";
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    check_keys(
        data,
        &["equations", "y0", "t_span", "t_eval", "variables"],
        "data",
        op,
    )?;
    check_keys(
        options,
        &["method", "rtol", "atol", "max_step", "first_step"],
        "options",
        op,
    )?;
    let l = &ctx.limits;
    let eq_values: Vec<Value> = match require(data, "equations", op)? {
        Value::Array(a) => a.clone(),
        s @ Value::String(_) => vec![s.clone()],
        other => {
            return Err(invalid(format!(
                "data.equations must be a list of expressions, got {other}"
            )))
        }
    };
    check_len(
        eq_values.len(),
        l.max_matrix_dim,
        "data.equations",
        "max_matrix_dim",
    )?;
    if eq_values.is_empty() {
        return Err(invalid("data.equations is empty"));
    }
    let y0 = match require(data, "y0", op)? {
        v @ Value::Number(_) => vec![number(v, "data.y0")?],
        v => vector(v, "data.y0", l)?,
    };
    let n = eq_values.len();
    if y0.len() != n {
        return Err(invalid(format!(
            "data.y0 has {} values but data.equations has {n} equations",
            y0.len()
        )));
    }
    let state: Vec<String> = match get(data, "variables") {
        Some(v) => names(v, "data.variables")?,
        None => (0..n).map(|i| format!("y{i}")).collect(),
    };
    if state.len() != n {
        return Err(invalid(format!(
            "data.variables names {} state variables but there are {n} equations",
            state.len()
        )));
    }
    if state.iter().any(|s| s == "t") {
        return Err(invalid(
            "data.variables must not contain `t`, the independent variable",
        ));
    }
    let alias = get(data, "variables").is_none() && n == 1;
    let mut order = vec!["t".to_string()];
    order.extend(state.iter().cloned());
    if alias {
        order.push("y".into());
    }
    let span = match require(data, "t_span", op)? {
        Value::Array(a) if a.len() == 2 => (
            number(&a[0], "data.t_span[0]")?,
            number(&a[1], "data.t_span[1]")?,
        ),
        other => {
            return Err(invalid(format!(
                "data.t_span must be [t0, t_final], got {other}"
            )))
        }
    };
    let (t0, tf) = span;
    if t0 == tf {
        return Err(invalid("data.t_span must have t_final different from t0"));
    }
    let direction = if tf > t0 { 1.0 } else { -1.0 };
    let t_eval = match get(data, "t_eval") {
        None => None,
        Some(v) => {
            let te = vector(v, "data.t_eval", l)?;
            let (lo, hi) = (t0.min(tf), t0.max(tf));
            if let Some(x) = te.iter().find(|x| **x < lo || **x > hi) {
                return Err(invalid(format!(
                    "data.t_eval value {x} is outside t_span [{t0}, {tf}]"
                )));
            }
            if te.windows(2).any(|w| direction * (w[1] - w[0]) < 0.0) {
                return Err(invalid(
                    "data.t_eval must be sorted in the direction of integration",
                ));
            }
            check_len(
                te.len().saturating_mul(n),
                l.max_array_len,
                "the solution (t_eval × components)",
                "max_array_len",
            )?;
            Some(te)
        }
    };
    let method = match opt_choice(options, "method", &["RK45", "DOP853", "Radau"], "options")? {
        "RK45" => Method::Rk45,
        "DOP853" => Method::Dop853,
        _ => Method::Radau,
    };
    let mut rtol = opt_f64(options, "rtol", 1e-3, (|x| x > 0.0, "positive"))?;
    rtol = rtol.max(100.0 * EPS);
    let atol = match get(options, "atol") {
        None => vec![1e-6; n],
        Some(v @ Value::Number(_)) => vec![number(v, "options.atol")?; n],
        Some(v) => {
            let a = vector(v, "options.atol", l)?;
            if a.len() != n {
                return Err(invalid(format!(
                    "options.atol has {} values for {n} components",
                    a.len()
                )));
            }
            a
        }
    };
    if atol.iter().any(|a| *a < 0.0) {
        return Err(invalid("options.atol must be non-negative"));
    }
    let max_step = match get(options, "max_step") {
        None => f64::INFINITY,
        Some(v) => {
            let m = bound(v, "options.max_step")?;
            if !(m > 0.0) {
                return Err(invalid("options.max_step must be positive"));
            }
            m
        }
    };
    let first_step = match get(options, "first_step") {
        None => None,
        Some(v) => {
            let f = number(v, "options.first_step")?;
            if !(f > 0.0 && f <= (tf - t0).abs()) {
                return Err(invalid(
                    "options.first_step must be positive and no longer than the interval",
                ));
            }
            Some(f)
        }
    };
    let budget = Budget::new(ctx);
    let eqs = eq_values
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let what = format!("data.equations[{i}]");
            let e = parse_expr(v, &what, ctx)?;
            compile(&e, &order, &what, &budget)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut sys = System {
        eqs,
        vars: vec![0.0; order.len()],
        alias,
        nfev: 0,
    };
    let mut f0 = vec![0.0; n];
    sys.eval(t0, &y0, &mut f0)?;
    if let Some(i) = f0.iter().position(|x| !x.is_finite()) {
        return Err(ToolError::domain(format!(
            "data.equations[{i}] is not finite (NaN or ±inf) at t = {t0} with the initial state"
        )));
    }
    let order_est = match method {
        Method::Rk45 => 4.0,
        Method::Dop853 => 7.0,
        Method::Radau => 3.0,
    };
    let h_abs = match first_step {
        Some(h) => h,
        None => initial_step(
            &mut sys, t0, &y0, tf, max_step, &f0, direction, order_est, rtol, &atol,
        )?,
    };
    let mut st = State {
        n,
        t: t0,
        y: y0.clone(),
        f: f0.clone(),
        t_old: t0,
        y_old: y0.clone(),
        t_bound: tf,
        direction,
        rtol,
        atol: atol.clone(),
        max_step,
        h_abs,
    };
    let mut rk = Rk {
        dop853: matches!(method, Method::Dop853),
        k: vec![
            vec![0.0; n];
            if matches!(method, Method::Dop853) {
                d8::N_STAGES_EXTENDED
            } else {
                7
            }
        ],
        h_previous: 0.0,
    };
    let mut radau = match method {
        Method::Radau => {
            let jac = num_jac(&mut sys, t0, &y0, &f0, &atol)?;
            Some(Radau {
                jac,
                current_jac: true,
                lu_real: None,
                lu_complex: None,
                h_abs_old: None,
                error_norm_old: None,
                newton_tol: (10.0 * EPS / rtol).max(0.03f64.min(rtol.sqrt())),
                q: None,
                njev: 1,
                nlu: 0,
            })
        }
        _ => None,
    };
    let mut ts: Vec<f64> = Vec::new();
    let mut ys: Vec<Vec<f64>> = vec![Vec::new(); n];
    if t_eval.is_none() {
        ts.push(t0);
        for i in 0..n {
            ys[i].push(y0[i]);
        }
    }
    let mut te_i = 0usize;
    let mut steps: u64 = 0;
    let mut success = true;
    loop {
        ctx.checkpoint()?;
        steps += 1;
        if steps > l.max_iterations {
            return Err(ToolError::limit(format!(
                "the integration needs more than {} steps (reached t = {}); the limit is max_iterations = {}{}",
                l.max_iterations,
                st.t,
                l.max_iterations,
                if radau.is_none() {
                    "; the problem may be stiff: try options.method = \"Radau\""
                } else {
                    ""
                }
            )));
        }
        let ok = match &mut radau {
            Some(r) => r.step(&mut st, &mut sys)?,
            None => rk.step(&mut st, &mut sys)?,
        };
        if !ok {
            success = false;
            break;
        }
        let finished = direction * (st.t - tf) >= 0.0;
        match &t_eval {
            None => {
                check_len(
                    (ts.len() + 1).saturating_mul(n),
                    l.max_array_len,
                    "the solution (steps × components)",
                    "max_array_len",
                )
                .map_err(|e| {
                    ToolError::new(
                        e.kind,
                        format!("{}; pass data.t_eval to sample fewer points", e.message),
                    )
                })?;
                ts.push(st.t);
                for i in 0..n {
                    ys[i].push(st.y[i]);
                }
            }
            Some(te) => {
                let mut end = te_i;
                while end < te.len() && direction * (te[end] - st.t) <= 0.0 {
                    end += 1;
                }
                if end > te_i {
                    let chunk = &te[te_i..end];
                    match &radau {
                        Some(r) => {
                            for &t in chunk {
                                for (i, yi) in ys.iter_mut().enumerate() {
                                    yi.push(r.dense_at(&st, t, i));
                                }
                            }
                        }
                        None => rk.dense(&st, &mut sys, chunk, &mut ys)?,
                    }
                    ts.extend_from_slice(chunk);
                    te_i = end;
                }
            }
        }
        if finished {
            break;
        }
    }
    let (njev, nlu) = radau.as_ref().map_or((0, 0), |r| (r.njev, r.nlu));
    Ok(json!({
        "t": arr(&ts),
        "y": Value::Array(ys.iter().map(|v| arr(v)).collect()),
        "success": success,
        "status": if success { 0 } else { -1 },
        "message": if success { SUCCESS } else { TOO_SMALL_STEP },
        "nfev": sys.nfev,
        "njev": njev,
        "nlu": nlu,
        "steps": steps,
        "method": match method { Method::Rk45 => "RK45", Method::Dop853 => "DOP853", Method::Radau => "Radau" },
    }))
}
