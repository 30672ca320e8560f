//! Optics and waves: thin lenses and spherical mirrors, refraction, v = fλ, the Doppler effect for sound.

use super::{
    nearest, note_bare, opt, opt_exact, opt_float, plain, positive, redundant, req, required, show,
    Out, BITS, DEGREES, HERTZ, METRES, METRES_PER_SECOND,
};
use beaker_core::ToolError;
use rug::float::Constant;
use rug::{Float, Rational};
use serde_json::Value;

/// Speed of sound in dry air at 20 °C, m/s: the default `wave_speed` of `doppler`.
const SOUND_IN_AIR: f64 = 343.0;

/// The image of an object `d_o` from a thin lens or mirror of focal length `f` (1/f = 1/d_o + 1/d_i), in
/// exact rationals: 10 cm and 15 cm give an image at exactly 30 cm, magnification −2.
fn image(f: Rational, d_o: Rational) -> Result<Value, ToolError> {
    if f == 0 {
        return Err(ToolError::invalid_params("the focal length must not be 0"));
    }
    if d_o == 0 {
        return Err(ToolError::invalid_params("`object_distance` must not be 0"));
    }
    if d_o == f {
        return Err(ToolError::domain(
            "the object is at the focal point: the rays leave parallel and the image is at infinity",
        ));
    }
    let d_i = Rational::from(&f * &d_o) / Rational::from(&d_o - &f);
    let m = -Rational::from(&d_i / &d_o);
    let mut out = Out::new();
    out.put("image_distance", nearest(&d_i), "m")?;
    out.put("magnification", nearest(&m), "")?;
    let kind = if d_i > 0 { "real" } else { "virtual" };
    out.set("image", Value::String(kind.into()));
    let orientation = if m < 0 { "inverted" } else { "upright" };
    out.set("orientation", Value::String(orientation.into()));
    out.put("focal_length", nearest(&f), "m")?;
    out.put("power", nearest(&f.recip_ref().into()), "D")?;
    Ok(out.done())
}

fn exact_req(p: &Value, key: &str) -> Result<Rational, ToolError> {
    opt_exact(p, key, METRES)?.ok_or_else(|| required(key, METRES))
}

/// `thin_lens`: converging lenses have f > 0; a real image has d_i > 0 (behind the lens).
pub(super) fn thin_lens(p: &Value) -> Result<Value, ToolError> {
    image(
        exact_req(p, "focal_length")?,
        exact_req(p, "object_distance")?,
    )
}

/// `mirror`: concave mirrors have f = R/2 > 0; a real image has d_i > 0 (in front of the mirror).
pub(super) fn mirror(p: &Value) -> Result<Value, ToolError> {
    let f =
        match (
            opt_exact(p, "focal_length", METRES)?,
            opt_exact(p, "radius", METRES)?,
        ) {
            (Some(f), None) => f,
            (None, Some(r)) => r / 2,
            _ => return Err(ToolError::invalid_params(
                "give `focal_length` or `radius` (of curvature; concave > 0, convex < 0), not both",
            )),
        };
    image(f, exact_req(p, "object_distance")?)
}

/// `snell`: refraction at a flat interface, or total internal reflection past the critical angle.
pub(super) fn snell(p: &Value) -> Result<Value, ToolError> {
    let index = |key: &str| -> Result<f64, ToolError> {
        let n = plain(p, key)?.ok_or_else(|| {
            ToolError::invalid_params(format!("`{key}` (a refractive index) is required"))
        })?;
        positive(n, key)
    };
    let (n1, n2) = (index("n1")?, index("n2")?);
    let exact_angle = opt_float(p, "angle", DEGREES)?.ok_or_else(|| required("angle", DEGREES))?;
    let angle = exact_angle.to_f64();
    if !(0.0..=std::f64::consts::FRAC_PI_2).contains(&angle) {
        return Err(ToolError::invalid_params(format!(
            "`angle` (of incidence, from the normal) must be between 0 and 90 degrees, got {} deg",
            angle.to_degrees()
        )));
    }
    // Past a double's precision, so that equal indices give back the angle exactly (30°, not 30.000000000000004).
    let sine = Float::with_val(BITS, exact_angle.sin_ref()) * n1 / n2;
    let degrees = |x: Float| (x * 180u32 / Float::with_val(BITS, Constant::Pi)).to_f64();
    let mut out = Out::new();
    note_bare(&mut out, p, "angle", DEGREES, angle);
    if sine > 1 {
        out.set("refraction_angle", Value::Null);
        out.set("total_internal_reflection", Value::Bool(true));
    } else {
        out.put("refraction_angle", degrees(sine.asin()), "deg")?;
        out.set("total_internal_reflection", Value::Bool(false));
    }
    if n1 > n2 {
        let ratio = Float::with_val(BITS, n2) / n1;
        out.put("critical_angle", degrees(ratio.asin()), "deg")?;
    } else {
        out.set("critical_angle", Value::Null);
    }
    Ok(out.done())
}

