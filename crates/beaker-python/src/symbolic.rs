//! `symbolic_math` and `latex_render`: SymPy and matplotlib's mathtext, run in the same snapshotted CPython
//! guest as `execute_python` (its Python side is `symbolic.py`, part of the snapshot).
//!
//! Invariant: the host only checks sizes and shapes and passes the params on; parsing (SymPy's `parse_expr`
//! evaluates text) and all mathematics happen inside the sandbox, one fresh interpreter per call.

use crate::{check_len, guest_limits, Runtime};
use beaker_core::{CallContext, ErrorKind, Example, Pool, Tool, ToolError, ToolSpec};
use beaker_sandbox::Run;
use serde_json::{json, Value};

/// Computer algebra with SymPy: simplify, solve, differentiate, integrate, limits, series, sums, ODEs,
/// matrices, roots and an equivalence check for graders.
pub struct SymbolicMath {
    spec: ToolSpec,
    runtime: Runtime,
}

/// Turns a SymPy expression into LaTeX, and LaTeX into a PNG or SVG image.
pub struct LatexRender {
    spec: ToolSpec,
    runtime: Runtime,
}

impl SymbolicMath {
    /// The tool over a Python runtime.
    pub fn new(runtime: Runtime) -> Self {
        SymbolicMath {
            spec: symbolic_math_spec(),
            runtime,
        }
    }
}

impl LatexRender {
    /// The tool over a Python runtime.
    pub fn new(runtime: Runtime) -> Self {
        LatexRender {
            spec: latex_render_spec(),
            runtime,
        }
    }
}

/// Every string in `params` (keys too, nested), checked against `max_input_bytes` as one total: the
/// guest parses all of them.
fn check_text(params: &Value, ctx: &CallContext) -> Result<(), ToolError> {
    fn total(v: &Value) -> usize {
        match v {
            Value::String(s) => s.len(),
            Value::Array(a) => a.iter().map(total).sum(),
            Value::Object(o) => o.iter().map(|(k, v)| k.len() + total(v)).sum(),
            _ => 8,
        }
    }
    let n = total(params);
    if n as u64 > ctx.limits.max_input_bytes {
        return Err(ToolError::limit(format!(
            "the params hold {n} bytes of text; the limit is {} (max_input_bytes)",
            ctx.limits.max_input_bytes
        )));
    }
    Ok(())
}

/// Runs `tool` in a fresh guest with `params` and returns its answer: `{"ok": result}` is the result,
/// `{"error": {kind, message}}` an error of that kind.
fn call_guest_tool(
    runtime: &Runtime,
    tool: &str,
    params: &Value,
    ctx: &CallContext,
) -> Result<Value, ToolError> {
    check_text(params, ctx)?;
    if let Some(Value::String(e)) = params.get("expression") {
        check_len("expression", e, &ctx.limits)?;
    }
    let guest = runtime.guest()?;
    let l = &ctx.limits;
    let input = json!({
        "tool": tool,
        "args": params,
        "max_output_bytes": l.max_output_bytes,
        // The expression limits every tool honours; the guest applies them (it is where text is parsed).
        "limits": {
            "max_expression_len": l.max_expression_len,
            "max_depth": l.max_depth,
            "max_digits": l.max_digits,
            "max_precision": l.max_precision,
        },
    });
    let bytes = serde_json::to_vec(&input)
        .map_err(|e| ToolError::new(ErrorKind::Internal, e.to_string()))?;
    let _memory = crate::reserve_interpreters(ctx, 1)?;
    let outcome = guest.run_recorded(
        &Run::for_call(&bytes, guest_limits(ctx.limits), ctx),
        &ctx.usage,
    )?;
    let (_, report) = beaker_sandbox::framing::split_report(&outcome.stdout);
    let answer: Value = serde_json::from_slice(report.unwrap_or(&[])).map_err(|e| {
        ToolError::new(
            ErrorKind::Internal,
            format!("the Python guest's answer to {tool} is not JSON ({e})"),
        )
    })?;
    if let Some(ok) = answer.get("ok") {
        return Ok(ok.clone());
    }
    let error = answer.get("error").ok_or_else(|| {
        ToolError::new(
            ErrorKind::Internal,
            format!("the Python guest's answer to {tool} has neither `ok` nor `error`"),
        )
    })?;
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("no message")
        .to_string();
    let kind = match error.get("kind").and_then(Value::as_str) {
        Some("invalid_params") => ErrorKind::InvalidParams,
        Some("domain_error") => ErrorKind::DomainError,
        Some("limit_exceeded") => ErrorKind::LimitExceeded,
        Some("tool_error") => ErrorKind::ToolError,
        _ => ErrorKind::Internal,
    };
    Err(ToolError::new(kind, message))
}

