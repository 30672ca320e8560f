//! Mechanics: constant-acceleration kinematics, projectiles, circular motion, gravitation and orbits,
//! 1-D collisions, work, energy and power.

use super::{
    choice, gap, non_negative, note_bare, opt, opt_float, plain, positive, req, required, show,
    Out, ACCELERATION, BITS, DEGREES, EXACT_RTOL, G, HERTZ, JOULES, KILOGRAMS, METRES,
    METRES_PER_SECOND, NEWTONS, RADIANS_PER_SECOND, ROUNDED_RTOL, SECONDS, SPEED_OF_LIGHT,
    STANDARD_GRAVITY,
};
use beaker_core::ToolError;
use beaker_units::quantity::{self, Kind};
use rug::Float;
use serde_json::{json, Value};
use std::f64::consts::{PI, TAU};

/// The five quantities of constant-acceleration motion, in this order everywhere.
const NAMES: [&str; 5] = ["u", "v", "a", "t", "s"];
const UNITS: [&str; 5] = ["m/s", "m/s", "m/s^2", "s", "m"];
const KINDS: [Kind; 5] = [
    METRES_PER_SECOND,
    METRES_PER_SECOND,
    ACCELERATION,
    SECONDS,
    METRES,
];
const U: usize = 0;
const V: usize = 1;
const A: usize = 2;
const T: usize = 3;
const S: usize = 4;

/// The triples of knowns tried in turn: each fixes the motion by one closed form. The first ones are direct
/// (no division, no root); the last ones have two roots, and a later triple is used only when the earlier
/// ones are not all known or leave the motion undetermined.
const TRIPLES: [[usize; 3]; 10] = [
    [U, A, T],
    [V, A, T],
    [U, V, T],
    [A, T, S],
    [U, T, S],
    [V, T, S],
    [U, V, A],
    [U, V, S],
    [U, A, S],
    [V, A, S],
];

type Motion = [f64; 5];

fn no_motion(why: &str) -> ToolError {
    ToolError::domain(format!(
        "no motion with constant acceleration fits the known values: {why}"
    ))
}

/// The time from `u` to `v` over `s` at acceleration `a`, by whichever of 2s/(u+v) and (v−u)/a does not
/// cancel.
fn time_between(u: f64, v: f64, a: f64, s: f64) -> f64 {
    if (u + v).abs() >= (v - u).abs() {
        2.0 * s / (u + v)
    } else {
        (v - u) / a
    }
}

