//! The plotter's `ToolSpec`: what it draws, its params and result schemas, and an example.

use super::PLOT_TYPES;
use beaker_core::{Example, ToolSpec};
use serde_json::json;

/// The plotter's spec.
pub(super) fn spec() -> ToolSpec {
    let nums = json!({"type": "array", "items": {"type": "number"}});
    let range = json!({"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2});
    ToolSpec {
        name: "plotter".into(),
        description: "Plot functions and data as a PNG (base64) or SVG image, with a description in words of what \
            was drawn. plot_type: function (data.functions: expressions in x, data.x_range), line and scatter \
            (data.x, data.y or data.series: [{x, y, label}]), bar (data.labels, data.values), histogram \
            (data.values, options.bins), contour (data.function of x and y, data.x_range, data.y_range, options.levels), \
            vector_field (data.u, data.v: expressions in x and y), heatmap (data.z: rows of numbers). Options: \
            title, xlabel, ylabel, grid, legend, x_range, y_range, log_x, log_y, width, height, colors, format \
            (png or svg)."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "plot_type": {"type": "string", "enum": PLOT_TYPES, "description": "What to draw."},
                "data": {
                    "type": "object",
                    "description": "The functions or data (keys depend on plot_type).",
                    "properties": {
                        "functions": {"type": "array", "items": {"type": "string"}, "description": "function: expressions in x, e.g. [\"sin(x)\", \"x**2\"]."},
                        "function": {"type": "string", "description": "function: one expression in x."},
                        "x_range": range.clone(),
                        "y_range": range.clone(),
                        "u": {"type": "string", "description": "vector_field: x component, an expression in x and y."},
                        "v": {"type": "string", "description": "vector_field: y component, an expression in x and y."},
                        "x": nums.clone(),
                        "y": nums.clone(),
                        "series": {"type": "array", "items": {"type": "object", "properties": {"x": nums.clone(), "y": nums.clone(), "label": {"type": "string"}}, "required": ["y"], "additionalProperties": false}},
                        "labels": {"type": "array", "items": {"type": "string"}},
                        "values": nums.clone(),
                        "z": {"type": "array", "items": nums.clone()}
                    },
                    "additionalProperties": false
                },
                "save_as": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "Also save the image in this conversation's workspace at this path (.png, or .svg with format svg), for edit_image, read_file or execute_python to use."},
                "options": {
                    "type": "object",
                    "properties": {
                        "title": {"type": "string"},
                        "xlabel": {"type": "string"},
                        "ylabel": {"type": "string"},
                        "grid": {"type": "boolean", "description": "Draw grid lines (default true)."},
                        "legend": {"type": "boolean", "description": "Draw a legend (default: when there are several series)."},
                        "x_range": range.clone(),
                        "y_range": range,
                        "width": {"type": "integer", "minimum": 64, "description": "Pixels (default 800)."},
                        "height": {"type": "integer", "minimum": 64, "description": "Pixels (default 600)."},
                        "colors": {"type": "array", "items": {"type": "string", "pattern": "^#[0-9a-fA-F]{6}$"}, "description": "Series colours as #rrggbb (default: matplotlib's tab10)."},
                        "bins": {"type": "integer", "minimum": 1, "maximum": 10000, "description": "histogram: number of bins (default 10, as matplotlib)."},
                        "levels": {"description": "contour: how many levels (default 10) or their values.", "anyOf": [{"type": "integer", "minimum": 1}, {"type": "array", "items": {"type": "number"}}]},
                        "log_x": {"type": "boolean", "description": "Logarithmic x axis (function, line, scatter)."},
                        "log_y": {"type": "boolean", "description": "Logarithmic y axis (function, line, scatter)."},
                        "format": {"type": "string", "enum": ["png", "svg"], "description": "png (default, base64) or svg (text)."}
                    },
                    "additionalProperties": false
                }
            },
            "required": ["plot_type", "data"],
            "additionalProperties": false
        }),
        result_schema: json!({
            "type": "object",
            "properties": {
                "image": {"type": "string", "description": "The PNG, base64-encoded; or the SVG document."},
                "format": {"type": "string", "description": "png or svg."},
                "width": {"type": "integer"},
                "height": {"type": "integer"},
                "description": {"type": "string", "description": "What was drawn, in words: series, ranges, points."},
                "output_path": {"type": "string", "description": "With `save_as`: the workspace file written; otherwise where the image was also written when the server has an output directory."}
            },
            "required": ["image", "format", "width", "height", "description"],
            "additionalProperties": false
        }),
        examples: vec![Example {
            params: json!({"plot_type": "function", "data": {"functions": ["sin(x)", "cos(x)"], "x_range": [0, std::f64::consts::TAU]}, "options": {"title": "sin and cos", "width": 400, "height": 300}}),
            result: json!({"format": "png", "width": 400, "height": 300, "description": "Function plot for x in [0, 6.2832]: y = sin(x): 801 samples, y from -1 to 1; y = cos(x): 801 samples, y from -1 to 1. Axes: x from -0.3142 to 6.5973, y from -1.1 to 1.1. Title: sin and cos."}),
            elided: vec!["image".into()], workspace: Default::default(),
                dataset: None,
        }],
        notes: include_str!("plotter.md").into(),
    }
}