impl Tool for SymbolicMath {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let one_sided = one_sided_point(params)?;
        let params = one_sided.as_ref().unwrap_or(params);
        match crate::latex_input::read(params)? {
            Some(read) => {
                let mut result =
                    call_guest_tool(&self.runtime, "symbolic_math", &read.params, ctx)?;
                if let Value::Object(r) = &mut result {
                    r.insert("read_as".into(), Value::Object(read.read_as));
                }
                Ok(result)
            }
            None => call_guest_tool(&self.runtime, "symbolic_math", params, ctx),
        }
    }
}

/// A `limit` at a one-sided point as people write it (`"0+"`, `"0^+"`, `"2^{-}"`): the point, and the side as
/// `direction` (issue 38: `"0+"` was refused as invalid syntax). `None` when there is nothing to rewrite; an
/// error when the side written and `direction` disagree.
fn one_sided_point(params: &Value) -> Result<Option<Value>, ToolError> {
    if params.get("operation").and_then(Value::as_str) != Some("limit") {
        return Ok(None);
    }
    let Some(point) = params.get("point").and_then(Value::as_str) else {
        return Ok(None);
    };
    let p = point.trim();
    let (rest, side) = match p
        .strip_suffix("^{+}")
        .or_else(|| p.strip_suffix("^+"))
        .or_else(|| p.strip_suffix('+'))
    {
        Some(r) => (r, "+"),
        None => match p
            .strip_suffix("^{-}")
            .or_else(|| p.strip_suffix("^-"))
            .or_else(|| p.strip_suffix('-'))
        {
            Some(r) => (r, "-"),
            None => return Ok(None),
        },
    };
    let rest = rest.trim();
    if rest.is_empty() || rest.ends_with(['+', '-', '*', '/', '^', '(']) {
        return Ok(None);
    }
    match params.get("direction").and_then(Value::as_str) {
        Some(d) if d != side => {
            return Err(ToolError::invalid_params(format!(
                "`point` `{point}` approaches from `{side}` but `direction` is `{d}`"
            )))
        }
        _ => {}
    }
    let mut p2 = params.clone();
    p2["point"] = json!(rest);
    p2["direction"] = json!(side);
    Ok(Some(p2))
}

impl Tool for LatexRender {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn pool(&self) -> Pool {
        Pool::Sandboxed
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        call_guest_tool(&self.runtime, "latex_render", params, ctx)
    }
}

/// The operations `symbolic_math` knows (its schema's enum; `symbolic.py` dispatches on the same names).
pub const OPERATIONS: [&str; 16] = [
    "simplify",
    "expand",
    "factor",
    "cancel",
    "apart",
    "solve",
    "diff",
    "integrate",
    "limit",
    "series",
    "summation",
    "dsolve",
    "evaluate",
    "matrix",
    "roots",
    "equivalent",
];

