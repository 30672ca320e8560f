//! Unit tests of the converter's parts; reference conversions against Pint are in `tests/data/units/`.

use super::*;
use beaker_core::Limits;

fn conv(value: Value, from: &str, to: &str) -> Result<Value, ToolError> {
    UnitConverter::new().call(
        &json!({"value": value, "from_unit": from, "to_unit": to}),
        &CallContext::new(Limits::default()),
    )
}

#[test]
fn unit_expressions_parse_every_way_people_write_them() {
    for (from, to, value, want) in [
        ("kg*m/s^2", "N", "1", "1"),
        ("N·m", "J", "1", "1"),
        ("N m", "J", "1", "1"),
        ("kW*h", "MJ", "1", "3.6"),
        ("kWh", "J", "1", "3600000"),
        ("m^3", "L", "1", "1000"),
        ("m**3", "L", "1", "1000"),
        ("m³", "L", "1", "1000"),
        ("m3", "L", "1", "1000"),
        ("kilometers per hour", "m/s", "36", "10"),
        ("square feet", "m^2", "1", "0.09290304"),
        ("meters per second squared", "m/s^2", "2", "2"),
        ("J/(kg*K)", "J/(g*K)", "1000", "1"),
        ("µm", "nm", "1", "1000"),
        ("um", "nm", "1", "1000"),
        ("μm", "nm", "1", "1000"),
        ("GiB", "MiB", "1", "1024"),
        ("nautical miles", "m", "1", "1852"),
        ("fl oz", "mL", "1", "29.5735295625"),
        ("degrees Celsius", "K", "0", "273.15"),
        ("kΩ", "ohm", "2.2", "2200"),
        ("mmol/L", "M", "1", "0.001"),
        ("1/s", "Hz", "5", "5"),
        ("kg m^2 s^-2", "J", "1", "1"),
        ("mins", "s", "2", "120"),
        ("hrs", "mins", "1", "60"),
        ("Nm", "J", "3", "3"),
        ("newton meters", "J", "3", "3"),
    ] {
        let got = conv(json!(value), from, to).unwrap_or_else(|e| panic!("{from} -> {to}: {e}"));
        assert_eq!(got["value"], want, "{from} -> {to}: {got}");
    }
}

#[test]
fn temperatures_are_affine_and_differences_are_not() {
    let v = |v: &str, f: &str, t: &str| conv(json!(v), f, t).unwrap()["value"].clone();
    assert_eq!(v("100", "degC", "degF"), "212");
    assert_eq!(v("-40", "°C", "°F"), "-40");
    assert_eq!(v("0", "K", "degC"), "-273.15");
    assert_eq!(v("1", "delta_degC", "delta_degF"), "1.8");
    assert_eq!(v("1", "J/(kg*degC)", "J/(kg*K)"), "1");
    let c = conv(json!("25"), "C", "F").unwrap();
    assert_eq!(c["value"], "77");
    assert!(c["notes"].to_string().contains("Celsius"));
    // Alone, C is the coulomb.
    assert_eq!(v("1", "C", "mC"), "1000");
    assert_eq!(v("20", "deg C", "deg F"), "68");
    // A temperature is not a difference, and nothing is colder than 0 K.
    let e = conv(json!(1), "degC", "delta_degF").unwrap_err();
    assert_eq!(e.kind, beaker_core::ErrorKind::InvalidParams);
    assert!(e.message.contains("temperature difference"), "{e}");
    assert_eq!(
        conv(json!(1), "delta_degC", "degF").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(-300), "degC", "K").unwrap_err().kind,
        beaker_core::ErrorKind::DomainError
    );
    assert_eq!(
        conv(json!(-1), "K", "degC").unwrap_err().kind,
        beaker_core::ErrorKind::DomainError
    );
    assert_eq!(v("-300", "delta_degC", "K"), "-300");
}

#[test]
fn dimension_mismatches_and_unknown_units_say_what_is_wrong() {
    let e = conv(json!(1), "m", "s").unwrap_err();
    assert_eq!(e.kind, beaker_core::ErrorKind::InvalidParams);
    assert!(
        e.message.contains("cannot convert length (m) to time (s)"),
        "{e}"
    );
    let e = conv(json!(1), "kg*m/s", "N").unwrap_err();
    assert!(
        e.message.contains("length * mass / time") && e.message.contains("force"),
        "{e}"
    );
    let e = conv(json!(1), "meterz", "m").unwrap_err();
    assert!(
        e.message.contains("unknown unit `meterz`") && e.message.contains("meter"),
        "{e}"
    );
    let e = conv(json!(1), "rpm", "Hz").unwrap_err();
    assert!(e.message.contains("angular speed"), "{e}");
}

