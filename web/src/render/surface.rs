//! What `topology::paint` draws on: the canvas of the page, or an SVG document for export.
//!
//! `Surface` is the part of the canvas 2D API the painter uses, with the canvas's names, so
//! one painter draws a page's canvas, a worker's offscreen canvas and SVG; `Svg` records the
//! same calls as SVG elements.

use std::cell::RefCell;
use std::fmt::Write;
use web_sys::{CanvasRenderingContext2d, OffscreenCanvasRenderingContext2d};

pub trait Surface {
    fn set_fill_style_str(&self, style: &str);
    fn set_stroke_style_str(&self, style: &str);
    fn set_line_width(&self, width: f64);
    fn set_line_cap(&self, cap: &str);
    fn set_global_alpha(&self, alpha: f64);
    fn set_font(&self, font: &str);
    fn set_text_align(&self, align: &str);
    fn set_text_baseline(&self, baseline: &str);
    fn begin_path(&self);
    fn move_to(&self, x: f64, y: f64);
    fn line_to(&self, x: f64, y: f64);
    /// A whole circle (the painter draws no other arcs).
    fn circle(&self, x: f64, y: f64, r: f64);
    fn arc_to(&self, x1: f64, y1: f64, x2: f64, y2: f64, r: f64);
    /// A rectangle with corners of radius `r` (at most half its width and height, at least 0)
    /// added to the path as a closed piece of its own: the canvas's `roundRect`, one call where
    /// its corners drawn one by one were six.
    fn rounded_rect(&self, x: f64, y: f64, w: f64, h: f64, r: f64);
    fn close_path(&self);
    fn fill(&self);
    fn stroke(&self);
    fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64);
    fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64);
    fn quadratic_curve_to(&self, cpx: f64, cpy: f64, x: f64, y: f64);
    fn fill_text(&self, text: &str, x: f64, y: f64);
    fn text_width(&self, text: &str) -> f64;
}

/// The same calls on a canvas's 2D context: the page's (`CanvasRenderingContext2d`) and a
/// worker's (`OffscreenCanvasRenderingContext2d`, for `<fabricscope-figure>`), which have the
/// same methods.
macro_rules! canvas_surface {
    ($context:ident) => {
        impl Surface for $context {
            fn set_fill_style_str(&self, style: &str) {
                $context::set_fill_style_str(self, style);
            }
            fn set_stroke_style_str(&self, style: &str) {
                $context::set_stroke_style_str(self, style);
            }
            fn set_line_width(&self, width: f64) {
                $context::set_line_width(self, width);
            }
            fn set_line_cap(&self, cap: &str) {
                $context::set_line_cap(self, cap);
            }
            fn set_global_alpha(&self, alpha: f64) {
                $context::set_global_alpha(self, alpha);
            }
            fn set_font(&self, font: &str) {
                $context::set_font(self, font);
            }
            fn set_text_align(&self, align: &str) {
                $context::set_text_align(self, align);
            }
            fn set_text_baseline(&self, baseline: &str) {
                $context::set_text_baseline(self, baseline);
            }
            fn begin_path(&self) {
                $context::begin_path(self);
            }
            fn move_to(&self, x: f64, y: f64) {
                $context::move_to(self, x, y);
            }
            fn line_to(&self, x: f64, y: f64) {
                $context::line_to(self, x, y);
            }
            fn circle(&self, x: f64, y: f64, r: f64) {
                $context::move_to(self, x + r, y);
                let _ = $context::arc(self, x, y, r, 0.0, std::f64::consts::TAU);
            }
            fn arc_to(&self, x1: f64, y1: f64, x2: f64, y2: f64, r: f64) {
                let _ = $context::arc_to(self, x1, y1, x2, y2, r);
            }
            fn rounded_rect(&self, x: f64, y: f64, w: f64, h: f64, r: f64) {
                let _ = $context::round_rect_with_f64(self, x, y, w, h, r);
            }
            fn close_path(&self) {
                $context::close_path(self);
            }
            fn fill(&self) {
                $context::fill(self);
            }
            fn stroke(&self) {
                $context::stroke(self);
            }
            fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64) {
                $context::fill_rect(self, x, y, w, h);
            }
            fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64) {
                $context::stroke_rect(self, x, y, w, h);
            }
            fn quadratic_curve_to(&self, cpx: f64, cpy: f64, x: f64, y: f64) {
                $context::quadratic_curve_to(self, cpx, cpy, x, y);
            }
            fn fill_text(&self, text: &str, x: f64, y: f64) {
                let _ = $context::fill_text(self, text, x, y);
            }
            fn text_width(&self, text: &str) -> f64 {
                self.measure_text(text).map(|m| m.width()).unwrap_or(0.0)
            }
        }
    };
}

canvas_surface!(CanvasRenderingContext2d);
canvas_surface!(OffscreenCanvasRenderingContext2d);