fn symbolic_math_spec() -> ToolSpec {
    let expr = json!({"type": ["string", "number"]});
    let bound = json!({"type": ["string", "number"], "description": "A number or an expression (`oo` for infinity)."});
    ToolSpec {
        name: "symbolic_math".into(),
        description: "Exact computer algebra with SymPy: simplify, expand, factor, cancel, apart, solve equations \
            and systems, diff, integrate (indefinite or definite), limit, series, summation, dsolve (ODEs with \
            initial conditions), evaluate to any precision, matrix algebra (det, inverse, eigenvalues, rref, \
            nullspace), polynomial roots with multiplicities, and whether two expressions are equivalent. \
            Results are exact SymPy expressions with their LaTeX."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "operation": {"enum": OPERATIONS},
                "expression": {"type": ["string", "number"], "description": "Python/SymPy syntax or LaTeX (`\\frac{x^2-1}{x-1}`); `^` is power, `2x` and `3(x+1)` multiply; `a = b` is an equation."},
                "equations": {"type": "array", "items": expr, "minItems": 1, "maxItems": 100, "description": "solve: a system of equations."},
                "variable": {"type": "string", "description": "The variable to solve for, differentiate, integrate ..."},
                "variables": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100},
                "domain": {"enum": ["complex", "real"], "description": "solve: complex (default) or real solutions only."},
                "order": {"type": "integer", "minimum": 1, "maximum": 200, "description": "diff: the derivative's order; series: terms below (x-point)^order (default 6)."},
                "lower": bound,
                "upper": bound,
                "point": bound,
                "direction": {"enum": ["+", "-"], "description": "limit: from above (+) or below (-); default two-sided. A point written one-sided (`0+`, `0^-`) sets it."},
                "equation": {"type": "string", "description": "dsolve: the ODE, e.g. `y'' + y = 0`."},
                "function": {"type": "string", "description": "dsolve: the unknown function, e.g. `y(t)`."},
                "ics": {"type": "object", "additionalProperties": expr, "description": "dsolve: initial conditions such as {\"y(0)\": 1, \"y'(0)\": 0}."},
                "substitutions": {"type": "object", "additionalProperties": expr, "description": "evaluate: values for symbols."},
                "precision": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "evaluate: significant digits (default 15)."},
                "matrix": {"type": "array", "items": {"type": "array", "items": expr}, "description": "matrix: rows of numbers or expressions."},
                "operation_args": {"type": "object", "properties": {"kind": {"enum": ["det", "inverse", "transpose", "eigenvals", "eigenvects", "rref", "rank", "nullspace", "charpoly", "trace"]}}, "required": ["kind"], "additionalProperties": false},
                "other": {"type": ["string", "number"], "description": "equivalent: the expression to compare with `expression`."},
                "steps": {"type": "boolean", "description": "integrate: also the antiderivative's steps, as SymPy's step-by-step integrator (manualintegrate) finds them."}
            },
            "required": ["operation"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "result": {"type": "string", "description": "The answer as SymPy prints it."},
                "latex": {"type": "string"},
                "decimal": {"type": "string", "description": "When the result is a number: 15 significant digits."},
                "solutions": {"type": "array"},
                "count": {"type": "integer"},
                "value": {"type": "string"},
                "polynomial": {"type": "string"},
                "definite": {"type": "boolean"},
                "evaluated": {"type": "boolean"},
                "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "string"}}},
                "pivots": {"type": "array", "items": {"type": "integer"}},
                "rank": {"type": "integer"},
                "vectors": {"type": "array"},
                "eigenvalues": {"type": "object", "additionalProperties": {"type": "integer"}},
                "eigenvectors": {"type": "array"},
                "roots": {"type": "object", "additionalProperties": {"type": "integer"}},
                "complete": {"type": "boolean"},
                "equation": {"type": "string"},
                "equivalent": {"type": ["boolean", "null"]},
                "method": {"enum": ["structural", "simplify", "solve", "numeric"]},
                "counterexample": {"type": "object"},
                "difference": {"type": "string"},
                "why": {"type": "string"},
                "read_as": {"type": "object", "additionalProperties": {"type": "string"}, "description": "The inputs written in LaTeX, each with the SymPy text it was read as."},
                "steps": {"type": ["array", "null"], "items": {"type": "object", "properties": {"rule": {"type": "string"}, "integrand": {"type": "string"}, "variable": {"type": "string"}, "antiderivative": {"type": "string"}, "depth": {"type": "integer"}, "with": {"type": "object"}}}, "description": "integrate with `steps`: each rule in pre-order (depth 0 is the whole integral), or null where SymPy's step-by-step integrator has none."},
                "steps_note": {"type": "string"}
            },
            "required": ["result", "latex"]
        }),
        examples: symbolic_examples(),
        notes: include_str!("symbolic_math.md").into(),
    }
}

