//! Values brought to their metric's unit through the unit engine (`beaker-units`), as they are imported.

use beaker_units::expr::parse_unit;
use rug::Rational;

/// Glucose's molar mass (g/mol), which turns Apple Health's and meters' mmol/L into mg/dL.
pub const GLUCOSE_G_PER_MOL: f64 = 180.156;

/// `value` in `unit` brought to `target`: `None` when the unit engine cannot read one of them or their
/// dimensions differ. Equal spellings convert without reading them (counts, `count/min`).
pub fn convert(value: f64, unit: &str, target: &str) -> Option<f64> {
    let unit = spelling(unit);
    let target = spelling(target);
    if unit == target {
        return Some(value);
    }
    // mmol/L of glucose (Apple Health writes `mmol<180.15588000005408>/L`, naming the molar mass).
    if target == "mg/dL" {
        if let Some(rest) = unit.strip_prefix("mmol") {
            let (mass, rest) = match rest.strip_prefix('<') {
                Some(r) => {
                    let (m, tail) = r.split_once('>')?;
                    (m.parse::<f64>().ok()?, tail)
                }
                None => (GLUCOSE_G_PER_MOL, rest),
            };
            if rest == "/L" {
                // mmol/L × g/mol = mg/L; a decilitre is a tenth of a litre.
                return Some(value * mass / 10.0);
            }
            return None;
        }
    }
    let from = parse_unit(&unit).ok()?;
    let to = parse_unit(&target).ok()?;
    if from.dims != to.dims || from.pi != to.pi {
        return None;
    }
    let x = Rational::from_f64(value)?;
    // kelvin = (value + offset) × factor on a shifted scale; value = kelvin / factor − offset back.
    let kelvin = (x + from.offset.clone().unwrap_or_default()) * &from.factor;
    let out = kelvin / &to.factor - to.offset.clone().unwrap_or_default();
    let out = out.to_f64();
    out.is_finite().then_some(out)
}

/// The unit engine's spelling of an export's unit.
fn spelling(unit: &str) -> String {
    match unit.trim() {
        // Apple Health's VO2 max unit: millilitres per kilogram per minute.
        "mL/min·kg" | "ml/(kg·min)" | "mL/(kg·min)" | "ml/kg/min" => "mL/(kg*min)".into(),
        "Cal" => "kcal".into(),
        "bpm" | "beats/min" => "count/min".into(),
        "hr" => "h".into(),
        u => u.replace('·', "*"),
    }
}

#[cfg(test)]
mod tests {
    use super::convert;

    #[test]
    fn units_convert_as_the_unit_engine_reads_them() {
        let close = |a: Option<f64>, b: f64| {
            let a = a.expect("converts");
            assert!((a - b).abs() <= 1e-12 * b.abs().max(1.0), "{a} != {b}");
        };
        close(convert(1.0, "mi", "km"), 1.609344);
        close(convert(4.184, "kJ", "kcal"), 1.0);
        close(convert(100.0, "lb", "kg"), 45.359237);
        close(convert(98.6, "degF", "degC"), 37.0);
        close(
            convert(5.5, "mmol<180.15588000005408>/L", "mg/dL"),
            5.5 * 18.015_588_000_005_41,
        );
        close(convert(7.0, "mmol/L", "mg/dL"), 7.0 * 18.0156);
        close(convert(42.0, "mL/min·kg", "mL/(kg*min)"), 42.0);
        close(convert(72.0, "count/min", "count/min"), 72.0);
        assert_eq!(convert(1.0, "kg", "km"), None);
        assert_eq!(convert(1.0, "furlongs of joy", "km"), None);
    }
}