/// The motions that the known values at `triple` allow (t ≥ 0), or `None` when they leave it undetermined.
fn solve(triple: [usize; 3], k: &[Option<f64>; 5]) -> Result<Option<Vec<Motion>>, ToolError> {
    let g = |i: usize| k[i].unwrap_or(0.0);
    let (u, v, a, t, s) = (g(U), g(V), g(A), g(T), g(S));
    let one = |m: Motion| Ok(Some(vec![m]));
    match triple {
        [U, A, T] => one([u, u + a * t, a, t, u * t + 0.5 * a * t * t]),
        [V, A, T] => one([v - a * t, v, a, t, v * t - 0.5 * a * t * t]),
        [U, V, T] | [A, T, S] | [U, T, S] | [V, T, S] if t == 0.0 => {
            if (k[U].is_some() && k[V].is_some() && u != v) || s != 0.0 {
                Err(no_motion("nothing changes in zero time"))
            } else {
                Ok(None)
            }
        }
        [U, V, T] => one([u, v, (v - u) / t, t, 0.5 * (u + v) * t]),
        [A, T, S] => {
            let (mean, half) = (s / t, 0.5 * a * t);
            one([mean - half, mean + half, a, t, s])
        }
        [U, T, S] => one([u, 2.0 * s / t - u, 2.0 * (s - u * t) / (t * t), t, s]),
        [V, T, S] => one([2.0 * s / t - v, v, 2.0 * (v * t - s) / (t * t), t, s]),
        [U, V, A] => {
            if a == 0.0 {
                return if u == v {
                    Ok(None)
                } else {
                    Err(no_motion("with a = 0 the velocity cannot change"))
                };
            }
            let t = (v - u) / a;
            if t < 0.0 {
                return Err(no_motion(&format!(
                    "reaching v from u would take t = {t} s, before the start"
                )));
            }
            one([u, v, a, t, (v - u) * (v + u) / (2.0 * a)])
        }
        [U, V, S] => {
            if u + v == 0.0 {
                return if s == 0.0 {
                    Ok(None)
                } else {
                    Err(no_motion("with u = −v the displacement is zero"))
                };
            }
            let t = 2.0 * s / (u + v);
            if t < 0.0 {
                return Err(no_motion(&format!(
                    "covering s would take t = {t} s, before the start"
                )));
            }
            if t == 0.0 {
                return if u == v {
                    Ok(None)
                } else {
                    Err(no_motion(
                        "the velocity cannot change over zero displacement",
                    ))
                };
            }
            one([u, v, (v - u) / t, t, s])
        }
        [U, A, S] | [V, A, S] => {
            // One velocity is known (`w`), the other (`x`) follows from x² = w² ± 2as, with either sign.
            let from_start = triple[0] == U;
            let w = if from_start { u } else { v };
            if a == 0.0 {
                if w == 0.0 {
                    return if s == 0.0 {
                        Ok(None)
                    } else {
                        Err(no_motion("at rest with a = 0 nothing moves"))
                    };
                }
                let t = s / w;
                if t < 0.0 {
                    return Err(no_motion(&format!(
                        "covering s at constant velocity would take t = {t} s, before the start"
                    )));
                }
                return one([w, w, 0.0, t, s]);
            }
            let two_as = 2.0 * a * s;
            let mut square = if from_start {
                w * w + two_as
            } else {
                w * w - two_as
            };
            if square < 0.0 {
                if square < -1e-12 * (w * w).max(two_as.abs()) {
                    return Err(no_motion(&format!(
                        "the {} velocity would be the root of {square} m²/s²: the motion never covers s",
                        if from_start { "final" } else { "initial" }
                    )));
                }
                square = 0.0;
            }
            let root = square.sqrt();
            let roots: &[f64] = if root == 0.0 { &[0.0] } else { &[root, -root] };
            let mut out = Vec::new();
            for &x in roots {
                let (uu, vv) = if from_start { (w, x) } else { (x, w) };
                let t = time_between(uu, vv, a, s);
                if t >= 0.0 {
                    out.push([uu, vv, a, t, s]);
                }
            }
            if out.is_empty() {
                return Err(no_motion("both roots need t < 0"));
            }
            Ok(Some(out))
        }
        _ => Ok(None),
    }
}

/// The scale of each quantity in a motion, against which a known value's disagreement is measured.
fn scales(m: &Motion) -> Motion {
    let (u, v, a, t, s) = (m[U], m[V], m[A], m[T], m[S]);
    let speed = u.abs().max(v.abs()).max((a * t).abs());
    let accel = if t > 0.0 {
        a.abs().max(speed / t)
    } else {
        a.abs()
    };
    [speed, speed, accel, t, s.abs().max(speed * t)]
}