fn symbolic_examples() -> Vec<Example> {
    let ex = |params: Value, result: Value| Example {
        params,
        result,
        elided: Vec::new(),
        workspace: Default::default(),
        dataset: None,
    };
    vec![
        ex(
            json!({"operation": "integrate", "expression": "x^2 sin(x)", "variable": "x"}),
            json!({"result": "-x**2*cos(x) + 2*x*sin(x) + 2*cos(x)", "latex": "- x^{2} \\cos{\\left(x \\right)} + 2 x \\sin{\\left(x \\right)} + 2 \\cos{\\left(x \\right)}", "definite": false, "evaluated": true}),
        ),
        ex(
            json!({"operation": "solve", "expression": "x^2 - 5x + 6 = 0", "variable": "x"}),
            json!({"result": "[2, 3]", "latex": "\\left[ 2, \\  3\\right]", "solutions": ["2", "3"], "count": 2}),
        ),
        ex(
            json!({"operation": "equivalent", "expression": "sin(x)^2", "other": "(1 - cos(2x))/2"}),
            json!({"result": "True", "latex": "\\text{True}", "equivalent": true, "method": "simplify", "difference": "0"}),
        ),
        ex(
            json!({"operation": "simplify", "expression": "(x^2 - 1)/(x - 1)"}),
            json!({"result": "x + 1", "latex": "x + 1"}),
        ),
        ex(
            json!({"operation": "expand", "expression": "(x + 1)^3"}),
            json!({"result": "x**3 + 3*x**2 + 3*x + 1", "latex": "x^{3} + 3 x^{2} + 3 x + 1"}),
        ),
        ex(
            json!({"operation": "factor", "expression": "x^3 - 8"}),
            json!({"result": "(x - 2)*(x**2 + 2*x + 4)", "latex": "\\left(x - 2\\right) \\left(x^{2} + 2 x + 4\\right)"}),
        ),
        ex(
            json!({"operation": "cancel", "expression": "(x^2 + 2x + 1)/(x^2 - 1)"}),
            json!({"result": "(x + 1)/(x - 1)", "latex": "\\frac{x + 1}{x - 1}"}),
        ),
        ex(
            json!({"operation": "apart", "expression": "1/(x^2 - 1)", "variable": "x"}),
            json!({"result": "-1/(2*(x + 1)) + 1/(2*(x - 1))", "latex": "- \\frac{1}{2 \\left(x + 1\\right)} + \\frac{1}{2 \\left(x - 1\\right)}"}),
        ),
        ex(
            json!({"operation": "solve", "equations": ["x + y = 10", "x - y = 4"], "variables": ["x", "y"]}),
            json!({"result": "[{x: 7, y: 3}]", "latex": "\\left[ \\left\\{ x : 7, \\  y : 3\\right\\}\\right]", "solutions": [{"x": "7", "y": "3"}], "count": 1}),
        ),
        ex(
            json!({"operation": "solve", "expression": "x^4 = 16", "variable": "x", "domain": "real"}),
            json!({"result": "[-2, 2]", "latex": "\\left[ -2, \\  2\\right]", "solutions": ["-2", "2"], "count": 2}),
        ),
        ex(
            json!({"operation": "diff", "expression": "exp(x) sin(x)", "variable": "x", "order": 2}),
            json!({"result": "2*exp(x)*cos(x)", "latex": "2 e^{x} \\cos{\\left(x \\right)}"}),
        ),
        ex(
            json!({"operation": "integrate", "expression": "exp(-x^2)", "variable": "x", "lower": "-oo", "upper": "oo"}),
            json!({"result": "sqrt(pi)", "latex": "\\sqrt{\\pi}", "decimal": "1.77245385090552", "definite": true, "evaluated": true}),
        ),
        ex(
            json!({"operation": "limit", "expression": "sin(x)/x", "variable": "x", "point": 0}),
            json!({"result": "1", "latex": "1", "decimal": "1.00000000000000"}),
        ),
        ex(
            json!({"operation": "limit", "expression": "1/x", "variable": "x", "point": 0, "direction": "-"}),
            json!({"result": "-oo", "latex": "-\\infty"}),
        ),
        ex(
            json!({"operation": "series", "expression": "cos(x)", "variable": "x", "order": 6}),
            json!({"result": "1 - x**2/2 + x**4/24 + O(x**6)", "latex": "1 - \\frac{x^{2}}{2} + \\frac{x^{4}}{24} + O\\left(x^{6}\\right)", "polynomial": "x**4/24 - x**2/2 + 1"}),
        ),
        ex(
            json!({"operation": "summation", "expression": "1/n^2", "variable": "n", "lower": 1, "upper": "oo"}),
            json!({"result": "pi**2/6", "latex": "\\frac{\\pi^{2}}{6}", "decimal": "1.64493406684823", "evaluated": true}),
        ),
        ex(
            json!({"operation": "dsolve", "equation": "y'' + y = 0", "function": "y(t)", "ics": {"y(0)": 1, "y'(0)": 0}}),
            json!({"result": "Eq(y(t), cos(t))", "latex": "y{\\left(t \\right)} = \\cos{\\left(t \\right)}", "solutions": ["cos(t)"], "equation": "Eq(y(t) + Derivative(y(t), (t, 2)), 0)"}),
        ),
        ex(
            json!({"operation": "evaluate", "expression": "E^pi - pi", "precision": 30}),
            json!({"result": "-pi + exp(pi)", "latex": "- \\pi + e^{\\pi}", "decimal": "19.9990999791895", "value": "19.9990999791894757672664429847"}),
        ),
        ex(
            json!({"operation": "evaluate", "expression": "a^2 + b", "substitutions": {"a": 3, "b": "1/2"}}),
            json!({"result": "19/2", "latex": "\\frac{19}{2}", "decimal": "9.50000000000000", "value": "9.50000000000000"}),
        ),
        ex(
            json!({"operation": "matrix", "matrix": [[2, 1], [1, 2]], "operation_args": {"kind": "eigenvals"}}),
            json!({"result": "{3: 1, 1: 1}", "latex": "\\left\\{ 1 : 1, \\  3 : 1\\right\\}", "eigenvalues": {"3": 1, "1": 1}}),
        ),
        ex(
            json!({"operation": "matrix", "matrix": [[1, 2], [3, 4]], "operation_args": {"kind": "inverse"}}),
            json!({"result": "Matrix([[-2, 1], [3/2, -1/2]])", "latex": "\\left[\\begin{matrix}-2 & 1\\\\\\frac{3}{2} & - \\frac{1}{2}\\end{matrix}\\right]", "matrix": [["-2", "1"], ["3/2", "-1/2"]]}),
        ),
        ex(
            json!({"operation": "roots", "expression": "x^3 - 3x + 2", "variable": "x"}),
            json!({"result": "{-2: 1, 1: 2}", "latex": "\\left\\{ -2 : 1, \\  1 : 2\\right\\}", "roots": {"-2": 1, "1": 2}, "complete": true}),
        ),
        ex(
            json!({"operation": "equivalent", "expression": "sqrt(x^2)", "other": "x"}),
            json!({"result": "False", "latex": "\\text{False}", "equivalent": false, "method": "numeric", "difference": "-x + sqrt(x**2)", "counterexample": {"x": "-5/11"}}),
        ),
    ]
}

