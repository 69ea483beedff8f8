//! Player setup for play and bench: the player a kind names, with its table or network.

use super::UsageError;
use super::tables::{TableUse, table_for};
use crate::files::best::data_dir;
use crate::files::weights::{
    WeightsFileError, default_path, read_named_weights, read_weights, shipped_network,
};
use crate::learning::ntuple::{Network, Stages, TupleSet, WeightUse};
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::players::{
    AnyPlayer, CROWDED_EMPTY_CELLS, DEFAULT_LEARNED_DEPTH, KEEP_PLAYING_CROWDED_EMPTY_CELLS,
    KEEP_PLAYING_LEARNED_DEPTH, LazyNetwork, LearnedPlayer, MAX_LEARNED_DEPTH, PlayerKind,
    SearchConfig,
};
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

/// When the learned player's network is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Loading {
    /// Before the first move (bench: its report names the network).
    Now,
    /// At the first move or advice asked of it (a game by hand may never ask), its note (a
    /// weight file passed over) given as [`Notes`] says.
    WhenNeeded(Notes),
}

/// Where a note from loading the network goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Notes {
    /// To standard error, at once.
    Stderr,
    /// Kept for the front end to show ([`crate::session::Session::take_note`]): the full
    /// screen would wipe a line on standard error.
    Kept,
}

/// Which boards a player must play.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Boards {
    /// The rules' size only (autoplay, bench): a player that cannot play it is refused.
    Rules,
    /// Any size (a game by hand, which the menu or a board file may start at another size):
    /// the learned player hands sizes other than 4x4 to the hand-tuned search.
    Any,
}

/// What a player is set up from: the arguments that name and tune it, and the games it plays.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlayerSetup<'a> {
    /// The player.
    pub(super) kind: PlayerKind,
    /// `--depth`.
    pub(super) depth: Option<u32>,
    /// `--ms-per-move`.
    pub(super) ms_per_move: Option<u64>,
    /// The rules of its games.
    pub(super) rules: &'a Rules,
    /// `--weights`.
    pub(super) weights: Option<&'a Path>,
    /// The boards it must play.
    pub(super) boards: Boards,
    /// When the learned player's network is read.
    pub(super) loading: Loading,
}

/// power11's strongest player for `rules` on boards of `size`, loaded now: the one the
/// referee's live plays and `power11 grade`'s plays drive a program with.
pub(super) fn strongest(rules: &Rules, size: usize) -> anyhow::Result<AnyPlayer> {
    let setup = PlayerSetup {
        kind: PlayerKind::default_for(&[size], &SearchConfig::default()),
        depth: None,
        ms_per_move: None,
        rules,
        weights: None,
        boards: Boards::Any,
        loading: Loading::Now,
    };
    player_for(&setup).map(|(player, _)| player)
}

/// The player `setup` names for games under its rules, and the network it plays if it is the
/// learned player and the network is read [`Loading::Now`]: the optimal player loads the
/// solved table of these rules from the data directory, or solves them first (with a progress
/// bar); the learned player plays the network of `--weights`, else the data directory's, else
/// the shipped one ([`network_from`]), and plays 4x4 boards only, unless [`Boards::Any`].
pub(super) fn player_for(
    setup: &PlayerSetup<'_>,
) -> anyhow::Result<(AnyPlayer, Option<Arc<Network>>)> {
    let PlayerSetup {
        kind,
        depth,
        ms_per_move,
        rules,
        weights,
        boards,
        loading,
    } = *setup;
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
                "--ms-per-move times the expectimax search; the learned player searches {DEFAULT_LEARNED_DEPTH} moves deep in games that end at their goal ({} on boards with at most {CROWDED_EMPTY_CELLS} empty cells) and {KEEP_PLAYING_LEARNED_DEPTH} in others ({} on at most {KEEP_PLAYING_CROWDED_EMPTY_CELLS}), or --depth 1 to {MAX_LEARNED_DEPTH}",
                DEFAULT_LEARNED_DEPTH + 1,
                KEEP_PLAYING_LEARNED_DEPTH + 1
            ));
        }
        if let Some(d) = depth.filter(|&d| d > MAX_LEARNED_DEPTH) {
            return usage(format!(
                "the learned player searches 1 to {MAX_LEARNED_DEPTH} moves deep, not {d}"
            ));
        }
        let n = rules.size();
        if n != 4 && boards == Boards::Rules {
            return usage(format!(
                "the learned player plays 4x4 boards (classic, Power-11 Hard); these rules are {n}x{n}"
            ));
        }
        let depth = depth.map(|d| d.clamp(1, MAX_LEARNED_DEPTH));
        if let (Loading::WhenNeeded(notes), None) = (loading, weights) {
            let lazy = LazyNetwork::new(move || {
                let (network, note) = network_from(None).unwrap_or_else(|_| (shipped(), None));
                match (notes, note) {
                    (Notes::Stderr, Some(note)) => {
                        super::note(note);
                        (network, None)
                    }
                    (_, note) => (network, note),
                }
            });
            let player = LearnedPlayer::lazy(Arc::new(lazy), depth);
            return Ok((AnyPlayer::Learned(player), None));
        }
        let (network, note) = network_from(weights)?;
        if let Some(note) = note {
            super::note(note);
        }
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
        PlayerKind::Optimal => Some(table_for(rules, None, TableUse::Cache)?.0),
        _ => None,
    };
    Ok((kind.build(search, table.as_ref(), None)?, None))
}

/// The learned player's network: the file `weights` if given (no file, or one that is not a
/// whole network, is a usage error, exit 2), else the data directory's weight file where
/// `power11 train` writes (one that cannot be used is passed over, with a note for the
/// player), else the network shipped in power11.
fn network_from(weights: Option<&Path>) -> anyhow::Result<(Arc<Network>, Option<String>)> {
    if let Some(path) = weights {
        return match read_named_weights(path, WeightUse::Play) {
            Ok(network) => Ok((Arc::new(network), None)),
            Err(WeightsFileError::Missing(_)) => Err(UsageError(format!(
                "{}: no such weight file (make one with `power11 train --minutes 90 --out {}`, or leave out --weights to play the shipped network)",
                crate::files::shown(path),
                crate::files::shown(path)
            ))
            .into()),
            Err(e) => Err(UsageError(e.to_string()).into()),
        };
    }
    if let Some(path) = default_path(data_dir().as_deref()) {
        match read_weights(&path, WeightUse::Play) {
            Ok(network) => return Ok((Arc::new(network), None)),
            Err(WeightsFileError::Missing(_)) => {}
            Err(e) => {
                let note = format!(
                    "{e}; playing the shipped network instead (move that file away to play it without this note)"
                );
                return Ok((shipped(), Some(note)));
            }
        }
    }
    Ok((shipped(), None))
}

/// The shipped network. A test reads it whole; should it ever fail, the program says so and
/// plays a network of zeros rather than stop a game.
fn shipped() -> Arc<Network> {
    match shipped_network(WeightUse::Play) {
        Ok(network) => Arc::new(network),
        Err(e) => {
            super::note(e);
            Arc::new(Network::new(TupleSet::Rows, Stages::single()))
        }
    }
}