/// An SVG document built from the painter's calls.
pub struct Svg {
    state: RefCell<SvgState>,
}

struct SvgState {
    body: String,
    path: String,
    at: (f64, f64),
    fill: String,
    stroke: String,
    line_width: f64,
    line_cap: String,
    alpha: f64,
    font: String,
    align: String,
    baseline: String,
}

impl Svg {
    pub fn new() -> Svg {
        Svg {
            state: RefCell::new(SvgState {
                body: String::new(),
                path: String::new(),
                at: (0.0, 0.0),
                fill: "#000".into(),
                stroke: "#000".into(),
                line_width: 1.0,
                line_cap: "butt".into(),
                alpha: 1.0,
                font: "10px sans-serif".into(),
                align: "start".into(),
                baseline: "alphabetic".into(),
            }),
        }
    }

    /// The document, `width` × `height` user units.
    pub fn finish(self, width: f64, height: f64) -> String {
        let state = self.state.into_inner();
        format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width:.0}\" height=\"{height:.0}\" viewBox=\"0 0 {width:.1} {height:.1}\">\n{}</svg>\n",
            state.body
        )
    }

    fn opacity(alpha: f64, what: &str) -> String {
        if alpha < 1.0 {
            format!(" {what}-opacity=\"{alpha:.2}\"")
        } else {
            String::new()
        }
    }
}

impl Default for Svg {
    fn default() -> Svg {
        Svg::new()
    }
}

/// Text as SVG character data.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// A font size in px from a canvas font string ("600 12px system-ui, sans-serif").
fn font_px(font: &str) -> f64 {
    font.split_whitespace()
        .find_map(|part| part.strip_suffix("px"))
        .and_then(|px| px.parse().ok())
        .unwrap_or(10.0)
}

impl Surface for Svg {
    fn set_fill_style_str(&self, style: &str) {
        self.state.borrow_mut().fill = style.to_string();
    }
    fn set_stroke_style_str(&self, style: &str) {
        self.state.borrow_mut().stroke = style.to_string();
    }
    fn set_line_width(&self, width: f64) {
        self.state.borrow_mut().line_width = width;
    }
    fn set_line_cap(&self, cap: &str) {
        self.state.borrow_mut().line_cap = cap.to_string();
    }
    fn set_global_alpha(&self, alpha: f64) {
        self.state.borrow_mut().alpha = alpha;
    }
    fn set_font(&self, font: &str) {
        self.state.borrow_mut().font = font.to_string();
    }
    fn set_text_align(&self, align: &str) {
        self.state.borrow_mut().align = align.to_string();
    }
    fn set_text_baseline(&self, baseline: &str) {
        self.state.borrow_mut().baseline = baseline.to_string();
    }
    fn begin_path(&self) {
        self.state.borrow_mut().path.clear();
    }
    fn move_to(&self, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let _ = write!(s.path, "M{x:.2} {y:.2}");
        s.at = (x, y);
    }
    fn line_to(&self, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let _ = write!(s.path, "L{x:.2} {y:.2}");
        s.at = (x, y);
    }
    fn circle(&self, x: f64, y: f64, r: f64) {
        let mut s = self.state.borrow_mut();
        let _ = write!(
            s.path,
            "M{:.2} {y:.2}A{r:.2} {r:.2} 0 1 0 {:.2} {y:.2}A{r:.2} {r:.2} 0 1 0 {:.2} {y:.2}",
            x + r,
            x - r,
            x + r
        );
        s.at = (x + r, y);
    }
    fn arc_to(&self, x1: f64, y1: f64, x2: f64, y2: f64, r: f64) {
        // The corner from the current point through (x1, y1) toward (x2, y2), rounded with
        // radius r: a line to where the circle touches the first leg, an arc to the second.
        let mut s = self.state.borrow_mut();
        let (x0, y0) = s.at;
        let unit = |dx: f64, dy: f64| {
            let len = (dx * dx + dy * dy).sqrt().max(1e-9);
            (dx / len, dy / len)
        };
        let (ax, ay) = unit(x1 - x0, y1 - y0);
        let (bx, by) = unit(x2 - x1, y2 - y1);
        let (tx1, ty1) = (x1 - ax * r, y1 - ay * r);
        let (tx2, ty2) = (x1 + bx * r, y1 + by * r);
        let sweep = if ax * by - ay * bx > 0.0 { 1 } else { 0 };
        let _ = write!(s.path, "L{tx1:.2} {ty1:.2}A{r:.2} {r:.2} 0 0 {sweep} {tx2:.2} {ty2:.2}");
        s.at = (tx2, ty2);
    }
    fn rounded_rect(&self, x: f64, y: f64, w: f64, h: f64, r: f64) {
        // The corners one by one, as the canvas's roundRect draws them.
        self.move_to(x + r, y);
        self.arc_to(x + w, y, x + w, y + h, r);
        self.arc_to(x + w, y + h, x, y + h, r);
        self.arc_to(x, y + h, x, y, r);
        self.arc_to(x, y, x + w, y, r);
        self.close_path();
    }
    fn close_path(&self) {
        self.state.borrow_mut().path.push('Z');
    }
    fn fill(&self) {
        let mut s = self.state.borrow_mut();
        let element =
            format!("<path d=\"{}\" fill=\"{}\"{}/>\n", s.path, s.fill, Svg::opacity(s.alpha, "fill"));
        s.body.push_str(&element);
    }
    fn stroke(&self) {
        let mut s = self.state.borrow_mut();
        let element = format!(
            "<path d=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:.2}\" stroke-linecap=\"{}\"{}/>\n",
            s.path,
            s.stroke,
            s.line_width,
            s.line_cap,
            Svg::opacity(s.alpha, "stroke")
        );
        s.body.push_str(&element);
    }
    fn fill_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        let mut s = self.state.borrow_mut();
        let element = format!(
            "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"{}\"{}/>\n",
            s.fill,
            Svg::opacity(s.alpha, "fill")
        );
        s.body.push_str(&element);
    }
    fn stroke_rect(&self, x: f64, y: f64, w: f64, h: f64) {
        let mut s = self.state.borrow_mut();
        let element = format!(
            "<rect x=\"{x:.2}\" y=\"{y:.2}\" width=\"{w:.2}\" height=\"{h:.2}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{:.2}\"{}/>\n",
            s.stroke,
            s.line_width,
            Svg::opacity(s.alpha, "stroke")
        );
        s.body.push_str(&element);
    }
    fn quadratic_curve_to(&self, cpx: f64, cpy: f64, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let _ = write!(s.path, "Q{cpx:.2} {cpy:.2} {x:.2} {y:.2}");
        s.at = (x, y);
    }
    fn fill_text(&self, text: &str, x: f64, y: f64) {
        let mut s = self.state.borrow_mut();
        let anchor = match s.align.as_str() {
            "center" => "middle",
            "right" | "end" => "end",
            _ => "start",
        };
        let baseline = if s.baseline == "middle" { " dominant-baseline=\"middle\"" } else { "" };
        let element = format!(
            "<text x=\"{x:.2}\" y=\"{y:.2}\" text-anchor=\"{anchor}\"{baseline} fill=\"{}\" style=\"font: {}\"{}>{}</text>\n",
            s.fill,
            escape(&s.font),
            Svg::opacity(s.alpha, "fill"),
            escape(text)
        );
        s.body.push_str(&element);
    }
    fn text_width(&self, text: &str) -> f64 {
        // No text layout here: about 0.55 em per character, 1 em per CJK character.
        let px = font_px(&self.state.borrow().font);
        text.chars().map(|c| if (c as u32) > 0x2E80 { px } else { 0.55 * px }).sum()
    }
}