/// `kinematics`: constant-acceleration motion from any three (or more) of u, v, a, t, s.
pub(super) fn kinematics(p: &Value) -> Result<Value, ToolError> {
    let Some(known) = p.get("known").and_then(Value::as_object) else {
        return Err(ToolError::invalid_params(
            "`known` is required: an object with three or more of u, v, a, t, s (e.g. {\"u\": 0, \"a\": 9.8, \"t\": 3})",
        ));
    };
    let mut k: [Option<f64>; 5] = [None; 5];
    for (name, v) in known {
        let Some(i) = NAMES.iter().position(|n| n == name) else {
            return Err(ToolError::invalid_params(format!(
                "`known.{name}` is not one of u (initial velocity), v (final velocity), a (acceleration), t (time), s (displacement)"
            )));
        };
        if !v.is_null() {
            k[i] = Some(quantity::read_value(v, &format!("known.{name}"), KINDS[i])?);
        }
    }
    let count = k.iter().flatten().count();
    if count < 3 {
        return Err(ToolError::invalid_params(format!(
            "`known` has {count} of u, v, a, t, s; constant-acceleration motion needs three"
        )));
    }
    if let Some(t) = k[T] {
        non_negative(t, "known.t")?;
    }
    let find = find_list(p)?;
    let mut solved = None;
    for triple in TRIPLES {
        if triple.iter().all(|&i| k[i].is_some()) {
            if let Some(s) = solve(triple, &k)? {
                solved = Some((triple, s));
                break;
            }
        }
    }
    let Some((triple, all)) = solved else {
        return Err(ToolError::invalid_params(
            "the known values fit infinitely many motions (e.g. u = v with a = 0, or t = 0); give other quantities",
        ));
    };
    let from = triple.map(|i| NAMES[i]).join(", ");
    // Each motion with the worst gap between a further known value and what the triple implies for it.
    let worst = |m: &Motion| {
        let sc = scales(m);
        (0..5)
            .filter_map(|i| k[i].map(|x| (gap(x, m[i], sc[i]), i)))
            .fold((0.0, U), |a, b| if b.0 > a.0 { b } else { a })
    };
    let mut solutions: Vec<Motion> = all
        .iter()
        .filter(|m| worst(m).0 <= ROUNDED_RTOL)
        .copied()
        .collect();
    if solutions.is_empty() {
        let m = &all[0];
        let (g, i) = worst(m);
        return Err(ToolError::invalid_params(format!(
            "the known values disagree: `known.{}` is {} {}, but {from} give {} {} ({:.2} % apart; rounded data may differ by up to 0.1 %)",
            NAMES[i],
            k[i].unwrap_or_default(),
            UNITS[i],
            m[i],
            UNITS[i],
            100.0 * g
        )));
    }
    solutions.sort_by(|a, b| a[T].total_cmp(&b[T]));
    let mut notes = Vec::new();
    for m in &mut solutions {
        let sc = scales(m);
        for i in 0..5 {
            let Some(x) = k[i] else { continue };
            let g = gap(x, m[i], sc[i]);
            if g <= EXACT_RTOL {
                // The value as given, not its recomputation (0.45, not 0.45000000000000007).
                m[i] = x;
            } else {
                notes.push(format!(
                    "`known.{}` = {x} {} differs by {:.2} % from the {} {} that {from} give; the answer uses {from}",
                    NAMES[i],
                    UNITS[i],
                    100.0 * g,
                    m[i],
                    UNITS[i]
                ));
            }
        }
    }
    let render = |m: &Motion| -> Result<Out, ToolError> {
        let mut out = Out::new();
        for &i in &find {
            out.put(NAMES[i], m[i], UNITS[i])?;
        }
        Ok(out)
    };
    if let [m] = solutions.as_slice() {
        let mut out = render(m)?;
        for n in notes {
            out.note(n);
        }
        return Ok(out.done());
    }
    let mut list = Vec::new();
    let mut units = None;
    for m in &solutions {
        let mut v = render(m)?.done();
        units = v.as_object_mut().and_then(|o| o.remove("units"));
        list.push(v);
    }
    notes.insert(
        0,
        "two motions fit (both with t >= 0), ordered by t: e.g. on the way up and on the way down"
            .into(),
    );
    Ok(json!({"solutions": list, "units": units, "notes": notes}))
}

/// The indexes of `find` (a name or a list of names); all five when absent.
fn find_list(p: &Value) -> Result<Vec<usize>, ToolError> {
    let index = |name: &str| {
        NAMES.iter().position(|n| *n == name).ok_or_else(|| {
            ToolError::invalid_params(format!("`find`: `{name}` is not one of u, v, a, t, s"))
        })
    };
    match p.get("find") {
        None | Some(Value::Null) => Ok((0..5).collect()),
        Some(Value::String(s)) => Ok(vec![index(s)?]),
        Some(Value::Array(items)) if !items.is_empty() => items
            .iter()
            .map(|v| {
                v.as_str()
                    .ok_or_else(|| {
                        ToolError::invalid_params("`find` items must be names (u, v, a, t, s)")
                    })
                    .and_then(index)
            })
            .collect(),
        Some(other) => Err(ToolError::invalid_params(format!(
            "`find` must be a name or a list of names of u, v, a, t, s, got {other}"
        ))),
    }
}

