//! `power11 compact`: a smaller copy of a weight file (the shipped network is made so).

use super::UsageError;
use super::args::CompactArgs;
use crate::files::outputs::{check_out_directory, refuse_out_existing, refuse_out_not_regular};
use crate::files::weights::{read_named_weights, write_network_at};
use crate::learning::ntuple::Compaction;
use crate::learning::ntuple::WeightUse;
use crate::model::rules::short_number;
use std::io::Write;

/// Reads `--weights`, prunes and rounds it as the arguments say, writes `--out` (a new file:
/// an existing one is never replaced) and says what it did.
pub(super) fn run_compact(args: &CompactArgs) -> anyhow::Result<()> {
    let shown = crate::files::shown(&args.out);
    refuse_out_not_regular(&args.out, "the network")?;
    refuse_out_existing(&args.out)?;
    check_out_directory(&args.out, "--out")?;
    let network = read_named_weights(&args.weights, WeightUse::Play)
        .map_err(|e| UsageError(e.to_string()))?;
    let how = Compaction {
        keep: args.keep,
        mantissa_bits: args.mantissa_bits,
        stages: args.stages as usize,
        step: args.step as f32,
    };
    let (small, report) = network.compacted(how);
    if report.nonzero_after == 0 && report.nonzero_before > 0 {
        // A network of zeros plays every move alike: nothing anyone wants written.
        if report.over_cut > 0 {
            return Err(UsageError(format!(
                "--step {} rounds all {} nonzero weights of {} to zero: nothing written (choose a smaller --step)",
                short_number(args.step),
                report.nonzero_before,
                crate::files::shown(&args.weights)
            ))
            .into());
        }
        return Err(UsageError(format!(
            "--keep {} keeps none of the {} nonzero weights of {}: nothing written (keep a larger share, e.g. --keep 0.5)",
            short_number(args.keep),
            report.nonzero_before,
            crate::files::shown(&args.weights)
        ))
        .into());
    }
    let bytes = write_network_at(&args.out, &small, args.level)?;
    let grain = if args.step > 0.0 {
        format!(", each a multiple of {}", args.step)
    } else {
        String::new()
    };
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{shown}: {} bytes ({:.1} MB); {} of {} nonzero weights kept ({:.1}%), {} significant bits{grain}",
        bytes,
        bytes as f64 / 1e6,
        report.nonzero_after,
        report.nonzero_before,
        100.0 * report.nonzero_after as f64 / (report.nonzero_before.max(1)) as f64,
        args.mantissa_bits,
    )?;
    Ok(())
}
