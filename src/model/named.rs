//! `Named`: a closed set of options with names (variants, spawn and scoring rules, players).
//!
//! Each such enum declares its names once, here-shaped, with the enum; the command line builds
//! its parsers and help from [`Named::ALL`], reports print [`Named::name`], so a new option is
//! one new variant and its two match arms.

/// An enum whose values the user names on the command line and reads in reports.
pub trait Named: Copy + Eq + 'static {
    /// Every value, in the order help texts list them.
    const ALL: &'static [Self];

    /// The name on the command line and in reports (lower case, no blanks).
    fn name(self) -> &'static str;

    /// One line saying what the value means, for `--help`.
    fn about(self) -> &'static str;

    /// The value named `name` exactly, if there is one.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name() == name)
    }
}