fn gravity(p: &Value) -> Result<f64, ToolError> {
    positive(opt(p, "g", ACCELERATION)?.unwrap_or(STANDARD_GRAVITY), "g")
}

/// `projectile`: launch speed and angle, from a height above the landing level, no air resistance.
pub(super) fn projectile(p: &Value) -> Result<Value, ToolError> {
    let speed = non_negative(req(p, "velocity", METRES_PER_SECOND)?, "velocity")?;
    let angle = req(p, "angle", DEGREES)?;
    if !(-PI / 2.0..=PI / 2.0).contains(&angle) {
        return Err(ToolError::invalid_params(format!(
            "`angle` must be between -90 and 90 degrees above the horizontal, got {} deg",
            angle.to_degrees()
        )));
    }
    let h = opt(p, "height", METRES)?.unwrap_or(0.0);
    let g = gravity(p)?;
    let mut out = Out::new();
    note_bare(&mut out, p, "angle", DEGREES, angle);
    let (vx, vy) = (
        speed * cos_exact(angle).unwrap_or(angle.cos()),
        speed * angle.sin(),
    );
    let disc = vy * vy + 2.0 * g * h;
    if disc < 0.0 {
        return Err(ToolError::domain(format!(
            "the projectile never reaches the landing level {} m above the launch point (its highest point is {} m above it)",
            -h,
            vy * vy / (2.0 * g)
        )));
    }
    let root = disc.sqrt();
    // The later root of h + vy·t − g t²/2 = 0, written so that neither branch cancels.
    let flight = if vy >= 0.0 {
        (vy + root) / g
    } else {
        2.0 * h / (root - vy)
    };
    let apex = vy.max(0.0) / g;
    let vy_end = vy - g * flight;
    out.put("range", vx * flight, "m")?;
    out.put("max_height", h + vy.max(0.0).powi(2) / (2.0 * g), "m")?;
    out.put("time_of_flight", flight, "s")?;
    out.put("time_to_apex", apex, "s")?;
    out.put("impact_speed", vx.hypot(vy_end), "m/s")?;
    out.put("impact_angle", (-vy_end).atan2(vx).to_degrees(), "deg")?;
    out.put("g", g, "m/s^2")?;
    Ok(out.done())
}

/// `circular_motion`: uniform motion on a circle from its radius and one of v, ω, T, f.
pub(super) fn circular_motion(p: &Value) -> Result<Value, ToolError> {
    let r = positive(req(p, "radius", METRES)?, "radius")?;
    let given = [
        opt(p, "velocity", METRES_PER_SECOND)?,
        opt(p, "angular_velocity", RADIANS_PER_SECOND)?,
        opt(p, "period", SECONDS)?,
        opt(p, "frequency", HERTZ)?,
    ];
    let omega = match given {
        [Some(v), None, None, None] => v / r,
        [None, Some(w), None, None] => w,
        [None, None, Some(t), None] => TAU / positive(t, "period")?,
        [None, None, None, Some(f)] => TAU * f,
        _ => {
            return Err(ToolError::invalid_params(
                "give `radius` and exactly one of `velocity`, `angular_velocity`, `period`, `frequency`",
            ))
        }
    };
    let omega = omega.abs();
    let v = given[0].map_or(omega * r, f64::abs);
    let mut out = Out::new();
    out.put("velocity", v, "m/s")?;
    out.put("angular_velocity", omega, "rad/s")?;
    if omega > 0.0 {
        out.put("period", given[2].unwrap_or(TAU / omega), "s")?;
    } else {
        out.set("period", Value::Null);
    }
    out.put("frequency", given[3].map_or(omega / TAU, f64::abs), "Hz")?;
    let accel = v * omega;
    out.put("centripetal_acceleration", accel, "m/s^2")?;
    if let Some(m) = opt(p, "mass", KILOGRAMS)? {
        out.put("centripetal_force", positive(m, "mass")? * accel, "N")?;
    }
    Ok(out.done())
}

