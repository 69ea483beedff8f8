//! A network's stages split further ([`Network::split`]): each new stage starts with a copy of
//! the weights, and of the coherence sums, of the stage that held its boards.

use super::memory::zeroed;
use super::table::{Table, copied};
use super::{Network, NetworkError, Stages, Sums};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};

impl Network {
    /// This network with its stages split further at `stages`, whose splits must include all
    /// of its own: each new stage starts with a copy of the weights of the stage that held its
    /// boards (none where that stage had none), so every board is valued as before, to the
    /// bit. Coherence sums, if tracked, go with the weights: the lowest new stage of each old
    /// one keeps that stage's table and sums, the stages above it get copies of both (the same
    /// weights, learned on the same boards: starting their sums at zero would make their next
    /// steps whole ones). The split network was read from no file (no checksum).
    pub fn split(self, stages: Stages) -> Result<Network, NetworkError> {
        if !stages.keeps_the_splits_of(&self.stages) {
            return Err(NetworkError::NotASplit {
                from: self.stages,
                to: stages,
            });
        }
        self.expand_all();
        let mut out = Network::unfilled(self.set, stages);
        *out.training
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = self.training();
        let mut old: Vec<Option<Table>> = self
            .tables
            .into_vec()
            .into_iter()
            .map(OnceLock::into_inner)
            .collect();
        let mut old_sums: Option<Vec<Option<Sums>>> = self.coherence.map(|sums| {
            sums.into_vec()
                .into_iter()
                .map(OnceLock::into_inner)
                .collect()
        });
        let mut sums: Option<Vec<OnceLock<Sums>>> = old_sums
            .as_ref()
            .map(|_| (0..out.stages.count()).map(|_| OnceLock::new()).collect());
        // The old stage that held new stage k's boards: the one of its smallest exponent.
        let thresholds = out.stages.thresholds.clone();
        let old_of = |k: usize| match k {
            0 => 0,
            _ => self.stages.of(thresholds[k - 1]),
        };
        // New stages from the top down, so that the lowest new stage of each old one takes
        // its table and the ones above it take copies.
        for k in (0..out.stages.count()).rev() {
            let from = old_of(k);
            let lowest = k == 0 || old_of(k - 1) != from;
            let table = if lowest {
                old[from].take()
            } else {
                old[from].as_ref().map(Table::duplicate)
            };
            if let Some(table) = table {
                if let (Some(sums), Some(old_sums)) = (sums.as_mut(), old_sums.as_mut()) {
                    // A copy's weights are the same weights, learned on the same boards: so
                    // are its sums.
                    let stage_sums = if lowest {
                        old_sums[from].take()
                    } else {
                        old_sums[from].as_deref().map(duplicate_sums)
                    };
                    let stage_sums = stage_sums.unwrap_or_else(|| zeroed(table.len()));
                    let _ = sums[k].set(stage_sums);
                }
                out.set_table(k, table);
            }
        }
        out.coherence = sums.map(Vec::into_boxed_slice);
        Ok(out)
    }
}

/// A copy of coherence sums, in memory of its own.
fn duplicate_sums(from: &[AtomicU64]) -> Sums {
    copied(
        from,
        |w| w.load(Ordering::Relaxed),
        |w, v| w.store(v, Ordering::Relaxed),
    )
}

#[cfg(test)]
mod tests {
    use super::super::tests::bits;
    use super::super::{TupleSet, WeightUse};
    use super::*;

    /// Random boards of every stage: tiles up to 2^15 in random cells.
    fn random_boards(count: usize) -> Vec<u64> {
        let mut state = 0x9E37_79B9_7F4A_7C15_u64;
        (0..count)
            .map(|_| {
                state = state
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                state ^ (state >> 29)
            })
            .collect()
    }

