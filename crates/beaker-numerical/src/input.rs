//! Reading params: numbers, vectors, matrices and complex arrays checked against [`Limits`] before any
//! work; functions compiled once; an evaluation budget shared by every function of a call; JSON output.

use beaker_core::{json_type, CallContext, ErrorKind, Limits, ToolError};
use beaker_expr::{parse, CompiledF64, Expr, ParseLimits};
use nalgebra::{Complex, DMatrix};
use serde_json::{json, Map, Value};
use std::cell::Cell;

/// `invalid_params` with `msg`.
pub(crate) fn invalid(msg: impl Into<String>) -> ToolError {
    ToolError::invalid_params(msg)
}

/// The params' `data` or `options` object (absent = empty).
pub(crate) fn object<'a>(v: &'a Value, name: &str) -> Result<&'a Map<String, Value>, ToolError> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    match v {
        Value::Null => Ok(EMPTY.get_or_init(Map::new)),
        Value::Object(m) => Ok(m),
        other => Err(invalid(format!(
            "`{name}` must be an object, got {}",
            json_type(other)
        ))),
    }
}

/// Rejects keys outside `allowed`, naming the known ones (a misspelt option must not be ignored silently).
pub(crate) fn check_keys(
    m: &Map<String, Value>,
    allowed: &[&str],
    name: &str,
    op: &str,
) -> Result<(), ToolError> {
    for k in m.keys() {
        if !allowed.contains(&k.as_str()) {
            return Err(invalid(format!(
                "unknown key `{name}.{k}` for `{op}`; {name} keys are: {}",
                if allowed.is_empty() {
                    "(none)".to_string()
                } else {
                    allowed.join(", ")
                }
            )));
        }
    }
    Ok(())
}

/// A present, non-null key.
pub(crate) fn get<'a>(m: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    m.get(key).filter(|v| !v.is_null())
}

/// A required key.
pub(crate) fn require<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    op: &str,
) -> Result<&'a Value, ToolError> {
    get(m, key).ok_or_else(|| invalid(format!("`{op}` needs `data.{key}`")))
}

/// A finite JSON number.
pub(crate) fn number(v: &Value, what: &str) -> Result<f64, ToolError> {
    number_with(v, || what.to_string())
}

/// [`number`] with the name built only for an error message (no allocation per array element).
#[inline]
pub(crate) fn number_with(v: &Value, what: impl FnOnce() -> String) -> Result<f64, ToolError> {
    if let Value::Number(n) = v {
        if let Some(x) = n.as_f64().filter(|x| x.is_finite()) {
            return Ok(x);
        }
    }
    let what = what();
    Err(match v {
        Value::Number(n) => invalid(format!("{what} = {n} is not a finite double")),
        Value::String(s) => invalid(format!(
            "{what} must be a number, got the string {s:?} (NaN and infinities are not accepted here)"
        )),
        other => invalid(format!("{what} must be a number, got {}", json_type(other))),
    })
}

/// A number or an infinity (`"inf"`, `"-inf"`, `"+inf"`, `"infinity"`, any case), where a bound is expected.
pub(crate) fn bound(v: &Value, what: &str) -> Result<f64, ToolError> {
    if let Value::String(s) = v {
        let t = s.trim().to_ascii_lowercase();
        return match t.as_str() {
            "inf" | "+inf" | "infinity" | "+infinity" | "oo" => Ok(f64::INFINITY),
            "-inf" | "-infinity" | "-oo" => Ok(f64::NEG_INFINITY),
            _ => t
                .parse::<f64>()
                .ok()
                .or_else(|| constant(s))
                .filter(|x| x.is_finite())
                .ok_or_else(|| {
                    invalid(format!(
                        "{what} must be a number, \"inf\"/\"-inf\", or a constant expression such as \"pi/2\", got {s:?}"
                    ))
                }),
        };
    }
    number(v, what)
}

/// The value of a constant expression in the expression grammar (`"pi"`, `"2*pi"`, `"sqrt(2)/2"`), as the
/// nearest f64; `None` if it does not parse or names a variable.
fn constant(text: &str) -> Option<f64> {
    let expr = parse(text, ParseLimits::default()).ok()?;
    Some(expr.compile_f64(&[]).ok()?.eval(&[]))
}

/// An optional number option with a default and a validity check (`ok` names the rule for messages).
pub(crate) fn opt_f64(
    m: &Map<String, Value>,
    key: &str,
    default: f64,
    ok: (fn(f64) -> bool, &str),
) -> Result<f64, ToolError> {
    match get(m, key) {
        None => Ok(default),
        Some(v) => {
            let x = number(v, &format!("options.{key}"))?;
            if ok.0(x) {
                Ok(x)
            } else {
                Err(invalid(format!("options.{key} = {x} must be {}", ok.1)))
            }
        }
    }
}

