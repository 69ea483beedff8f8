//! Weight files of learned networks: `power11 train` writes them, `--player learned` reads them.
//! The default one lives in the data directory; files are written atomically (a checkpoint
//! killed mid-write leaves the previous one whole) and read only when whole and matching (see
//! [`Network::from_bytes`]).

use crate::files::bounded::{BoundedReadError, Expect, read_regular, read_stream};
use crate::files::open::{OpenError, open_regular};
use crate::files::save::{FileError, link_target, prepare_atomic, write_atomic};
use crate::learning::ntuple::{
    CoherenceError, DEFAULT_LEVEL, Network, NetworkError, WEIGHTS_MAGIC, WeightUse,
};
use std::io;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The default weight file's name in the data directory.
pub const DEFAULT_WEIGHTS: &str = "weights/ntuple-4x4.p11w";

/// The network that ships with power11 (`networks/learned-4x4.p11w` in the repository), built
/// into the program so that it travels with the binary wherever it is installed or run.
pub const SHIPPED_WEIGHTS: &[u8] = include_bytes!("../../networks/learned-4x4.p11w");

/// The shipped network ([`SHIPPED_WEIGHTS`]), held for `weight_use`. A test reads it whole, so
/// it cannot fail in a built program but by a bug: the error names it.
pub fn shipped_network(weight_use: WeightUse) -> Result<Network, WeightsFileError> {
    Network::from_bytes_for(SHIPPED_WEIGHTS, weight_use).map_err(|e| WeightsFileError::Unusable {
        path: PathBuf::from("(the shipped network)"),
        problem: e.to_string(),
    })
}

/// The largest weight file read: four stages of the largest tuple set are 512 MiB.
const MAX_WEIGHT_BYTES: u64 = 1 << 30;

/// Why a weight file could not be used.
#[derive(Debug, Error)]
pub enum WeightsFileError {
    /// There is no file.
    #[error("{}: no such weight file", crate::files::shown(&.0))]
    Missing(PathBuf),
    /// The file is a weight file cut short or changed since it was written (its checksum does
    /// not match): whatever it held is lost, and it is never replaced without the user's word.
    #[error("{}: {problem}", crate::files::shown(.path))]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The file is a weight file of another format version (older or newer): a network someone
    /// trained that this power11 cannot read, so it is never replaced, even by `--restart`.
    #[error("{}: {problem}", crate::files::shown(.path))]
    OtherVersion {
        /// The file.
        path: PathBuf,
        /// Which version it is.
        problem: String,
    },
    /// The file is there but is not a usable network.
    #[error("{}: {problem}", crate::files::shown(.path))]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
}

/// The default weight file, if there is a data directory.
pub fn default_path(data_dir: Option<&Path>) -> Option<PathBuf> {
    data_dir.map(|dir| dir.join(DEFAULT_WEIGHTS))
}

/// The network in `path`, a regular file, held for `weight_use` (to play with, a compressed
/// file's f16 values in half the memory; to train on, `f32`).
pub fn read_weights(path: &Path, weight_use: WeightUse) -> Result<Network, WeightsFileError> {
    read_weights_by(path, weight_use, read_regular)
}

/// [`read_weights`] of a file the user named (`--weights`), which may also be a stream: a
/// pipe, `<(zstdcat net.p11w.zst)`. Reading stops at a first block that is no weight file.
pub fn read_named_weights(path: &Path, weight_use: WeightUse) -> Result<Network, WeightsFileError> {
    read_weights_by(path, weight_use, read_stream)
}

fn read_weights_by(
    path: &Path,
    weight_use: WeightUse,
    read: fn(&Path, u64, Expect) -> Result<Vec<u8>, BoundedReadError>,
) -> Result<Network, WeightsFileError> {
    let fail = |problem: String| WeightsFileError::Unusable {
        path: path.to_path_buf(),
        problem,
    };
    let bytes =
        read(path, MAX_WEIGHT_BYTES, Expect::Starting(WEIGHTS_MAGIC)).map_err(|e| match e {
            BoundedReadError::Io(e) if e.kind() == io::ErrorKind::NotFound => {
                WeightsFileError::Missing(path.to_path_buf())
            }
            BoundedReadError::Io(e) => fail(super::system_words(&e)),
            BoundedReadError::NotRegular(_) => fail("not a file".to_string()),
            BoundedReadError::TooLarge(_) => fail("too large to be a weight file".to_string()),
        })?;
    Network::from_bytes_for(&bytes, weight_use).map_err(|e| match e {
        NetworkError::Checksum => WeightsFileError::Damaged {
            path: path.to_path_buf(),
            problem: e.to_string(),
        },
        NetworkError::Version(_) => WeightsFileError::OtherVersion {
            path: path.to_path_buf(),
            problem: e.to_string(),
        },
        _ => fail(e.to_string()),
    })
}

