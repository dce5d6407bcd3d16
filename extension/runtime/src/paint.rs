//! Painting into a captured screenshot, in the service worker: the captured viewport is cropped
//! and scaled to what was asked for, and the covers over masked fields and the ref labels that
//! `sightline_core::screenshot::plan` laid out are drawn into the image's pixels with an
//! `OffscreenCanvas`, after the browser captured it. Nothing is drawn in the
//! page, so the page can neither remove a cover, move it, nor forge or move a label.

use base64::Engine;
use sightline_core::screenshot::{PaintPlan, Rect, TAG_HEIGHT};
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{Blob, BlobPropertyBag, ImageBitmap, ImageEncodeOptions, OffscreenCanvas};
use web_sys::{OffscreenCanvasRenderingContext2d, WorkerGlobalScope};

/// The colour of a cover: opaque, and plainly not part of the page.
const COVER: &str = "#2b2b2b";
/// The colour of ref outlines and tags.
const LABEL: &str = "#e0218a";

/// The part of a captured viewport a screenshot keeps, and its size once scaled.
pub struct Crop {
    /// The part kept, in CSS pixels from the viewport's top-left corner.
    pub area: Rect,
    /// The captured image's pixels per CSS pixel (the screen's device pixel ratio).
    pub ratio: f64,
    /// The screenshot's width, in pixels.
    pub width: u32,
    /// The screenshot's height, in pixels.
    pub height: u32,
}

/// `image` (base64 of a PNG of the viewport) cropped and scaled as `crop` says, with `plan`
/// painted into it, encoded as `mime` (`quality` for JPEG); the error says what failed.
pub async fn paint(
    image: &str,
    crop: &Crop,
    mime: &str,
    quality: Option<f64>,
    plan: &PaintPlan,
) -> Result<String, String> {
    let bytes = base64::engine::general_purpose::STANDARD.decode(image).map_err(|e| e.to_string())?;
    let parts = js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice()));
    let kind = BlobPropertyBag::new();
    kind.set_type("image/png");
    let blob = Blob::new_with_u8_array_sequence_and_options(&parts, &kind).map_err(js_error)?;
    let global: WorkerGlobalScope = js_sys::global().unchecked_into();
    let decoding = global.create_image_bitmap_with_blob(&blob).map_err(js_error)?;
    let bitmap: ImageBitmap = JsFuture::from(decoding).await.map_err(js_error)?.unchecked_into();
    let canvas = OffscreenCanvas::new(crop.width, crop.height).map_err(js_error)?;
    let context: OffscreenCanvasRenderingContext2d =
        canvas.get_context("2d").map_err(js_error)?.ok_or("the canvas has no 2d context")?.unchecked_into();
    let (ratio, a) = (crop.ratio, crop.area);
    context
        .draw_image_with_image_bitmap_and_sw_and_sh_and_dx_and_dy_and_dw_and_dh(
            &bitmap,
            a.x * ratio,
            a.y * ratio,
            a.width * ratio,
            a.height * ratio,
            0.0,
            0.0,
            f64::from(crop.width),
            f64::from(crop.height),
        )
        .map_err(js_error)?;
    bitmap.close();
    draw(&context, plan);
    let options = ImageEncodeOptions::new();
    options.set_type(mime);
    if let Some(quality) = quality {
        options.set_quality(quality);
    }
    let encoding = canvas.convert_to_blob_with_options(&options).map_err(js_error)?;
    let painted: Blob = JsFuture::from(encoding).await.map_err(js_error)?.unchecked_into();
    let buffer = JsFuture::from(painted.array_buffer()).await.map_err(js_error)?;
    Ok(base64::engine::general_purpose::STANDARD.encode(js_sys::Uint8Array::new(&buffer).to_vec()))
}

/// Draws the covers, then the labels (outline, tag, ref).
fn draw(context: &OffscreenCanvasRenderingContext2d, plan: &PaintPlan) {
    context.set_fill_style_str(COVER);
    for cover in &plan.covers {
        context.fill_rect(cover.x as f64, cover.y as f64, cover.width as f64, cover.height as f64);
    }
    context.set_stroke_style_str(LABEL);
    context.set_line_width(1.0);
    context.set_font("bold 10px monospace");
    context.set_text_baseline("middle");
    for label in &plan.labels {
        let (o, t) = (label.outline, label.tag);
        context.stroke_rect(
            o.x as f64 + 0.5,
            o.y as f64 + 0.5,
            (o.width - 1).max(1) as f64,
            (o.height - 1).max(1) as f64,
        );
        context.set_fill_style_str(LABEL);
        context.fill_rect(t.x as f64, t.y as f64, t.width as f64, t.height as f64);
        context.set_fill_style_str("#ffffff");
        let _ = context.fill_text(&label.element_ref, t.x as f64 + 2.0, t.y as f64 + TAG_HEIGHT as f64 / 2.0);
    }
}

fn js_error(value: wasm_bindgen::JsValue) -> String {
    match value.dyn_ref::<js_sys::Error>() {
        Some(error) => String::from(error.message()),
        None => value.as_string().unwrap_or_else(|| "an unknown error".to_owned()),
    }
}
