//! Pictures (`--plot FILE.svg`): written atomically, and only over a picture.

use crate::files::bounded::read_regular;
use crate::files::save::{FileError, write_atomic};
use std::path::Path;
use thiserror::Error;

/// Why a picture was not written.
#[derive(Debug, Error)]
pub enum PictureError {
    /// Something else is at the path: it is never replaced.
    #[error("{}: not an SVG picture; it is left alone (choose another file to draw in)", .0.display())]
    NotAPicture(std::path::PathBuf),
    /// Writing failed.
    #[error(transparent)]
    File(#[from] FileError),
}

/// Writes the SVG document `svg` to `path` atomically: a new file, or one that is already an
/// SVG picture (an earlier run's, drawn again). Any other file is left alone.
pub fn write_svg(path: &Path, svg: &str) -> Result<(), PictureError> {
    check_svg_target(path)?;
    write_atomic(path, svg.as_bytes())?;
    Ok(())
}

/// Whether a picture may be drawn at `path` (nothing there, or an SVG picture), checked before
/// a long run as well as when it is written.
pub fn check_svg_target(path: &Path) -> Result<(), PictureError> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let is_svg = read_regular(path, 64 << 20).is_ok_and(|bytes| {
        let head = String::from_utf8_lossy(&bytes[..bytes.len().min(4096)]).into_owned();
        head.contains("<svg")
    });
    if is_svg {
        Ok(())
    } else {
        Err(PictureError::NotAPicture(path.to_path_buf()))
    }
}