/// Writes `network` to `path` atomically, making its directory if needed; then, if training
/// tracks its temporal coherence, its sums to [`coherence_path`]`(path)`, atomically too, with
/// the checksum of the weight file just written (a run killed between the two leaves sums that
/// name the previous weights, which [`read_coherence`] refuses) and `rate`, the rate the run
/// learns at, which a resumed run goes on at (`train` gives the rate of its last progress
/// report: under temporal coherence its schedule is constant).
pub fn write_weights(path: &Path, network: &Network, rate: f32) -> Result<(), FileError> {
    crate::files::atomic::make_directory_of(path)?;
    // Streamed: a checkpoint does not hold the file in memory beside the network it trains.
    let mut checksum = 0;
    let weights = prepare_atomic(path, |out| {
        checksum = network.write_weights_to(DEFAULT_LEVEL, out)?;
        Ok(())
    })?;
    // Both files are written before either replaces its old one: a full disk or a kill while
    // the sums are written leaves the last checkpoint's pair, not new weights beside old sums.
    if network.tracks_coherence() {
        let sums = prepare_atomic(&coherence_path(path), |out| {
            network.write_coherence(checksum, rate, out)
        })?;
        weights.commit()?;
        sums.commit()
    } else {
        weights.commit()
    }
}

/// Writes `network` alone (no coherence sums) to `path` atomically, compressed at zstd
/// `level`, and returns the file's size.
pub fn write_network_at(path: &Path, network: &Network, level: i32) -> Result<usize, FileError> {
    let bytes = network.to_bytes_at(level);
    write_atomic(path, &bytes)?;
    Ok(bytes.len())
}

/// Where the coherence sums of the network in `weights` are kept while it trains: beside the
/// file (the one a link names), its name and `.coherence`. Playing never reads it.
pub fn coherence_path(weights: &Path) -> PathBuf {
    let target = link_target(weights);
    let mut name = target.file_name().unwrap_or_default().to_os_string();
    name.push(".coherence");
    target.with_file_name(name)
}

/// Why a network's coherence sums could not be read back.
#[derive(Debug, Error)]
pub enum CoherenceFileError {
    /// There is no file (the network was trained without coherence, or before it was kept).
    #[error("{} is not there", crate::files::shown(&.0))]
    Missing(PathBuf),
    /// The file is there but not the sums of these weights.
    #[error("{}: {source}", crate::files::shown(.path))]
    Unusable {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: CoherenceError,
    },
}

/// Reads the coherence sums kept beside `weights` into `network` (read from that file, and
/// tracking coherence), and returns the rate they were gathered at (`None` from a file of
/// power11 0.3.0 or before, which did not keep it). On any error the sums stay zero and the
/// file is left as it is: training then starts the sums anew and replaces the file at its
/// first checkpoint.
pub fn read_coherence(
    weights: &Path,
    network: &mut Network,
) -> Result<Option<f32>, CoherenceFileError> {
    let path = coherence_path(weights);
    let unusable = |source| CoherenceFileError::Unusable {
        path: path.clone(),
        source,
    };
    let file = match open_regular(&path) {
        Ok((file, _)) => file,
        Err(OpenError::Io(e)) if e.kind() == io::ErrorKind::NotFound => {
            return Err(CoherenceFileError::Missing(path));
        }
        Err(e) => return Err(unusable(e.into_io().into())),
    };
    let Some(checksum) = network.file_checksum() else {
        return Err(unusable(CoherenceError::NotFromFile));
    };
    let mut input = io::BufReader::with_capacity(1 << 20, file);
    network
        .read_coherence(checksum, &mut input)
        .map_err(unusable)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_network_is_whole_and_plays_alike_however_it_is_held() {
        let play = shipped_network(WeightUse::Play).unwrap();
        assert!(play.is_frozen());
        let training = shipped_network(WeightUse::Training).unwrap();
        assert!(!training.is_frozen());
        // Read to play, it holds its first stage only, and a board of a later stage expands
        // it (here the 16384 stage first, which needs the 2048 stage below it).
        let stages = play.stages_trained();
        assert!(stages >= 2, "{stages}");
        assert_eq!(play.stages_in_memory(), 1);
        let (open, late) = (0x1100_0000_0000_0012_u64, 0x1E00_0000_0000_0012_u64);
        assert_eq!(play.value(open).to_bits(), training.value(open).to_bits());
        assert_eq!(play.stages_in_memory(), 1);
        assert_eq!(play.value(late).to_bits(), training.value(late).to_bits());
        assert_eq!(play.stages_in_memory(), stages);
        assert!(play.nonzero_weights() > 0);
        assert_eq!(play.nonzero_weights(), training.nonzero_weights());
        // Boards of every stage: tiles up to 2^15 in random cells.
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        for _ in 0..20_000 {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let board = state ^ (state >> 29);
            assert_eq!(
                play.value(board).to_bits(),
                training.value(board).to_bits(),
                "board {board:016x}"
            );
        }
    }
}
