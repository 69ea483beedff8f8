//! A bench report in words: the human-readable summary (`BenchReport::to_text`).

use super::{BenchReport, UNWON_SEEDS_IN_TEXT};
use std::fmt::Write as _;

/// A goal tile in words: its value, or `none`.
pub(super) fn goal_words(goal: Option<u64>) -> String {
    goal.map_or_else(|| "none".to_string(), |g| g.to_string())
}

/// A search depth in words: the number, or `the depth policy`.
pub(super) fn depth_words(depth: Option<u32>) -> String {
    depth.map_or_else(|| "the depth policy".to_string(), |d| d.to_string())
}

/// A 95% interval as percentages, one decimal: `12.3-45.6%`.
fn interval_words([low, high]: [f64; 2]) -> String {
    format!("{:.1}-{:.1}%", 100.0 * low, 100.0 * high)
}

impl BenchReport {
    /// The human-readable summary.
    pub fn to_text(&self) -> String {
        let tiles: Vec<String> = self
            .max_tile_counts
            .iter()
            .map(|(tile, k)| format!("{tile}: {k} ({:.1}%)", self.percent(*k)))
            .collect();
        // `summarise` builds the intervals from the counts: the same tiles, in the same order.
        let reached: Vec<String> = self
            .reached_counts
            .iter()
            .zip(self.reached_intervals.values())
            .map(|((tile, &k), &ci)| {
                format!(
                    "{tile}: {k} ({:.1}%, {})",
                    self.percent(k),
                    interval_words(ci)
                )
            })
            .collect();
        let which = self.ranges_words();
        let wins = match self.win_interval {
            Some(ci) => format!(
                "{} ({:.1}%, 95% interval {})",
                self.wins,
                100.0 * self.win_rate,
                interval_words(ci)
            ),
            None => "- (no goal)".to_string(),
        };
        let depth = match (self.identity.depth, self.identity.time_budget_ms) {
            (Some(d), _) => format!(" at depth {d}"),
            (None, Some(ms)) => format!(" at {ms} ms/move"),
            (None, None) => String::new(),
        };
        let mut text = format!(
            "player {}{depth}, variant {}, {}x{}, seed {}, {} thread(s)\n\
             games: {}{which}  wins: {wins}\n\
             score: mean {:.1}, median {:.1}, max {}\n\
             largest tile: {}\n\
             reached (95% interval): {}\n\
             moves: {} ({} attempt{}) in {:.2} s: {:.0} moves/s, {:.6} ms/move",
            self.identity.player,
            self.identity.variant,
            self.identity.size,
            self.identity.size,
            self.identity.seed,
            self.jobs,
            self.games,
            self.mean_score,
            self.median_score,
            self.max_score,
            tiles.join(", "),
            reached.join(", "),
            self.moves,
            self.attempts,
            if self.attempts == 1 { "" } else { "s" },
            self.seconds,
            self.moves_per_second,
            self.ms_per_move,
        );
        match self.cpu_ms_per_move {
            Some(cpu) => {
                let _ = writeln!(text, " ({cpu:.6} ms/move of CPU time)");
            }
            None => text.push('\n'),
        }
        if let Some(network) = &self.identity.network {
            let _ = writeln!(text, "network: {network}");
        }
        self.write_unwon(&mut text);
        if self.cut_off > 0 {
            let _ = writeln!(text, "cut off by the move limit: {} game(s)", self.cut_off);
        }
        text
    }

    /// `k` games as a percentage of the report's games (0 of none).
    fn percent(&self, k: u64) -> f64 {
        if self.games > 0 {
            100.0 * k as f64 / self.games as f64
        } else {
            0.0
        }
    }

    /// The games a part of a run played, when it is not the whole run from game 0:
    /// ` (games 0..10, 20..30)`, at most four ranges named.
    fn ranges_words(&self) -> String {
        const SHOWN: usize = 4;
        if self.game_ranges == [[0, self.games]] {
            return String::new();
        }
        let mut ranges: Vec<String> = self
            .game_ranges
            .iter()
            .take(SHOWN)
            .map(|[a, b]| format!("{a}..{b}"))
            .collect();
        if self.game_ranges.len() > SHOWN {
            ranges.push(format!("... ({} ranges in all)", self.game_ranges.len()));
        }
        format!(" (games {})", ranges.join(", "))
    }

    /// The `not won:` line with the first seeds to replay, if any game was not won.
    fn write_unwon(&self, text: &mut String) {
        if self.unwon_seeds.is_empty() {
            return;
        }
        let seeds: Vec<String> = self
            .unwon_seeds
            .iter()
            .take(UNWON_SEEDS_IN_TEXT)
            .map(u64::to_string)
            .collect();
        let watch = if self.identity.time_budget_ms.is_some() {
            "a timed search may not replay: watch one with power11 --autoplay"
        } else {
            "watch one: power11 --autoplay"
        };
        let _ = writeln!(
            text,
            "not won: {} game(s), seeds {}{} ({watch} {} --seed S, same flags)",
            self.games - self.wins,
            seeds.join(", "),
            if self.games - self.wins > seeds.len() as u64 {
                ", ..."
            } else {
                ""
            },
            self.identity.player,
        );
    }
}
