//! Fourier transforms with rustfft/realfft, with NumPy's conventions: `fft`/`ifft` (complex, `norm`
//! "backward" by default), `rfft`/`irfft` (real input, n/2 + 1 bins), `fftfreq`, and `power_spectrum`
//! (`scipy.signal.periodogram`: boxcar window, constant detrend, one-sided).

use crate::input::{
    arr, check_keys, check_len, complex_vector, get, invalid, number, object, opt_choice, pairs,
    require, vector,
};
use beaker_core::{CallContext, Limits, ToolError};
use nalgebra::Complex;
use realfft::RealFftPlanner;
use rustfft::FftPlanner;
use serde_json::{json, Map, Value};

/// An optional length `data.n` (≥ 1, within `max_array_len`).
fn length(data: &Map<String, Value>, limits: &Limits) -> Result<Option<usize>, ToolError> {
    match get(data, "n") {
        None => Ok(None),
        Some(v) => {
            let n = v
                .as_u64()
                .filter(|n| *n >= 1)
                .ok_or_else(|| invalid(format!("data.n must be a positive integer, got {v}")))?;
            check_len(
                n as usize,
                limits.max_array_len,
                "data.n (the transform length)",
                "max_array_len",
            )?;
            Ok(Some(n as usize))
        }
    }
}

/// Truncates or zero-pads to `n` (NumPy's `n` argument).
fn resize<T: Clone + Default>(mut v: Vec<T>, n: Option<usize>) -> Vec<T> {
    if let Some(n) = n {
        v.resize(n, T::default());
    }
    v
}

/// The scale applied to a transform of length `n` for `norm` (forward or inverse direction).
fn scale(norm: &str, n: usize, inverse: bool) -> f64 {
    let n = n as f64;
    match (norm, inverse) {
        ("ortho", _) => 1.0 / n.sqrt(),
        ("forward", false) | ("backward", true) => 1.0 / n,
        _ => 1.0,
    }
}

