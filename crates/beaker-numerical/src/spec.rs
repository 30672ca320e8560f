//! The tool's spec: description, params and result JSON Schemas, checked examples, notes.

use crate::OPERATIONS;
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The worked examples (each is exactly what the tool returns; `tests.rs` checks them).
pub(crate) fn examples() -> Vec<Example> {
    let ex = |params: serde_json::Value, result: serde_json::Value| Example {
        params,
        result,
        elided: Vec::new(),
        workspace: Default::default(),
        dataset: None,
    };
    vec![
        ex(
            json!({"operation": "solve_linear", "data": {"A": [[3, 1], [1, 2]], "b": [9, 8]}}),
            json!({"x": [2.0, 3.0], "method": "LU decomposition", "residual_norm": 0.0}),
        ),
        ex(
            json!({"operation": "root_find", "data": {"function": "x**3 - x - 2", "bracket": [1, 2]}}),
            json!({"root": 1.5213797068045676, "converged": true, "iterations": 8, "function_value": 0.0, "evaluations": 10, "method": "brentq"}),
        ),
        ex(
            json!({"operation": "integrate_numeric", "data": {"function": "exp(-x**2)", "a": "-inf", "b": "inf"}}),
            json!({"value": 1.7724538509055159, "abs_error": 1.4202637029297346e-8, "evaluations": 270, "subintervals": 5, "converged": true, "message": "The integral converged to the requested tolerance."}),
        ),
        ex(
            json!({"operation": "eigenvalues", "data": {"A": [[2, 1], [1, 2]]}}),
            json!({"eigenvalues": [1.0, 3.0], "eigenvectors": [[0.7071067811865475, -0.7071067811865475], [0.7071067811865475, 0.7071067811865475]], "symmetric": true}),
        ),
        ex(
            json!({"operation": "ode", "data": {"equations": ["-0.5*y0"], "y0": [2], "t_span": [0, 2], "t_eval": [0, 1, 2]}, "options": {"rtol": 1e-10, "atol": 1e-12}}),
            json!({"t": [0.0, 1.0, 2.0], "y": [[2.0, 1.2130613194266153, 0.7357588823582581]], "success": true, "status": 0, "message": "The solver successfully reached the end of the integration interval.", "nfev": 176, "njev": 0, "nlu": 0, "steps": 29, "method": "RK45"}),
        ),
        ex(
            json!({"operation": "fft", "data": {"x": [1, 2, 3, 4]}}),
            json!({"result": [[10.0, 0.0], [-2.0, 2.0], [-2.0, 0.0], [-2.0, -2.0]]}),
        ),
    ]
}

