//! `physics`: closed forms of mechanics, thermodynamics, circuits, optics and waves, with every quantity read
//! through the unit engine and every result in SI with its unit. See `physics.md`.

mod circuits;
mod mechanics;
mod optics;
mod spec;
#[cfg(test)]
mod tests;
mod thermal;

use beaker_core::{CallContext, Tool, ToolError, ToolSpec};
use beaker_units::quantity::{self, agreement, gap, Kind, EXACT_RTOL, ROUNDED_RTOL};
use beaker_units::table::{
    Dims, ANGLE, ANGULAR_SPEED, AREA, CAPACITANCE, CURRENT, ENERGY, FORCE, FREQ, INDUCTANCE, LEN,
    MASS, POWER, PRESSURE, RESISTANCE, SPEED, TEMP, TIME, VOLTAGE, VOLUME,
};
use rug::{Float, Rational};
use serde_json::{json, Map, Value};

/// Newton's constant of gravitation, m³/(kg·s²) (CODATA 2022).
const G: f64 = 6.674_30e-11;
/// Speed of light in vacuum, m/s (exact by definition).
const SPEED_OF_LIGHT: f64 = 299_792_458.0;
/// Standard acceleration of gravity, m/s² (exact by definition; the default `g`).
const STANDARD_GRAVITY: f64 = 9.806_65;

/// The `physics` tool.
pub struct Physics {
    spec: ToolSpec,
}

impl Default for Physics {
    fn default() -> Self {
        Self::new()
    }
}

impl Physics {
    /// The tool with its spec.
    pub fn new() -> Self {
        Physics { spec: spec::spec() }
    }
}

/// The keys each operation reads (besides `operation`); any other key is refused, never ignored.
const KEYS: beaker_core::operations::Keys = &[
    ("kinematics", &["known", "find"]),
    ("projectile", &["velocity", "angle", "height", "g"]),
    (
        "circular_motion",
        &[
            "radius",
            "velocity",
            "angular_velocity",
            "period",
            "frequency",
            "mass",
        ],
    ),
    ("gravitation", &["m1", "m2", "distance"]),
    ("orbit", &["mass", "radius"]),
    (
        "collision",
        &["m1", "u1", "m2", "u2", "type", "restitution"],
    ),
    ("work", &["force", "distance", "angle"]),
    ("kinetic_energy", &["mass", "velocity"]),
    ("potential_energy", &["mass", "height", "g"]),
    ("power", &["work", "time", "force", "velocity"]),
    (
        "heat",
        &[
            "mass",
            "specific_heat",
            "delta_t",
            "initial_temperature",
            "final_temperature",
            "latent_heat",
        ],
    ),
    (
        "gas_process",
        &[
            "process",
            "moles",
            "temperature",
            "volume",
            "pressure",
            "final_volume",
            "final_temperature",
            "final_pressure",
            "gamma",
            "cv",
        ],
    ),
    ("carnot", &["t_hot", "t_cold"]),
    (
        "conduction",
        &[
            "conductivity",
            "area",
            "thickness",
            "delta_t",
            "t_hot",
            "t_cold",
        ],
    ),
    ("resistors", &["series", "parallel", "network", "between"]),
    ("capacitors", &["series", "parallel"]),
    ("inductors", &["series", "parallel"]),
    ("ohm", &["voltage", "current", "resistance", "power"]),
    (
        "rc_circuit",
        &["resistance", "capacitance", "voltage", "time", "mode"],
    ),
    (
        "rl_circuit",
        &["resistance", "inductance", "voltage", "time", "mode"],
    ),
    ("thin_lens", &["focal_length", "object_distance"]),
    ("mirror", &["focal_length", "radius", "object_distance"]),
    ("snell", &["n1", "n2", "angle"]),
    ("wave", &["speed", "frequency", "wavelength"]),
    (
        "doppler",
        &[
            "frequency",
            "source_velocity",
            "observer_velocity",
            "wave_speed",
        ],
    ),
];

impl Tool for Physics {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let op = beaker_core::operations::select(params, KEYS)?;
        let p = params;
        match op {
            "kinematics" => mechanics::kinematics(p),
            "projectile" => mechanics::projectile(p),
            "circular_motion" => mechanics::circular_motion(p),
            "gravitation" => mechanics::gravitation(p),
            "orbit" => mechanics::orbit(p),
            "collision" => mechanics::collision(p),
            "work" => mechanics::work(p),
            "kinetic_energy" => mechanics::kinetic_energy(p),
            "potential_energy" => mechanics::potential_energy(p),
            "power" => mechanics::power(p),
            "heat" => thermal::heat(p),
            "gas_process" => thermal::gas_process(p),
            "carnot" => thermal::carnot(p),
            "conduction" => thermal::conduction(p),
            "resistors" => circuits::resistors(p, ctx),
            "capacitors" => circuits::capacitors(p),
            "inductors" => circuits::inductors(p),
            "ohm" => circuits::ohm(p),
            "rc_circuit" => circuits::rc_circuit(p),
            "rl_circuit" => circuits::rl_circuit(p),
            "thin_lens" => optics::thin_lens(p),
            "mirror" => optics::mirror(p),
            "snell" => optics::snell(p),
            "wave" => optics::wave(p),
            _ => optics::doppler(p),
        }
    }
}