#[cfg(test)]
mod tests {
    use fabricscope::units::SimTime;

    #[test]
    fn the_topology_exports_as_svg_like_the_canvas() {
        let scenario = fabricscope::Scenario { nodes: 2, ..fabricscope::Scenario::default_demo() };
        let sim = fabricscope::simulate(&scenario.validate().unwrap()).unwrap();
        let t = SimTime(sim.end().0 / 3);
        let svg = crate::render::topology::topology_svg(
            &sim,
            1100.0,
            None,
            t,
            crate::i18n::Lang::En,
            &crate::state::collectives::Focus { kinds: Vec::new(), ranks: vec![3] },
        );
        assert!(
            svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"")
                && svg.trim_end().ends_with("</svg>")
        );
        // Every GPU is labelled, both node frames are there, and chunks are in flight.
        for gpu in 0..8 {
            assert_eq!(svg.matches(&format!(">GPU {gpu}</text>")).count(), 2, "GPU {gpu}");
        }
        assert!(svg.contains(">node 0 · DGX H100</text>") && svg.contains(">node 1 · DGX H100</text>"));
        assert!(svg.matches("A").count() > 10, "dots and rounded corners are arcs");
        // The GPU a lesson points at is ringed: one stroke of the text colour, 2.5 wide.
        assert_eq!(svg.matches("stroke=\"#1f2430\" stroke-width=\"2.50\"").count(), 1, "one ringed GPU");
        // Balanced elements: every opened text closes.
        assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
        // A compact cluster exports too, with its open node.
        let big =
            fabricscope::Scenario { nodes: 16, channels: Some(1), ..fabricscope::Scenario::default_demo() };
        let sim = fabricscope::simulate(&big.validate().unwrap()).unwrap();
        let svg = crate::render::topology::topology_svg(
            &sim,
            1100.0,
            Some(3),
            SimTime(sim.end().0 / 2),
            crate::i18n::Lang::Zh,
            &crate::state::collectives::Focus::default(),
        );
        assert!(svg.contains("节点 3 · DGX H100"), "the open node's frame");
    }
}
