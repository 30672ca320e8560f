//! `generate_image` and `generate_gif`: prompts forwarded to a provider speaking the OpenAI Images API
//! (`POST {url}/images/generations`, `response_format: "b64_json"`), as hosted APIs and local servers built on
//! diffusers or stable-diffusion.cpp answer it; the images saved into the workspace. Without a provider the
//! tools refuse, naming the setting: Beaker holds no image model and never draws a stand-in.

use crate::codec::{self, Format};
use crate::Made;
use base64::Engine as _;
use beaker_core::{CallContext, ErrorKind, Tool, ToolError, ToolSpec};
use image::GenericImageView;
use serde::Deserialize;
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// The `[image.provider]` settings.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProviderConfig {
    /// The API's base url, up to `/v1` (`https://api.openai.com/v1`, `http://127.0.0.1:7860/v1`).
    pub url: String,
    /// The model to ask for (sent as `model`; some local servers ignore it).
    #[serde(default)]
    pub model: Option<String>,
    /// The environment variable holding the API key, sent as a bearer token (default: none).
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Milliseconds one request may take (default 120,000; the call's own deadline still bounds it).
    #[serde(default)]
    pub timeout_ms: Option<u64>,
    /// Requests retried after a 429, a 5xx or a dropped connection (default 2).
    #[serde(default)]
    pub retries: Option<u32>,
}

/// A configured image provider.
pub struct Provider {
    endpoint: String,
    /// How long one request may take (`timeout_ms`).
    timeout: Duration,
    model: Option<String>,
    key: Option<String>,
    retries: u32,
    agent: ureq::Agent,
}

/// A provider that cannot be set up.
#[derive(Debug, thiserror::Error)]
#[error("[image.provider]: {0}")]
pub struct ProviderError(String);

/// What a refusal names when no provider is configured.
const NO_PROVIDER: &str = "needs an image provider, and none is configured: set `[image.provider] url` in the \
    server's configuration file to an OpenAI Images API endpoint (a hosted API, or a local server built on \
    diffusers or stable-diffusion.cpp); Beaker holds no image model of its own";

/// The most bytes a provider's answer may have (a few large images as base64).
const MAX_ANSWER_BYTES: u64 = 64 << 20;