/// `wave`: v = f λ from any two, and the period, in exact rationals.
pub(super) fn wave(p: &Value) -> Result<Value, ToolError> {
    let read = |key: &str, kind| -> Result<Option<Rational>, ToolError> {
        match opt_exact(p, key, kind)? {
            Some(x) if x <= 0 => Err(ToolError::invalid_params(format!(
                "`{key}` must be positive, got {}",
                show(nearest(&x))
            ))),
            x => Ok(x),
        }
    };
    let v = read("speed", METRES_PER_SECOND)?;
    let f = read("frequency", HERTZ)?;
    let l = read("wavelength", METRES)?;
    let mut out = Out::new();
    let (vv, ff, ll) = match (v, f, l) {
        (Some(v), Some(f), l) => {
            let implied = Rational::from(&v / &f);
            if let Some(l) = l {
                redundant(
                    &mut out,
                    "wavelength",
                    nearest(&l),
                    nearest(&implied),
                    "m",
                    "speed and frequency",
                )?;
            }
            (v, f, implied)
        }
        (Some(v), None, Some(l)) => {
            let f = Rational::from(&v / &l);
            (v, f, l)
        }
        (None, Some(f), Some(l)) => {
            let v = Rational::from(&f * &l);
            (v, f, l)
        }
        _ => {
            return Err(ToolError::invalid_params(
                "give two of `speed`, `frequency`, `wavelength`",
            ))
        }
    };
    out.put("speed", nearest(&vv), "m/s")?;
    out.put("frequency", nearest(&ff), "Hz")?;
    out.put("wavelength", nearest(&ll), "m")?;
    out.put("period", nearest(&ff.recip()), "s")?;
    Ok(out.done())
}

/// `doppler`: f' = f (v + v_o) / (v − v_s), both velocities positive towards the other.
pub(super) fn doppler(p: &Value) -> Result<Value, ToolError> {
    positive(req(p, "frequency", HERTZ)?, "frequency")?;
    let vs = opt(p, "source_velocity", METRES_PER_SECOND)?.unwrap_or(0.0);
    let vo = opt(p, "observer_velocity", METRES_PER_SECOND)?.unwrap_or(0.0);
    let c = positive(
        opt(p, "wave_speed", METRES_PER_SECOND)?.unwrap_or(SOUND_IN_AIR),
        "wave_speed",
    )?;
    if vs >= c {
        return Err(ToolError::domain(format!(
            "the source moves towards the observer at {vs} m/s, at or above the wave speed {c} m/s: a shock wave, no Doppler frequency"
        )));
    }
    if vo <= -c {
        return Err(ToolError::domain(format!(
            "the observer recedes at {} m/s, at or above the wave speed {c} m/s: the waves never reach it",
            -vo
        )));
    }
    let mut out = Out::new();
    // In rationals: the inputs are exact decimals and the formula is rational.
    let exact = |key: &str, default: f64| -> Result<Rational, ToolError> {
        Ok(opt_exact(p, key, METRES_PER_SECOND)?
            .unwrap_or_else(|| Rational::from_f64(default).unwrap_or_default()))
    };
    let (fe, vse, voe, ce) = (
        opt_exact(p, "frequency", HERTZ)?.unwrap_or_default(),
        exact("source_velocity", 0.0)?,
        exact("observer_velocity", 0.0)?,
        exact("wave_speed", SOUND_IN_AIR)?,
    );
    let observed = fe * Rational::from(&ce + &voe) / (ce - vse);
    out.put("observed_frequency", nearest(&observed), "Hz")?;
    out.put("wave_speed", c, "m/s")?;
    Ok(out.done())
}