pub(crate) fn spec() -> ToolSpec {
    let num = json!({"type": "number"});
    let vec_ = json!({"type": "array", "items": {"type": "number"}});
    let matrix = json!({"type": "array", "items": {"type": "array", "items": {"type": "number"}}});
    let bound = json!({"type": ["number", "string"], "description": "a number, \"inf\"/\"-inf\", or a constant expression (\"pi\", \"pi/2\")"});
    let expr = json!({"type": "string"});
    let params_schema = json!({
        "type": "object",
        "properties": {
            "operation": {"type": "string", "enum": OPERATIONS, "description": "What to compute (see the notes for each operation's data and result)."},
            "data": {
                "type": "object",
                "description": "The operation's inputs. Matrices are lists of rows; complex numbers are [re, im] pairs; functions are expressions such as \"x**3 - x - 2\" over named variables.",
                "properties": {
                    "A": {"description": "A matrix (list of rows): linear algebra.", "allOf": [matrix]},
                    "B": {"description": "matmul: the right factor (a matrix or a vector)."},
                    "b": {"description": "solve_linear: the right-hand side (a vector); integrate_numeric: the upper limit (a number, \"inf\", or a constant expression such as \"pi\")."},
                    "function": {"description": "minimize, root_find, integrate_numeric: the function, an expression.", "allOf": [expr]},
                    "variables": {"type": "array", "items": {"type": "string"}, "description": "The function's variables in order (default: its free names alphabetically); ode: the state names (default y0, y1, …)."},
                    "x0": {"description": "minimize: the start point (one value per variable); root_find: the start for secant/Newton."},
                    "x1": {"description": "root_find (secant): a second start point.", "allOf": [num]},
                    "bounds": {"type": "array", "description": "minimize: one [low, high] per variable (null or \"inf\" for none)."},
                    "bracket": {"description": "root_find: [a, b] with f(a), f(b) of opposite signs (Brent's method).", "allOf": [vec_]},
                    "model": {"description": "curve_fit: the model, an expression in x and the parameters.", "allOf": [expr]},
                    "parameters": {"type": "array", "items": {"type": "string"}, "description": "curve_fit: the parameter names in order (default: the model's free names other than x, alphabetically)."},
                    "p0": {"description": "curve_fit: initial parameters (default all 1).", "allOf": [vec_]},
                    "sigma": {"description": "curve_fit: the standard deviation of each y.", "allOf": [vec_]},
                    "x": {"description": "Samples: curve_fit and interpolate abscissae, trapz/simpson x, the fft input (reals or [re, im] pairs), norm's vector."},
                    "y": {"description": "Samples: curve_fit, interpolate, trapz/simpson ordinates; 2-D interpolation: the grid's y.", "allOf": [vec_]},
                    "z": {"description": "interpolate (bilinear/bicubic): z[i][j] at (x[i], y[j]).", "allOf": [matrix]},
                    "x_new": {"description": "interpolate (1-D): where to evaluate (a number or a list)."},
                    "points": {"type": "array", "description": "interpolate (2-D): [x, y] pairs where to evaluate."},
                    "method": {"type": "string", "description": "interpolate: linear, cubic, pchip, bilinear, bicubic; integrate_numeric: quad (default), dblquad, trapz, simpson."},
                    "equations": {"description": "ode: one right-hand side per state component, expressions in t and the state names.", "type": ["array", "string"]},
                    "y0": {"description": "ode: the initial state."},
                    "t_span": {"description": "ode: [t0, t_final].", "allOf": [vec_]},
                    "t_eval": {"description": "ode: times at which to report the solution (default: every step).", "allOf": [vec_]},
                    "a": {"description": "integrate_numeric: lower limit.", "allOf": [bound]},
                    "c": {"description": "dblquad: inner lower limit (a number, \"-inf\", or an expression in the outer variable).", "type": ["number", "string"]},
                    "d": {"description": "dblquad: inner upper limit (a number, \"inf\", or an expression in the outer variable).", "type": ["number", "string"]},
                    "dx": {"description": "trapz/simpson: sample spacing when x is not given (default 1).", "allOf": [num]},
                    "n": {"type": "integer", "minimum": 1, "description": "fftfreq: the window length; fft/ifft/rfft/irfft: the transform length (crop or zero-pad)."},
                    "fs": {"description": "power_spectrum: the sampling frequency (default 1).", "allOf": [num]},
                },
                "additionalProperties": true
            },
            "options": {
                "type": "object",
                "description": "Solver options, per operation (see the notes): method, tolerances (rtol, atol, xtol, ftol, gtol, epsabs, epsrel), maxiter, maxfev, limit, bc, extrapolate, norm, ord, scaling, absolute_sigma.",
                "additionalProperties": true
            }
        },
        "required": ["operation"],
        "additionalProperties": false
    });
    let result_schema = json!({
        "type": "object",
        "description": "Depends on the operation (see the notes); every number is finite.",
        "properties": {
            "determinant": num, "inverse": matrix, "condition_number": num,
            "eigenvalues": {"type": "array", "description": "Real and ascending for symmetric input; else [re, im] pairs."},
            "eigenvectors": {"type": "array", "description": "eigenvectors[i] belongs to eigenvalues[i], unit norm."},
            "U": matrix, "S": vec_, "Vt": matrix, "Q": matrix, "R": matrix, "L": matrix,
            "x": {"type": "array", "description": "solve_linear's solution; minimize's minimiser."},
            "method": {"type": "string"}, "residual_norm": num, "rank": {"type": "integer"}, "norm": num,
            "result": {"type": "array", "description": "matmul's product; fft/ifft/rfft: [re, im] pairs; irfft, fftfreq: reals."},
            "fun": num, "iterations": {"type": "integer"}, "evaluations": {"type": "integer"},
            "converged": {"type": "boolean"}, "message": {"type": "string"},
            "root": num, "function_value": num,
            "params": vec_, "covariance": matrix, "std_errors": vec_, "residual_sum_of_squares": num,
            "t": vec_, "y": {"type": "array", "items": vec_, "description": "ode: one list per state component, sampled at t."},
            "success": {"type": "boolean"}, "nfev": {"type": "integer"},
            "values": vec_, "frequencies": vec_, "power": vec_,
            "value": num, "abs_error": num
        },
        "additionalProperties": true
    });
    ToolSpec {
        name: "numerical".into(),
        description: "Numerical computation with SciPy's algorithms and answers, on doubles. Operations: linear \
            algebra on a matrix A (list of rows): determinant, inverse, eigenvalues, svd, solve_linear (A, b), rank, \
            norm, qr, cholesky, condition_number, matmul; minimize (a function expression of named variables from \
            x0; Nelder-Mead, BFGS, L-BFGS-B; bounds), root_find (bracket → Brent, or x0 → secant/Newton), curve_fit \
            (Levenberg-Marquardt with covariance); ode (equations in t and y0, y1, …; RK45, DOP853, stiff Radau); \
            interpolate (linear, cubic, pchip, bilinear, bicubic); fft, ifft, rfft, irfft, fftfreq, power_spectrum \
            (complex numbers as [re, im]); integrate_numeric (quad with infinite limits and error estimate, dblquad, \
            trapz, simpson); stats (distributions). Functions are expressions like \"x**3 - x - 2\" or \"exp(-x**2)\"."
            .into(),
        params_schema,
        result_schema,
        examples: examples(),
        notes: include_str!("numerical.md").into(),
    }
}
