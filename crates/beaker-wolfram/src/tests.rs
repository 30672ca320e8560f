//! The reader's unit tests: each form of question, read into the route and params it must give. The answers
//! themselves are checked against independent references over the whole engine in tests/all/wolfram.rs.

use crate::facts::Fact;
use crate::read::{interpretation, read, Route, Stat};
use serde_json::{json, Value};

fn symbolic(q: &str) -> Value {
    match read(q) {
        Ok(Route::Symbolic { params }) => params,
        other => panic!("{q}: {other:?}"),
    }
}

#[test]
fn calculus_questions_are_read_into_symbolic_math_params() {
    let cases = [
        (
            "What is the integral of x^2 from 0 to 1?",
            json!({"operation": "integrate", "expression": "x^2", "lower": "0", "upper": "1"}),
        ),
        (
            "integrate sin(x) dx",
            json!({"operation": "integrate", "expression": "sin(x)", "variable": "x"}),
        ),
        (
            "integral of exp(-t^2) dt from -infinity to infinity",
            json!({"operation": "integrate", "expression": "exp(-t^2)", "variable": "t", "lower": "-oo", "upper": "oo"}),
        ),
        (
            "the second derivative of x^3 with respect to x",
            json!({"operation": "diff", "expression": "x^3", "order": 2, "variable": "x"}),
        ),
        (
            "d/dx x*sin(x)",
            json!({"operation": "diff", "expression": "x*sin(x)", "order": 1, "variable": "x"}),
        ),
        (
            "differentiate log(y) wrt y",
            json!({"operation": "diff", "expression": "log(y)", "order": 1, "variable": "y"}),
        ),
        (
            "limit of sin(x)/x as x -> 0",
            json!({"operation": "limit", "expression": "sin(x)/x", "variable": "x", "point": "0"}),
        ),
        (
            "limit of 1/x as x approaches 0 from the right",
            json!({"operation": "limit", "expression": "1/x", "variable": "x", "point": "0", "direction": "+"}),
        ),
        (
            "solve x^2 - 5x + 6 = 0 for x",
            json!({"operation": "solve", "expression": "x^2 - 5x + 6 = 0", "variable": "x"}),
        ),
        (
            "solve x + y = 3 and x - y = 1",
            json!({"operation": "solve", "equations": ["x + y = 3", "x - y = 1"]}),
        ),
        (
            "roots of x^3 - x",
            json!({"operation": "solve", "expression": "x^3 - x"}),
        ),
        (
            "simplify (x^2-1)/(x-1)",
            json!({"operation": "simplify", "expression": "(x^2-1)/(x-1)"}),
        ),
        (
            "Taylor series of cos(x) at x = 0 to order 6",
            json!({"operation": "series", "expression": "cos(x)", "variable": "x", "point": "0", "order": 7}),
        ),
    ];
    for (q, want) in cases {
        assert_eq!(symbolic(q), want, "{q}");
    }
    assert_eq!(
        symbolic("lim x->0 sin(x)/x"),
        json!({"operation": "limit", "expression": "sin(x)/x", "variable": "x", "point": "0"})
    );
    for (q, v, at) in [
        ("derivative of x^2 at x = 3", "x", "3"),
        (
            "the derivative of t^3 with respect to t evaluated at 2",
            "t",
            "2",
        ),
        ("derivative of x^2, at 3", "x", "3"),
    ] {
        match read(q) {
            Ok(Route::DerivativeAt {
                params,
                variable,
                point,
            }) => {
                assert_eq!(
                    (
                        params["operation"].as_str(),
                        variable.as_str(),
                        point.as_str()
                    ),
                    (Some("diff"), v, at),
                    "{q}"
                )
            }
            other => panic!("{q}: {other:?}"),
        }
    }
    // "2 + 2 in binary" is no conversion of 2 of the unit "+ 2".
    assert!(!matches!(
        read("2 + 2 in binary"),
        Ok(Route::Convert { .. })
    ));
}

#[test]
fn conversions_read_the_number_and_both_units() {
    let cases = [
        ("convert 60 mph to km/h", ("60", "mph", "km/h")),
        ("100 degrees Fahrenheit in Celsius", ("100", "degF", "degC")),
        ("1,500 m in feet", ("1500", "m", "feet")),
        ("How many seconds are in a day?", ("1", "day", "seconds")),
        ("how many ounces in 3 pounds", ("3", "pounds", "ounces")),
    ];
    for (q, (v, f, t)) in cases {
        match read(q) {
            Ok(Route::Convert { value, from, to }) => assert_eq!(
                (value.as_str(), from.as_str(), to.as_str()),
                (v, f, t),
                "{q}"
            ),
            other => panic!("{q}: {other:?}"),
        }
    }
}

