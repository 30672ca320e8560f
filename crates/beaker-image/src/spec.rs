//! The image tools' specs: params and result schemas, examples (`examples.json`) and the notes in `image.md`.

use beaker_core::{Example, ToolSpec};
use serde_json::{json, Value};

/// The examples of `tool`, from `examples.json` (checked by the conformance suite).
fn examples(tool: &str) -> Vec<Example> {
    Example::of_tool(include_str!("examples.json"), tool)
}

const OUTPUT_PATH: &str =
    "Where to save the image in the workspace (its extension may choose the format).";

fn made(extra: Value) -> Value {
    let mut props = json!({
        "result": {"type": "string", "description": "What was done, in seed 001's words."},
        "output_path": {"type": "string", "description": "The workspace file written."},
        "width": {"type": "integer"},
        "height": {"type": "integer"},
        "format": {"enum": ["png", "jpeg", "webp", "gif"]},
        "bytes": {"type": "integer", "description": "The encoded file's size."},
        "image_base64": {"type": "string", "contentEncoding": "base64", "description": "The encoded image, when returned inline."}
    });
    if let (Some(p), Value::Object(e)) = (props.as_object_mut(), extra) {
        p.extend(e);
    }
    json!({"type": "object", "properties": props, "required": ["result", "width", "height", "format", "bytes"], "additionalProperties": false})
}

fn notes(name: &str) -> String {
    if name == "edit_image" {
        include_str!("image.md").into()
    } else {
        "The provider, the workspace and the limits: see `edit_image`.".into()
    }
}

pub(crate) fn edit_image() -> ToolSpec {
    ToolSpec {
        name: "edit_image".into(),
        description: "Edit an image in this conversation's workspace (or one given inline as base64): resize \
            (optionally keeping the aspect ratio), crop, rotate, flip, grayscale, blur, sharpen, brightness, \
            contrast, convert (PNG, JPEG, WebP, GIF), thumbnail, or annotate with text. The result is saved \
            beside the original (NAME_EDIT.EXT) or at output_path."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "image_path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "The image in the workspace, e.g. outputs/sunset.png."},
                "image": {"type": "string", "minLength": 1, "contentEncoding": "base64", "description": "Or the image itself, base64 (PNG, JPEG, WebP or GIF)."},
                "edit_type": {"enum": ["resize", "crop", "rotate", "flip", "grayscale", "blur", "sharpen", "brightness", "contrast", "convert", "thumbnail", "annotate"]},
                "width": {"type": "integer", "minimum": 1, "maximum": 16384, "description": "resize, thumbnail: the new width (or the box's); crop: the box's width."},
                "height": {"type": "integer", "minimum": 1, "maximum": 16384, "description": "resize, thumbnail: the new height (or the box's); crop: the box's height."},
                "keep_aspect_ratio": {"type": "boolean", "default": false, "description": "resize: fit inside width x height, keeping the proportions."},
                "x": {"type": "integer", "minimum": -16384, "maximum": 16384, "description": "crop: the box's left edge (default 0); annotate: the text's left edge (default 10)."},
                "y": {"type": "integer", "minimum": -16384, "maximum": 16384, "description": "crop: the box's top edge (default 0); annotate: the text's top edge (default 10)."},
                "angle": {"type": "number", "minimum": -36000, "maximum": 36000, "description": "rotate: degrees counter-clockwise; the canvas grows to hold the whole image."},
                "direction": {"enum": ["horizontal", "vertical"], "default": "horizontal", "description": "flip: horizontal mirrors left and right."},
                "radius": {"type": "number", "minimum": 0, "maximum": 100, "default": 2, "description": "blur: the Gaussian's standard deviation in pixels."},
                "factor": {"type": "number", "minimum": 0, "maximum": 100, "description": "brightness, contrast: 1 leaves the image as it is, 0 gives black (brightness) or flat grey (contrast), 2 doubles."},
                "format": {"enum": ["png", "jpeg", "webp", "gif"], "description": "The output's format (convert needs it or an output_path that names one); default: the source's."},
                "quality": {"type": "integer", "minimum": 1, "maximum": 100, "default": 90, "description": "JPEG quality."},
                "text": {"type": "string", "minLength": 1, "maxLength": 1000, "description": "annotate: the text (\\n breaks lines)."},
                "font_size": {"type": "number", "minimum": 1, "maximum": 512, "default": 24, "description": "annotate: pixels."},
                "color": {"type": "string", "maxLength": 16, "default": "white", "description": "annotate: #RRGGBB, #RRGGBBAA or black, white, red, green, blue, yellow."},
                "output_path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": OUTPUT_PATH},
                "return_image": {"type": "boolean", "description": "Also return the image inline as base64 (default: only when it is not saved, i.e. an inline image without output_path)."}
            },
            "required": ["edit_type"],
            "additionalProperties": false
        }),
        result_schema: made(json!({
            "edit_type": {"type": "string"},
            "original": {"type": "object", "properties": {"width": {"type": "integer"}, "height": {"type": "integer"}, "format": {"type": "string"}}}
        })),
        examples: examples("edit_image"),
        notes: notes("edit_image"),
    }
}