/// `gravitation`: Newton's law between two point masses.
pub(super) fn gravitation(p: &Value) -> Result<Value, ToolError> {
    let m1 = non_negative(req(p, "m1", KILOGRAMS)?, "m1")?;
    let m2 = non_negative(req(p, "m2", KILOGRAMS)?, "m2")?;
    let r = positive(req(p, "distance", METRES)?, "distance")?;
    let energy = G * m1 * m2 / r;
    let mut out = Out::new();
    out.put("force", energy / r, "N")?;
    out.put("potential_energy", -energy, "J")?;
    Ok(out.done())
}

/// `orbit`: a circular orbit of radius `radius` (from the centre) about a body of mass `mass`.
pub(super) fn orbit(p: &Value) -> Result<Value, ToolError> {
    let m = positive(req(p, "mass", KILOGRAMS)?, "mass")?;
    let r = positive(req(p, "radius", METRES)?, "radius")?;
    let gm_r = G * m / r;
    let v = gm_r.sqrt();
    let mut out = Out::new();
    out.put("orbital_velocity", v, "m/s")?;
    out.put("period", TAU * r / v, "s")?;
    out.put("escape_velocity", (2.0 * gm_r).sqrt(), "m/s")?;
    out.put("gravitational_acceleration", gm_r / r, "m/s^2")?;
    Ok(out.done())
}

/// `collision`: two bodies on a line, with a coefficient of restitution (1 elastic, 0 perfectly inelastic).
pub(super) fn collision(p: &Value) -> Result<Value, ToolError> {
    let m1 = positive(req(p, "m1", KILOGRAMS)?, "m1")?;
    let m2 = positive(req(p, "m2", KILOGRAMS)?, "m2")?;
    let u1 = req(p, "u1", METRES_PER_SECOND)?;
    let u2 = req(p, "u2", METRES_PER_SECOND)?;
    let kind = choice(p, "type", &["elastic", "perfectly_inelastic", "inelastic"])?;
    let e = match (kind, plain(p, "restitution")?) {
        (Some("elastic"), None) => 1.0,
        (Some("perfectly_inelastic"), None) => 0.0,
        (None | Some("inelastic"), Some(e)) if (0.0..=1.0).contains(&e) => e,
        (None | Some("inelastic"), Some(e)) => {
            return Err(ToolError::invalid_params(format!(
                "`restitution` must be between 0 (perfectly inelastic) and 1 (elastic), got {e}"
            )))
        }
        (Some("inelastic"), None) => {
            return Err(ToolError::invalid_params(
                "an `inelastic` collision needs its `restitution` (between 0 and 1)",
            ))
        }
        (Some(t), Some(_)) => {
            return Err(ToolError::invalid_params(format!(
                "give `type` {t} or a `restitution`, not both"
            )))
        }
        _ => {
            return Err(ToolError::invalid_params(
                "give `type` (elastic or perfectly_inelastic) or `restitution` (0 to 1)",
            ))
        }
    };
    if u1 <= u2 {
        return Err(ToolError::domain(format!(
            "the bodies do not approach each other (u1 = {u1} m/s is not above u2 = {u2} m/s): body 1 is taken to be behind body 2 on the line, so they never collide; swap them if 1 is ahead"
        )));
    }
    let total = m1 + m2;
    let momentum = m1 * u1 + m2 * u2;
    let v1 = (momentum + m2 * e * (u2 - u1)) / total;
    let v2 = (momentum + m1 * e * (u1 - u2)) / total;
    let before = 0.5 * (m1 * u1 * u1 + m2 * u2 * u2);
    // Lost in the frame of the centre of mass, where nothing cancels: (1 − e²) · μ (u1 − u2)² / 2.
    let lost = (1.0 - e * e) * 0.5 * (m1 * m2 / total) * (u1 - u2).powi(2);
    let mut out = Out::new();
    out.put("v1", v1, "m/s")?;
    out.put("v2", v2, "m/s")?;
    out.put("momentum", momentum, "kg*m/s")?;
    out.put("kinetic_energy_before", before, "J")?;
    out.put("kinetic_energy_after", before - lost, "J")?;
    out.put("energy_lost", lost, "J")?;
    out.put("restitution", e, "")?;
    Ok(out.done())
}

