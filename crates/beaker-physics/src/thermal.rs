//! Thermodynamics: sensible and latent heat, the four ideal-gas processes, Carnot limits, conduction.

use super::{
    choice, nearest, non_negative, note_bare, opt, opt_exact, opt_positive, plain, positive,
    redundant, req, required, Out, CONDUCTIVITY, CUBIC_METRES, KELVIN, KELVIN_STEP, KILOGRAMS,
    LATENT_HEAT, METRES, MOLAR_HEAT, MOLES, PASCALS, SPECIFIC_HEAT, SQUARE_METRES,
};
use beaker_core::ToolError;
use beaker_units::table::GAS_CONSTANT as R;
use rug::Rational;
use serde_json::{json, Value};

/// `heat`: m·c·ΔT (ΔT given, or from two temperatures), or m·L for a phase change.
pub(super) fn heat(p: &Value) -> Result<Value, ToolError> {
    let m = non_negative(req(p, "mass", KILOGRAMS)?, "mass")?;
    let sensible = [
        "specific_heat",
        "delta_t",
        "initial_temperature",
        "final_temperature",
    ];
    let mut out = Out::new();
    if let Some(l) = opt(p, "latent_heat", LATENT_HEAT)? {
        if let Some(k) = sensible
            .iter()
            .find(|k| p.get(**k).is_some_and(|v| !v.is_null()))
        {
            return Err(ToolError::invalid_params(format!(
                "`latent_heat` (a phase change, Q = m L) and `{k}` (Q = m c ΔT) are two calculations; make two calls"
            )));
        }
        out.put("heat", m * non_negative(l, "latent_heat")?, "J")?;
        return Ok(out.done());
    }
    let c = positive(req(p, "specific_heat", SPECIFIC_HEAT)?, "specific_heat")?;
    let dt = match (
        opt(p, "delta_t", KELVIN_STEP)?,
        opt(p, "initial_temperature", KELVIN)?,
        opt(p, "final_temperature", KELVIN)?,
    ) {
        (Some(dt), None, None) => dt,
        (None, Some(t1), Some(t2)) => {
            note_bare(&mut out, p, "initial_temperature", KELVIN, t1);
            note_bare(&mut out, p, "final_temperature", KELVIN, t2);
            t2 - t1
        }
        _ => {
            return Err(ToolError::invalid_params(
                "give `delta_t`, or both `initial_temperature` and `final_temperature` (with `mass` and `specific_heat`)",
            ))
        }
    };
    out.put("heat", m * c * dt, "J")?;
    out.put("delta_t", dt, "K")?;
    Ok(out.done())
}

/// The molar heat capacity at constant volume and γ, each from the other when only one is given.
fn heat_capacity(p: &Value, out: &mut Out) -> Result<(f64, f64), ToolError> {
    let gamma = plain(p, "gamma")?;
    if let Some(g) = gamma {
        if g <= 1.0 {
            return Err(ToolError::invalid_params(format!(
                "`gamma` (Cp/Cv) must be above 1, got {g}"
            )));
        }
    }
    let cv = opt_positive(p, "cv", MOLAR_HEAT)?;
    Ok(match (cv, gamma) {
        (Some(cv), Some(g)) => {
            redundant(
                out,
                "cv",
                cv,
                R / (g - 1.0),
                "J/(mol*K)",
                "gamma (cv = R/(gamma - 1))",
            )?;
            (cv, g)
        }
        (Some(cv), None) => (cv, 1.0 + R / cv),
        (None, Some(g)) => (R / (g - 1.0), g),
        // A monatomic ideal gas.
        (None, None) => (1.5 * R, 5.0 / 3.0),
    })
}

/// An ideal-gas state.
#[derive(Clone, Copy)]
struct State {
    p: f64,
    v: f64,
    t: f64,
}

impl State {
    fn json(self) -> Value {
        json!({"pressure": self.p + 0.0, "volume": self.v + 0.0, "temperature": self.t + 0.0})
    }
}