pub(crate) fn generate_image() -> ToolSpec {
    ToolSpec {
        name: "generate_image".into(),
        description: "Generate an image from a text prompt with the server's image model (an OpenAI Images API \
            provider) and save it in this conversation's workspace (default outputs/PROMPT_WORDS.png). Fails, \
            saying so, when the server has no image provider."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "prompt": {"type": "string", "minLength": 1, "maxLength": 4000, "description": "What to draw."},
                "width": {"type": "integer", "minimum": 1, "maximum": 8192, "default": 512},
                "height": {"type": "integer", "minimum": 1, "maximum": 8192, "default": 512},
                "steps": {"type": "integer", "minimum": 1, "maximum": 500, "description": "Sampling steps, for providers that take them (local diffusion servers)."},
                "seed": {"type": "integer", "minimum": 0, "description": "The provider's seed, for providers that take one."},
                "output_path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": OUTPUT_PATH},
                "return_image": {"type": "boolean", "default": false, "description": "Also return the image inline as base64."}
            },
            "required": ["prompt"],
            "additionalProperties": false
        }),
        result_schema: made(json!({"prompt": {"type": "string"}})),
        examples: examples("generate_image"),
        notes: notes("generate_image"),
    }
}

pub(crate) fn generate_gif() -> ToolSpec {
    ToolSpec {
        name: "generate_gif".into(),
        description: "Make an animated GIF from frames: each a description drawn by the server's image model, \
            {\"image_path\": ...} for an image already in the workspace, or {\"plot\": {...}} drawn by the \
            plotter from its params; saved in the workspace (default \
            outputs/FIRST_FRAME_WORDS.gif)."
            .into(),
        params_schema: json!({
            "type": "object",
            "properties": {
                "frames": {"type": "array", "minItems": 1, "maxItems": 120, "items": {"anyOf": [
                    {"type": "string", "minLength": 1, "maxLength": 4000},
                    {"type": "object", "properties": {"image_path": {"type": "string", "minLength": 1, "maxLength": 1024}}, "required": ["image_path"], "additionalProperties": false},
                    {"type": "object", "properties": {"plot": {"type": "object", "description": "The plotter's params (plot_type, data, options), drawn at the GIF's size."}}, "required": ["plot"], "additionalProperties": false}
                ]}, "description": "The frames in order: descriptions (drawn by the image provider), workspace images ({image_path}) or plots ({plot}: the plotter's params)."},
                "fps": {"type": "number", "exclusiveMinimum": 0, "maximum": 100, "default": 5, "description": "Frames a second (GIF keeps delays in hundredths of a second)."},
                "loop": {"type": "integer", "minimum": 0, "maximum": 65535, "default": 0, "description": "Times to loop; 0 loops forever."},
                "width": {"type": "integer", "minimum": 1, "maximum": 8192, "default": 512, "description": "Every frame is made (or resized to) this size."},
                "height": {"type": "integer", "minimum": 1, "maximum": 8192, "default": 512},
                "steps": {"type": "integer", "minimum": 1, "maximum": 500},
                "seed": {"type": "integer", "minimum": 0, "description": "Frame i is asked for with seed + i."},
                "output_path": {"type": "string", "minLength": 1, "maxLength": 1024, "description": "Where to save the GIF (.gif)."},
                "return_image": {"type": "boolean", "default": false}
            },
            "required": ["frames"],
            "additionalProperties": false
        }),
        result_schema: made(json!({
            "frame_count": {"type": "integer"},
            "fps": {"type": "number"},
            "loop": {"type": "integer"}
        })),
        examples: examples("generate_gif"),
        notes: notes("generate_gif"),
    }
}
