//! What a training run trains: the network resumed from its file (or the shipped network,
//! with no file yet), split into more stages, or new, and its learning-rate schedule, with the
//! coherence sums read back. Everything a run's arguments could get wrong is refused here,
//! before anything is split or written, in words the command line shows as they are (exit 2).

use crate::files::shown;
use crate::files::weights::{
    CoherenceFileError, WeightsFileError, coherence_path, read_coherence, read_weights,
    shipped_network,
};
use crate::learning::ntuple::{MAX_STAGES, Network, NetworkError, Stages, TupleSet, WeightUse};
use crate::model::named::Named;
use crate::train::{COHERENCE_RATE, DEFAULT_STAGES, MIN_RATE, Schedule, rate_words};
use std::path::PathBuf;
use thiserror::Error;

/// What a run's arguments say of its network.
#[derive(Clone, Debug)]
pub struct NetworkSettings {
    /// The weight file the run writes (and resumes from).
    pub out: PathBuf,
    /// Go on from the network in `out` (or the shipped one, if there is none yet).
    pub resume: bool,
    /// The tuple set asked for (a new network's, or the one a resumed network must have).
    pub tuples: Option<TupleSet>,
    /// The stage splits asked for (a new network's, or more splits for a resumed one).
    pub stages: Option<Stages>,
    /// Late-stage training from this tile's exponent (`--start-at`).
    pub start_at: Option<u8>,
    /// Early-stage training to this tile's exponent (`--end-at`).
    pub end_at: Option<u8>,
    /// A new network's starting value (`--optimistic`).
    pub optimistic: f32,
    /// Temporal coherence (off: `--no-coherence`).
    pub coherence: bool,
    /// The learning rate asked for (`--rate`).
    pub rate: Option<f32>,
}

/// A run's network, ready to train.
pub struct Prepared {
    /// The network, split as asked, tracking its coherence sums if the run does.
    pub network: Network,
    /// The learning-rate schedule.
    pub schedule: Schedule,
    /// What the user should know before the run (what it goes on from, whether the sums go
    /// on, a split), in order.
    pub notes: Vec<String>,
}

/// Why a run's network could not be prepared.
#[derive(Debug, Error)]
pub enum PrepareError {
    /// The arguments ask for something this network cannot be (the whole message).
    #[error("{0}")]
    Refused(String),
}

/// The network a run with `settings` trains: resumed (checked against every argument before
/// anything is split) or new, its schedule (its coherence sums read back on a resume, which
/// goes on at the rate they were gathered at unless `rate` says otherwise), then split into
/// the stages asked for (its sums go with the weights they were gathered on).
pub fn prepare(settings: &NetworkSettings) -> Result<Prepared, PrepareError> {
    let mut notes = Vec::new();
    let (mut network, split_to) = if settings.resume {
        resumed_network(settings, &mut notes)?
    } else {
        (new_network(settings), None)
    };
    let schedule = schedule_for(settings, &mut network, &mut notes);
    let network = match split_to {
        Some(stages) => split_network(network, &stages, &mut notes)?,
        None => network,
    };
    Ok(Prepared {
        network,
        schedule,
        notes,
    })
}

/// The network in `out` that `--resume` trains on (the shipped network if there is no file
/// yet), and the stages `--stages` splits it into, if it asks for more splits than it has;
/// refused (exit 2), before anything is split or written, if it is not a network the
/// arguments can train (another tuple set, splits moved or removed, a `--start-at` or
/// `--end-at` tile that does not start a stage).
fn resumed_network(
    settings: &NetworkSettings,
    notes: &mut Vec<String>,
) -> Result<(Network, Option<Stages>), PrepareError> {
    let out = &settings.out;
    // What the refusals below name: the file, or the shipped network when there is none.
    let mut holder = shown(out);
    // Said once every check below has passed: a run refused does not go on from anything.
    let mut going_on = None;
    let network = match read_weights(out, WeightUse::Training) {
        Ok(network) => network,
        // Nothing trained here yet: go on from the network the player plays without one.
        Err(WeightsFileError::Missing(_)) => {
            let network = shipped_network(WeightUse::Training)
                .map_err(|e| PrepareError::Refused(e.to_string()))?;
            going_on = Some(format!(
                "{} does not exist yet: going on from the network shipped in power11 ({}), written to it at the first checkpoint",
                shown(out),
                network.description()
            ));
            holder =
                format!("the network shipped in power11 (resumed as {holder} does not exist yet)");
            network
        }
        Err(e) => return Err(PrepareError::Refused(format!("--resume: {e}"))),
    };
    if let Some(set) = settings.tuples.filter(|&set| set != network.tuple_set()) {
        let message = format!(
            "{holder} holds a network of tuple set {}, not {}",
            network.tuple_set().name(),
            set.name()
        );
        return Err(PrepareError::Refused(message));
    }
    let split_to = settings.stages.clone().filter(|s| s != network.stages());
    if let Some(stages) = &split_to
        && !stages.keeps_the_splits_of(network.stages())
    {
        let refused = NetworkError::NotASplit {
            from: network.stages().clone(),
            to: stages.clone(),
        };
        return Err(PrepareError::Refused(format!(
            "--stages: {holder}: {refused}"
        )));
    }
    // The stages the run trains: the file's, or those it is split into.
    let stages = split_to.as_ref().unwrap_or(network.stages());
    if let Some(exponent) = settings
        .start_at
        .filter(|e| !stages.thresholds().contains(e))
    {
        // Its games would train the stage they start in on late boards only, and that
        // stage also values the boards before the tile.
        let tile = 1u64 << exponent;
        let message = format!(
            "--start-at {tile}: {holder} has {stages}, and late-stage training must \
             start at one of its splits (a stage that starts at {tile})"
        );
        return Err(PrepareError::Refused(message));
    }
    check_end_at(settings, &holder, stages, &network)?;
    notes.extend(going_on);
    Ok((network, split_to))
}