/// The initial state and the amount from any three of n, T, V, P.
fn initial_state(p: &Value, out: &mut Out) -> Result<(f64, State), ToolError> {
    let n = opt_positive(p, "moles", MOLES)?;
    let t = opt_positive(p, "temperature", KELVIN)?;
    let v = opt_positive(p, "volume", CUBIC_METRES)?;
    let pr = opt_positive(p, "pressure", PASCALS)?;
    let (n, s) =
        match (n, t, v, pr) {
            (Some(n), Some(t), Some(v), pr) => {
                let want = n * R * t / v;
                if let Some(x) = pr {
                    redundant(
                        out,
                        "pressure",
                        x,
                        want,
                        "Pa",
                        "moles, temperature and volume",
                    )?;
                }
                (n, State { p: want, v, t })
            }
            (Some(n), Some(t), None, Some(pr)) => (
                n,
                State {
                    p: pr,
                    v: n * R * t / pr,
                    t,
                },
            ),
            (Some(n), None, Some(v), Some(pr)) => (
                n,
                State {
                    p: pr,
                    v,
                    t: pr * v / (n * R),
                },
            ),
            (None, Some(t), Some(v), Some(pr)) => (pr * v / (R * t), State { p: pr, v, t }),
            _ => return Err(ToolError::invalid_params(
                "give three of `moles`, `temperature`, `volume`, `pressure` for the initial state",
            )),
        };
    Ok((n, s))
}

