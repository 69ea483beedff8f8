//! Pictures (`--plot FILE.svg`): written atomically, and only over a picture.

use crate::files::bounded::{BoundedReadError, Expect, read_regular};
use crate::files::save::{FileError, check_replaceable, resolve_links, write_atomic};
use std::path::Path;
use thiserror::Error;

/// Why a picture was not written.
#[derive(Debug, Error)]
pub enum PictureError {
    /// Something else is at the path: it is never replaced.
    #[error("{}: not an SVG picture; it is left alone (choose another file to draw in)", crate::files::shown(&.0))]
    NotAPicture(std::path::PathBuf),
    /// An SVG picture that power11 did not draw: someone's drawing, never replaced.
    #[error("{}: an SVG picture that power11 did not draw; it is left alone (choose another file to draw in)", crate::files::shown(&.0))]
    NotOurs(std::path::PathBuf),
    /// Not a regular file (a device, a FIFO, a link to one): never replaced by one.
    #[error("{}: not a regular file; it is left alone (choose a file to draw in)", crate::files::shown(&.0))]
    NotRegular(std::path::PathBuf),
    /// A file larger than any picture power11 draws: not one of them.
    #[error("{}: larger than any picture power11 draws ({} MiB); it is left alone (choose another file to draw in)", crate::files::shown(&.0), MAX_PICTURE >> 20)]
    TooLarge(std::path::PathBuf),
    /// A directory: a picture is drawn in a file.
    #[error("{}: a directory; name a file in it to draw in ({})", crate::files::shown(&.0), crate::files::shown(&.0.join("plot.svg")))]
    Directory(std::path::PathBuf),
    /// Writing failed.
    #[error(transparent)]
    File(#[from] FileError),
}

/// The largest file read to see whether it is a picture power11 drew (its own are far smaller).
const MAX_PICTURE: u64 = 64 << 20;

/// What marks a picture as power11's: a comment just inside its root element, so that the
/// next run may draw over it and over nobody else's.
pub const MARK: &str = "<!-- drawn by power11 -->";

/// How a picture of power11 0.3.0 to 0.3.5 (drawn before [`MARK`]) begins: plotters' root
/// element, first thing in the file.
const EARLIER_START: &str = "<svg width=\"";

/// Whether `line` is the chart title of one of those pictures, as a line of its own inside a
/// `<text>` element: the learning curve's, or a bench chart's (its run named in brackets).
fn is_earlier_title(line: &str) -> bool {
    line == "Rolling mean score of the training games"
        || (line.starts_with("Reached, with 95% intervals (") && line.ends_with(')'))
}

/// Writes the SVG document `svg` to `path` atomically, marked as power11's ([`MARK`]): a new
/// file, an empty one, or a picture power11 drew (an earlier run's, drawn again). Any other
/// file is left alone.
pub fn write_svg(path: &Path, svg: &str) -> Result<(), PictureError> {
    check_svg_target(path)?;
    write_atomic(path, marked(svg).as_bytes())?;
    Ok(())
}

/// Where the root element's start tag of `svg` ends (0 when it has none).
fn past_root_tag(svg: &str) -> usize {
    svg.find("<svg")
        .and_then(|start| svg[start..].find('>').map(|end| start + end + 1))
        .unwrap_or(0)
}

/// `svg` with [`MARK`] on a line of its own after the root element's start tag.
fn marked(svg: &str) -> String {
    let at = past_root_tag(svg);
    format!("{}\n{MARK}{}", &svg[..at], &svg[at..])
}

/// Whether an SVG document's `bytes` were drawn by power11: [`MARK`] just after its root
/// element's start tag, where power11 puts it, or the shape of an earlier version's picture
/// (plotters' root first, a chart title as a text element's line). A mark or a title found
/// anywhere else (someone's figure that quotes one) is not enough.
fn is_ours(bytes: &[u8]) -> bool {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return false;
    };
    if text[past_root_tag(text)..].starts_with(&format!("\n{MARK}")) {
        return true;
    }
    if !text.starts_with(EARLIER_START) {
        return false;
    }
    let lines: Vec<&str> = text.lines().collect();
    lines
        .windows(3)
        .any(|w| w[0].starts_with("<text ") && w[2] == "</text>" && is_earlier_title(w[1]))
}