/// Runs an FFT operation.
pub(crate) fn run(
    op: &str,
    data: &Value,
    options: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    let data = object(data, "data")?;
    let options = object(options, "options")?;
    let l = &ctx.limits;
    match op {
        "fftfreq" => {
            check_keys(data, &["n", "d"], "data", op)?;
            check_keys(options, &["real"], "options", op)?;
            let n = length(data, l)?.ok_or_else(|| invalid("`fftfreq` needs `data.n`"))?;
            let d = match get(data, "d") {
                Some(v) => number(v, "data.d")?,
                None => 1.0,
            };
            if d == 0.0 {
                return Err(invalid("data.d (the sample spacing) must not be 0"));
            }
            let real = crate::input::opt_bool(options, "real", false)?;
            let items = if real { n / 2 + 1 } else { n };
            l.check_result_items(items as u64, 4, "data.n")?;
            let val = 1.0 / (n as f64 * d);
            let f: Vec<f64> = if real {
                (0..=n / 2).map(|k| k as f64 * val).collect()
            } else {
                (0..n)
                    .map(|k| {
                        let k = if k < n.div_ceil(2) {
                            k as i64
                        } else {
                            k as i64 - n as i64
                        };
                        k as f64 * val
                    })
                    .collect()
            };
            l.check_floats(&f, "the frequencies")?;
            Ok(json!({ "result": arr(&f) }))
        }
        "fft" | "ifft" => {
            check_keys(data, &["x", "n"], "data", op)?;
            check_keys(options, &["norm"], "options", op)?;
            let norm = opt_choice(
                options,
                "norm",
                &["backward", "ortho", "forward"],
                "options",
            )?;
            let n = length(data, l)?;
            let mut x = resize(complex_vector(require(data, "x", op)?, "data.x", l)?, n);
            let len = x.len();
            ctx.checkpoint()?;
            let mut planner = FftPlanner::<f64>::new();
            let plan = if op == "fft" {
                planner.plan_fft_forward(len)
            } else {
                planner.plan_fft_inverse(len)
            };
            plan.process(&mut x);
            let s = scale(norm, len, op == "ifft");
            if s != 1.0 {
                x.iter_mut().for_each(|c| *c *= s);
            }
            Ok(json!({ "result": pairs(&x) }))
        }
        "rfft" => {
            check_keys(data, &["x", "n"], "data", op)?;
            check_keys(options, &["norm"], "options", op)?;
            let norm = opt_choice(
                options,
                "norm",
                &["backward", "ortho", "forward"],
                "options",
            )?;
            let n = length(data, l)?;
            let mut x = resize(vector(require(data, "x", op)?, "data.x", l)?, n);
            let len = x.len();
            ctx.checkpoint()?;
            let out = rfft(&mut x)?;
            let s = scale(norm, len, false);
            Ok(json!({ "result": pairs(&out.iter().map(|c| c * s).collect::<Vec<_>>()) }))
        }
        "irfft" => {
            check_keys(data, &["x", "n"], "data", op)?;
            check_keys(options, &["norm"], "options", op)?;
            let norm = opt_choice(
                options,
                "norm",
                &["backward", "ortho", "forward"],
                "options",
            )?;
            let x = complex_vector(require(data, "x", op)?, "data.x", l)?;
            let n = match length(data, l)? {
                Some(n) => n,
                None => {
                    if x.len() < 2 {
                        return Err(invalid("`irfft` of a single bin needs `data.n`"));
                    }
                    2 * (x.len() - 1)
                }
            };
            check_len(n, l.max_array_len, "the irfft output", "max_array_len")?;
            let mut spec = resize(x, Some(n / 2 + 1));
            // NumPy ignores the imaginary parts of the DC and (even n) Nyquist bins.
            spec[0].im = 0.0;
            if n % 2 == 0 {
                spec[n / 2].im = 0.0;
            }
            ctx.checkpoint()?;
            let mut planner = RealFftPlanner::<f64>::new();
            let plan = planner.plan_fft_inverse(n);
            let mut out = plan.make_output_vec();
            plan.process(&mut spec, &mut out).map_err(|e| {
                ToolError::new(beaker_core::ErrorKind::Internal, format!("irfft: {e}"))
            })?;
            let s = scale(norm, n, true);
            Ok(json!({ "result": arr(&out.iter().map(|v| v * s).collect::<Vec<_>>()) }))
        }
        "power_spectrum" => {
            check_keys(data, &["x", "fs", "d"], "data", op)?;
            check_keys(options, &["scaling", "detrend"], "options", op)?;
            let mut x = vector(require(data, "x", op)?, "data.x", l)?;
            let fs = match (get(data, "fs"), get(data, "d")) {
                (Some(_), Some(_)) => {
                    return Err(invalid(
                        "give data.fs (sampling frequency) or data.d (spacing), not both",
                    ))
                }
                (Some(v), None) => number(v, "data.fs")?,
                (None, Some(v)) => 1.0 / number(v, "data.d")?,
                (None, None) => 1.0,
            };
            if !(fs > 0.0 && fs.is_finite()) {
                return Err(invalid("the sampling frequency must be positive"));
            }
            let scaling = opt_choice(options, "scaling", &["density", "spectrum"], "options")?;
            let detrend = match get(options, "detrend") {
                None => true,
                Some(Value::String(s)) if s == "constant" => true,
                Some(Value::String(s)) if s == "none" => false,
                Some(Value::Bool(b)) => *b,
                Some(v) => {
                    return Err(invalid(format!(
                        "options.detrend must be \"constant\", \"none\" or a boolean, got {v}"
                    )))
                }
            };
            let n = x.len();
            if detrend {
                let mean = x.iter().sum::<f64>() / n as f64;
                x.iter_mut().for_each(|v| *v -= mean);
            }
            ctx.checkpoint()?;
            let spec = rfft(&mut x)?;
            let s = if scaling == "density" {
                1.0 / (fs * n as f64)
            } else {
                1.0 / (n as f64 * n as f64)
            };
            let mut p: Vec<f64> = spec.iter().map(|c| c.norm_sqr() * s).collect();
            let last = if n % 2 == 0 { p.len() - 1 } else { p.len() };
            for v in p.iter_mut().take(last).skip(1) {
                *v *= 2.0;
            }
            let f: Vec<f64> = (0..p.len()).map(|k| k as f64 * fs / n as f64).collect();
            Ok(json!({ "frequencies": arr(&f), "power": arr(&p), "scaling": scaling }))
        }
        other => Err(invalid(format!("unknown operation `{other}`"))),
    }
}

fn rfft(x: &mut [f64]) -> Result<Vec<Complex<f64>>, ToolError> {
    let mut planner = RealFftPlanner::<f64>::new();
    let plan = planner.plan_fft_forward(x.len());
    let mut out = plan.make_output_vec();
    plan.process(x, &mut out)
        .map_err(|e| ToolError::new(beaker_core::ErrorKind::Internal, format!("rfft: {e}")))?;
    Ok(out)
}