/// `gas_process`: an ideal gas taken reversibly through one isothermal, adiabatic, isobaric or isochoric step.
pub(super) fn gas_process(p: &Value) -> Result<Value, ToolError> {
    let process = choice(
        p,
        "process",
        &["isothermal", "adiabatic", "isobaric", "isochoric"],
    )?
    .ok_or_else(|| {
        ToolError::invalid_params(
            "`process` is required: isothermal, adiabatic, isobaric or isochoric",
        )
    })?;
    let mut out = Out::new();
    let (n, s1) = initial_state(p, &mut out)?;
    let (cv, gamma) = heat_capacity(p, &mut out)?;
    for key in ["temperature", "final_temperature"] {
        if let Some(t) = opt(p, key, KELVIN)? {
            note_bare(&mut out, p, key, KELVIN, t);
        }
    }
    let fv = opt_positive(p, "final_volume", CUBIC_METRES)?;
    let ft = opt_positive(p, "final_temperature", KELVIN)?;
    let fp = opt_positive(p, "final_pressure", PASCALS)?;
    let allowed: &[&str] = match process {
        "isothermal" => &["final_volume", "final_pressure"],
        "adiabatic" => &["final_volume", "final_temperature", "final_pressure"],
        "isobaric" => &["final_volume", "final_temperature"],
        _ => &["final_temperature", "final_pressure"],
    };
    let given: Vec<&str> = [
        ("final_volume", fv),
        ("final_temperature", ft),
        ("final_pressure", fp),
    ]
    .iter()
    .filter(|(_, x)| x.is_some())
    .map(|(k, _)| *k)
    .collect();
    if given.len() != 1 || !allowed.contains(&given[0]) {
        return Err(ToolError::invalid_params(format!(
            "an {process} process needs exactly one of {} for its final state",
            allowed
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let nr = n * R;
    // Each arm gives the final state, the work done by the gas and the change of its internal energy.
    let (s2, work, du) = match process {
        "isothermal" => {
            let v2 = fv.unwrap_or_else(|| nr * s1.t / fp.unwrap_or(s1.p));
            let s2 = State {
                p: nr * s1.t / v2,
                v: v2,
                t: s1.t,
            };
            (s2, nr * s1.t * (v2 / s1.v).ln(), 0.0)
        }
        "adiabatic" => {
            // T V^(γ−1) and P V^γ are constant; ln(V1/V2) carries every form of the final state.
            let ln_ratio = match (fv, ft, fp) {
                (Some(v2), _, _) => (s1.v / v2).ln(),
                (_, Some(t2), _) => (t2 / s1.t).ln() / (gamma - 1.0),
                (_, _, Some(p2)) => (p2 / s1.p).ln() / gamma,
                _ => 0.0,
            };
            let v2 = fv.unwrap_or(s1.v * (-ln_ratio).exp());
            let growth = ((gamma - 1.0) * ln_ratio).exp_m1();
            let t2 = ft.unwrap_or(s1.t * (1.0 + growth));
            let s2 = State {
                p: fp.unwrap_or(nr * t2 / v2),
                v: v2,
                t: t2,
            };
            let du = n * cv * s1.t * growth;
            (s2, -du, du)
        }
        "isobaric" => {
            let (v2, t2, dt) = match fv {
                Some(v2) => (v2, s1.t * v2 / s1.v, s1.t * (v2 - s1.v) / s1.v),
                None => {
                    let t2 = ft.unwrap_or(s1.t);
                    (s1.v * t2 / s1.t, t2, t2 - s1.t)
                }
            };
            (
                State {
                    p: s1.p,
                    v: v2,
                    t: t2,
                },
                nr * dt,
                n * cv * dt,
            )
        }
        _ => {
            let t2 = ft.unwrap_or_else(|| s1.t * fp.unwrap_or(s1.p) / s1.p);
            let s2 = State {
                p: fp.unwrap_or(nr * t2 / s1.v),
                v: s1.v,
                t: t2,
            };
            (s2, 0.0, n * cv * (t2 - s1.t))
        }
    };
    out.put("work", work, "J")?;
    out.put(
        "heat",
        if process == "adiabatic" {
            0.0
        } else {
            du + work
        },
        "J",
    )?;
    out.put("delta_internal_energy", du, "J")?;
    for (k, s) in [("initial", s1), ("final", s2)] {
        if ![s.p, s.v, s.t].iter().all(|x| x.is_finite()) {
            return Err(ToolError::domain(format!(
                "the {k} state is outside the range of a double"
            )));
        }
        out.set(k, s.json());
    }
    out.put("moles", n, "mol")?;
    out.put("cv", cv, "J/(mol*K)")?;
    out.put("gamma", gamma, "")?;
    let mut v = out.done();
    if let Some(units) = v.get_mut("units").and_then(Value::as_object_mut) {
        let state = json!({"pressure": "Pa", "volume": "m^3", "temperature": "K"});
        units.insert("initial".into(), state.clone());
        units.insert("final".into(), state);
    }
    Ok(v)
}

/// `carnot`: the reversible limits between two reservoirs, in exact rationals (500 K and 300 K give 0.4).
pub(super) fn carnot(p: &Value) -> Result<Value, ToolError> {
    let hot = opt_exact(p, "t_hot", KELVIN)?.ok_or_else(|| required("t_hot", KELVIN))?;
    let cold = opt_exact(p, "t_cold", KELVIN)?.ok_or_else(|| required("t_cold", KELVIN))?;
    let (h, c) = (nearest(&hot), nearest(&cold));
    positive(c, "t_cold")?;
    if hot <= cold {
        return Err(ToolError::invalid_params(format!(
            "`t_hot` ({h} K) must be above `t_cold` ({c} K)"
        )));
    }
    let span = Rational::from(&hot - &cold);
    let mut out = Out::new();
    note_bare(&mut out, p, "t_hot", KELVIN, h);
    note_bare(&mut out, p, "t_cold", KELVIN, c);
    out.put("efficiency", nearest(&Rational::from(&span / &hot)), "")?;
    out.put(
        "cop_refrigerator",
        nearest(&Rational::from(&cold / &span)),
        "",
    )?;
    out.put("cop_heat_pump", nearest(&(hot / span)), "")?;
    Ok(out.done())
}

/// `conduction`: steady heat flow through a slab, Fourier's law.
pub(super) fn conduction(p: &Value) -> Result<Value, ToolError> {
    let k = positive(req(p, "conductivity", CONDUCTIVITY)?, "conductivity")?;
    let area = positive(req(p, "area", SQUARE_METRES)?, "area")?;
    let thickness = positive(req(p, "thickness", METRES)?, "thickness")?;
    let dt = match (
        opt(p, "delta_t", KELVIN_STEP)?,
        opt(p, "t_hot", KELVIN)?,
        opt(p, "t_cold", KELVIN)?,
    ) {
        (Some(dt), None, None) => dt,
        (None, Some(hot), Some(cold)) => hot - cold,
        _ => {
            return Err(ToolError::invalid_params(
                "give `delta_t`, or both `t_hot` and `t_cold`",
            ))
        }
    };
    let resistance = thickness / (k * area);
    let mut out = Out::new();
    out.put("heat_rate", dt / resistance, "W")?;
    out.put("thermal_resistance", resistance, "K/W")?;
    Ok(out.done())
}