#[test]
fn exactness_and_rounding() {
    let r = conv(json!(100), "km/h", "m/s").unwrap();
    assert_eq!(
        (r["exact"].clone(), r["fraction"].clone()),
        (json!(false), json!("250/9"))
    );
    let r = UnitConverter::new()
        .call(
            &json!({"value": 100, "from_unit": "km/h", "to_unit": "m/s", "precision": 5}),
            &CallContext::new(Limits::default()),
        )
        .unwrap();
    assert_eq!(r["value"], "27.778");
    assert_eq!(
        conv(json!("1e-30"), "m", "km").unwrap()["value"],
        "0.000000000000000000000000000000001"
    );
    assert_eq!(
        conv(json!(180), "deg", "rad").unwrap()["value"],
        "3.14159265358979"
    );
    assert_eq!(conv(json!(0.1), "m", "cm").unwrap()["value"], "10");
    let arr = conv(json!([1, "2.5", "1/4"]), "in", "cm").unwrap();
    assert_eq!(arr["value"], json!(["2.54", "6.35", "0.635"]));
}

#[test]
fn ambiguous_units_are_noted() {
    for u in ["hp", "ton", "gal", "cal", "rad"] {
        let r = conv(json!(1), u, u).unwrap();
        assert!(
            r["notes"].as_array().is_some_and(|n| !n.is_empty()),
            "{u}: {r}"
        );
    }
}