/// Refuses (exit 2) an `--end-at` tile that does not start one of `stages` (the run's), that
/// is not above `--start-at`, or whose stage has no weights of its own in `network` (the
/// board a game ends on would be valued by the very weights that learn it).
fn check_end_at(
    settings: &NetworkSettings,
    holder: &str,
    stages: &Stages,
    network: &Network,
) -> Result<(), PrepareError> {
    let Some(end) = settings.end_at else {
        return Ok(());
    };
    let tile = 1u64 << end;
    let tiles = |exponents: &[u8]| -> String {
        let tiles: Vec<String> = exponents.iter().map(|&e| (1u64 << e).to_string()).collect();
        tiles.join(",")
    };
    if !network.stage_learned(end) {
        let message = format!(
            "--end-at {tile}: {holder} has no weights of its own from {tile} on (no training \
             game has made a {tile}), and the boards its games end on would be valued by the \
             weights they train: train it without --end-at first"
        );
        return Err(PrepareError::Refused(message));
    }
    if !stages.thresholds().contains(&end) {
        // The file's splits and the tile: what a --stages that adds it names.
        let mut wanted = network.stages().thresholds().to_vec();
        wanted.push(end);
        wanted.sort_unstable();
        let hint = if Stages::split_at(&wanted).is_ok() {
            format!("add it with --stages {}", tiles(&wanted))
        } else {
            format!(
                "it cannot be added, as a network has at most {} splits",
                MAX_STAGES - 1
            )
        };
        let message = format!(
            "--end-at {tile}: {holder} has {stages}, and early-stage training must end at one of \
             its splits (a stage that starts at {tile}): {hint}"
        );
        return Err(PrepareError::Refused(message));
    }
    if let Some(start) = settings.start_at.filter(|&start| start >= end) {
        let message = format!(
            "--end-at {tile} must be above --start-at {}: its games would end before they start",
            1u64 << start
        );
        return Err(PrepareError::Refused(message));
    }
    Ok(())
}

/// `network` split into `stages` ([`Network::split`]), with a note: the file holds the new
/// stages from the first checkpoint on.
fn split_network(
    network: Network,
    stages: &Stages,
    notes: &mut Vec<String>,
) -> Result<Network, PrepareError> {
    let from = network.stages().clone();
    let split = network
        .split(stages.clone())
        .map_err(|e| PrepareError::Refused(format!("--stages: {e}")))?;
    notes.push(format!(
        "splitting the network ({from}) into {stages}: each new stage starts as a copy of the one it was part of, and the file holds the new stages from the first checkpoint on"
    ));
    Ok(split)
}

/// A new network: the tuple set and stages given (or the defaults), starting at `--optimistic`.
fn new_network(settings: &NetworkSettings) -> Network {
    let stages = settings
        .stages
        .clone()
        .unwrap_or_else(|| Stages::split_at(DEFAULT_STAGES).expect("the default stages are valid"));
    Network::with_initial_value(
        settings.tuples.unwrap_or(TupleSet::Sixes),
        stages,
        settings.optimistic,
    )
}

/// The default rate of a resumed network whose coherence sums start anew (the shipped network,
/// or sums lost): its steps are whole ones until errors cancel, and at [`COHERENCE_RATE`] they
/// undo what it learned (measurements/learned.md, "The shipped network").
const FRESH_SUMS_RATE: f32 = 0.01;

/// The learning-rate schedule; under temporal coherence, the network's sums are tracked, and on
/// `--resume` read back from beside `out` (a note says whether they go on).
fn schedule_for(
    settings: &NetworkSettings,
    network: &mut Network,
    notes: &mut Vec<String>,
) -> Schedule {
    let out = &settings.out;
    if !settings.coherence {
        return Schedule::falling(settings.rate.unwrap_or(Schedule::default().rate));
    }
    network.track_coherence();
    let mut rate = settings.rate.unwrap_or(COHERENCE_RATE);
    if settings.resume {
        // A note on stderr: whether the sums go on, or start anew. Anew, every weight's
        // next step is a whole one: at the default rate that undoes a trained network
        // (measured: the shipped network's rolling mean score fell from 165,000 to 28,000
        // in 3000 games), so the default rate is then a low one.
        let note = match read_coherence(out, network) {
            Ok(gathered_at) => {
                let from = coherence_path(out);
                // Sums gathered at a low rate are young sums of a trained network (the run
                // started them anew): at the default rate their whole steps would undo it.
                match gathered_at.filter(|_| settings.rate.is_none()) {
                    Some(gathered) => {
                        rate = gathered.clamp(MIN_RATE, COHERENCE_RATE);
                        format!(
                            "the coherence sums go on from {}, at rate {}, the rate they were gathered at",
                            shown(&from),
                            rate_words(rate)
                        )
                    }
                    None => format!("the coherence sums go on from {}", shown(&from)),
                }
            }
            Err(e) => {
                if settings.rate.is_none() {
                    rate = FRESH_SUMS_RATE;
                }
                let fate = match e {
                    CoherenceFileError::Missing(_) => "written",
                    CoherenceFileError::Unusable { .. } => "replaced",
                };
                format!(
                    "{e}: the coherence sums start anew, at rate {rate} (the file is {fate} \
                     at the first checkpoint)"
                )
            }
        };
        notes.push(note);
    }
    Schedule::constant(rate)
}
