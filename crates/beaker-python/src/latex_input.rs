//! `symbolic_math` input written in LaTeX (`\frac{x^2-1}{x-1}`, `\sqrt[3]{x}`, `x^{2} = 4`): read by the same
//! reader `grade` uses ([`beaker_expr::latex`]) into SymPy's syntax before the guest parses it, and reported in
//! the result as `read_as`, so the caller sees how the text was understood.
//!
//! The host only rewrites text here; it evaluates nothing (the guest parses the rewritten text).

use beaker_core::ToolError;
use beaker_expr::latex::{self, Target};
use serde_json::{Map, Value};

/// The params that hold one expression each.
const SCALARS: [&str; 5] = ["expression", "other", "point", "lower", "upper"];

/// Params whose LaTeX was rewritten, and what each LaTeX input was read as (keyed by where it was:
/// `expression`, `equations[1]`, `matrix[0][1]`, `substitutions.a`).
pub(crate) struct Read {
    pub(crate) params: Value,
    pub(crate) read_as: Map<String, Value>,
}

/// `params` with every LaTeX expression rewritten to SymPy's syntax; `None` when no text is LaTeX.
pub(crate) fn read(params: &Value) -> Result<Option<Read>, ToolError> {
    let Some(obj) = params.as_object() else {
        return Ok(None);
    };
    let mut out = obj.clone();
    let mut read_as = Map::new();
    for key in SCALARS {
        if let Some(v) = out.get_mut(key) {
            visit(v, key.to_string(), &mut read_as)?;
        }
    }
    if let Some(Value::Array(items)) = out.get_mut("equations") {
        for (i, v) in items.iter_mut().enumerate() {
            visit(v, format!("equations[{i}]"), &mut read_as)?;
        }
    }
    if let Some(Value::Array(rows)) = out.get_mut("matrix") {
        for (i, row) in rows.iter_mut().enumerate() {
            if let Value::Array(row) = row {
                for (j, v) in row.iter_mut().enumerate() {
                    visit(v, format!("matrix[{i}][{j}]"), &mut read_as)?;
                }
            }
        }
    }
    for key in ["substitutions", "ics"] {
        if let Some(Value::Object(m)) = out.get_mut(key) {
            for (name, v) in m.iter_mut() {
                visit(v, format!("{key}.{name}"), &mut read_as)?;
            }
        }
    }
    Ok((!read_as.is_empty()).then(|| Read {
        params: Value::Object(out),
        read_as,
    }))
}

/// Rewrites `v` in place when it is LaTeX text, recording what it was read as under `at`.
fn visit(v: &mut Value, at: String, read_as: &mut Map<String, Value>) -> Result<(), ToolError> {
    let Value::String(s) = v else {
        return Ok(());
    };
    if !is_latex(s) {
        return Ok(());
    }
    let text = to_sympy(s).map_err(|e| {
        ToolError::invalid_params(format!(
            "`{at}` reads as LaTeX but cannot be read: {e} (write it as SymPy text instead, e.g. `(x^2 - 1)/(x - 1)`)"
        ))
    })?;
    read_as.insert(at, Value::String(text.clone()));
    *v = Value::String(text);
    Ok(())
}

/// Whether `s` is written in LaTeX: a command (`\frac`, `\pi`, `\left(`), a braced power or subscript
/// (`x^{2}`, `a_{n}`), or math delimiters (`$…$`, `\(…\)`). SymPy text has none of these.
pub(crate) fn is_latex(s: &str) -> bool {
    let t = s.trim();
    let command = t
        .as_bytes()
        .windows(2)
        .any(|w| w[0] == b'\\' && (w[1].is_ascii_alphabetic() || b"([{,;!".contains(&w[1])));
    command
        || t.contains("^{")
        || t.contains("_{")
        || (t.len() > 1 && t.starts_with('$') && t.ends_with('$'))
}

/// LaTeX math as SymPy text: delimiters stripped, normalized, an equation's sides read one by one.
fn to_sympy(s: &str) -> Result<String, latex::LatexError> {
    let t = latex::normalize(latex::strip_delimiters(s).to_string());
    let sides = equation_sides(&t);
    let read: Vec<String> = sides
        .iter()
        .map(|side| latex::to_expression(side.trim(), Target::SymPy))
        .collect::<Result<_, _>>()?;
    Ok(read.join(" = "))
}

/// `a = b` split at its top-level `=` signs (not inside brackets or braces); one side when there is none.
fn equation_sides(t: &str) -> Vec<&str> {
    let mut sides = Vec::new();
    let mut depth = 0i64;
    let mut start = 0;
    let b = t.as_bytes();
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => depth -= 1,
            b'=' if depth == 0 => {
                sides.push(&t[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    sides.push(&t[start..]);
    sides
}

#[cfg(test)]
mod tests {
    use super::{is_latex, to_sympy};

    #[test]
    fn latex_is_told_from_sympy_text() {
        for latex in [
            "\\frac{x^2-1}{x-1}",
            "x^{2}",
            "a_{n+1}",
            "$x^2$",
            "\\pi",
            "\\left(x\\right)",
        ] {
            assert!(is_latex(latex), "{latex}");
        }
        for sympy in [
            "(x^2-1)/(x-1)",
            "x**2 + 1",
            "Eq(x, 2)",
            "y'' + y",
            "$",
            "2*pi",
        ] {
            assert!(!is_latex(sympy), "{sympy}");
        }
    }

    #[test]
    fn latex_reads_as_sympy_text() {
        for (latex, sympy) in [
            ("\\frac{x^2-1}{x-1}", "((x^2-1)/(x-1))"),
            ("x^{2} = 4", "x^2 = 4"),
            ("$\\sqrt[3]{-8}$", "real_root((-8),3)"),
            ("\\binom{5}{2}", "binomial(5,2)"),
            ("\\lambda^2 + \\theta", "lamda^2+theta"),
            ("2\\sin^2 x", "2*(sin(x))^2"),
            ("\\lceil x \\rceil", "ceiling(x)"),
        ] {
            assert_eq!(to_sympy(latex).as_deref(), Ok(sympy), "{latex}");
        }
        // `\int` is not read: the error names it.
        let e = to_sympy("\\int_0^1 x\\,dx").err().map(|e| e.to_string());
        assert!(e.is_some_and(|e| e.contains("\\int")));
    }
}
