//! The parsers of the command line's values: each refuses a wrong value with what it should
//! be (`'0' is not a depth (a whole number from 1 to 12)`), where clap's own and Rust's parse
//! errors say only what went wrong.

use crate::learning::ntuple::Stages;
use crate::model::named::Named;
use crate::model::rules::Rules;
use crate::train::{MAX_INITIAL_VALUE, MIN_RATE};
use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};

/// A whole number from `low` to `high` as a `value_parser`, refused with what it should be
/// (`what`) and both ends: clap's own range message reads `0 is not in 1..=8`, and Rust's
/// parse errors `invalid digit found in string`.
pub(super) fn whole<T: TryFrom<u64>>(
    what: &'static str,
    low: u64,
    high: u64,
) -> impl Fn(&str) -> Result<T, String> + Clone + Send + Sync + 'static {
    move |text: &str| {
        text.parse::<u64>()
            .ok()
            .filter(|n| (low..=high).contains(n))
            .and_then(|n| T::try_from(n).ok())
            .ok_or_else(|| format!("'{text}' is not {what} (a whole number from {low} to {high})"))
    }
}

/// The longest `--delay` between autoplay moves: an hour.
pub(super) const MAX_DELAY_MS: u64 = 3_600_000;

/// A count of games or moves: a whole number from 1 (clap's own range message reads
/// `1..18446744073709551615`, which looks like a range that excludes its end).
pub(super) fn parse_count(text: &str) -> Result<u64, String> {
    match text.parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "'{text}' is not a count (a whole number from 1 to 18446744073709551615)"
        )),
    }
}

/// An index of a game in a run: a whole number from 0 (the standard parser's message,
/// "invalid digit found in string", says nothing of what is wanted).
pub(super) fn parse_index(text: &str) -> Result<u64, String> {
    text.parse::<u64>().map_err(|_| {
        format!("'{text}' is not a game's index (a whole number from 0 to 18446744073709551615)")
    })
}

/// A share of weights kept: above 0 (none kept is a network of zeros), at most 1.
pub(super) fn parse_share(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(v) if v > 0.0 && v <= 1.0 => Ok(v),
        _ => Err(format!(
            "a share is a number above 0, at most 1, not '{text}'"
        )),
    }
}

/// A grain for `compact --step`: 0 (none) or a power of two from 1/1024 to 1024. A power of
/// two keeps every weight exact in f16 and its low bits zero, which is what makes the file
/// smaller: a grain of 48 made the shipped network's candidate larger than one of 32.
pub(super) fn parse_step(text: &str) -> Result<f64, String> {
    let power_of_two = |v: f64| (-10..=10).any(|k| v.to_bits() == 2f64.powi(k).to_bits());
    match text.parse::<f64>() {
        Ok(0.0) => Ok(0.0),
        Ok(v) if power_of_two(v) => Ok(v),
        _ => Err(format!(
            "a step is 0 (none) or a power of two from 2^-10 (0.0009765625) to 1024, e.g. 0.5, 1, 2, 32; not '{text}'"
        )),
    }
}

/// A tile value from 8 (the smallest a game makes rather than places) to 2^15 (the largest a
/// 4x4 network's stages split at), as its exponent.
pub(super) fn parse_tile(text: &str) -> Result<u8, String> {
    match text.trim().parse::<u64>() {
        Ok(value) if value.is_power_of_two() && (8..=1 << 15).contains(&value) => {
            Ok(value.trailing_zeros() as u8)
        }
        _ => Err(format!(
            "'{text}' is not a tile (a power of two from 8 to 32768)"
        )),
    }
}

pub(super) fn parse_minutes(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(m) if (0.0001..=525_600.0).contains(&m) => Ok(m),
        _ => Err(format!(
            "'{text}' is not a number of minutes (from 0.0001, at most a year)"
        )),
    }
}

pub(super) fn parse_lambda(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(l) if (0.0..=1.0).contains(&l) => Ok(l),
        _ => Err(format!("'{text}' is not a λ (from 0 to 1)")),
    }
}

pub(super) fn parse_rate(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(a) if (MIN_RATE..=0.25).contains(&a) => Ok(a),
        _ => Err(format!(
            "'{text}' is not a learning rate (from 0.000001 to 0.25)"
        )),
    }
}

pub(super) fn parse_initial_value(text: &str) -> Result<f32, String> {
    match text.parse::<f32>() {
        Ok(v) if (0.0..=MAX_INITIAL_VALUE).contains(&v) => Ok(v),
        _ => Err(format!(
            "'{text}' is not an initial value (a score from 0 to {MAX_INITIAL_VALUE})"
        )),
    }
}

