//! Charts drawn from the core's numbers, generic over the plotters backend.
//!
//! The page draws them on a `<canvas>` (plotters-canvas), tests and the CLI into SVG. Nothing
//! here computes a figure: every point comes from the core.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One curve: (message size [B], busbw [GB/s]) points, in the theme's colour `colour` (an
/// index into `Theme::series`: a curve keeps its colour whichever others are drawn beside it).
#[derive(Clone, Debug, PartialEq)]
pub struct BusbwSeries {
    pub label: String,
    pub points: Vec<(u64, f64)>,
    pub colour: usize,
}

/// Colours of a chart, so it matches the page's light or dark theme.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Theme {
    pub background: RGBColor,
    pub text: RGBColor,
    pub grid: RGBColor,
    pub series: [RGBColor; 4],
}

pub const LIGHT: Theme = Theme {
    background: RGBColor(255, 255, 255),
    text: RGBColor(40, 44, 52),
    grid: RGBColor(225, 228, 232),
    series: [RGBColor(0, 114, 178), RGBColor(213, 94, 0), RGBColor(0, 158, 115), RGBColor(204, 121, 167)],
};

pub const DARK: Theme = Theme {
    background: RGBColor(24, 27, 33),
    text: RGBColor(220, 224, 230),
    grid: RGBColor(52, 57, 66),
    series: [RGBColor(86, 180, 233), RGBColor(230, 159, 0), RGBColor(0, 200, 150), RGBColor(240, 150, 200)],
};

/// Words on the chart, in the page's language.
#[derive(Clone, Debug, PartialEq)]
pub struct Labels {
    pub caption: String,
    pub x: String,
    pub y: String,
}

/// busbw against message size on a log axis, like the curve nccl-tests users plot, with the
/// current message size marked.
/// A labelled vertical line at a message size (the current size, a crossover).
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub size: u64,
    pub label: String,
}

/// A busbw tick on an axis up to `top`: with as many decimals as the axis needs to tell its
/// ticks apart (a small cluster's latency-bound sizes reach 1-2 GB/s).
fn busbw_label(busbw: f64, top: f64) -> String {
    let decimals = if top >= 20.0 {
        0
    } else if top >= 2.0 {
        1
    } else {
        2
    };
    format!("{busbw:.decimals$}")
}

pub fn draw_busbw_curve<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    series: &[BusbwSeries],
    markers: &[Marker],
    labels: &Labels,
    theme: &Theme,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    root.fill(&theme.background)?;
    let min_size = series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).min().unwrap_or(1).max(1);
    let max_size =
        series.iter().flat_map(|s| s.points.iter().map(|p| p.0)).max().unwrap_or(2).max(min_size + 1);
    let max_busbw = series.iter().flat_map(|s| s.points.iter().map(|p| p.1)).fold(0.0f64, f64::max);
    let y_top = nice_ceiling(max_busbw * 1.08);

    let text = |size| ("sans-serif", size).into_font().color(&theme.text);
    let mut chart = ChartBuilder::on(root)
        .caption(&labels.caption, text(caption_px(root, &labels.caption)))
        .margin(10)
        .x_label_area_size(40)
        .y_label_area_size(52)
        .build_cartesian_2d(
            (min_size..max_size).log_scale().with_key_points(size_ticks(min_size, max_size)),
            0f64..y_top,
        )?;
    chart
        .configure_mesh()
        .light_line_style(theme.grid)
        .bold_line_style(theme.grid)
        .axis_style(theme.text)
        .label_style(text(12))
        .x_desc(&labels.x)
        .y_desc(&labels.y)
        .x_label_formatter(&|size| short_size(*size))
        .y_label_formatter(&|busbw| busbw_label(*busbw, y_top))
        .draw()?;

    for (i, marker) in markers.iter().enumerate() {
        let colour = theme.text.mix(0.4);
        chart.draw_series(LineSeries::new(
            [(marker.size, 0.0), (marker.size, y_top)],
            colour.stroke_width(1),
        ))?;
        // Labels stack from the top so two markers never overprint.
        let y = y_top * (0.97 - 0.08 * i as f64);
        // A marker right of the middle labels leftwards, so its text stays on the chart.
        let right_half = (marker.size as f64).ln() > ((min_size as f64).ln() + (max_size as f64).ln()) / 2.0;
        let anchor = if right_half { HPos::Right } else { HPos::Left };
        let style = text(11).pos(Pos::new(anchor, VPos::Top));
        chart.draw_series([Text::new(marker.label.clone(), (marker.size, y), style)])?;
    }
    for s in series {
        let color = theme.series[s.colour % theme.series.len()];
        chart
            .draw_series(LineSeries::new(s.points.iter().copied(), color.stroke_width(2)))?
            .label(&s.label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart.draw_series(s.points.iter().map(|&(x, y)| Circle::new((x, y), 2, color.filled())))?;
    }
    if series.len() > 1 {
        chart
            .configure_series_labels()
            .background_style(theme.background.mix(0.8))
            .border_style(theme.grid)
            .label_font(text(12))
            // Lower right: under the curves, which rise to the right, and clear of the
            // markers' labels, which stack from the top.
            .position(SeriesLabelPosition::LowerRight)
            .draw()?;
    }
    root.present()
}

