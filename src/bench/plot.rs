//! A bench report as an SVG picture (`bench --plot FILE.svg`): the reach rates with their 95%
//! intervals, and the histogram of final scores.

use super::BenchReport;
use plotters::prelude::*;

/// Score bars in the histogram.
const SCORE_BINS: u64 = 30;

/// The picture of `report`: on the left the share of games that reached each tile (a bar, its
/// 95% interval as a whisker), on the right how many games ended in each band of scores. An SVG
/// document, or the plotting library's error in words.
pub fn bench_chart(report: &BenchReport) -> Result<String, String> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (1000, 450)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let (left, right) = root.split_horizontally(500);
        let title = format!(
            "{} on {}: {} games",
            report.identity.player, report.identity.variant, report.games
        );
        let tiles: Vec<(u64, f64, [f64; 2])> = report
            .reached_counts
            .iter()
            .zip(report.reached_intervals.values())
            .map(|((&tile, &k), &ci)| (tile, k as f64 / report.games.max(1) as f64, ci))
            .collect();
        let mut reach = ChartBuilder::on(&left)
            .caption(
                format!("Reached, with 95% intervals ({title})"),
                ("sans-serif", 16),
            )
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0..tiles.len().max(1), 0.0..100.0)
            .map_err(|e| e.to_string())?;
        let names: Vec<String> = tiles.iter().map(|(t, _, _)| t.to_string()).collect();
        reach
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(tiles.len().max(1))
            .x_label_formatter(&|i| names.get(*i).cloned().unwrap_or_default())
            .x_desc("tile")
            .y_desc("% of games")
            .draw()
            .map_err(|e| e.to_string())?;
        let bar = RGBColor(70, 130, 180);
        reach
            .draw_series(tiles.iter().enumerate().map(|(i, &(_, rate, _))| {
                Rectangle::new([(i, 0.0), (i + 1, 100.0 * rate)], bar.mix(0.6).filled())
            }))
            .map_err(|e| e.to_string())?;
        let whisker = RGBColor(200, 30, 30);
        reach
            .draw_series(tiles.iter().enumerate().map(|(i, &(_, _, [low, high]))| {
                ErrorBar::new_vertical(
                    i,
                    100.0 * low,
                    100.0 * (low + high) / 2.0,
                    100.0 * high,
                    whisker.stroke_width(2),
                    10,
                )
            }))
            .map_err(|e| e.to_string())?;

        let top = u64::try_from(report.max_score).unwrap_or(0).max(1);
        let width = top.div_ceil(SCORE_BINS).max(1);
        let mut bins = vec![0u64; SCORE_BINS as usize];
        for (&score, &n) in &report.score_counts {
            let score = u64::try_from(score).unwrap_or(0);
            let bin = ((score / width) as usize).min(SCORE_BINS as usize - 1);
            bins[bin] += n;
        }
        let tallest = bins.iter().copied().max().unwrap_or(0).max(1);
        let mut scores = ChartBuilder::on(&right)
            .caption("Final scores", ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(50)
            .build_cartesian_2d(0..SCORE_BINS * width, 0..tallest + tallest / 10 + 1)
            .map_err(|e| e.to_string())?;
        scores
            .configure_mesh()
            .disable_x_mesh()
            .x_desc("score")
            .y_desc("games")
            .draw()
            .map_err(|e| e.to_string())?;
        let histogram = RGBColor(60, 160, 90);
        scores
            .draw_series(
                bins.iter()
                    .enumerate()
                    .filter(|(_, n)| **n > 0)
                    .map(|(i, &n)| {
                        let start = i as u64 * width;
                        Rectangle::new([(start, 0), (start + width, n)], histogram.filled())
                    }),
            )
            .map_err(|e| e.to_string())?;
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(svg)
}