pub(super) fn parse_stages(text: &str) -> Result<Stages, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Stages::single());
    }
    let exponents = text
        .split(',')
        .map(|tile| {
            let value: u64 = tile
                .trim()
                .parse()
                .map_err(|_| format!("'{tile}' is not a tile"))?;
            if value < 2 || !value.is_power_of_two() {
                return Err(format!(
                    "'{tile}' is not a tile (a power of two from 4 to 32768)"
                ));
            }
            // Every board holds a 2 or more: a stage below a split at 2 would never be used,
            // yet trained, kept in memory and written.
            if value == 2 {
                return Err(
                    "a split at 2 leaves the first stage unused: splits are tiles from 4"
                        .to_string(),
                );
            }
            Ok(value.trailing_zeros() as u8)
        })
        .collect::<Result<Vec<u8>, String>>()?;
    Stages::split_at(&exponents).map_err(|_| {
        "stage splits are increasing tiles from 4 to 32768, at most 3 of them".to_string()
    })
}

/// Any word, with `names` offered to shell completion and listed in the help: for values
/// checked later, where a wrong one gets a message of its own (`completions`' shells, any
/// case; `man`'s pages, which may come as several words).
#[derive(Clone)]
pub(super) struct Offered(pub(super) &'static [&'static str]);

impl TypedValueParser for Offered {
    type Value = String;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &std::ffi::OsStr,
    ) -> Result<String, clap::Error> {
        clap::builder::StringValueParser::new().parse_ref(cmd, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(
            self.0.iter().map(|&name| PossibleValue::new(name)),
        ))
    }
}

/// The parser of a [`Named`] option: its names are the possible values, each with its help.
pub(super) fn named<T: Named + Send + Sync>() -> impl TypedValueParser<Value = T> {
    let values = T::ALL
        .iter()
        .map(|value| PossibleValue::new(value.name()).help(value.about()));
    PossibleValuesParser::new(values)
        .map(|name| T::from_name(&name).expect("clap accepts only the listed names"))
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Goal(pub(super) Option<u64>);

pub(super) fn parse_goal(text: &str) -> Result<Goal, String> {
    if text.eq_ignore_ascii_case("none") {
        return Ok(Goal(None));
    }
    let value: u64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number or 'none'"))?;
    Rules::classic()
        .with_goal(Some(value))
        .map(|_| Goal(Some(value)))
        .map_err(|e| e.to_string())
}

pub(super) fn parse_fill(text: &str) -> Result<f64, String> {
    let p: f64 = text
        .parse()
        .map_err(|_| format!("'{text}' is not a number"))?;
    Rules::edge()
        .with_fill(p)
        .map(|_| p)
        .map_err(|e| e.to_string())
}

/// A `--seed`: any 64-bit unsigned number, said so when the text is not one.
pub(super) fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim()
        .parse()
        .map_err(|_| format!("a seed is a whole number from 0 to {} (2^64-1)", u64::MAX))
}

/// A time limit in seconds: above 0, at most a day.
pub(super) fn parse_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(s) if s > 0.0 && s <= 86_400.0 => Ok(s),
        _ => Err(format!(
            "'{text}' is not a time limit (seconds above 0, at most 86400)"
        )),
    }
}

/// A `--memory`: a number of bytes, or no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Memory(pub(super) Option<u64>);

/// A `--memory`: bytes with a suffix K, M, G (powers of 1024; `512M`, `1G`, `1.5G`), or
/// `none`. At least 16 MiB: less than a shell needs to start is no limit anyone means.
pub(super) fn parse_memory(text: &str) -> Result<Memory, String> {
    let words =
        || format!("'{text}' is not an amount of memory (16M to 1024G, as 512M or 1G, or none)");
    let trimmed = text.trim();
    if trimmed.eq_ignore_ascii_case("none") {
        return Ok(Memory(None));
    }
    let upper = trimmed.to_ascii_uppercase();
    let mut number = upper.as_str();
    for suffix in ["IB", "B"] {
        if let Some(rest) = number.strip_suffix(suffix) {
            number = rest;
            break;
        }
    }
    let (digits, shift) = match number.chars().last() {
        Some('K') => (&number[..number.len() - 1], 10),
        Some('M') => (&number[..number.len() - 1], 20),
        Some('G') => (&number[..number.len() - 1], 30),
        _ => (number, 0),
    };
    let value: f64 = digits.trim().parse().map_err(|_| words())?;
    let bytes = value * f64::from(1u32 << shift);
    if !(bytes >= f64::from(16u32 << 20) && bytes <= 1024.0 * f64::from(1u32 << 30)) {
        return Err(words());
    }
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    Ok(Memory(Some(bytes as u64)))
}
