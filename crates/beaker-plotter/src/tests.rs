//! The plotter's pictures, checked by decoding them: size, not blank, and the curve where the function puts it.

use super::draw::fmt_num;
use super::sampling::clip;
use super::*;
use beaker_core::{ErrorKind, Limits};

fn call(p: Value) -> Result<Value, ToolError> {
    Plotter::new().call(&p, &CallContext::new(Limits::default()))
}

/// Decodes a base64 PNG into (width, height, RGB rows).
fn pixels(r: &Value) -> (u32, u32, Vec<u8>) {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(r["image"].as_str().unwrap())
        .unwrap();
    let mut dec = png::Decoder::new(std::io::Cursor::new(bytes))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size()];
    let info = dec.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// Pixels of exactly this colour, as (x, y).
fn of_colour(w: u32, rgb: &[u8], c: (u8, u8, u8)) -> Vec<(f64, f64)> {
    rgb.chunks(3)
        .enumerate()
        .filter(|(_, p)| (p[0], p[1], p[2]) == c)
        .map(|(i, _)| ((i as u32 % w) as f64, (i as u32 / w) as f64))
        .collect()
}

#[test]
fn a_parabola_is_drawn_through_the_right_pixels() {
    let r = call(
        json!({"plot_type": "function", "data": {"functions": ["x**2"], "x_range": [0, 1]},
        "options": {"y_range": [0, 1], "title": "Parabola"}}),
    )
    .unwrap();
    let (w, h, rgb) = pixels(&r);
    assert_eq!((w, h), (800, 600));
    let curve = of_colour(w, &rgb, TAB10[0]);
    assert!(curve.len() > 500, "only {} curve pixels", curve.len());
    // The curve spans the plot area exactly (x and y ranges are [0, 1]); normalise by its bounding box.
    let (x0, x1) = curve
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let (y0, y1) = curve
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.1), b.max(p.1)));
    for (px, py) in &curve {
        let x = (px - x0) / (x1 - x0);
        let y = (y1 - py) / (y1 - y0);
        assert!(
            (y - x * x).abs() < 0.03,
            "pixel ({px}, {py}) is off y = x²: x {x}, y {y}"
        );
    }
    assert!(
        r["description"].as_str().unwrap().contains("y = x**2"),
        "{}",
        r["description"]
    );
}

#[test]
fn the_same_call_gives_the_same_bytes() {
    let p = json!({"plot_type": "function", "data": {"functions": ["sin(x)", "cos(x)"], "x_range": [-3.0, 3.0]},
        "options": {"title": "Trig Functions", "grid": true}});
    assert_eq!(call(p.clone()).unwrap(), call(p).unwrap());
}

