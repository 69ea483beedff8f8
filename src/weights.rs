//! Weight files of learned networks: `power11 train` writes them, `--player learned` reads them.
//! The default one lives in the data directory; files are written atomically (a checkpoint
//! killed mid-write leaves the previous one whole) and read only when whole and matching (see
//! [`Network::from_bytes`]).

use crate::ai::{Network, NetworkError};
use crate::save::{FileError, write_atomic};
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The default weight file's name in the data directory.
pub const DEFAULT_WEIGHTS: &str = "weights/ntuple-4x4.p11w";

/// The largest weight file read: four stages of the largest tuple set are 512 MiB.
const MAX_WEIGHT_BYTES: u64 = 1 << 30;

/// Why a weight file could not be used.
#[derive(Debug, Error)]
pub enum WeightsFileError {
    /// There is no file.
    #[error("{}: no such weight file", .0.display())]
    Missing(PathBuf),
    /// The file is a weight file cut short or changed since it was written (its checksum does
    /// not match): whatever it held is lost, and it is never replaced without the user's word.
    #[error("{}: {problem}", .path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// The file is a weight file of another format version (older or newer): a network someone
    /// trained that this power11 cannot read, so it is never replaced, even by `--restart`.
    #[error("{}: {problem}", .path.display())]
    OtherVersion {
        /// The file.
        path: PathBuf,
        /// Which version it is.
        problem: String,
    },
    /// The file is there but is not a usable network.
    #[error("{}: {problem}", .path.display())]
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

/// The network in `path`.
pub fn read_weights(path: &Path) -> Result<Network, WeightsFileError> {
    let fail = |problem: String| WeightsFileError::Unusable {
        path: path.to_path_buf(),
        problem,
    };
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            return Err(WeightsFileError::Missing(path.to_path_buf()));
        }
        Err(e) => return Err(fail(e.to_string())),
    };
    if !meta.is_file() {
        return Err(fail("not a file".to_string()));
    }
    if meta.len() > MAX_WEIGHT_BYTES {
        return Err(fail("too large to be a weight file".to_string()));
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize);
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_WEIGHT_BYTES).read_to_end(&mut bytes))
        .map_err(|e| fail(e.to_string()))?;
    Network::from_bytes(&bytes).map_err(|e| match e {
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

/// Writes `network` to `path` atomically, making its directory if needed.
pub fn write_weights(path: &Path, network: &Network) -> Result<(), FileError> {
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| FileError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
    }
    write_atomic(path, &network.to_bytes())
}