fn latex_render_spec() -> ToolSpec {
    ToolSpec {
        name: "latex_render".into(),
        description:
            "Format mathematics: a SymPy expression as LaTeX, or LaTeX (or a SymPy expression) \
            rendered to a PNG or SVG image with matplotlib's mathtext."
                .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "expression": {"type": "string", "minLength": 1, "description": "A SymPy expression (input `sympy`) or LaTeX math without `$` (input `latex`)."},
                "input": {"enum": ["sympy", "latex"], "description": "What `expression` is (default sympy)."},
                "format": {"enum": ["latex", "png", "svg"], "description": "What to return besides the LaTeX (default latex: the LaTeX only)."},
                "fontsize": {"type": "number", "minimum": 4, "maximum": 200, "description": "Points (default 20)."},
                "dpi": {"type": "integer", "minimum": 20, "maximum": 600, "description": "PNG resolution (default 100)."}
            },
            "required": ["expression"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "latex": {"type": "string"},
                "format": {"enum": ["png", "svg"]},
                "image": {"type": "string", "contentEncoding": "base64", "description": "The rendered image: PNG bytes, or SVG text, base64."},
                "width": {"type": "integer", "description": "PNG width in pixels."},
                "height": {"type": "integer", "description": "PNG height in pixels."}
            },
            "required": ["latex"]
        }),
        examples: vec![
            Example {
                params: json!({"expression": "sqrt(x)/(2*y)"}),
                result: json!({"latex": "\\frac{\\sqrt{x}}{2 y}"}),
                elided: Vec::new(),
                workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"expression": "\\int_0^1 x^2\\,dx = \\frac{1}{3}", "input": "latex", "format": "png"}),
                result: json!({"latex": "\\int_0^1 x^2\\,dx = \\frac{1}{3}", "format": "png", "width": 166, "height": 64}),
                elided: vec!["image".into()],
                workspace: Default::default(),
                dataset: None,
            },
            Example {
                params: json!({"expression": "exp(I theta) = cos(theta) + I sin(theta)", "format": "svg"}),
                result: json!({"latex": "e^{i \\theta} = i \\sin{\\left(\\theta \\right)} + \\cos{\\left(\\theta \\right)}", "format": "svg"}),
                elided: vec!["image".into()],
                workspace: Default::default(),
                dataset: None,
            },
        ],
        notes: include_str!("latex_render.md").into(),
    }
}