/// An optional positive integer option.
pub(crate) fn opt_count(
    m: &Map<String, Value>,
    key: &str,
    default: u64,
    name: &str,
) -> Result<u64, ToolError> {
    match get(m, key) {
        None => Ok(default),
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => Ok(n),
            _ => Err(invalid(format!(
                "{name}.{key} must be a positive integer, got {v}"
            ))),
        },
    }
}

/// An optional string option among `choices` (the first is the default).
pub(crate) fn opt_choice<'a>(
    m: &'a Map<String, Value>,
    key: &str,
    choices: &[&'a str],
    name: &str,
) -> Result<&'a str, ToolError> {
    match get(m, key) {
        None => Ok(choices[0]),
        Some(Value::String(s)) => choices
            .iter()
            .find(|c| c.eq_ignore_ascii_case(s))
            .copied()
            .ok_or_else(|| {
                invalid(format!(
                    "{name}.{key} = {s:?} is not one of: {}",
                    choices.join(", ")
                ))
            }),
        Some(v) => Err(invalid(format!(
            "{name}.{key} must be a string, got {}",
            json_type(v)
        ))),
    }
}

/// `data.method`, or `options.method` when data has none (the documented place is data; models put it in either),
/// lower-cased; `default` when neither is given.
pub(crate) fn method(
    data: &Map<String, Value>,
    options: &Map<String, Value>,
    default: &str,
) -> Result<String, ToolError> {
    match get(data, "method").or_else(|| get(options, "method")) {
        None => Ok(default.into()),
        Some(Value::String(s)) => Ok(s.to_ascii_lowercase()),
        Some(v) => Err(invalid(format!(
            "data.method must be a string, got {}",
            json_type(v)
        ))),
    }
}

/// An optional boolean option.
pub(crate) fn opt_bool(
    m: &Map<String, Value>,
    key: &str,
    default: bool,
) -> Result<bool, ToolError> {
    match get(m, key) {
        None => Ok(default),
        Some(Value::Bool(b)) => Ok(*b),
        Some(v) => Err(invalid(format!(
            "options.{key} must be true or false, got {}",
            json_type(v)
        ))),
    }
}

/// `limit_exceeded` unless `n <= max` (`what` names the array, `limit` the limit).
pub(crate) fn check_len(n: usize, max: u64, what: &str, limit: &str) -> Result<(), ToolError> {
    if n as u64 > max {
        return Err(ToolError::limit(format!(
            "{what} has {n} elements; the limit is {limit} = {max}"
        )));
    }
    Ok(())
}

fn array<'a>(v: &'a Value, what: &str) -> Result<&'a Vec<Value>, ToolError> {
    match v {
        Value::Array(a) => Ok(a),
        other => Err(invalid(format!(
            "{what} must be an array, got {}",
            json_type(other)
        ))),
    }
}

/// A non-empty array of finite numbers, at most `max_array_len` long (checked before reading it).
pub(crate) fn vector(v: &Value, what: &str, limits: &Limits) -> Result<Vec<f64>, ToolError> {
    let a = array(v, what)?;
    check_len(a.len(), limits.max_array_len, what, "max_array_len")?;
    if a.is_empty() {
        return Err(invalid(format!("{what} is empty")));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| number_with(x, || format!("{what}[{i}]")))
        .collect()
}

/// A matrix given as a non-empty list of equal-length rows of finite numbers. Its dimensions are checked
/// against `max_matrix_dim` and its cells against `max_array_len` before any number is read.
pub(crate) fn matrix(v: &Value, what: &str, limits: &Limits) -> Result<DMatrix<f64>, ToolError> {
    let rows = array(v, what)?;
    if rows.is_empty() {
        return Err(invalid(format!("{what} is empty")));
    }
    let ncols = match &rows[0] {
        Value::Array(r) => r.len(),
        other => {
            return Err(invalid(format!(
                "{what} must be a list of rows (a matrix), but {what}[0] is {}",
                json_type(other)
            )))
        }
    };
    if ncols == 0 {
        return Err(invalid(format!("{what}[0] is an empty row")));
    }
    for (i, r) in rows.iter().enumerate() {
        match r {
            Value::Array(r) if r.len() == ncols => {}
            Value::Array(r) => {
                return Err(invalid(format!(
                    "{what} is ragged: row 0 has {ncols} entries, row {i} has {}",
                    r.len()
                )))
            }
            other => {
                return Err(invalid(format!(
                    "{what}[{i}] must be a row (an array), got {}",
                    json_type(other)
                )))
            }
        }
    }
    let (m, n) = (rows.len(), ncols);
    let dim = m.max(n) as u64;
    if dim > limits.max_matrix_dim {
        return Err(ToolError::limit(format!(
            "{what} is {m}×{n}; the limit is max_matrix_dim = {} rows or columns",
            limits.max_matrix_dim
        )));
    }
    check_len(
        m.saturating_mul(n),
        limits.max_array_len,
        &format!("{what} ({m}×{n})"),
        "max_array_len",
    )?;
    let mut cells = Vec::with_capacity(m * n);
    for (i, r) in rows.iter().enumerate() {
        if let Value::Array(r) = r {
            for (j, x) in r.iter().enumerate() {
                cells.push(number_with(x, || format!("{what}[{i}][{j}]"))?);
            }
        }
    }
    Ok(DMatrix::from_row_slice(m, n, &cells))
}