const fn d(l: i8, m: i8, t: i8, i: i8, k: i8, n: i8) -> Dims {
    [l, m, t, i, k, n, 0, 0, 0]
}

/// What each quantity param is, by dimension; a bare number is in the SI unit named here.
const METRES: Kind = Kind::new(LEN, "m");
const SECONDS: Kind = Kind::new(TIME, "s");
const KILOGRAMS: Kind = Kind::new(MASS, "kg");
const METRES_PER_SECOND: Kind = Kind::new(SPEED, "m/s");
const ACCELERATION: Kind = Kind::new(d(1, 0, -2, 0, 0, 0), "m/s^2");
/// Bare angles are degrees, as people and models write them (`"0.5 rad"` says otherwise).
const DEGREES: Kind = Kind::new(ANGLE, "deg");
/// Bare angular velocities are rad/s, the SI unit (`"120 rpm"`, `"90 deg/s"` say otherwise).
const RADIANS_PER_SECOND: Kind = Kind::new(ANGULAR_SPEED, "rad/s");
const HERTZ: Kind = Kind::new(FREQ, "Hz");
const NEWTONS: Kind = Kind::new(FORCE, "N");
const JOULES: Kind = Kind::new(ENERGY, "J");
const WATTS: Kind = Kind::new(POWER, "W");
const KELVIN: Kind = Kind::new(TEMP, "K");
/// A temperature difference: `"10 degC"` is a 10 K step, and it may be negative.
const KELVIN_STEP: Kind = Kind {
    difference: true,
    ..Kind::new(TEMP, "K")
};
const SQUARE_METRES: Kind = Kind::new(AREA, "m^2");
const CUBIC_METRES: Kind = Kind::new(VOLUME, "m^3");
const PASCALS: Kind = Kind::new(PRESSURE, "Pa");
const MOLES: Kind = Kind::new(d(0, 0, 0, 0, 0, 1), "mol");
const SPECIFIC_HEAT: Kind = Kind::new(d(2, 0, -2, 0, -1, 0), "J/(kg*K)");
const MOLAR_HEAT: Kind = Kind::new(d(2, 1, -2, 0, -1, -1), "J/(mol*K)");
const LATENT_HEAT: Kind = Kind::new(d(2, 0, -2, 0, 0, 0), "J/kg");
const CONDUCTIVITY: Kind = Kind::new(d(1, 1, -3, 0, -1, 0), "W/(m*K)");
const OHMS: Kind = Kind::new(RESISTANCE, "ohm");
const FARADS: Kind = Kind::new(CAPACITANCE, "F");
const HENRIES: Kind = Kind::new(INDUCTANCE, "H");
const VOLTS: Kind = Kind::new(VOLTAGE, "V");
const AMPERES: Kind = Kind::new(CURRENT, "A");

/// Param `key` in SI, or `None` when it is absent or null.
fn opt(p: &Value, key: &str, kind: Kind) -> Result<Option<f64>, ToolError> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => quantity::read_value(v, key, kind).map(Some),
    }
}

/// Notes what a bare number was taken to mean where a model easily means something else: a temperature
/// below 200 K (`27` is 27 K, not 27 °C) or a fractional angle under 2π (`0.5236` is degrees, not radians).
fn note_bare(out: &mut Out, p: &Value, key: &str, kind: Kind, si: f64) {
    let bare = match p.get(key) {
        Some(Value::Number(n)) => n.as_f64(),
        Some(Value::String(s)) => s.trim().parse::<f64>().ok(),
        _ => None,
    };
    let Some(x) = bare else { return };
    if kind.dims == TEMP && !kind.difference && si < 200.0 {
        out.note(format!(
            "`{key}` = {x} is taken as kelvin; write \"{x} degC\" for degrees Celsius"
        ));
    } else if kind.dims == ANGLE && x.fract() != 0.0 && x.abs() < std::f64::consts::TAU {
        out.note(format!(
            "`{key}` = {x} is taken as degrees; write \"{x} rad\" for radians"
        ));
    }
}

/// A number for a message, in the shortest form that reads back the same (`1e300`, not 301 digits).
fn show(x: f64) -> String {
    Value::from(x).to_string()
}

/// Working precision of the closed forms that are evaluated past a double (trigonometry of given angles).
const BITS: u32 = 128;