/// Whether a picture may be drawn at `path` (nothing there, an empty file, or an SVG picture
/// power11 drew that is not read-only), checked before a long run as well as when it is
/// written.
pub fn check_svg_target(path: &Path) -> Result<(), PictureError> {
    match std::fs::metadata(path) {
        // Nothing there, or a link to nothing (writing makes the file it names).
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Ok(meta) if meta.is_dir() => return Err(PictureError::Directory(path.to_path_buf())),
        _ => {}
    }
    // An empty file (`touch`, `mktemp`) holds nothing to lose, as for saves.
    let owned = || path.to_path_buf();
    match read_regular(path, MAX_PICTURE, Expect::Text) {
        Ok(bytes) if bytes.trim_ascii().is_empty() => {}
        Ok(bytes) if is_svg(&bytes) && !is_ours(&bytes) => {
            return Err(PictureError::NotOurs(owned()));
        }
        Ok(bytes) if is_svg(&bytes) => {}
        Ok(_) => return Err(PictureError::NotAPicture(owned())),
        Err(BoundedReadError::NotRegular(_)) => return Err(PictureError::NotRegular(owned())),
        Err(BoundedReadError::TooLarge(_)) => return Err(PictureError::TooLarge(owned())),
        Err(BoundedReadError::Io(error)) => {
            return Err(FileError::Io {
                path: owned(),
                error,
            }
            .into());
        }
    }
    let target = resolve_links(path).map_err(|error| FileError::Io {
        path: owned(),
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
    use super::{MARK, is_ours, is_svg, marked};

    #[test]
    fn a_picture_is_marked_inside_its_root_and_known_as_ours_by_the_mark_or_an_old_title() {
        let drawn = marked("<svg width=\"10\" height=\"10\">\n<rect/>\n</svg>\n");
        assert_eq!(
            drawn,
            format!("<svg width=\"10\" height=\"10\">\n{MARK}\n<rect/>\n</svg>\n")
        );
        assert!(is_svg(drawn.as_bytes()) && is_ours(drawn.as_bytes()));
        // Pictures of earlier versions, as plotters drew them.
        let root = "<svg width=\"10\" height=\"10\" viewBox=\"0 0 10 10\" xmlns=\"http://www.w3.org/2000/svg\">";
        let text = "<text x=\"5\" y=\"1\" dy=\"0.76em\" text-anchor=\"middle\">";
        let curve = "Rolling mean score of the training games";
        let old_curve = format!("{root}\n{text}\n{curve}\n</text>\n</svg>\n");
        let bench = "Reached, with 95% intervals (random on power11: 2 games)";
        let old_bench = format!("{root}\n{text}\n{bench}\n</text>\n</svg>\n");
        assert!(is_ours(old_curve.as_bytes()) && is_ours(old_bench.as_bytes()));
        // Someone's pictures: none, a title quoted in their own words or where plotters does
        // not put it, the mark elsewhere than where power11 puts it.
        for foreign in [
            "<svg xmlns=\"http://www.w3.org/2000/svg\"><circle r=\"4\"/></svg>".to_string(),
            format!("{root}\n{text}\n{curve}, in my poster\n</text>\n</svg>\n"),
            format!("<?xml version=\"1.0\"?>\n{old_curve}"),
            format!("{root}\n<script>\n{MARK}\n</script>\n</svg>\n"),
        ] {
            assert!(is_svg(foreign.as_bytes()), "{foreign}");
            assert!(!is_ours(foreign.as_bytes()), "{foreign}");
        }
    }

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