    #[test]
    fn a_split_network_values_every_board_as_before_and_its_new_stage_learns_alone() {
        // Stage 0 and stage 1 (from 64) trained, stage 2 (from 2048) never reached.
        let net = Network::new(TupleSet::Rows, Stages::split_at(&[6, 11]).unwrap());
        let boards = random_boards(5000);
        for (k, &board) in boards.iter().enumerate().take(2000) {
            net.adjust(board & 0x5555_5555_5555_5555, (k % 7) as f32 - 3.0);
        }
        net.adjust(bits(&[[64, 2, 0, 0], [0; 4], [0; 4], [0; 4]]), 5.0);
        assert_eq!(net.stages_trained(), 2);
        let bytes = net.to_bytes();
        let played = Network::from_bytes_for(&bytes, WeightUse::Play).unwrap();
        let played_before: Vec<u32> = boards.iter().map(|&b| played.value(b).to_bits()).collect();

        // Splits at 16 (inside stage 0) and 64 and 2048 kept; as read from a file, where the
        // weights are f16.
        let net = Network::from_bytes(&bytes).unwrap();
        let wider = Stages::split_at(&[4, 6, 11]).unwrap();
        let split = net.split(wider.clone()).unwrap();
        assert_eq!(split.stages(), &wider);
        // Stages 0 and 1 are copies of the old stage 0, stage 2 holds the old stage 1, and
        // the old stage 2 had no weights: neither has its new stage 3.
        assert_eq!(split.stages_trained(), 3);
        assert!(split.stage_values(0) == split.stage_values(1));
        assert!(split.stage_values(3).is_none());
        assert_eq!(split.file_checksum(), None);
        let after: Vec<u32> = boards.iter().map(|&b| split.value(b).to_bits()).collect();
        assert!(after == played_before, "a split moved a value");
        // Written and read back (a checkpoint), the same stages and values.
        let back = Network::from_bytes(&split.to_bytes()).unwrap();
        assert_eq!((back.stages(), back.stages_trained()), (&wider, 3));
        let read: Vec<u32> = boards.iter().map(|&b| back.value(b).to_bits()).collect();
        assert!(
            read == played_before,
            "a split network's file moved a value"
        );

        // The new stage learns alone: an adjustment of a board below 16 leaves 16-63 alone.
        let small = bits(&[[8, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let middle = bits(&[[8, 2, 16, 0], [0; 4], [0; 4], [0; 4]]);
        let (small_before, middle_before) = (split.value(small), split.value(middle));
        split.adjust(small, 4.0);
        assert!(split.value(small) > small_before);
        assert_eq!(split.value(middle).to_bits(), middle_before.to_bits());

        // A network read to play splits too, and keeps its values.
        let frozen = Network::from_bytes_for(&bytes, WeightUse::Play)
            .unwrap()
            .split(wider)
            .unwrap();
        assert!(frozen.is_frozen());
        let frozen_after: Vec<u32> = boards.iter().map(|&b| frozen.value(b).to_bits()).collect();
        assert!(frozen_after == played_before);

        // Moving or removing a split is refused.
        for to in [&[4, 11][..], &[7, 11], &[]] {
            let refused = Network::from_bytes(&bytes)
                .unwrap()
                .split(Stages::split_at(to).unwrap());
            assert!(
                matches!(refused, Err(NetworkError::NotASplit { .. })),
                "{to:?}"
            );
        }
        let message = Network::from_bytes(&bytes)
            .unwrap()
            .split(Stages::single())
            .err()
            .unwrap()
            .to_string();
        assert_eq!(
            message,
            "a network with stages split at 64, 2048 cannot become one with one stage: splits \
             may be added, never moved or removed (that would lose what a stage learned)"
        );
    }

    #[test]
    fn a_split_carries_the_coherence_sums_with_the_weights_they_were_gathered_on() {
        let mut net = Network::new(TupleSet::Rows, Stages::split_at(&[11]).unwrap());
        net.track_coherence();
        let small = bits(&[[8, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let late = bits(&[[2048, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        for _ in 0..5 {
            net.learn(small, 100.0, 0.25);
            net.learn(late, -50.0, 0.25);
        }
        let sums_of = |net: &Network, k: usize| -> Vec<u64> {
            let stages = net.coherence.as_ref().expect("tracked");
            stages[k]
                .get()
                .map(|s| s.iter().map(|w| w.load(Ordering::Relaxed)).collect())
                .unwrap_or_default()
        };
        let (early_sums, late_sums) = (sums_of(&net, 0), sums_of(&net, 1));
        assert!(early_sums.iter().any(|&w| w != 0) && late_sums.iter().any(|&w| w != 0));
        let split = net.split(Stages::split_at(&[4, 11]).unwrap()).unwrap();
        assert!(split.tracks_coherence());
        // Stage 0 keeps the old first stage's sums, its copy above has a copy of them (the
        // same weights, learned on the same boards), and the stage from 2048 keeps its own.
        assert!(sums_of(&split, 0) == early_sums);
        assert!(sums_of(&split, 1) == early_sums);
        assert!(sums_of(&split, 2) == late_sums);
    }
}