/// `work`: a constant force along a straight displacement at an angle to it, past a double's precision so
/// that 60° gives exactly half (250 J, not 249.99999999999994).
pub(super) fn work(p: &Value) -> Result<Value, ToolError> {
    let f = opt_float(p, "force", NEWTONS)?.ok_or_else(|| required("force", NEWTONS))?;
    let d = opt_float(p, "distance", METRES)?.ok_or_else(|| required("distance", METRES))?;
    let angle = opt_float(p, "angle", DEGREES)?.unwrap_or_else(|| Float::new(BITS));
    let mut out = Out::new();
    note_bare(&mut out, p, "angle", DEGREES, angle.to_f64());
    let cos = cos_exact(angle.to_f64()).map_or_else(
        || Float::with_val(BITS, angle.cos_ref()),
        |c| Float::with_val(BITS, c),
    );
    out.put("work", (f * d * cos).to_f64(), "J")?;
    Ok(out.done())
}

/// cos θ where it is exactly 0 (±90°, ±270°): the double nearest π/2 has a cosine of 6e-17, not 0.
fn cos_exact(angle: f64) -> Option<f64> {
    let quarter = angle / (PI / 2.0);
    (quarter == quarter.round() && quarter.round().rem_euclid(2.0) == 1.0).then_some(0.0)
}

/// `kinetic_energy`: ½mv² and the momentum mv.
pub(super) fn kinetic_energy(p: &Value) -> Result<Value, ToolError> {
    let m = non_negative(req(p, "mass", KILOGRAMS)?, "mass")?;
    let v = req(p, "velocity", METRES_PER_SECOND)?;
    if v.abs() >= SPEED_OF_LIGHT {
        return Err(ToolError::domain(format!(
            "`velocity` {} m/s is not below the speed of light ({SPEED_OF_LIGHT} m/s)",
            show(v)
        )));
    }
    let mut out = Out::new();
    let beta = v / SPEED_OF_LIGHT;
    if beta.abs() >= 0.1 {
        let gamma = 1.0 / (1.0 - beta * beta).sqrt();
        out.note(format!(
            "at {:.3} c the classical ½mv² is {:.1} % below the relativistic (γ − 1)mc² = {} J",
            beta.abs(),
            100.0 * (1.0 - 0.5 * beta * beta / (gamma - 1.0)),
            (gamma - 1.0) * m * SPEED_OF_LIGHT * SPEED_OF_LIGHT
        ));
    }
    out.put("kinetic_energy", 0.5 * m * v * v, "J")?;
    out.put("momentum", m * v, "kg*m/s")?;
    Ok(out.done())
}

/// `potential_energy`: mgh near a surface.
pub(super) fn potential_energy(p: &Value) -> Result<Value, ToolError> {
    let m = non_negative(req(p, "mass", KILOGRAMS)?, "mass")?;
    let h = req(p, "height", METRES)?;
    let g = gravity(p)?;
    let mut out = Out::new();
    out.put("potential_energy", m * g * h, "J")?;
    Ok(out.done())
}

/// `power`: work over time, or force times velocity.
pub(super) fn power(p: &Value) -> Result<Value, ToolError> {
    let pair = (
        opt(p, "work", JOULES)?,
        opt(p, "time", SECONDS)?,
        opt(p, "force", NEWTONS)?,
        opt(p, "velocity", METRES_PER_SECOND)?,
    );
    let power = match pair {
        (Some(w), Some(t), None, None) => w / positive(t, "time")?,
        (None, None, Some(f), Some(v)) => f * v,
        _ => {
            return Err(ToolError::invalid_params(
                "give `work` and `time`, or `force` and `velocity`",
            ))
        }
    };
    let mut out = Out::new();
    out.put("power", power, "W")?;
    Ok(out.done())
}