#[test]
fn poles_are_gaps_and_undefined_functions_are_errors() {
    let r = call(
        json!({"plot_type": "function", "data": {"functions": ["tan(x)"], "x_range": [-3, 3]}}),
    )
    .unwrap();
    assert!(
        r["description"].as_str().unwrap().contains("pieces"),
        "{}",
        r["description"]
    );
    let e = call(json!({"plot_type": "function", "data": {"functions": ["sqrt(-1 - x**2)"], "x_range": [-1, 1]}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::DomainError);
    let e = call(json!({"plot_type": "function", "data": {"functions": ["y + 1"]}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::ParseError, "{e}");
}

#[test]
fn every_plot_type_draws_something() {
    for p in [
        json!({"plot_type": "line", "data": {"x": [0, 1, 2, 3], "y": [1, 3, 2, 4]}}),
        json!({"plot_type": "scatter", "data": {"series": [{"x": [0, 1], "y": [1, 2], "label": "a"}, {"y": [2, 1], "label": "b"}]}}),
        json!({"plot_type": "bar", "data": {"labels": ["a", "b", "c"], "values": [3, -1, 2]}}),
        json!({"plot_type": "histogram", "data": {"values": [1, 2, 2, 3, 3, 3, 4, 4, 5]}, "options": {"bins": 5}}),
        json!({"plot_type": "heatmap", "data": {"z": [[1, 2, 3], [4, 5, 6]]}}),
        json!({"plot_type": "contour", "data": {"function": "x**2 + y**2", "x_range": [-2, 2], "y_range": [-2, 2]}, "options": {"levels": 5}}),
        json!({"plot_type": "vector_field", "data": {"u": "-y", "v": "x"}}),
        json!({"plot_type": "function", "data": {"functions": ["x**2"], "x_range": [0.01, 100]}, "options": {"log_x": true, "log_y": true}}),
    ] {
        let r = call(p.clone()).unwrap_or_else(|e| panic!("{p}: {e}"));
        let (w, _, rgb) = pixels(&r);
        let ink = rgb.chunks(3).filter(|c| c != &[255, 255, 255]).count();
        assert!(ink > 2000, "{p}: nearly blank ({ink} pixels of ink)");
        assert_eq!(w, 800);
    }
}

#[test]
fn histogram_counts_follow_numpy_edges() {
    let r = call(json!({"plot_type": "histogram", "data": {"values": [0, 1, 1, 2, 2, 2, 3, 3, 3, 3]}, "options": {"bins": 3}})).unwrap();
    // numpy.histogram([0,1,1,2,2,2,3,3,3,3], bins=3) → counts [1, 2, 7] (the last bin is closed): 7.
    assert!(
        r["description"]
            .as_str()
            .unwrap()
            .contains("fullest bin holds 7"),
        "{}",
        r["description"]
    );
}

#[test]
fn svg_output_is_a_document_with_the_title() {
    let r = call(
        json!({"plot_type": "bar", "data": {"labels": ["x", "y"], "values": [1, 2]},
        "options": {"format": "svg", "title": "Two bars", "width": 400, "height": 300}}),
    )
    .unwrap();
    let svg = r["image"].as_str().unwrap();
    assert!(
        svg.starts_with("<svg") && svg.contains("Two bars") && svg.trim_end().ends_with("</svg>")
    );
    // Every text names the font the layout was measured with, then fallbacks, never a bare generic family.
    assert!(svg.contains(r#"font-family="DejaVu Sans, Bitstream Vera Sans, Verdana, sans-serif""#));
    assert!(!svg.contains(r#"font-family="sans-serif""#));
    assert_eq!(
        (r["format"].clone(), r["width"].clone()),
        (json!("svg"), json!(400))
    );
    let snapshot = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/data/plotter/two_bars.svg"
    );
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(snapshot, svg).unwrap();
    }
    assert_eq!(
        svg,
        std::fs::read_to_string(snapshot).unwrap(),
        "SVG drifted: UPDATE_SNAPSHOTS=1 to accept"
    );
}

#[test]
fn limits_are_enforced() {
    let big = call(json!({"plot_type": "line", "data": {"y": [1, 2]}, "options": {"width": 5000}}))
        .unwrap_err();
    assert_eq!(big.kind, ErrorKind::LimitExceeded);
    let many: Vec<String> = (0..17).map(|i| format!("x + {i}")).collect();
    let e = call(json!({"plot_type": "function", "data": {"functions": many}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    let z = vec![vec![0.0; 600]; 600];
    let e = call(json!({"plot_type": "heatmap", "data": {"z": z}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::LimitExceeded);
    let e = call(json!({"plot_type": "line", "data": {"x": [1, 2], "y": [1]}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
}

#[test]
fn lines_leaving_the_plot_end_at_its_edge() {
    let segs = clip(
        &[vec![(0.0, 0.0), (1.0, 2.0), (2.0, 5.0), (3.0, 0.0)]],
        (-1.0, 1.0),
    );
    assert_eq!(
        segs,
        vec![vec![(0.0, 0.0), (0.5, 1.0)], vec![(2.8, 1.0), (3.0, 0.0)]]
    );
}

#[test]
fn contour_levels_lie_on_their_circles() {
    // f = x² + y²: the level 1 contour is the unit circle. Read it back from the SVG's polylines is fragile;
    // check the description and that a circle's worth of ink is drawn at the radius the level implies.
    let r = call(json!({"plot_type": "contour", "data": {"function": "x**2 + y**2", "x_range": [-2, 2], "y_range": [-2, 2]},
        // 690 wide: the colour bar takes 90 pixels, leaving the plotting area as wide as it is tall.
        "options": {"levels": [1], "width": 690, "height": 600}}))
    .unwrap();
    let d = r["description"].as_str().unwrap();
    assert!(
        d.contains("1 levels (1)") && d.contains("values from 0 to 8"),
        "{d}"
    );
    let (w, h, rgb) = pixels(&r);
    let ink: Vec<(f64, f64)> = rgb
        .chunks(3)
        .enumerate()
        .filter(|(_, p)| {
            p[0] < 200 && (p[0], p[1], p[2]) != (0, 0, 0) && !(p[0] == p[1] && p[1] == p[2])
        })
        .map(|(i, _)| ((i as u32 % w) as f64, (i as u32 / w) as f64))
        // The colour bar's gradient on the right is ink too, but not the contour's.
        .filter(|p| p.0 < f64::from(w - 90))
        .collect();
    assert!(ink.len() > 200, "{} pixels", ink.len());
    let cx = ink.iter().map(|p| p.0).sum::<f64>() / ink.len() as f64;
    let cy = ink.iter().map(|p| p.1).sum::<f64>() / ink.len() as f64;
    let radii: Vec<f64> = ink
        .iter()
        .map(|p| ((p.0 - cx).powi(2) + (p.1 - cy).powi(2)).sqrt())
        .collect();
    let mean = radii.iter().sum::<f64>() / radii.len() as f64;
    // A circle: every inked pixel at the same distance from the centre (within 4%).
    assert!(
        radii.iter().all(|r| (r - mean).abs() < 0.04 * mean),
        "not a circle: mean radius {mean}"
    );
    assert!(h == 600);
}

#[test]
fn log_axes_need_positive_ranges_and_apply_to_curves_only() {
    let e = call(json!({"plot_type": "function", "data": {"functions": ["x"], "x_range": [-1, 1]}, "options": {"log_x": true}})).unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
    let e =
        call(json!({"plot_type": "bar", "data": {"values": [1, 2]}, "options": {"log_y": true}}))
            .unwrap_err();
    assert_eq!(e.kind, ErrorKind::InvalidParams);
    let r = call(json!({"plot_type": "line", "data": {"x": [1, 10, 100], "y": [1, 100, 10000]}, "options": {"log_x": true, "log_y": true}})).unwrap();
    assert!(r["description"].as_str().unwrap().contains("(logarithmic)"));
}

#[test]
fn jumps_and_poles_are_gaps_and_blow_ups_do_not_squash_the_plot() {
    let d = |f: &str| {
        call(json!({"plot_type": "function", "data": {"functions": [f], "x_range": [-2, 2]}}))
            .unwrap()["description"]
            .as_str()
            .unwrap()
            .to_string()
    };
    // floor(x) on [-2, 2]: [-2,-1), [-1,0), [0,1), [1,2) and the point x = 2: 5 pieces, no vertical risers.
    assert!(
        d("floor(x)").contains("drawn in 5 pieces"),
        "{}",
        d("floor(x)")
    );
    // A steep smooth curve is one piece.
    assert!(!d("exp(5*x)").contains("pieces"), "{}", d("exp(5*x)"));
    // 1/x: two pieces, and the y axis shows the curve, not ±12800.
    let r = d("1/x");
    assert!(r.contains("2 pieces"), "{r}");
    let y_axis = r.split("y from ").last().unwrap_or_default();
    let top: f64 = y_axis
        .split(" to ")
        .nth(1)
        .and_then(|t| t.trim_end_matches('.').parse().ok())
        .unwrap_or(f64::MAX);
    assert!(top < 100.0, "{r}");
    assert_eq!(fmt_num(2.5e7), "2.5e7");
    // A tick next to 0 on a [-1, 1] axis is 0; on a [0, 1e-20] axis 1e-21 is a real tick.
    assert_eq!(
        super::draw::tick_label(-2.220446049250313e-16, (-1.0, 1.0)),
        "0"
    );
    assert_eq!(super::draw::tick_label(1e-21, (0.0, 1e-20)), "1e-21");
    assert_eq!(fmt_num(-2.220446049250313e-16), "-2.22e-16");
    // A steep, finite curve is not cut off: the axis reaches its maximum, e^50 ≈ 5.18e21.
    let r = d("exp(25*x)");
    assert!(r.contains("y from 1.929e-22 to 5.185e21"), "{r}");
    assert_eq!(fmt_num(0.5), "0.5");
}

#[test]
fn isolated_points_are_drawn() {
    // x! is defined only at integers: six separate points, each drawn as a dot (not an empty plot).
    let r =
        call(json!({"plot_type": "function", "data": {"functions": ["x!"], "x_range": [0, 5]}}))
            .unwrap();
    let (w, _, rgb) = pixels(&r);
    assert!(
        of_colour(w, &rgb, TAB10[0]).len() >= 6 * 9,
        "{}",
        r["description"]
    );
}

#[test]
fn descriptions_say_where_a_function_is_undefined() {
    let r = call(
        json!({"plot_type": "function", "data": {"functions": ["sqrt(x)"], "x_range": [-4, 4]}}),
    )
    .unwrap();
    assert!(
        r["description"]
            .as_str()
            .unwrap()
            .contains("undefined or infinite on part"),
        "{}",
        r["description"]
    );
    let r =
        call(json!({"plot_type": "function", "data": {"functions": ["x**2"], "x_range": [-4, 4]}}))
            .unwrap();
    assert!(
        !r["description"].as_str().unwrap().contains("undefined"),
        "{}",
        r["description"]
    );
}

#[test]
fn data_descriptions_give_ranges() {
    let r =
        call(json!({"plot_type": "scatter", "data": {"x": [1, 2, 3], "y": [4, -1, 9]}})).unwrap();
    let d = r["description"].as_str().unwrap();
    assert!(d.contains("3 points, x from 1 to 3, y from -1 to 9"), "{d}");
}

#[test]
fn log_axes_say_how_many_points_they_leave_out() {
    let r = call(
        json!({"plot_type": "scatter", "data": {"x": [-1, 0, 1, 10, 100], "y": [1, 2, 3, 4, 5]},
        "options": {"log_x": true}}),
    )
    .unwrap();
    let d = r["description"].as_str().unwrap();
    assert!(
        d.contains("2 of the 5 points of `y` are at or below 0"),
        "{d}"
    );
    let r = call(json!({"plot_type": "scatter", "data": {"x": [1, 10], "y": [1, 2]}, "options": {"log_x": true}}))
        .unwrap();
    assert!(!r["description"].as_str().unwrap().contains("at or below 0"));
}

#[test]
fn tiny_and_huge_values_are_described_as_they_are() {
    let r = call(json!({"plot_type": "line", "data": {"y": [1e-20, 3e-20]}})).unwrap();
    let d = r["description"].as_str().unwrap();
    assert!(d.contains("y from 1e-20 to 3e-20"), "{d}");
    assert!(d.contains("y from 9e-21 to 3.1e-20"), "{d}");
    let r = call(
        json!({"plot_type": "function", "data": {"functions": ["x"], "x_range": [1e299, 1e300]}}),
    )
    .unwrap();
    let d = r["description"].as_str().unwrap();
    assert!(
        d.contains("x in [1e299, 1e300]") && d.contains("801 samples"),
        "{d}"
    );
    assert!(!d.contains("undefined"), "{d}");
}

#[test]
fn weak_arrows_keep_a_visible_head_and_zero_vectors_a_dot() {
    let params = json!({"plot_type": "vector_field", "data": {"u": "x", "v": "y"}});
    let parsed = beaker_core::params::parse(&params).unwrap();
    let (plot, _) = Plotter::new()
        .build(&params, &parsed, &CallContext::new(Limits::default()))
        .unwrap();
    let Body::Lines(lines) = plot.body else {
        panic!("a vector field is drawn as lines")
    };
    let cell = 10.0 / 21.0;
    let dist = |a: (f64, f64), b: (f64, f64)| ((a.0 - b.0).powi(2) + (a.1 - b.1).powi(2)).sqrt();
    // The grid's centre is (0, 0), where the field vanishes: a closed diamond.
    let dot = lines
        .iter()
        .find(|(_, p)| p.len() == 5 && p[0] == p[4])
        .expect("a dot for the zero vector");
    assert!(dist(dot.1[0], dot.1[2]) > 0.1 * cell);
    // Every arrow's head strokes are at least MIN_HEAD cells long, however short the shaft.
    for (_, p) in lines.iter().filter(|(_, p)| p.len() == 6) {
        let tip = p[1];
        assert!(dist(tip, p[2]) >= 0.149 * cell, "{p:?}");
        assert!(dist(tip, p[4]) >= 0.149 * cell, "{p:?}");
    }
}

#[test]
fn contours_have_a_colour_bar_labelled_with_their_levels() {
    let r = call(json!({"plot_type": "contour", "data": {"function": "x*y", "x_range": [-1, 1], "y_range": [-1, 1]},
        "options": {"levels": [-0.5, 0.25, 0.75], "format": "svg"}}))
    .unwrap();
    let svg = r["image"].as_str().unwrap();
    for label in [">\n-0.5\n<", ">\n0.25\n<", ">\n0.75\n<"] {
        assert!(svg.contains(label), "no colour bar label {label}");
    }
    assert!(r["description"].as_str().unwrap().contains("colour bar"));
    // Other plots keep the whole width.
    let r = call(json!({"plot_type": "line", "data": {"y": [1, 2]}, "options": {"format": "svg"}}))
        .unwrap();
    assert!(!r["image"].as_str().unwrap().contains(">\n0.25\n<"));
}

/// The description of a call's answer.
fn described(p: Value) -> String {
    let r = call(p.clone()).unwrap_or_else(|e| panic!("{p}: {e}"));
    r["description"].as_str().unwrap().to_string()
}

/// The texts of an SVG answer (tick labels, colour bar labels, titles).
fn svg_texts(mut p: Value) -> Vec<String> {
    p["options"]["format"] = json!("svg");
    let r = call(p.clone()).unwrap_or_else(|e| panic!("{p}: {e}"));
    let svg = r["image"].as_str().unwrap();
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            t.split_once(">\n")?
                .1
                .split_once("\n<")
                .map(|s| s.0.to_string())
        })
        .collect()
}

#[test]
fn narrow_ranges_are_described_with_the_digits_that_tell_their_ends_apart() {
    let d = described(
        json!({"plot_type": "function", "data": {"functions": ["x"], "x_range": [1, 1.00001]}}),
    );
    assert!(
        d.contains("x in [1, 1.00001]") && d.contains("y from 1 to 1.00001"),
        "{d}"
    );
    assert!(d.contains("Axes: x from 0.9999995 to 1.0000105"), "{d}");
    let d = described(json!({"plot_type": "line", "data": {"x": [1e6, 1000001], "y": [1, 2]}}));
    assert!(d.contains("x from 1e6 to 1.000001e6"), "{d}");
    let d =
        described(json!({"plot_type": "scatter", "data": {"x": [1, 2], "y": [0.00012, 0.00014]}}));
    assert!(d.contains("y from 0.00012 to 0.00014"), "{d}");
    // Two neighbouring doubles: told apart, and drawn on an axis wide enough to draw (a flat range's ±1).
    let d = described(json!({"plot_type": "line", "data": {"y": [1, 1.0000000000000002]}}));
    assert!(
        d.contains("y from 1 to 1.0000000000000002") && d.contains("y from 0 to 2."),
        "{d}"
    );
    // A flat series far from 0 gets ±5% (±1 would vanish in rounding).
    let d = described(json!({"plot_type": "line", "data": {"y": [1e20, 1e20]}}));
    assert!(d.contains("y from 9.5e19 to 1.05e20"), "{d}");
    // Contour levels close together keep their digits.
    let d = described(
        json!({"plot_type": "contour", "data": {"function": "1 + x*1e-9"}, "options": {"levels": 3}}),
    );
    assert!(
        d.contains(
            "values from 0.999999995 to 1.000000005, 3 levels (0.9999999975, 1, 1.0000000025)"
        ),
        "{d}"
    );
    assert_eq!(fmt_num(0.000123456), "0.0001235");
    assert_eq!(fmt_num(123.45678), "123.4568");
    assert_eq!(fmt_num(1e-320), "1e-320");
}

#[test]
fn narrow_and_tiny_axes_get_distinct_tick_labels() {
    let t = svg_texts(json!({"plot_type": "line", "data": {"y": [1, 1.00001]}}));
    for label in ["1.000002", "1.000005", "1.00001"] {
        assert!(t.iter().any(|s| s == label), "no tick {label}: {t:?}");
    }
    // plotters takes an axis narrower than 2.2e-16 for a point: [0, 1e-20] has ten ticks all the same.
    let t = svg_texts(json!({"plot_type": "line", "data": {"y": [0, 1e-20]}}));
    for label in ["2e-21", "5e-21", "1e-20"] {
        assert!(t.iter().any(|s| s == label), "no tick {label}: {t:?}");
    }
    // Subnormal bar heights: ticks computed without overflowing the scale factor (10^320).
    let t = svg_texts(json!({"plot_type": "bar", "data": {"values": [1e-320, 2e-320]}}));
    for label in ["4e-321", "1e-320", "2e-320"] {
        assert!(t.iter().any(|s| s == label), "no tick {label}: {t:?}");
    }
    let t =
        svg_texts(json!({"plot_type": "line", "data": {"x": [1e20, 1.0000001e20], "y": [1, 2]}}));
    assert!(t.iter().any(|s| s == "1.00000005e20"), "{t:?}");
    // A log axis narrower than a decade's thousandth labels its ticks, not "1" ten times.
    let t = svg_texts(
        json!({"plot_type": "function", "data": {"functions": ["x"], "x_range": [1, 1.00000000001]},
        "options": {"log_x": true}}),
    );
    assert!(t.iter().any(|s| s == "1.0000000000023"), "{t:?}");
    let ticks = super::draw::key_points(1e-300, 2e-300, 10);
    assert!(ticks.len() >= 5, "{ticks:?}");
}

#[test]
fn values_near_the_top_of_the_doubles_are_drawn_without_overflow() {
    // Contour values spanning more than a double holds: levels and colour bar labels, not inf or all 0.
    let p =
        json!({"plot_type": "contour", "data": {"function": "x*3e307"}, "options": {"levels": 5}});
    let d = described(p.clone());
    assert!(
        d.contains("values from -1.5e308 to 1.5e308, 5 levels (-1e308, -5e307, 0, 5e307, 1e308)"),
        "{d}"
    );
    let t = svg_texts(p);
    assert!(
        t.iter().any(|s| s == "-1e308") && t.iter().any(|s| s == "5e307"),
        "{t:?}"
    );
    assert_eq!(super::draw::frac(0.0, -1.7e308, 1.7e308), 0.5);
    // Vector magnitudes of 1e299 on a 1e299-wide grid: magnitudes, not inf.
    let d = described(
        json!({"plot_type": "vector_field", "data": {"u": "x", "v": "y", "x_range": [1e299, 1e300]}}),
    );
    assert!(d.contains("magnitudes from 1.214e299 to 9.786e299"), "{d}");
    // Huge vectors on a tiny cell: arrows, with dots only in the column where u vanishes (x = 0), not 441
    // dots (the lengths in cell units overflowed).
    let d = described(json!({"plot_type": "vector_field",
        "data": {"u": "x*1e300", "v": "1", "x_range": [-1, 1], "y_range": [-1e-290, 1e-290]}}));
    assert!(d.contains(" 21 vectors are zero"), "{d}");
    // A log axis padded beyond the doubles is described with its exponent, not "0 to inf".
    let d = described(
        json!({"plot_type": "scatter", "data": {"x": [1e-320, 1e308], "y": [1, 2]}, "options": {"log_x": true}}),
    );
    assert!(
        d.contains("x from 3.981e-352 to 2.512e339 (logarithmic)"),
        "{d}"
    );
    // Equal histogram values far from 0: NumPy's ±0.5 is lost in rounding; a billionth of them is not.
    let d = described(json!({"plot_type": "histogram", "data": {"values": [1e20, 1e20]}}));
    assert!(d.contains("bins of width 2e10"), "{d}");
    let d = described(json!({"plot_type": "histogram", "data": {"values": [3, 3]}}));
    assert!(d.contains("bins of width 0.1 from 2.5 to 3.5"), "{d}");
}

#[test]
fn a_crowded_colour_bar_labels_every_few_levels() {
    let bar = super::kinds::ColorBar {
        lo: 0.0,
        hi: 1.0,
        ticks: (1..=100).map(|i| f64::from(i) / 101.0).collect(),
    };
    let ticks = super::draw::colorbar_ticks(&bar, 500);
    assert_eq!(ticks.len(), 100, "every level keeps its tick");
    let labelled: Vec<i32> = ticks
        .iter()
        .filter(|t| t.1.is_some())
        .map(|t| t.0)
        .collect();
    assert!(
        labelled.len() > 20 && labelled.len() < 50,
        "{} labels",
        labelled.len()
    );
    assert!(labelled.windows(2).all(|w| w[1] - w[0] >= 14));
    assert_eq!(ticks[0].1.as_deref(), Some("0.009901"));
    // A few levels: each labelled.
    let bar = super::kinds::ColorBar {
        lo: 0.0,
        hi: 1.0,
        ticks: vec![0.25, 0.5, 0.75],
    };
    assert!(super::draw::colorbar_ticks(&bar, 500)
        .iter()
        .all(|t| t.1.is_some()));
}

#[test]
fn zero_vectors_and_log_samples_are_counted_in_the_description() {
    let d = described(json!({"plot_type": "vector_field", "data": {"u": "x", "v": "y"}}));
    assert!(d.contains("1 vector is zero"), "{d}");
    let d = described(json!({"plot_type": "vector_field", "data": {"u": "1", "v": "y"}}));
    assert!(!d.contains("zero"), "{d}");
    let d = described(
        json!({"plot_type": "function", "data": {"functions": ["-x"], "x_range": [-1, 0]}, "options": {"log_y": true}}),
    );
    assert!(
        d.contains("1 of the 801 samples of `-x` is at or below 0 and not shown"),
        "{d}"
    );
}
