//! Pictures (`--plot FILE.svg`): written atomically, and only over a picture.

use crate::files::bounded::{Expect, read_regular};
use crate::files::save::{FileError, check_replaceable, resolve_links, write_atomic};
use std::path::Path;
use thiserror::Error;

/// Why a picture was not written.
#[derive(Debug, Error)]
pub enum PictureError {
    /// Something else is at the path: it is never replaced.
    #[error("{}: not an SVG picture; it is left alone (choose another file to draw in)", .0.display())]
    NotAPicture(std::path::PathBuf),
    /// A directory: a picture is drawn in a file.
    #[error("{}: a directory; name a file in it to draw in ({})", .0.display(), .0.join("plot.svg").display())]
    Directory(std::path::PathBuf),
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

/// Whether a picture may be drawn at `path` (nothing there, an empty file, or an SVG picture
/// that is not read-only), checked before a long run as well as when it is written.
pub fn check_svg_target(path: &Path) -> Result<(), PictureError> {
    match std::fs::metadata(path) {
        // Nothing there, or a link to nothing (writing makes the file it names).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Ok(meta) if meta.is_dir() => return Err(PictureError::Directory(path.to_path_buf())),
        _ => {}
    }
    // An empty file (`touch`, `mktemp`) holds nothing to lose, as for saves.
    let replaceable = read_regular(path, 64 << 20, Expect::Text)
        .is_ok_and(|bytes| bytes.trim_ascii().is_empty() || is_svg(&bytes));
    if !replaceable {
        return Err(PictureError::NotAPicture(path.to_path_buf()));
    }
    let target = resolve_links(path).map_err(|error| FileError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    check_replaceable(path, &target)?;
    Ok(())
}

/// Whether `bytes` are an SVG document: its root element, `<svg`, comes first, after at most
/// a byte-order mark, white space, an XML declaration, comments and a doctype. A page or notes
/// that only hold an `<svg>` somewhere are not one.
fn is_svg(bytes: &[u8]) -> bool {
    let mut rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    loop {
        rest = rest.trim_ascii_start();
        let skip = [
            (&b"<?xml"[..], &b"?>"[..]),
            (b"<!--", b"-->"),
            (b"<!DOCTYPE", b">"),
        ]
        .iter()
        .find(|(start, _)| rest.starts_with(start))
        .map(|(start, end)| {
            rest[start.len()..]
                .windows(end.len())
                .position(|w| w == *end)
                .map(|at| start.len() + at + end.len())
        });
        match skip {
            Some(Some(past)) => rest = &rest[past..],
            Some(None) => return false,
            None => break,
        }
    }
    rest.strip_prefix(b"<svg")
        .and_then(|after| after.first())
        .is_some_and(|&b| b == b'>' || b.is_ascii_whitespace())
}

#[cfg(test)]
mod tests {
    use super::is_svg;

    #[test]
    fn only_a_document_whose_root_is_svg_is_a_picture() {
        for picture in [
            &b"<svg width=\"10\"></svg>"[..],
            b"\xEF\xBB\xBF  <?xml version=\"1.0\"?>\n<!-- a -->\n<!DOCTYPE svg>\n<svg>\n</svg>",
            b"\n\t<svg\nxmlns=\"http://www.w3.org/2000/svg\"/>",
        ] {
            assert!(is_svg(picture), "{}", String::from_utf8_lossy(picture));
        }
        for other in [
            &b"<html><svg></svg></html>"[..],
            b"Remember: embed icons with <svg> tags.",
            b"<svgfoo>",
            b"<!-- never closed <svg>",
            b"",
            b"my notes",
        ] {
            assert!(!is_svg(other), "{}", String::from_utf8_lossy(other));
        }
    }
}
