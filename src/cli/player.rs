//! Player setup for play and bench: the player a kind names, with its table or network.

use super::UsageError;
use super::solve::table_for;
use crate::files::best::data_dir;
use crate::files::weights::{WeightsFileError, default_path, read_weights};
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::players::{
    AnyPlayer, CROWDED_EMPTY_CELLS, DEFAULT_LEARNED_DEPTH, KEEP_PLAYING_LEARNED_DEPTH,
    MAX_LEARNED_DEPTH, Network, PlayerKind, SearchConfig,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// The player `kind` for games under `rules`, and the network it plays if it is the learned
/// player: the optimal player loads the solved table of these rules from the data directory,
/// or solves them first (with a progress bar); the learned player loads its weights (from
/// `weights`, else the data directory) and plays 4x4 boards only, unless `any_size` (a game by
/// hand, where other sizes get the hand-tuned search).
pub(super) fn player_for(
    kind: PlayerKind,
    depth: Option<u32>,
    ms_per_move: Option<u64>,
    rules: &Rules,
    weights: Option<&Path>,
    any_size: bool,
) -> anyhow::Result<(AnyPlayer, Option<Arc<Network>>)> {
    let usage = |message: String| Err(UsageError(message).into());
    if kind != PlayerKind::Learned && weights.is_some() {
        return usage(format!(
            "--weights is the learned player's network; the {} player has none",
            kind.name()
        ));
    }
    if kind == PlayerKind::Learned {
        if ms_per_move.is_some() {
            return usage(format!(
                "--ms-per-move times the expectimax search; the learned player searches {DEFAULT_LEARNED_DEPTH} moves deep in games that end at their goal and {KEEP_PLAYING_LEARNED_DEPTH} in others (one more on boards with at most {CROWDED_EMPTY_CELLS} empty cells), or --depth 1 to {MAX_LEARNED_DEPTH}"
            ));
        }
        if let Some(d) = depth.filter(|&d| d > MAX_LEARNED_DEPTH) {
            return usage(format!(
                "the learned player searches 1 to {MAX_LEARNED_DEPTH} moves deep, not {d}"
            ));
        }
        let n = rules.size();
        if n != 4 && !any_size {
            return usage(format!(
                "the learned player plays 4x4 boards (classic, Power-11 Hard); these rules are {n}x{n}"
            ));
        }
        let network = load_network(weights)?;
        let search = SearchConfig {
            depth,
            ..Default::default()
        };
        let player = kind.build(search, None, Some(&network))?;
        return Ok((player, Some(network)));
    }
    if kind != PlayerKind::Expectimax && (depth.is_some() || ms_per_move.is_some()) {
        let message = format!(
            "--depth and --ms-per-move tune the expectimax player's search (--depth the learned player's too); the {} player does not search",
            kind.name()
        );
        return Err(UsageError(message).into());
    }
    let search = SearchConfig {
        depth,
        time_budget: ms_per_move.map(Duration::from_millis),
        ..Default::default()
    };
    let table = match kind {
        PlayerKind::Optimal => Some(table_for(rules, None)?.0),
        _ => None,
    };
    Ok((kind.build(search, table.as_ref(), None)?, None))
}

/// The learned player's network from `weights`, else from the data directory's weight file.
/// No file, or one that is not a whole network, is a usage error (exit 2) saying what to do.
fn load_network(weights: Option<&Path>) -> anyhow::Result<Arc<Network>> {
    let path = match weights {
        Some(path) => path.to_path_buf(),
        None => default_path(data_dir().as_deref()).ok_or_else(|| {
            UsageError(
                "no data directory to find the learned player's weights in (set POWER11_DATA_DIR or pass --weights)"
                    .to_string(),
            )
        })?,
    };
    match read_weights(&path) {
        Ok(network) => Ok(Arc::new(network)),
        Err(WeightsFileError::Missing(_)) => {
            let out = if weights.is_some() {
                format!(" --out {}", path.display())
            } else {
                String::new()
            };
            Err(UsageError(format!(
                "the learned player has no trained network ({} does not exist): make one with \
                 `power11 train --minutes 90{out}` (it plays well after about 90 minutes on 2 \
                 cores; `--minutes 5` makes a fair one)",
                path.display()
            ))
            .into())
        }
        Err(e) => Err(UsageError(e.to_string()).into()),
    }
}