/// A non-empty array of real numbers or `[re, im]` pairs.
pub(crate) fn complex_vector(
    v: &Value,
    what: &str,
    limits: &Limits,
) -> Result<Vec<Complex<f64>>, ToolError> {
    let a = array(v, what)?;
    check_len(a.len(), limits.max_array_len, what, "max_array_len")?;
    if a.is_empty() {
        return Err(invalid(format!("{what} is empty")));
    }
    a.iter()
        .enumerate()
        .map(|(i, x)| match x {
            Value::Array(p) if p.len() == 2 => Ok(Complex::new(
                number_with(&p[0], || format!("{what}[{i}][0]"))?,
                number_with(&p[1], || format!("{what}[{i}][1]"))?,
            )),
            Value::Array(p) => Err(invalid(format!(
                "{what}[{i}] must be a number or an [re, im] pair, got an array of {}",
                p.len()
            ))),
            other => Ok(Complex::new(
                number_with(other, || format!("{what}[{i}]"))?,
                0.0,
            )),
        })
        .collect()
}

/// Counts evaluations of user functions against `max_evaluations` and polls the deadline every 256 of them.
pub(crate) struct Budget<'c> {
    ctx: &'c CallContext,
    used: Cell<u64>,
}

impl<'c> Budget<'c> {
    pub(crate) fn new(ctx: &'c CallContext) -> Self {
        Budget {
            ctx,
            used: Cell::new(0),
        }
    }

    /// Records `n` evaluations; `limit_exceeded` past `max_evaluations`, `timeout`/`cancelled` when asked to stop.
    #[inline]
    pub(crate) fn spend(&self, n: u64) -> Result<(), ToolError> {
        let before = self.used.get();
        let used = before + n;
        self.used.set(used);
        if used > self.ctx.limits.max_evaluations {
            return Err(ToolError::limit(format!(
                "more than {} function evaluations; the limit is max_evaluations = {}",
                before, self.ctx.limits.max_evaluations
            )));
        }
        if used >> 8 != before >> 8 {
            self.ctx.checkpoint()?;
        }
        Ok(())
    }

    /// Evaluations so far.
    pub(crate) fn used(&self) -> u64 {
        self.used.get()
    }
}

/// A user function: an expression compiled once, evaluated against a shared [`Budget`].
pub(crate) struct Fun<'b, 'c> {
    f: CompiledF64,
    budget: &'b Budget<'c>,
}

impl<'b, 'c> Fun<'b, 'c> {
    /// Evaluates at `x` (in the compiled variable order), counting one evaluation.
    #[inline]
    pub(crate) fn eval(&self, x: &[f64]) -> Result<f64, ToolError> {
        self.budget.spend(1)?;
        Ok(self.f.eval(x))
    }
}

/// Parses `src` (the field `what`) under the call's expression limits.
pub(crate) fn parse_expr(v: &Value, what: &str, ctx: &CallContext) -> Result<Expr, ToolError> {
    let src = match v {
        Value::String(s) => s,
        other => {
            return Err(invalid(format!(
                "{what} must be an expression string such as \"x**2 - 2\", got {}",
                json_type(other)
            )))
        }
    };
    let limits = ParseLimits {
        max_len: ctx.limits.max_expression_len,
        max_depth: ctx.limits.max_depth,
    };
    parse(src, limits).map_err(|e| prefix(what, e.into()))
}

/// Prefixes an error message with the field it is about.
pub(crate) fn prefix(what: &str, e: ToolError) -> ToolError {
    ToolError::new(e.kind, format!("{what}: {}", e.message))
}