#[cfg(test)]
mod tests {
    use super::{one_sided_point, OPERATIONS};
    use serde_json::json;

    #[test]
    fn a_one_sided_point_becomes_a_direction() {
        let lim = |point: &str| json!({"operation": "limit", "expression": "1/x", "variable": "x", "point": point});
        for (written, point, side) in [
            ("0+", "0", "+"),
            ("0^-", "0", "-"),
            ("2^{+}", "2", "+"),
            (" 1 - ", "1", "-"),
        ] {
            let p = one_sided_point(&lim(written))
                .ok()
                .flatten()
                .unwrap_or_default();
            assert_eq!(
                (p["point"].as_str(), p["direction"].as_str()),
                (Some(point), Some(side)),
                "{written}"
            );
        }
        for untouched in ["0", "oo", "-oo", "x^2"] {
            assert!(
                one_sided_point(&lim(untouched)).ok().flatten().is_none(),
                "{untouched}"
            );
        }
        let mut both = lim("0+");
        both["direction"] = json!("-");
        assert!(one_sided_point(&both).is_err());
    }

    #[test]
    fn the_guest_dispatches_every_operation_the_schema_lists() {
        let guest = include_str!("symbolic.py");
        for op in OPERATIONS {
            assert!(
                guest.contains(&format!("\"{op}\": _op_")),
                "symbolic.py has no handler for {op}"
            );
        }
    }
}