#[test]
fn hostile_values_and_units_are_refused_cleanly() {
    assert_eq!(
        conv(json!("1e100000"), "m", "km").unwrap_err().kind,
        beaker_core::ErrorKind::LimitExceeded
    );
    assert_eq!(
        conv(json!("NaN"), "m", "km").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), &"(".repeat(100), "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), "m^999", "m").unwrap_err().kind,
        beaker_core::ErrorKind::LimitExceeded
    );
    // A number that is not a power is a shape error, however large (found by the property test: "21").
    for unit in ["21", "99999999999999", "m 21"] {
        assert_eq!(
            conv(json!(1), unit, "m").unwrap_err().kind,
            beaker_core::ErrorKind::InvalidParams,
            "{unit}"
        );
    }
    assert_eq!(
        conv(json!(1), "m^-999999999999", "m").unwrap_err().kind,
        beaker_core::ErrorKind::LimitExceeded
    );
    assert_eq!(
        conv(json!(1), &"m*".repeat(200), "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
    assert_eq!(
        conv(json!(1), "", "m").unwrap_err().kind,
        beaker_core::ErrorKind::InvalidParams
    );
}

/// The case rule (units.md): symbols are case-sensitive; long names are not; any other spelling is read
/// ignoring case when that gives one unit (or one of the dimension the other side needs), with a note.
#[test]
fn case_rule_symbols_exact_names_free_others_only_when_unique() {
    use super::expr::{lookup, parse_unit};
    use super::table::UNITS;
    let same = |a: &str, b: &str| {
        let (x, y) = (parse_unit(a), parse_unit(b));
        match (x, y) {
            (Ok(x), Ok(y)) => (x.factor, x.pi, x.dims) == (y.factor, y.pi, y.dims),
            _ => false,
        }
    };
    // Symbols as SI writes them: the case is the meaning.
    assert!(same("ms", "millisecond") && same("mS", "millisiemens") && same("MS", "megasiemens"));
    assert!(
        same("Mb", "megabit") && same("MB", "megabyte") && same("T", "tesla") && same("t", "tonne")
    );
    // Long names in any case, with their notes only.
    for (a, b) in [
        ("KILOMETERS", "km"),
        ("Miles", "mi"),
        ("DEGREES CELSIUS", "degC"),
        ("Henries", "H"),
    ] {
        assert!(same(a, b), "{a}");
        assert!(
            parse_unit(a)
                .unwrap()
                .notes
                .iter()
                .all(|n| !n.contains("case")),
            "{a}"
        );
    }
    // Other spellings: read when exactly one unit matches ignoring case, and said so.
    for (a, b) in [
        ("KPH", "kph"),
        ("PSI", "psi"),
        ("MPH", "mph"),
        ("kWH", "kWh"),
        ("kOhm", "kohm"),
        ("KM", "km"),
        ("KWH", "kWh"),
        ("GHZ", "GHz"),
    ] {
        assert!(same(a, b), "{a}");
        let q = lookup(a).unwrap();
        assert!(
            q.notes
                .iter()
                .any(|n| n.contains(&format!("{a} is read as {b}"))),
            "{a}: {:?}",
            q.notes
        );
    }
    // Several units ignoring case: refused, naming them all.
    for (a, want) in [
        ("MM", &["mm", "Mm", "mM"][..]),
        ("KB", &["kB", "kb"]),
        ("MBar", &["mbar", "Mbar"]),
        ("MHZ", &["MHz", "mHz"]),
    ] {
        match lookup(a) {
            Err(UnitError::Ambiguous { candidates, .. }) => {
                for w in want {
                    assert!(candidates.iter().any(|c| c == w), "{a}: {candidates:?}");
                }
            }
            other => panic!("{a}: {other:?}"),
        }
    }
    // ... unless the other side's dimension leaves one of them, which is then read, with a note.
    // `FT` alone could be feet or femtotesla; next to an area (`SQ FT` to `m^2`) it is feet.
    assert_eq!(
        conv(json!(1), "SQ FT", "m^2").unwrap()["value"],
        conv(json!(1), "ft^2", "m^2").unwrap()["value"]
    );
    let r = conv(json!(1), "Kg", "lb").unwrap();
    assert!(r["notes"].to_string().contains("Kg is read as kg"), "{r}");
    let e = conv(json!(1), "MM", "in").unwrap_err();
    assert!(
        e.message.contains("`mm`") && e.message.contains("`Mm`") && !e.message.contains("`mM`"),
        "{e}"
    );
    assert!(conv(json!(1), "KB", "B")
        .unwrap_err()
        .message
        .contains("`kB`"));
    // Never a silent change of unit: every symbol spelling, upper-cased, either is a symbol itself, or reads as
    // that same unit, or is refused as ambiguous naming it.
    for u in UNITS {
        for sym in u.symbols {
            let up = sym.to_uppercase();
            if UNITS.iter().any(|v| v.symbols.contains(&up.as_str()))
                || parse_unit(&up).is_ok_and(|q| q.notes.iter().all(|n| !n.contains("is read as")))
            {
                continue;
            }
            match lookup(&up) {
                Ok(_) => assert!(same(&up, sym), "{up} vs {sym}"),
                Err(UnitError::Ambiguous { candidates, .. }) => {
                    assert!(
                        candidates.iter().any(|c| same(c, sym)),
                        "{up}: {candidates:?}"
                    )
                }
                Err(e) => panic!("{up}: {e:?}"),
            }
        }
    }
}

/// Suggestions keep the dimension the other side asks for, are spellings the tool accepts as written, and
/// never offer a prefix a unit does not take (`mB`).
#[test]
fn suggestions_keep_the_dimension_and_parse() {
    use super::expr::{parse_unit, suggestions};
    for name in [
        "Mbz", "mBB", "metr", "secz", "kgz", "Tesal", "gallonz", "mbb", "KiBB", "hrz", "ftt",
        "Gyy", "Svv",
    ] {
        for s in suggestions(name, None) {
            assert!(
                parse_unit(&s).is_ok(),
                "{name}: suggested {s}, which does not parse"
            );
            assert_ne!(s, "mB", "{name}");
        }
    }
    let e = conv(json!(1), "Mbz", "kB").unwrap_err();
    assert!(
        e.message.contains("`Mb`") && !e.message.contains("`mB`"),
        "{e}"
    );
    // Same dimension as the other side, also inside a compound unit.
    let e = conv(json!(1), "km/hrz", "m/s").unwrap_err();
    assert!(
        e.message.contains("`hr`") && e.message.contains("unknown unit `hrz`"),
        "{e}"
    );
    let e = conv(json!(1), "molz", "km").unwrap_err();
    assert!(
        !e.message.contains("`mol`") && e.message.contains("units of length include `m`"),
        "{e}"
    );
    let e = conv(json!(1), "metr", "s").unwrap_err();
    assert!(
        !e.message.contains("meter")
            && !e.message.contains("year")
            && e.message.contains("units of time"),
        "{e}"
    );
    // Without another side to go by, the closest spelling.
    let e = conv(json!(1), "metr", "foo").unwrap_err();
    assert!(e.message.contains("`meter`"), "{e}");
}

/// Spellings models write, each the same unit as its plain form (values against Pint are in reference.jsonl).
#[test]
fn spellings_models_write() {
    use super::expr::parse_unit;
    for (a, b) in [
        ("cu ft", "ft^3"),
        ("cu. in.", "in^3"),
        ("sq m", "m^2"),
        ("sq. ft.", "ft^2"),
        ("SQ IN", "in^2"),
        ("N.m", "N*m"),
        ("N-m", "N*m"),
        ("lbf-ft", "lbf*ft"),
        ("kilowatt-hours", "kWh"),
        ("ft.", "ft"),
        ("degrees Celsius", "degC"),
        ("degrees fahrenheit", "degF"),
        ("henries", "H"),
        ("teslas", "T"),
        ("parts per million", "ppm"),
        ("per mille", "‰"),
        ("percent", "%"),
        ("Mb/s", "Mbps"),
        ("MB/s", "MBps"),
        ("bit/s", "bps"),
        ("gauss", "G"),
        ("poise", "P"),
        ("stokes", "St"),
        ("hartree", "Eh"),
        ("u", "Da"),
    ] {
        let (x, y) = (
            parse_unit(a).unwrap_or_else(|e| panic!("{a}: {e:?}")),
            parse_unit(b).unwrap(),
        );
        assert_eq!(
            (x.factor, x.pi, x.dims, x.offset),
            (y.factor, y.pi, y.dims, y.offset),
            "{a} vs {b}"
        );
    }
    // A dot or hyphen that joins nothing is still refused.
    for bad in ["m.2", ".m", "m..s", "-m"] {
        assert!(parse_unit(bad).is_err(), "{bad}");
    }
}

mod props {
    use super::super::expr::{decimal, parse_unit, prefixes};
    use super::super::{significant, table::UNITS};
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

        /// Any unit string is parsed or refused with a reason; nothing panics.
        #[test]
        fn any_unit_string_is_parsed_or_refused(s in "(?s).{0,80}", t in "[a-zA-Zµ°Ω/*^()0-9 ²³⁻.-]{0,40}") {
            let _ = parse_unit(&s);
            let _ = parse_unit(&t);
            let r = UnitConverter::new().call(
                &json!({"value": "1", "from_unit": s, "to_unit": t}),
                &CallContext::new(Limits::default()),
            );
            if let Err(e) = r {
                // A power above the limit is the one refusal that is not about the text's shape.
                let power = e.kind == beaker_core::ErrorKind::LimitExceeded && e.message.contains("the power");
                prop_assert!(e.kind == beaker_core::ErrorKind::InvalidParams || power, "{:?}", e);
            }
        }

        /// `significant` keeps `digits` significant digits and is within half a unit of the last one.
        #[test]
        fn significant_digits_round_to_nearest(num in -10i64.pow(12)..10i64.pow(12), den in 1i64..10i64.pow(9), exp in -40i32..40, digits in 1u32..30) {
            let q = Rational::from((num, den)) * rug::ops::Pow::pow(Rational::from(10), exp);
            let s = significant(&q, digits);
            let back = decimal(&s, 100).unwrap();
            if q != 0 {
                let e = {
                    let mut e = 0i32;
                    let a = Rational::from(q.abs_ref());
                    while a >= rug::ops::Pow::pow(Rational::from(10), e + 1) { e += 1; }
                    while a < rug::ops::Pow::pow(Rational::from(10), e) { e -= 1; }
                    e
                };
                let half_ulp = rug::ops::Pow::pow(Rational::from(10), e - digits as i32 + 1) / 2;
                prop_assert!(Rational::from(&back - &q).abs() <= half_ulp, "{} -> {}", q, s);
                let mantissa: String = s.split('e').next().unwrap_or("").chars().filter(char::is_ascii_digit).collect();
                prop_assert!(mantissa.trim_start_matches('0').trim_end_matches('0').len() <= digits as usize, "{}", s);
            } else {
                prop_assert_eq!(s, "0");
            }
        }
    }

    /// Every prefixable symbol takes every prefix its unit allows as 10^k (or 2^k) times the unit, and long names
    /// mean their symbols.
    #[test]
    fn prefixes_and_long_names_agree_with_symbols() {
        for u in UNITS
            .iter()
            .filter(|u| u.prefixes != super::super::table::Prefixes::None)
        {
            let sym = u.symbols[0];
            let base = parse_unit(sym).unwrap_or_else(|e| panic!("{sym}: {e:?}"));
            for p in prefixes() {
                let spelled = format!("{}{sym}", p.sym);
                // Symbols that are themselves units (`min`, `Pa`, ...) win over a prefix reading.
                if UNITS.iter().any(|v| v.symbols.contains(&spelled.as_str())) {
                    continue;
                }
                let got = parse_unit(&spelled);
                if !u.prefixes.takes(p.pow10, p.binary) {
                    // A prefix the unit does not take (`mB`) never reads as that unit scaled.
                    if let Ok(q) = got {
                        assert!(
                            q.factor != Rational::from(&base.factor * &p.scale)
                                || q.dims != base.dims,
                            "{spelled}"
                        );
                    }
                    continue;
                }
                let q = got.unwrap_or_else(|e| panic!("{spelled}: {e:?}"));
                assert_eq!(
                    q.factor,
                    Rational::from(&base.factor * &p.scale),
                    "{spelled}"
                );
                assert_eq!(q.dims, base.dims, "{spelled}");
            }
            for n in u.names {
                let q = parse_unit(n).unwrap_or_else(|e| panic!("{n}: {e:?}"));
                assert_eq!((q.factor, q.dims), (base.factor.clone(), base.dims), "{n}");
            }
        }
    }
}