/// Compiles `expr` with `order` as its variables.
pub(crate) fn compile<'b, 'c>(
    expr: &Expr,
    order: &[String],
    what: &str,
    budget: &'b Budget<'c>,
) -> Result<Fun<'b, 'c>, ToolError> {
    let names: Vec<&str> = order.iter().map(String::as_str).collect();
    let f = expr
        .compile_f64(&names)
        .map_err(|e| prefix(what, e.into()))?;
    Ok(Fun { f, budget })
}

/// The variables of a function: `data.variables` if given (checked: distinct identifiers), otherwise the
/// free names in alphabetical order (the documented convention); `fallback` when the expression has none.
pub(crate) fn variables(
    data: &Map<String, Value>,
    expr: &Expr,
    fallback: &[&str],
) -> Result<Vec<String>, ToolError> {
    if let Some(v) = get(data, "variables") {
        return names(v, "data.variables");
    }
    if expr.variables().is_empty() {
        return Ok(fallback.iter().map(|s| s.to_string()).collect());
    }
    Ok(expr.variables().to_vec())
}

/// A list of distinct variable names.
pub(crate) fn names(v: &Value, what: &str) -> Result<Vec<String>, ToolError> {
    let a = array(v, what)?;
    let mut out: Vec<String> = Vec::with_capacity(a.len());
    for (i, x) in a.iter().enumerate() {
        let s = x
            .as_str()
            .ok_or_else(|| invalid(format!("{what}[{i}] must be a name, got {}", json_type(x))))?;
        let ident = !s.is_empty()
            && s.chars().all(|c| c.is_alphanumeric() || c == '_')
            && !s.starts_with(|c: char| c.is_ascii_digit());
        if !ident {
            return Err(invalid(format!(
                "{what}[{i}] = {s:?} is not a variable name"
            )));
        }
        if out.iter().any(|o| o == s) {
            return Err(invalid(format!("{what} names `{s}` twice")));
        }
        out.push(s.to_string());
    }
    if out.is_empty() {
        return Err(invalid(format!("{what} is empty")));
    }
    Ok(out)
}

/// A list of numbers as JSON.
pub(crate) fn arr(v: &[f64]) -> Value {
    Value::Array(v.iter().map(|x| json!(x)).collect())
}

/// A matrix as a list of rows.
pub(crate) fn rows(m: &DMatrix<f64>) -> Value {
    Value::Array(
        (0..m.nrows())
            .map(|i| Value::Array((0..m.ncols()).map(|j| json!(m[(i, j)])).collect()))
            .collect(),
    )
}

/// Complex numbers as `[re, im]` pairs.
pub(crate) fn pairs(v: &[Complex<f64>]) -> Value {
    Value::Array(v.iter().map(|c| json!([c.re, c.im])).collect())
}

/// The JSON path (below `result`) of the first `null` in a result (a NaN or an infinity turned into JSON), if
/// any; the path is built only for the one found.
pub(crate) fn first_null(v: &Value) -> Option<String> {
    match v {
        Value::Null => Some(String::new()),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .find_map(|(i, x)| first_null(x).map(|p| format!("[{i}]{p}"))),
        Value::Object(m) => m
            .iter()
            .find_map(|(k, x)| first_null(x).map(|p| format!(".{k}{p}"))),
        _ => None,
    }
}

/// `domain_error` for a non-finite value met while computing.
pub(crate) fn not_finite(what: impl std::fmt::Display) -> ToolError {
    ToolError::new(
        ErrorKind::DomainError,
        format!("{what} is not finite (NaN or ±inf)"),
    )
}

#[cfg(test)]
mod tests {
    use super::bound;
    use serde_json::json;
    use std::f64::consts::PI;

    #[test]
    fn bounds_take_infinities_numbers_and_constant_expressions() {
        assert_eq!(bound(&json!("pi"), "b").ok(), Some(PI));
        assert_eq!(bound(&json!("-pi/2"), "a").ok(), Some(-PI / 2.0));
        assert_eq!(bound(&json!("2*pi"), "b").ok(), Some(2.0 * PI));
        assert_eq!(bound(&json!("-inf"), "a").ok(), Some(f64::NEG_INFINITY));
        assert_eq!(bound(&json!("1e3"), "a").ok(), Some(1000.0));
        assert_eq!(bound(&json!(0.5), "a").ok(), Some(0.5));
        for bad in ["x", "nan", "pi +", "1/0", ""] {
            let e = bound(&json!(bad), "b").expect_err(bad);
            assert!(
                e.message.contains("constant expression"),
                "{bad}: {}",
                e.message
            );
        }
    }
}