/// Param `key` in SI as an exact rational (`"2.2 kohm"` is 2200), or `None` when absent.
fn opt_exact(p: &Value, key: &str, kind: Kind) -> Result<Option<Rational>, ToolError> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => quantity::read_rational(v, key, kind).map(Some),
    }
}

/// Param `key` in SI at [`BITS`] of precision, or `None` when absent.
fn opt_float(p: &Value, key: &str, kind: Kind) -> Result<Option<Float>, ToolError> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => quantity::read_float(v, key, kind, BITS).map(Some),
    }
}

fn required(key: &str, kind: Kind) -> ToolError {
    ToolError::invalid_params(format!(
        "`{key}` is required (a number in {}, or a string with a unit)",
        kind.bare_unit
    ))
}

use quantity::nearest;

/// Param `key` in SI; its absence is an error naming it.
fn req(p: &Value, key: &str, kind: Kind) -> Result<f64, ToolError> {
    opt(p, key, kind)?.ok_or_else(|| required(key, kind))
}

/// A plain number param (a refractive index, γ, a coefficient of restitution), or `None` when absent.
fn plain(p: &Value, key: &str) -> Result<Option<f64>, ToolError> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| {
                ToolError::invalid_params(format!("`{key}` must be a plain number, got \"{s}\""))
            }),
        Some(other) => Err(ToolError::invalid_params(format!(
            "`{key}` must be a plain number, got {other}"
        ))),
    }
}

/// Param `key` in SI when it is given, and then above zero; `None` when absent.
fn opt_positive(p: &Value, key: &str, kind: Kind) -> Result<Option<f64>, ToolError> {
    opt(p, key, kind)?.map(|x| positive(x, key)).transpose()
}

/// `x` when it is above zero, else an error naming `key`.
fn positive(x: f64, key: &str) -> Result<f64, ToolError> {
    if x > 0.0 {
        Ok(x)
    } else {
        Err(ToolError::invalid_params(format!(
            "`{key}` must be positive, got {}",
            show(x)
        )))
    }
}

/// `x` when it is zero or more, else an error naming `key`.
fn non_negative(x: f64, key: &str) -> Result<f64, ToolError> {
    if x >= 0.0 {
        Ok(x)
    } else {
        Err(ToolError::invalid_params(format!(
            "`{key}` must not be negative, got {}",
            show(x)
        )))
    }
}

/// A string param that must be one of `choices`; `None` when absent.
fn choice<'a>(p: &'a Value, key: &str, choices: &[&str]) -> Result<Option<&'a str>, ToolError> {
    match p.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if choices.contains(&s.as_str()) => Ok(Some(s.as_str())),
        Some(other) => Err(ToolError::invalid_params(format!(
            "`{key}` must be one of {}, got {other}",
            choices.join(", ")
        ))),
    }
}

/// A result under construction: values in SI and, beside them, the unit of each.
#[derive(Default)]
struct Out {
    values: Map<String, Value>,
    units: Map<String, Value>,
    notes: Vec<String>,
}

impl Out {
    fn new() -> Self {
        Self::default()
    }

    /// Adds `key = x unit`; a result that overflowed a double is a `domain_error`, never `inf` or `null`.
    fn put(&mut self, key: &str, x: f64, unit: &str) -> Result<(), ToolError> {
        if !x.is_finite() {
            return Err(ToolError::domain(format!(
                "`{key}` is not a finite number (the inputs are too large or too small for a double)"
            )));
        }
        // -0.0 prints as `-0.0`; a model reading it would look for a meaning that is not there.
        self.values.insert(key.into(), json!(x + 0.0));
        if !unit.is_empty() {
            self.units.insert(key.into(), json!(unit));
        }
        Ok(())
    }

    /// Adds a value that has no unit (a label, a flag, a nested object).
    fn set(&mut self, key: &str, v: Value) {
        self.values.insert(key.into(), v);
    }

    /// Adds a note for the caller: how an input was read, or what an answer assumes.
    fn note(&mut self, text: String) {
        self.notes.push(text);
    }

    fn done(mut self) -> Value {
        if !self.units.is_empty() {
            self.values
                .insert("units".into(), Value::Object(self.units));
        }
        if !self.notes.is_empty() {
            self.values.insert("notes".into(), json!(self.notes));
        }
        Value::Object(self.values)
    }
}

/// Checks a redundant input: silent when it agrees, a note when it is off by rounding, an error naming it and
/// the value the others imply when it is further off.
fn redundant(
    out: &mut Out,
    key: &str,
    given: f64,
    implied: f64,
    unit: &str,
    from: &str,
) -> Result<(), ToolError> {
    if let Some(note) = agreement(key, given, implied, unit, from)? {
        out.note(note);
    }
    Ok(())
}