#[test]
fn facts_distances_and_chemistry_are_read_by_name() {
    match read("What is the speed of light in km/s?") {
        Ok(Route::Fact {
            fact: Fact::Codata(c),
            to,
        }) => {
            assert_eq!(
                (c.name, to.as_deref()),
                ("speed of light in vacuum", Some("km/s"))
            )
        }
        other => panic!("{other:?}"),
    }
    match read("Planck's constant") {
        Ok(Route::Fact {
            fact: Fact::Codata(c),
            to: None,
        }) => assert_eq!(c.name, "Planck constant"),
        other => panic!("{other:?}"),
    }
    match read("mass of the Sun") {
        Ok(Route::Fact {
            fact: Fact::Iau(n), ..
        }) => assert_eq!(n.name, "solar mass"),
        other => panic!("{other:?}"),
    }
    match read("distance from Earth to Mars") {
        Ok(Route::Distance { a, b, stat, to }) => {
            assert_eq!((a, b, stat, to), ("earth", "mars", Stat::Mean, None))
        }
        other => panic!("{other:?}"),
    }
    match read("closest distance between the Earth and the Moon in miles") {
        Ok(Route::Distance { a, b, stat, to }) => {
            assert_eq!(
                (a, b, stat, to.as_deref()),
                ("earth", "moon", Stat::Least, Some("miles"))
            )
        }
        other => panic!("{other:?}"),
    }
    match read("how far is Jupiter") {
        Ok(Route::Distance { a, b, .. }) => assert_eq!((a, b), ("earth", "jupiter")),
        other => panic!("{other:?}"),
    }
    match read("atomic weight of iron") {
        Ok(Route::Element { element, property }) => {
            assert_eq!((element.as_str(), property), ("iron", "atomic_weight"))
        }
        other => panic!("{other:?}"),
    }
    // A hydrate written with `*` is a formula too.
    assert!(matches!(
        read("molar mass of CuSO4*5H2O"),
        Ok(Route::MolarMass { .. })
    ));
    match read("molar mass of H2SO4") {
        Ok(Route::MolarMass { formula, to: None }) => assert_eq!(formula, "H2SO4"),
        other => panic!("{other:?}"),
    }
    match read("boiling point of ethanol") {
        Ok(Route::Compound {
            identifier,
            property,
            to: None,
        }) => assert_eq!((identifier.as_str(), property), ("ethanol", "BoilingPoint")),
        other => panic!("{other:?}"),
    }
    match read("molecular weight of caffeine") {
        Ok(Route::Compound { property, .. }) => assert_eq!(property, "MolecularWeight"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn arithmetic_in_words_becomes_an_expression() {
    let cases = [
        ("What is 2^10 + 5?", "2^10 + 5"),
        ("square root of 2", "sqrt(2)"),
        ("15% of 80", "(15/100*80)"),
        ("12 times 7 plus 3", "12 * 7 + 3"),
        ("20 factorial", "20!"),
        ("7 squared", "(7)^2"),
        ("100 divided by 8", "100 / 8"),
    ];
    for (q, want) in cases {
        match read(q) {
            Ok(Route::Calculator { expression }) => assert_eq!(expression, want, "{q}"),
            other => panic!("{q}: {other:?}"),
        }
    }
}

#[test]
fn what_users_wrote_in_trials_reads_as_meant() {
    let calc = |q: &str| match read(q) {
        Ok(Route::Calculator { expression }) => expression,
        other => panic!("{q}: {other:?}"),
    };
    // A final `!` after a number is a factorial, after a word punctuation.
    assert_eq!(calc("what is 10!?"), "10!");
    assert_eq!(calc("(5)!"), "(5)!");
    assert_eq!(calc("3!!"), "3!!");
    assert_eq!(calc("what's the square root of 144?"), "sqrt(144)");
    assert_eq!(calc("π²"), "pi^2");
    assert_eq!(calc("3 to the 4th power"), "3 ^ 4");
    assert_eq!(calc("10 to the power 3"), "10 ^ 3");
    assert_eq!(calc("log of 100"), "log(100)");
    assert_eq!(calc("5 – 3"), "5 - 3");
    assert!(matches!(
        read("Tell me the speed of light!"),
        Ok(Route::Fact { .. })
    ));
    assert_eq!(symbolic("solve x^2 = 4!")["expression"], "x^2 = 4!");
    assert_eq!(symbolic("solve x^2 = 4 please")["expression"], "x^2 = 4");
    assert_eq!(
        symbolic("solve the equation x^2 = 9")["expression"],
        "x^2 = 9"
    );
    assert_eq!(
        symbolic("solve x^2 = -4 over the reals"),
        json!({"operation": "solve", "expression": "x^2 = -4", "domain": "real"})
    );
    assert_eq!(
        symbolic("solve x + y = 3, x - y = 1")["equations"],
        json!(["x + y = 3", "x - y = 1"])
    );
    assert_eq!(
        symbolic("integral of x^2 from 0 to 3 dx"),
        json!({"operation": "integrate", "expression": "x^2", "variable": "x", "lower": "0", "upper": "3"})
    );
    assert_eq!(symbolic("derivative of x squared")["expression"], "(x)^2");
    assert_eq!(
        symbolic("d^2/dx^2 x^4"),
        json!({"operation": "diff", "expression": "x^4", "order": 2, "variable": "x"})
    );
    assert_eq!(symbolic("lim (1+1/n)^n as n -> infinity")["point"], "oo");
    assert_eq!(symbolic("series of cos(x)")["operation"], "series");
    assert_eq!(
        symbolic("partial derivative of x^2*y with respect to y")["variable"],
        "y"
    );
    assert_eq!(
        symbolic("limit of the function sin(x)/x as x -> 0")["expression"],
        "sin(x)/x"
    );
    match read("boiling point of benzene in fahrenheit") {
        Ok(Route::Compound { identifier, to, .. }) => assert_eq!(
            (identifier.as_str(), to.as_deref()),
            ("benzene", Some("degF"))
        ),
        other => panic!("{other:?}"),
    }
    match read("how many miles is 5 km") {
        Ok(Route::Convert { value, from, to }) => assert_eq!(
            (value.as_str(), from.as_str(), to.as_str()),
            ("5", "km", "miles")
        ),
        other => panic!("{other:?}"),
    }
    for q in ["distance to the sun", "Earth to Venus distance"] {
        assert!(matches!(read(q), Ok(Route::Distance { .. })), "{q}");
    }
    // A second trial's misreadings.
    assert_eq!(
        symbolic("solve sin x * 2 = 1")["expression"],
        "sin(x) * 2 = 1"
    );
    assert_eq!(
        symbolic("derivative of sin x cos x")["expression"],
        "sin(x) cos(x)"
    );
    assert_eq!(symbolic("integral of 3 from 0 to 2")["variable"], "x");
    assert_eq!(symbolic("derivative of 5")["variable"], "x");
    assert_eq!(
        symbolic("solve x^2 + 1 = 0 over the reals")["domain"],
        "real"
    );
    assert_eq!(calc("square root of (-2)^2"), "sqrt((-2)^2)");
    assert_eq!(calc("8 divided by 2 to the power of 2"), "8 / 2 ^ 2");
    assert_eq!(calc("7 % 3"), "7 % 3");
    match read("derivative of e^x at x = ln 2") {
        Ok(Route::DerivativeAt { point, .. }) => assert_eq!(point, "ln 2"),
        other => panic!("{other:?}"),
    }
    match read("1 Ah to C") {
        Ok(Route::Convert { from, to, .. }) => {
            assert_eq!((from.as_str(), to.as_str()), ("Ah", "C"))
        }
        other => panic!("{other:?}"),
    }
    match read("100 F to C") {
        Ok(Route::Convert { from, to, .. }) => {
            assert_eq!((from.as_str(), to.as_str()), ("degF", "degC"))
        }
        other => panic!("{other:?}"),
    }
    match read("molar mass of H2O in kg/mol") {
        Ok(Route::MolarMass { formula, to }) => {
            assert_eq!((formula.as_str(), to.as_deref()), ("H2O", Some("kg/mol")))
        }
        other => panic!("{other:?}"),
    }
    assert!(matches!(
        read("electron magnetic moment"),
        Ok(Route::Fact { .. })
    ));
    assert!(matches!(
        read("charge of an electron"),
        Ok(Route::Fact {
            fact: Fact::Negated(_),
            ..
        })
    ));
    assert!(matches!(
        read("Jupiter's mass"),
        Ok(Route::Fact {
            fact: Fact::Iau(_),
            ..
        })
    ));
}

#[test]
fn questions_it_cannot_read_are_refused_not_guessed() {
    for q in [
        "",
        "   ?  ",
        "who won the 1998 world cup",
        "population of France",
        "factor 360",
        "distance from Earth to Alpha Centauri",
        "distance from Mars to Mars",
        "what is love",
        "x + y",
        // English left in an expression is no symbol.
        "solve x^2 = 2 numerically",
        "roots of the quartic x^4 - 1",
        "expand (x+1)^2 quickly",
        "factor x^2 - 1 over the integers",
        // Python is no expression.
        "simplify __import__('sys').version_info[0]",
        "solve x = __import__('sys').maxsize",
        "solve eval('1') = x",
        // Molecules are no element symbols.
        "atomic number of CO",
        "atomic weight of NO",
        "atomic weight of HF",
        "atomic number of SN",
        "2 + 2 in binary",
        // Ambiguous word arithmetic and scope.
        "10 squared percent of 50",
        "50 percent of 8 squared",
        "2 cubed factorial",
        "10 percent of 5 factorial",
        "10 percent of 50 plus 5",
        "the square root of 3^2 + 4^2",
        "square root of 16 plus 9",
        "integral of sin x^2",
        // A lone I or E: a current or SymPy's imaginary unit?
        "solve V = I*R for R",
        "solve E = m*c^2 for c",
        // A decimal comma is no thousands separator.
        "1,5 m to cm",
        "12,5 kg in lb",
    ] {
        assert!(
            read(q).is_err(),
            "{q:?} was read as {:?}",
            read(q).map(|r| interpretation(&r))
        );
    }
}
