//! The learning curve of a training run as an SVG picture (`train --plot FILE.svg`).

use super::Progress;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

/// One point of the curve: what the run's progress said at some moment.
#[derive(Clone, Debug, PartialEq)]
pub struct CurvePoint {
    /// Moves learned from so far in this run.
    pub moves: u64,
    /// The rolling mean score of the last games.
    pub mean_score: f64,
    /// The rolling share of games that reached each tile the progress line shows, by exponent
    /// ([`Progress::reach_shown`]): the same tiles at every point of a run.
    pub reach: Vec<(u8, f64)>,
}

impl From<&Progress> for CurvePoint {
    fn from(p: &Progress) -> CurvePoint {
        CurvePoint {
            moves: p.moves,
            mean_score: p.recent_score,
            reach: p.reach_shown(),
        }
    }
}

/// The learning curve: the rolling mean score (top) and reach rates (bottom) against millions
/// of moves learned from, each checkpoint (moves at which one was written) a thin grey line. An
/// SVG document, or the plotting library's error in words.
pub fn learning_curve(points: &[CurvePoint], checkpoints: &[u64]) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 700)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (top, bottom) = root.split_vertically(330);
        let millions = |m: u64| m as f64 / 1e6;
        let x_end = points.last().map_or(1.0, |p| millions(p.moves)).max(1e-6);
        let score_end = points.iter().map(|p| p.mean_score).fold(1.0, f64::max) * 1.05;

        let mut scores = ChartBuilder::on(&top)
            .caption(
                "Rolling mean score of the training games",
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_end, 0.0..score_end)
            .map_err(|e| e.to_string())?;
        scores
            .configure_mesh()
            .x_desc("millions of moves learned from")
            .y_desc("mean score")
            .draw()
            .map_err(|e| e.to_string())?;
        draw_checkpoints(&mut scores, checkpoints, 0.0..score_end)?;
        scores
            .draw_series(LineSeries::new(
                points.iter().map(|p| (millions(p.moves), p.mean_score)),
                BLUE.stroke_width(2),
            ))
            .map_err(|e| e.to_string())?
            .label("mean score")
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLUE.stroke_width(2)));

        let mut reach = ChartBuilder::on(&bottom)
            .caption(
                "Share of the training games that reached each tile",
                ("sans-serif", 20),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(70)
            .build_cartesian_2d(0.0..x_end, 0.0..100.0)
            .map_err(|e| e.to_string())?;
        reach
            .configure_mesh()
            .x_desc("millions of moves learned from")
            .y_desc("% of games")
            .draw()
            .map_err(|e| e.to_string())?;
        draw_checkpoints(&mut reach, checkpoints, 0.0..100.0)?;
        let tiles: Vec<u8> = points
            .first()
            .map(|p| p.reach.iter().map(|&(e, _)| e).collect())
            .unwrap_or_default();
        for (k, &exponent) in tiles.iter().enumerate() {
            let color = Palette99::pick(k).to_rgba();
            reach
                .draw_series(LineSeries::new(
                    points.iter().filter_map(|p| {
                        let &(_, part) = p.reach.get(k)?;
                        Some((millions(p.moves), 100.0 * part))
                    }),
                    color.stroke_width(2),
                ))
                .map_err(|e| e.to_string())?
                .label(format!("{}", 1u64 << exponent))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2))
                });
        }
        reach
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .position(SeriesLabelPosition::UpperLeft)
            .draw()
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}

/// A thin grey vertical line at each checkpoint, over `range` of the chart's y axis.
fn draw_checkpoints<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    checkpoints: &[u64],
    range: std::ops::Range<f64>,
) -> Result<(), String> {
    let grey = RGBColor(150, 150, 150);
    for &moves in checkpoints {
        let x = moves as f64 / 1e6;
        chart
            .draw_series(LineSeries::new(
                [(x, range.start), (x, range.end)],
                grey.stroke_width(1),
            ))
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

/// The number of points of each `<polyline>` drawn in `color` (`#RRGGBB`), in order.
#[cfg(test)]
pub(crate) fn polylines(svg: &str, color: &str) -> Vec<usize> {
    svg.split("<polyline")
        .skip(1)
        .filter(|p| p.contains(&format!("stroke=\"{color}\"")))
        .filter_map(|p| p.split("points=\"").nth(1)?.split('"').next())
        .map(|points| points.split_whitespace().count())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::REACH_SHOWN;

    #[test]
    fn the_curve_has_a_score_line_a_line_a_tile_and_a_mark_a_checkpoint() {
        let points: Vec<CurvePoint> = (0..20u64)
            .map(|i| CurvePoint {
                moves: i * 1_000_000,
                mean_score: 1000.0 * i as f64,
                reach: REACH_SHOWN
                    .into_iter()
                    .zip([0.9, 0.5, 0.2, 0.05, 0.0])
                    .collect(),
            })
            .collect();
        let svg = learning_curve(&points, &[5_000_000, 15_000_000]).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
        // The score, in blue: 20 points.
        assert_eq!(polylines(&svg, "#0000FF"), vec![20]);
        // A line of 20 points a tile (and its legend's sample, 2 points).
        for k in 0..REACH_SHOWN.len() {
            let color = Palette99::pick(k).to_rgba();
            let hex = format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2);
            assert_eq!(polylines(&svg, &hex), vec![20, 2], "tile {k}");
        }
        // Each checkpoint, a vertical line in each chart.
        assert_eq!(polylines(&svg, "#969696"), vec![2; 4]);
        for label in [
            "mean score",
            "2048",
            "32768",
            "millions of moves learned from",
        ] {
            assert!(svg.contains(label), "{label}");
        }
    }

    #[test]
    fn a_run_that_ends_at_a_tile_draws_only_the_rates_its_line_shows() {
        let points: Vec<CurvePoint> = (0..10u64)
            .map(|i| CurvePoint {
                moves: i * 1_000_000,
                mean_score: 100.0 * i as f64,
                reach: vec![(6, 0.4)],
            })
            .collect();
        let svg = learning_curve(&points, &[]).unwrap();
        // One line of 10 points, and its legend's sample; no tile above 64.
        let color = Palette99::pick(0).to_rgba();
        let hex = format!("#{:02X}{:02X}{:02X}", color.0, color.1, color.2);
        assert_eq!(polylines(&svg, &hex), vec![10, 2]);
        assert!(svg.contains("\n64\n</text>"), "the tile's label");
        for tile in ["2048", "4096", "32768"] {
            assert!(!svg.contains(tile), "{tile}");
        }
    }

    #[test]
    fn a_point_of_the_curve_holds_the_rates_its_progress_line_shows() {
        let progress = Progress {
            games: 10,
            moves: 5_000_000,
            elapsed: std::time::Duration::from_secs(1),
            recent_score: 300.0,
            recent_reach: [0.0; REACH_SHOWN.len()],
            recent_games: 10,
            rate: 0.1,
            done: 0.5,
            checkpoints: 0,
            end_at: Some(6),
            recent_end_reach: 0.4,
        };
        let point = CurvePoint::from(&progress);
        assert_eq!(point.reach, vec![(6, 0.4)]);
        assert_eq!(point.reach, progress.reach_shown());
        let whole = CurvePoint::from(&Progress {
            end_at: None,
            ..progress
        });
        assert_eq!(whole.reach.len(), REACH_SHOWN.len());
    }
}
