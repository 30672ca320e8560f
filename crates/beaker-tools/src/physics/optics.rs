//! Optics and waves: thin lenses and spherical mirrors, refraction, v = fλ, the Doppler effect for sound.

use super::{
    note_bare, opt, plain, positive, redundant, req, Out, DEGREES, HERTZ, METRES, METRES_PER_SECOND,
};
use beaker_core::ToolError;
use serde_json::Value;

/// Speed of sound in dry air at 20 °C, m/s: the default `wave_speed` of `doppler`.
const SOUND_IN_AIR: f64 = 343.0;

/// The image of an object `d_o` from a thin lens or mirror of focal length `f` (1/f = 1/d_o + 1/d_i).
fn image(f: f64, d_o: f64) -> Result<Value, ToolError> {
    if f == 0.0 {
        return Err(ToolError::invalid_params("the focal length must not be 0"));
    }
    if d_o == 0.0 {
        return Err(ToolError::invalid_params("`object_distance` must not be 0"));
    }
    if d_o == f {
        return Err(ToolError::domain(
            "the object is at the focal point: the rays leave parallel and the image is at infinity",
        ));
    }
    let d_i = f * d_o / (d_o - f);
    let m = -d_i / d_o;
    let mut out = Out::new();
    out.put("image_distance", d_i, "m")?;
    out.put("magnification", m, "")?;
    let kind = if d_i > 0.0 { "real" } else { "virtual" };
    out.set("image", Value::String(kind.into()));
    let orientation = if m < 0.0 { "inverted" } else { "upright" };
    out.set("orientation", Value::String(orientation.into()));
    out.put("focal_length", f, "m")?;
    out.put("power", 1.0 / f, "D")?;
    Ok(out.done())
}

/// `thin_lens`: converging lenses have f > 0; a real image has d_i > 0 (behind the lens).
pub(super) fn thin_lens(p: &Value) -> Result<Value, ToolError> {
    let f = req(p, "focal_length", METRES)?;
    image(f, req(p, "object_distance", METRES)?)
}

/// `mirror`: concave mirrors have f = R/2 > 0; a real image has d_i > 0 (in front of the mirror).
pub(super) fn mirror(p: &Value) -> Result<Value, ToolError> {
    let f =
        match (opt(p, "focal_length", METRES)?, opt(p, "radius", METRES)?) {
            (Some(f), None) => f,
            (None, Some(r)) => r / 2.0,
            _ => return Err(ToolError::invalid_params(
                "give `focal_length` or `radius` (of curvature; concave > 0, convex < 0), not both",
            )),
        };
    image(f, req(p, "object_distance", METRES)?)
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
    let angle = req(p, "angle", DEGREES)?;
    if !(0.0..=std::f64::consts::FRAC_PI_2).contains(&angle) {
        return Err(ToolError::invalid_params(format!(
            "`angle` (of incidence, from the normal) must be between 0 and 90 degrees, got {} deg",
            angle.to_degrees()
        )));
    }
    let sine = n1 * angle.sin() / n2;
    let mut out = Out::new();
    note_bare(&mut out, p, "angle", DEGREES, angle);
    if sine > 1.0 {
        out.set("refraction_angle", Value::Null);
        out.set("total_internal_reflection", Value::Bool(true));
    } else {
        out.put("refraction_angle", sine.asin().to_degrees(), "deg")?;
        out.set("total_internal_reflection", Value::Bool(false));
    }
    if n1 > n2 {
        out.put("critical_angle", (n2 / n1).asin().to_degrees(), "deg")?;
    } else {
        out.set("critical_angle", Value::Null);
    }
    Ok(out.done())
}

/// `wave`: v = f λ from any two, and the period.
pub(super) fn wave(p: &Value) -> Result<Value, ToolError> {
    let v = opt(p, "speed", METRES_PER_SECOND)?
        .map(|x| positive(x, "speed"))
        .transpose()?;
    let f = opt(p, "frequency", HERTZ)?
        .map(|x| positive(x, "frequency"))
        .transpose()?;
    let l = opt(p, "wavelength", METRES)?
        .map(|x| positive(x, "wavelength"))
        .transpose()?;
    let mut out = Out::new();
    let (vv, ff, ll) = match (v, f, l) {
        (Some(v), Some(f), l) => {
            if let Some(l) = l {
                redundant(&mut out, "wavelength", l, v / f, "m", "speed and frequency")?;
            }
            (v, f, v / f)
        }
        (Some(v), None, Some(l)) => (v, v / l, l),
        (None, Some(f), Some(l)) => (f * l, f, l),
        _ => {
            return Err(ToolError::invalid_params(
                "give two of `speed`, `frequency`, `wavelength`",
            ))
        }
    };
    out.put("speed", vv, "m/s")?;
    out.put("frequency", ff, "Hz")?;
    out.put("wavelength", ll, "m")?;
    out.put("period", 1.0 / ff, "s")?;
    Ok(out.done())
}

/// `doppler`: f' = f (v + v_o) / (v − v_s), both velocities positive towards the other.
pub(super) fn doppler(p: &Value) -> Result<Value, ToolError> {
    let f = positive(req(p, "frequency", HERTZ)?, "frequency")?;
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
    out.put("observed_frequency", f * (c + vo) / (c - vs), "Hz")?;
    out.put("wave_speed", c, "m/s")?;
    Ok(out.done())
}