impl Provider {
    /// The provider `config` describes; the API key is read from its environment variable now.
    pub fn new(config: &ProviderConfig) -> Result<Provider, ProviderError> {
        let url = config.url.trim_end_matches('/');
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(ProviderError(format!("url {url:?} is not http(s)")));
        }
        let key = match &config.api_key_env {
            None => None,
            Some(var) => Some(std::env::var(var).map_err(|_| {
                ProviderError(format!("api_key_env names {var}, which is not set"))
            })?),
        };
        let timeout = Duration::from_millis(config.timeout_ms.unwrap_or(120_000).max(1));
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(timeout))
            .http_status_as_error(false)
            .user_agent("beaker-image")
            .build()
            .new_agent();
        Ok(Provider {
            endpoint: format!("{url}/images/generations"),
            timeout,
            model: config.model.clone(),
            key,
            retries: config.retries.unwrap_or(2),
            agent,
        })
    }

    /// One image for `prompt` at `width`×`height` (and the provider's `steps` and `seed` when given), as the
    /// provider encoded it, checked to be an image of a size we accept.
    fn generate(
        &self,
        prompt: &str,
        (width, height): (u32, u32),
        steps: Option<u32>,
        seed: Option<u64>,
        ctx: &CallContext,
    ) -> Result<Vec<u8>, ToolError> {
        let mut body = json!({
            "prompt": prompt,
            "n": 1,
            "size": format!("{width}x{height}"),
            "response_format": "b64_json",
        });
        if let Some(m) = &self.model {
            body["model"] = json!(m);
        }
        // Not in OpenAI's API: local servers take them (hosted APIs refuse them, so leave them out there).
        if let Some(s) = steps {
            body["steps"] = json!(s);
        }
        if let Some(s) = seed {
            body["seed"] = json!(s);
        }
        let failed =
            |m: String| ToolError::new(ErrorKind::ToolError, format!("the image provider: {m}"));
        let mut attempt = 0;
        loop {
            ctx.checkpoint()?;
            let mut req = self
                .agent
                .post(&self.endpoint)
                .header("Content-Type", "application/json");
            if let Some(k) = &self.key {
                req = req.header("Authorization", &format!("Bearer {k}"));
            }
            // The provider's timeout, or the call's time left when that is shorter: a hung provider is the
            // tool's failure (`tool_error`), said before the call's own deadline would blame the call.
            let left = ctx.deadline.map_or(self.timeout, |d| {
                d.saturating_duration_since(Instant::now())
            });
            let bound = self
                .timeout
                .min(left.saturating_sub(Duration::from_millis(50)));
            req = req
                .config()
                .timeout_global(Some(bound.max(Duration::from_millis(1))))
                .build();
            let retryable = match req.send(body.to_string().as_bytes()) {
                Err(ureq::Error::Timeout(_)) => Err(failed(format!(
                    "no answer within {} ms (timeout_ms, or the call's time left)",
                    bound.as_millis()
                ))),
                Err(e) => Err(failed(e.to_string())),
                Ok(mut resp) => {
                    let status = resp.status().as_u16();
                    let text = resp
                        .body_mut()
                        .with_config()
                        .limit(MAX_ANSWER_BYTES)
                        .read_to_string()
                        .map_err(|e| failed(format!("HTTP {status}: {e}")))?;
                    match status {
                        200 => return image_of(&text).map_err(failed),
                        400 => {
                            return Err(ToolError::invalid_params(format!(
                                "the image provider refused the request: {}",
                                api_message(&text)
                            )))
                        }
                        s if ToolError::transient_status(s) => {
                            Err(failed(format!("HTTP {status}: {}", api_message(&text))))
                        }
                        _ => return Err(failed(format!("HTTP {status}: {}", api_message(&text)))),
                    }
                }
            };
            if attempt >= self.retries {
                // Down, overloaded or silent past its retries: the same call may succeed later.
                return retryable.map_err(ToolError::transient);
            }
            attempt += 1;
            std::thread::sleep(Duration::from_millis(200 << attempt.min(5)));
        }
    }
}

fn clip(text: &str) -> String {
    let t = text.trim();
    match t.char_indices().nth(300) {
        Some((i, _)) => format!("{}…", &t[..i]),
        None => t.to_string(),
    }
}

/// An API error's own words (`{"error": {"message": …}}`), else its text, cut short.
fn api_message(text: &str) -> String {
    serde_json::from_str::<Value>(text)
        .ok()
        .and_then(|v| v["error"]["message"].as_str().map(clip))
        .unwrap_or_else(|| clip(text))
}

/// The first image of an Images API answer (`{"data": [{"b64_json": …}]}`), decoded and checked.
fn image_of(text: &str) -> Result<Vec<u8>, String> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| format!("the answer is not JSON: {e}"))?;
    let first = &v["data"][0];
    let b64 = match (first["b64_json"].as_str(), first["url"].as_str()) {
        (Some(b), _) => b,
        (None, Some(_)) => {
            return Err("it answered a url, not b64_json; it must honour response_format".into())
        }
        _ => return Err(format!("no data[0].b64_json in its answer: {}", clip(text))),
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64.trim())
        .map_err(|e| format!("data[0].b64_json is not base64: {e}"))?;
    codec::decode(&bytes, "the provider's image").map_err(|e| e.message)?;
    Ok(bytes)
}

/// What a call waiting on a provider gets unless it asks otherwise: two minutes (an image model takes seconds to
/// tens of seconds; the server's maxima still clamp it).
fn provider_limits() -> beaker_core::LimitsRequest {
    beaker_core::LimitsRequest {
        timeout_ms: Some(120_000),
        ..Default::default()
    }
}

