//! Property tests: parser round trips and exact arithmetic identities.

use crate::{eval_exact, parse, ExactOptions, Num, ParseLimits};
use proptest::prelude::*;
use rug::Rational;

fn leaf() -> impl Strategy<Value = String> {
    prop_oneof![
        (0u32..1000).prop_map(|n| n.to_string()),
        (0u32..1000, 0u32..100).prop_map(|(a, b)| format!("{a}.{b}")),
        (1u32..10, -5i32..5).prop_map(|(a, e)| format!("{a}e{e}")),
        prop::sample::select(vec!["pi", "e", "tau", "x", "y_1"]).prop_map(String::from),
    ]
}

fn expr() -> impl Strategy<Value = String> {
    leaf().prop_recursive(6, 64, 4, |inner| {
        prop_oneof![
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/", "//", "%", "**", "^"]),
                inner.clone()
            )
                .prop_map(|(a, op, b)| format!("{a} {op} {b}")),
            inner.clone().prop_map(|a| format!("-{a}")),
            inner.clone().prop_map(|a| format!("({a})")),
            inner.clone().prop_map(|a| format!("({a})!")),
            inner.clone().prop_map(|a| format!("sqrt({a})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("max({a}, {b}, 1)")),
            (inner.clone(), inner).prop_map(|(a, b)| format!("atan2({a}, {b})")),
        ]
    })
}

fn rational() -> impl Strategy<Value = (i64, i64)> {
    (-10_000i64..10_000, 1i64..1000)
}

fn exact(src: &str) -> Rational {
    let e = parse(src, ParseLimits::default()).expect("parse");
    match eval_exact(
        &e,
        ExactOptions {
            prec_bits: 128,
            max_digits: 10_000,
        },
        None,
    )
    .expect("eval")
    {
        Num::Exact(q) => q,
        Num::Approx(f) => panic!("{src} should be exact, got {f}"),
    }
}

proptest! {
    #[test]
    fn parse_print_parse_is_identity(src in expr()) {
        let a = parse(&src, ParseLimits::default()).expect("generated expressions parse");
        let printed = a.to_infix();
        let b = parse(&printed, ParseLimits::default()).expect("printed expressions parse");
        prop_assert_eq!(a.nodes(), b.nodes());
        prop_assert_eq!(a.variables(), b.variables());
        prop_assert_eq!(printed, b.to_infix());
    }

    #[test]
    fn addition_and_multiplication_invert((an, ad) in rational(), (bn, bd) in rational()) {
        let a = format!("({an}/{ad})");
        let b = format!("({bn}/{bd})");
        let qa = Rational::from((an, ad));
        prop_assert_eq!(exact(&format!("{a} + {b} - {b}")), qa.clone());
        if bn != 0 {
            prop_assert_eq!(exact(&format!("{a} * {b} / {b}")), qa.clone());
            // Python's division identity: a == (a // b) * b + a % b, with the remainder signed like b.
            prop_assert_eq!(exact(&format!("({a} // {b}) * {b} + {a} % {b}")), qa.clone());
            let r = exact(&format!("{a} % {b}"));
            prop_assert!(r == 0 || (r < 0) == (bn < 0));
        }
    }

    #[test]
    fn integer_powers_match_repeated_multiplication(n in -50i64..50, k in 0u32..12) {
        let product = if k == 0 { "1".to_string() } else { vec![format!("({n})"); k as usize].join(" * ") };
        prop_assert_eq!(exact(&format!("({n}) ** {k}")), exact(&product));
    }

    #[test]
    fn decimal_literals_are_exact(a in 0u64..1_000_000, places in 1u32..8) {
        let text = format!("{}.{:0width$}", a / 10u64.pow(places.min(6)), a % 10u64.pow(places.min(6)), width = places.min(6) as usize);
        let (i, f) = text.split_once('.').unwrap_or((&text, ""));
        let expect = Rational::from((format!("{i}{f}").parse::<i64>().unwrap_or(0), 10i64.pow(f.len() as u32)));
        prop_assert_eq!(exact(&text), expect);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Arbitrary text made of the grammar's characters never panics the parser or the evaluators;
    /// it parses and evaluates, or fails with an error.
    #[test]
    fn arbitrary_input_never_panics(src in "[0-9a-z_.,()+\\-*/%^! eE]{0,40}") {
        if let Ok(e) = parse(&src, ParseLimits::default()) {
            let _ = crate::eval_decimal(&e, 12, 2_000, None);
            let order: Vec<&str> = e.variables().iter().map(String::as_str).collect();
            if let Ok(f) = e.compile_f64(&order) {
                let _ = f.eval(&vec![0.5; order.len()]);
            }
        }
    }
}

fn any_call() -> impl Strategy<Value = String> {
    let names: Vec<&'static str> = crate::Func::ALL.iter().map(|f| f.name()).collect();
    let atom = prop_oneof![
        (-50i32..50).prop_map(|n| n.to_string()),
        (0u32..100, 0u32..10).prop_map(|(a, b)| format!("{a}.{b}")),
        (1u32..10, -30i32..30).prop_map(|(a, e)| format!("{a}e{e}")),
        prop::sample::select(vec!["pi", "e", "tau", "0", "1", "-1", "10**40", "1/3"])
            .prop_map(String::from),
    ];
    atom.prop_recursive(5, 40, 3, move |inner| {
        let names = names.clone();
        prop_oneof![
            (
                prop::sample::select(names),
                prop::collection::vec(inner.clone(), 1..3)
            )
                .prop_map(|(f, args)| format!("{f}({})", args.join(", "))),
            (
                inner.clone(),
                prop::sample::select(vec!["+", "-", "*", "/", "//", "%", "**"]),
                inner
            )
                .prop_map(|(a, op, b)| format!("({a}) {op} ({b})")),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Every function on every kind of argument: a value or an error, never a panic, never unbounded work.
    #[test]
    fn functions_on_any_arguments_never_panic(src in any_call()) {
        if let Ok(e) = parse(&src, ParseLimits::default()) {
            let _ = crate::eval_decimal(&e, 15, 5_000, None);
            let _ = e.compile_f64(&[]).map(|f| f.eval(&[]));
        }
    }
}

/// Cancelling intermediates far beyond the digit limit are refused at once, never refined for ever (this
/// input held the random-input test above in MPFR for over ten minutes); a tiny result of huge intermediates
/// still answers (mpmath: 1.25535578632304...e-261142).
#[test]
fn huge_cancelling_intermediates_are_refused() {
    let e = parse("cosh(cosh(20)) - cosh(cosh(20))", ParseLimits::default());
    let r = e.map(|e| crate::eval_decimal(&e, 15, 5_000, None));
    assert!(matches!(r, Ok(Err(crate::ExprError::TooLarge(_)))), "{r:?}");
    let tiny = parse("1/cosh(cosh(14))", ParseLimits::default());
    let r = tiny.map(|e| crate::eval_decimal(&e, 10, 100_000, None).map(|d| d.value));
    assert_eq!(
        r.ok().and_then(Result::ok).as_deref(),
        Some("1.255355786e-261142")
    );
}