/// The caption's font size [px]: 16, or as much smaller (down to 10) as it takes to fit the
/// chart's width inside its margins (a phone's 390 px page).
fn caption_px<DB: DrawingBackend>(root: &DrawingArea<DB, Shift>, caption: &str) -> u32 {
    let room = root.dim_in_pixel().0.saturating_sub(24);
    (10..=16)
        .rev()
        .find(|&px| {
            root.estimate_text_size(caption, &TextStyle::from(("sans-serif", px)))
                .map_or(true, |(w, _)| w <= room)
        })
        .unwrap_or(10)
}

/// "1K", "4M", "1G": sizes on the axis, in nccl-tests' binary units.
pub fn short_size(bytes: u64) -> String {
    const UNITS: [(u64, &str); 4] = [(1 << 40, "T"), (1 << 30, "G"), (1 << 20, "M"), (1 << 10, "K")];
    for (scale, unit) in UNITS {
        if bytes >= scale {
            let value = bytes as f64 / scale as f64;
            return if value.fract() == 0.0 {
                format!("{value:.0}{unit}")
            } else {
                format!("{value:.1}{unit}")
            };
        }
    }
    format!("{bytes}")
}

/// Powers of two between `min` and `max`, spaced so the axis gets at most 8 labels.
fn size_ticks(min: u64, max: u64) -> Vec<u64> {
    let (lo, hi) = (63 - min.leading_zeros(), 63 - max.leading_zeros());
    let stride = ((hi - lo) / 7).max(1);
    (lo..=hi).filter(|exp| (exp - lo) % stride == 0).map(|exp| 1u64 << exp).filter(|&v| v >= min).collect()
}

/// The next "round" number at or above `value` (1, 2, 5 × 10^k), so the axis ends on a label.
fn nice_ceiling(value: f64) -> f64 {
    if value <= 0.0 {
        return 1.0;
    }
    let magnitude = 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().map(|m| m * magnitude).find(|&v| v >= value).unwrap_or(10.0 * magnitude)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_axes_keep_their_ticks_apart() {
        // Ticks every 0.2 GB/s on a 2 GB/s axis read 0.2, 0.4, …, not 0, 0, 1.
        assert_eq!(busbw_label(0.2, 2.0), "0.2");
        assert_eq!(busbw_label(0.05, 0.5), "0.05");
        assert_eq!(busbw_label(0.4, 5.0), "0.4");
        assert_eq!(busbw_label(400.0, 500.0), "400");
    }

    #[test]
    fn draws_to_svg() {
        let series = vec![BusbwSeries {
            label: "ring".into(),
            points: vec![(1024, 1.5), (1 << 20, 120.0), (1 << 30, 360.0)],
            colour: 0,
        }];
        let labels = Labels { caption: "busbw".into(), x: "size".into(), y: "GB/s".into() };
        let mut svg = String::new();
        {
            let root = SVGBackend::with_string(&mut svg, (640, 360)).into_drawing_area();
            let markers = [Marker { size: 1 << 28, label: "256M".into() }];
            draw_busbw_curve(&root, &series, &markers, &labels, &LIGHT).unwrap();
        }
        assert!(svg.contains("<svg"));
        assert!(svg.contains("polyline"), "the curve is drawn");
        assert!(svg.contains("1G"), "x labels use binary sizes");
    }

    /// A long caption keeps 16 px where it fits and shrinks where the chart is narrow.
    #[test]
    fn a_long_caption_shrinks_to_fit_a_narrow_chart() {
        let caption = "AllReduce busbw vs message size on this cluster";
        let px = |width: u32| {
            let mut svg = String::new();
            let root = SVGBackend::with_string(&mut svg, (width, 300)).into_drawing_area();
            let px = caption_px(&root, caption);
            let (w, _) = root.estimate_text_size(caption, &TextStyle::from(("sans-serif", px))).unwrap();
            (px, w)
        };
        assert_eq!(px(640).0, 16);
        let (narrow, w) = px(340);
        assert!(narrow < 16 && w <= 340 - 24, "{narrow} px, {w} px wide");
    }

    #[test]
    fn axis_helpers() {
        assert_eq!(short_size(1536), "1.5K");
        assert_eq!(short_size(256 << 20), "256M");
        assert_eq!(short_size(8), "8");
        assert_eq!(nice_ceiling(370.8), 500.0);
        assert_eq!(nice_ceiling(0.0), 1.0);
        assert_eq!(nice_ceiling(19.0), 20.0);
    }
}