/// A file name made from a prompt: its first words, lower case, letters and digits joined by `_`.
fn slug(prompt: &str) -> String {
    let words: Vec<String> = prompt
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(6)
        .map(str::to_lowercase)
        .collect();
    let s = words.join("_");
    if s.is_empty() {
        "image".into()
    } else {
        s.chars().take(60).collect()
    }
}

fn provider_of<'a>(p: &'a Option<Arc<Provider>>, tool: &str) -> Result<&'a Provider, ToolError> {
    p.as_deref()
        .ok_or_else(|| ToolError::new(ErrorKind::ToolError, format!("{tool} {NO_PROVIDER}")))
}

/// `generate_image`: one image from a prompt, through the provider.
pub struct GenerateImage {
    spec: ToolSpec,
    provider: Option<Arc<Provider>>,
}

impl GenerateImage {
    /// The tool, answered by `provider` (refusing without one).
    pub fn new(provider: Option<Arc<Provider>>) -> Self {
        GenerateImage {
            spec: crate::spec::generate_image(),
            provider,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ImageParams {
    prompt: String,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    height: Option<u32>,
    #[serde(default)]
    steps: Option<u32>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    output_path: Option<String>,
    #[serde(default)]
    return_image: bool,
}

impl Tool for GenerateImage {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: ImageParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        let size = (p.width.unwrap_or(512), p.height.unwrap_or(512));
        codec::check_size("the image asked for", size.0, size.1)?;
        let out = match &p.output_path {
            Some(o) => ws.normalize(o, false)?,
            None => format!("outputs/{}.png", slug(&p.prompt)),
        };
        let provider = provider_of(&self.provider, "generate_image")?;
        let bytes = provider.generate(&p.prompt, size, p.steps, p.seed, ctx)?;
        let (img, format) = codec::decode(&bytes, "the provider's image")?;
        // The size asked for: a provider that draws another (many have fixed sizes) is resampled to it.
        let resized = img.dimensions() != size;
        let img = if resized {
            crate::ops::resize(&img, size.0, size.1)
        } else {
            img
        };
        let (w, h) = img.dimensions();
        // Saved as the output path's format asks (a provider's PNG asked for as .jpg is re-encoded).
        let want = crate::output_format(&out)?.unwrap_or(format);
        let bytes = if want == format && !resized {
            bytes
        } else {
            codec::encode(&img, want, 90)?
        };
        let made = Made {
            bytes,
            format: want,
            width: w,
            height: h,
            output_path: Some(out),
            inline: p.return_image,
            message: "Image generated successfully".into(),
            ws,
        };
        let mut m = made.answer(ctx)?;
        m.insert("prompt".into(), json!(p.prompt));
        Ok(Value::Object(m))
    }

    fn pool(&self) -> beaker_core::Pool {
        // A request to a provider may take seconds: it waits where slow calls wait, not before cheap native ones.
        beaker_core::Pool::Sandboxed
    }

    fn default_limits(&self) -> beaker_core::LimitsRequest {
        provider_limits()
    }
}

/// `generate_gif`: an animation of frames described in words (each through the provider) or taken from
/// workspace images, assembled natively.
pub struct GenerateGif {
    spec: ToolSpec,
    provider: Option<Arc<Provider>>,
    /// The catalog's `plotter`, for frames given as plots (handed over by [`Tool::bind`]).
    plotter: std::sync::OnceLock<Arc<dyn Tool>>,
}

impl GenerateGif {
    /// The tool, answered by `provider` for frames given as descriptions.
    pub fn new(provider: Option<Arc<Provider>>) -> Self {
        GenerateGif {
            spec: crate::spec::generate_gif(),
            provider,
            plotter: std::sync::OnceLock::new(),
        }
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum FrameParam {
    Prompt(String),
    Image { image_path: String },
    Plot { plot: Value },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GifParams {
    frames: Vec<FrameParam>,
    #[serde(default)]
    fps: Option<f64>,
    #[serde(rename = "loop", default)]
    loops: Option<u16>,
    #[serde(default)]
    width: Option<u32>,
    #[serde(default)]
    height: Option<u32>,
    #[serde(default)]
    steps: Option<u32>,
    #[serde(default)]
    seed: Option<u64>,
    #[serde(default)]
    output_path: Option<String>,
    #[serde(default)]
    return_image: bool,
}

/// The most frames one GIF may have.
pub const MAX_FRAMES: usize = 120;

impl Tool for GenerateGif {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn call(&self, params: &Value, ctx: &CallContext) -> Result<Value, ToolError> {
        let p: GifParams = beaker_core::params::parse(params)?;
        let ws = ctx.workspace();
        if p.frames.is_empty() || p.frames.len() > MAX_FRAMES {
            return Err(ToolError::invalid_params(format!(
                "`frames` has {} frames; a GIF takes 1 to {MAX_FRAMES}",
                p.frames.len()
            )));
        }
        let fps = p.fps.unwrap_or(5.0);
        if !(fps.is_finite() && fps > 0.0 && fps <= 100.0) {
            return Err(ToolError::invalid_params(
                "`fps` must be more than 0 and at most 100",
            ));
        }
        let out = match &p.output_path {
            Some(o) => ws.normalize(o, false)?,
            None => format!(
                "outputs/{}.gif",
                match &p.frames[0] {
                    FrameParam::Prompt(s) => slug(s),
                    FrameParam::Image { image_path } => slug(
                        image_path
                            .rsplit('/')
                            .next()
                            .and_then(|f| f.rsplit_once('.').map(|(stem, _)| stem).or(Some(f)))
                            .unwrap_or(image_path),
                    ),
                    FrameParam::Plot { .. } => "plot".into(),
                }
            ),
        };
        // Any extension but .gif (.png, or one not written here such as .bmp) would misname the GIF's bytes.
        if crate::output_format(&out).is_err()
            || Format::from_path(&out).is_some_and(|f| f != Format::Gif)
        {
            return Err(ToolError::invalid_params(format!(
                "`output_path` {out} must end in .gif"
            )));
        }
        // The size asked for; else a first frame that is a workspace image gives it; else 512 x 512.
        let first_size = match (&p.frames[0], p.width, p.height) {
            (FrameParam::Image { image_path }, None, None) => {
                let path = ws.normalize(image_path, false)?;
                Some(codec::decode(&ws.read(&path)?, &path)?.0.dimensions())
            }
            _ => None,
        };
        let asked = first_size.unwrap_or((p.width.unwrap_or(512), p.height.unwrap_or(512)));
        codec::check_size("a frame", asked.0, asked.1)?;
        let total = u64::from(asked.0) * u64::from(asked.1) * p.frames.len() as u64;
        if total > codec::MAX_PIXELS {
            return Err(ToolError::limit(format!(
                "{} frames of {}x{} are {total} pixels; a GIF may have {} in all",
                p.frames.len(),
                asked.0,
                asked.1,
                codec::MAX_PIXELS
            )));
        }
        let mut frames = Vec::with_capacity(p.frames.len());
        for (i, f) in p.frames.iter().enumerate() {
            ctx.checkpoint()?;
            let img = match f {
                FrameParam::Prompt(prompt) => {
                    let provider =
                        provider_of(&self.provider, "generate_gif (frames described in words)")?;
                    // Each frame its own seed, derived from the call's, so frames differ yet replay the same.
                    let seed = p.seed.map(|s| s.wrapping_add(i as u64));
                    let bytes = provider.generate(prompt, asked, p.steps, seed, ctx)?;
                    codec::decode(&bytes, &format!("frame {i}"))?.0
                }
                FrameParam::Image { image_path } => {
                    let path = ws.normalize(image_path, false)?;
                    codec::decode(&ws.read(&path)?, &path)?.0
                }
                FrameParam::Plot { plot } => self.plot_frame(i, plot, asked, ctx)?,
            };
            let img = if img.dimensions() == asked {
                img
            } else {
                crate::ops::resize(&img, asked.0, asked.1)
            };
            frames.push(img.to_rgba8());
        }
        let bytes = assemble(frames, fps, p.loops.unwrap_or(0), ctx)?;
        let made = Made {
            bytes,
            format: Format::Gif,
            width: asked.0,
            height: asked.1,
            output_path: Some(out),
            inline: p.return_image,
            message: "GIF generated successfully".into(),
            ws,
        };
        let mut m = made.answer(ctx)?;
        m.insert("frame_count".into(), json!(p.frames.len()));
        m.insert("fps".into(), json!(fps));
        m.insert("loop".into(), json!(p.loops.unwrap_or(0)));
        Ok(Value::Object(m))
    }

    fn pool(&self) -> beaker_core::Pool {
        beaker_core::Pool::Sandboxed
    }

    fn default_limits(&self) -> beaker_core::LimitsRequest {
        provider_limits()
    }

    fn bind(&self, tools: &[Arc<dyn Tool>]) {
        if let Some(p) = tools.iter().find(|t| t.spec().name == "plotter") {
            let _ = self.plotter.set(p.clone());
        }
    }
}

impl GenerateGif {
    /// Frame `i` drawn by the plotter from `plot` (the plotter's params), at the GIF's size, as PNG.
    fn plot_frame(
        &self,
        i: usize,
        plot: &Value,
        (w, h): (u32, u32),
        ctx: &CallContext,
    ) -> Result<image::DynamicImage, ToolError> {
        let plotter = self.plotter.get().ok_or_else(|| {
            ToolError::new(
                ErrorKind::ToolError,
                "frames given as plots need the plotter, which this server does not run",
            )
        })?;
        let Value::Object(params) = plot else {
            return Err(ToolError::invalid_params(format!(
                "frames[{i}].plot must be the plotter's params (an object)"
            )));
        };
        let mut params = params.clone();
        let options = params.entry("options").or_insert_with(|| json!({}));
        if let Value::Object(o) = options {
            // Drawn at least 320 x 240 (smaller, axes and labels leave no room for the plot) and resampled to
            // the GIF's size; a PNG, whatever the frame asked for.
            o.insert("width".into(), json!(w.max(320)));
            o.insert("height".into(), json!(h.max(240)));
            o.insert("format".into(), json!("png"));
        }
        params.remove("save_as");
        let frame_error = |e: ToolError| ToolError {
            message: format!("frames[{i}].plot: {}", e.message),
            ..e
        };
        let out = plotter
            .call(&Value::Object(params), ctx)
            .map_err(frame_error)?;
        let png = out["image"]
            .as_str()
            .and_then(|b| base64::engine::general_purpose::STANDARD.decode(b).ok())
            .ok_or_else(|| ToolError::new(ErrorKind::Internal, "the plotter gave no PNG"))?;
        Ok(codec::decode(&png, &format!("frame {i}"))?.0)
    }
}

/// The frames as one GIF: each shown 1/`fps` s (in GIF's hundredths), repeated `loops` times (0: forever).
fn assemble(
    frames: Vec<image::RgbaImage>,
    fps: f64,
    loops: u16,
    ctx: &CallContext,
) -> Result<Vec<u8>, ToolError> {
    use image::codecs::gif::{GifEncoder, Repeat};
    let mut out = Vec::new();
    {
        let mut enc = GifEncoder::new_with_speed(&mut out, 10);
        let failed = |e: image::ImageError| {
            ToolError::new(ErrorKind::ToolError, format!("encoding the GIF: {e}"))
        };
        enc.set_repeat(if loops == 0 {
            Repeat::Infinite
        } else {
            Repeat::Finite(loops)
        })
        .map_err(failed)?;
        // GIF counts delays in hundredths of a second: 1/fps rounded to them.
        let delay =
            image::Delay::from_numer_denom_ms(((100.0 / fps).round().max(1.0) as u32) * 10, 1);
        for f in frames {
            ctx.checkpoint()?;
            enc.encode_frame(image::Frame::from_parts(f, 0, 0, delay))
                .map_err(failed)?;
        }
    }
    Ok(out)
}
