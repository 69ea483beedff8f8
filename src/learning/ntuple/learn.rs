//! What moves a network's weights while it trains: optimistic first weights, the TD adjustment
//! of a board's value ([`Network::learn`], [`Network::adjust`]) scaled by each weight's temporal
//! coherence when training tracks it, a stage's promotion when a game first reaches it, and the
//! check that a run has not diverged ([`Network::first_non_finite`]).

use super::memory::zeroed;
use super::symmetry::max_exponent;
use super::table::sum;
use super::{Network, Stages, TupleSet};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

impl Network {
    /// Makes every later [`Network::learn`] scale each weight's step by its **temporal
    /// coherence** (Beal & Smith 1999; Jaśkowski 2018): the size of the sum of the errors the
    /// weight was asked to correct over the sum of their sizes. A weight whose errors keep
    /// pointing one way (it has not learned yet) takes whole steps; one whose errors cancel out
    /// (it is as right as it gets, and what is left is the game's chance) takes ever smaller
    /// ones, so each weight anneals at its own pace, without a schedule. The sums are kept in
    /// memory only (twice the weights' size) and start at zero: a resumed run starts them anew,
    /// and so does a stage when it is promoted (its weights are a copy of the stage below, but
    /// its boards are new to them).
    pub fn track_coherence(&mut self) {
        if self.coherence.is_none() {
            let per_stage = self.set.weights_per_stage();
            let sums = self
                .tables
                .iter()
                .enumerate()
                .map(|(stage, _)| {
                    let cell = OnceLock::new();
                    if self.has_weights(stage) {
                        let _ = cell.set(zeroed(per_stage));
                    }
                    cell
                })
                .collect();
            self.coherence = Some(sums);
        }
    }

    /// Whether updates are scaled by temporal coherence ([`Network::track_coherence`]).
    pub fn tracks_coherence(&self) -> bool {
        self.coherence.is_some()
    }

    /// A new network that values every board `value` before it has learned anything
    /// (optimistic initialization, Guei, Chen & Wu 2021): a board's value only falls toward what
    /// it is worth once training games visit it, so greedy training games are drawn to boards
    /// they have seen least, which plain TD leaves to the chance of the new tiles. Only the first
    /// stage starts so; the later ones are promoted copies of it, as in [`Network::new`].
    pub fn with_initial_value(set: TupleSet, stages: Stages, value: f32) -> Network {
        let network = Network::new(set, stages);
        let share = (value / network.feature_count() as f32).to_bits();
        for weight in network.table(0).learning().into_iter().flatten() {
            weight.store(share, Ordering::Relaxed);
        }
        network
    }

    /// Moves `board`'s value toward `target` by `rate` times the error (each weight it reads
    /// moves by `rate * error / 8`: the step is shared among the 8 symmetric images, as in
    /// Szubert & Jaśkowski's and Yeh et al.'s learning rates; with temporal coherence, each
    /// weight's step is scaled by its coherence first) and returns the new value. The first
    /// adjustment in a stage with no weights of its own copies the stage below into it. A
    /// frozen network ([`WeightUse::Play`](super::WeightUse::Play)) is left as it is, and the
    /// value returned.
    pub fn learn(&self, board: u64, target: f32, rate: f32) -> f32 {
        if self.is_frozen() {
            return self.value(board);
        }
        let stage = self.adjusted_stage(board);
        let Some(table) = self.table(stage).learning() else {
            return self.value(board);
        };
        let features = self.features(board);
        let features = &features[..self.feature_count()];
        let error = target - sum(table, features);
        let sums = self
            .coherence
            .as_ref()
            .and_then(|stages| stages[stage].get());
        match sums {
            None => add(table, features, rate * error / 8.0),
            Some(sums) => add_coherent(table, sums, features, rate / 8.0, error),
        }
    }

    /// [`Network::prefetch`] for a [`Network::learn`] of `board`: its weights, and their
    /// coherence sums when training tracks them.
    #[inline]
    pub fn prefetch_for_learning(&self, board: u64) {
        self.prefetch_features(board, true);
    }

    /// Moves every weight `board` reads by `step / 8` and returns the board's new value (see
    /// [`Network::learn`]).
    pub fn adjust(&self, board: u64, step: f32) -> f32 {
        if self.is_frozen() {
            return self.value(board);
        }
        let Some(table) = self.table(self.adjusted_stage(board)).learning() else {
            return self.value(board);
        };
        let features = self.features(board);
        add(table, &features[..self.feature_count()], step / 8.0)
    }

    /// The stage whose weights an adjustment of `board` moves: its own, promoted if needed.
    #[inline]
    fn adjusted_stage(&self, board: u64) -> usize {
        let stage = self.stage_for(board);
        if self.stages.thresholds.is_empty() {
            return stage;
        }
        let wanted = self.stages.of(max_exponent(board));
        if stage < wanted {
            self.promote(wanted);
            return self.stage_for(board);
        }
        stage
    }

    /// The first weight that is not a finite number, if any (its index counting the stages
    /// before it as whole tables): a learning rate too high makes values overshoot and grow
    /// without bound, and such weights must not replace a good file.
    pub fn first_non_finite(&self) -> Option<usize> {
        let per_stage = self.set.weights_per_stage();
        (0..self.stages.count()).find_map(|stage| {
            let table = self.stage_table(stage)?;
            let at = (0..table.len()).position(|i| !table.weight(i).is_finite())?;
            Some(stage * per_stage + at)
        })
    }

    /// Gives `stage` weights of its own, a copy of the nearest stage below that has them (and
    /// coherence sums of zero, if training tracks them). One thread copies; the others keep
    /// using the stage below until the copy is set, whole.
    fn promote(&self, stage: usize) {
        if self.claimed[stage].swap(true, Ordering::AcqRel) {
            return;
        }
        // A frozen network never learns, so it never gets here.
        let from = self.table(self.nearest_below(stage));
        if from.learning().is_none() {
            return;
        }
        let table = from.duplicate();
        if let Some(stages) = &self.coherence {
            let _ = stages[stage].set(zeroed(table.len()));
        }
        let _ = self.tables[stage].set(table);
    }

    /// The nearest stage below `stage` that has weights of its own (stage 0 at the bottom).
    fn nearest_below(&self, stage: usize) -> usize {
        let mut from = stage.saturating_sub(1);
        while from > 0 && !self.has_weights(from) {
            from -= 1;
        }
        from
    }
}

/// Adds `share` to each weight of `features` and returns their new sum. A weight read by
/// several features (a board with two equal lines) moves once per feature, so the sum is
/// taken again after every weight has moved.
#[inline]
fn add(table: &[AtomicU32], features: &[u32], share: f32) -> f32 {
    for &i in features {
        let w = &table[i as usize];
        let value = f32::from_bits(w.load(Ordering::Relaxed)) + share;
        w.store(value.to_bits(), Ordering::Relaxed);
    }
    sum(table, features)
}

/// [`add`] under temporal coherence: each weight moves by `rate * error` times its coherence
/// (1 for a weight never updated), then `error` is added to its sums. The sums hold the raw
/// error, not the step, so that a rate schedule does not bend them. A weight the board reads
/// twice sees its sums with the first reading's error in them.
///
/// |sum| <= size holds for each update, but rounding, or two threads' updates of one weight
/// where one is lost, can break it by a little: the coherence is capped at 1, so a step is
/// never more than a whole one. Past some 2^24 updates of a weight its sums grow no more (an
/// `f32` adds nothing that small to them), and its coherence stays where it is.
#[inline]
fn add_coherent(
    table: &[AtomicU32],
    sums: &[AtomicU64],
    features: &[u32],
    rate: f32,
    error: f32,
) -> f32 {
    for &i in features {
        let i = i as usize;
        let pair = sums[i].load(Ordering::Relaxed);
        let (sum, size) = (
            f32::from_bits(pair as u32),
            f32::from_bits((pair >> 32) as u32),
        );
        let coherence = if size > 0.0 {
            (sum.abs() / size).min(1.0)
        } else {
            1.0
        };
        let w = &table[i];
        let value = f32::from_bits(w.load(Ordering::Relaxed)) + rate * coherence * error;
        w.store(value.to_bits(), Ordering::Relaxed);
        let (sum, size) = (sum + error, size + error.abs());
        let pair = u64::from(sum.to_bits()) | (u64::from(size.to_bits()) << 32);
        sums[i].store(pair, Ordering::Relaxed);
    }
    sum(table, features)
}

#[cfg(test)]
mod tests {
    use super::super::tests::bits;
    use super::*;

    #[test]
    fn an_adjustment_moves_the_value_by_its_step() {
        // Rows: 2 tuples x 8 images = 16 features, each moved by step / 8, so the value
        // moves by 2 x step when no two features share a weight.
        let net = Network::new(TupleSet::Rows, Stages::single());
        let b = bits(&[
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [2, 2, 4, 8],
            [4, 8, 16, 32],
        ]);
        let after = net.adjust(b, 1.0);
        assert!((after - 2.0).abs() < 1e-5, "{after}");
        assert!((net.value(b) - after).abs() < 1e-6);
    }

    #[test]
    fn an_adjustment_returns_the_new_value_when_features_share_weights() {
        // An empty board: every line reads 0, so all 16 features are 2 weights, each read 8
        // times. A step of 1 moves each by 1/8 per read: the value rises by 16 x 8 x 1/8.
        let net = Network::new(TupleSet::Rows, Stages::single());
        let after = net.adjust(0, 1.0);
        assert!(
            (after - net.value(0)).abs() < 1e-5,
            "{after} vs {}",
            net.value(0)
        );
        assert!((after - 16.0).abs() < 1e-4, "{after}");
        let learned = net.learn(0, 0.0, 0.01);
        assert!((learned - net.value(0)).abs() < 1e-5);
    }

    #[test]
    fn temporal_coherence_shrinks_the_steps_of_weights_whose_errors_cancel_out() {
        // Every line of it differs from the others, read either way: 16 weights of their own.
        let board = bits(&[
            [2, 4, 8, 16],
            [32, 64, 128, 256],
            [512, 1024, 2048, 4096],
            [8192, 16384, 2, 4],
        ]);
        let mut coherent = Network::new(TupleSet::Rows, Stages::single());
        coherent.track_coherence();
        assert!(coherent.tracks_coherence());
        let plain = Network::new(TupleSet::Rows, Stages::single());
        let close = |a: f32, b: f32| (a - b).abs() < 1e-4;
        // 16 weights, each moved by 0.25 * error / 8: the value moves by half the error.
        // The first two updates meet no cancelling error: whole steps, as without coherence.
        for network in [&coherent, &plain] {
            assert!(close(network.learn(board, 8.0, 0.25), 4.0));
            assert!(close(network.learn(board, 0.0, 0.25), 2.0));
        }
        // Errors of +8 and -4 so far: coherence |8 - 4| / (8 + 4) = 1/3. The next error, -2,
        // moves the value by a third of the plain step of -1.
        assert!(close(plain.learn(board, 0.0, 0.25), 1.0));
        let value = coherent.learn(board, 0.0, 0.25);
        assert!(close(value, 2.0 - 1.0 / 3.0), "{value}");
        // Sums of +8, -4, -2: the next error, -1, at rate 0.5 (a plain step of -1) meets the
        // coherence 2 / 14.
        let value = coherent.learn(board, value - 1.0, 0.5);
        let expected = 2.0 - 1.0 / 3.0 - 1.0 / 7.0;
        assert!(close(value, expected), "{value}");
        // The sums hold errors, not steps: now 1 / 15 (sums of the steps taken, 0.25 x (8 - 4
        // - 2) - 0.5 x 1 = 0, would stop the weights).
        let value = coherent.learn(board, value - 1.0, 0.25);
        assert!(close(value, expected - 0.5 / 15.0), "{value}");
        // Weights no update has touched (no line of this board is one of the other's) take
        // whole steps: the same as without coherence.
        let other = bits(&[[4, 2, 0, 0], [0; 4], [0; 4], [0; 4]]);
        let whole = plain.learn(other, 8.0, 0.25);
        assert!(whole > 4.0); // weights it reads more than once move more than once
        assert!(close(coherent.learn(other, 8.0, 0.25), whole));
    }

    #[test]
    #[allow(clippy::float_cmp)] // 1000 / 16 = 62.5, summed 16 times: exact
    fn an_optimistic_network_values_every_board_at_its_initial_value_until_it_learns() {
        let stages = Stages::split_at(&[11]).unwrap();
        let net = Network::with_initial_value(TupleSet::Rows, stages, 1000.0);
        let early = bits(&[[2, 4, 8, 16], [32, 0, 0, 0], [0; 4], [0; 4]]);
        let late = bits(&[[2048, 4, 8, 16], [0; 4], [0; 4], [0; 4]]);
        for board in [0, early, late] {
            assert_eq!(net.value(board), 1000.0);
        }
        // A late board promotes the early stage's weights as they are, optimism included;
        // then learning an early board that ended a game (target 0) brings its value down and
        // leaves the late stage alone.
        assert_eq!(net.learn(late, 1000.0, 0.1), 1000.0);
        assert_eq!(net.stages_trained(), 2);
        let learned = net.learn(early, 0.0, 0.1);
        assert!(learned < 1000.0, "{learned}");
        assert_eq!(net.value(late), 1000.0);
        // The optimism survives the file (62.5 is exact in f16).
        let back = Network::from_bytes(&net.to_bytes()).unwrap();
        assert_eq!(back.value(late), 1000.0);
        assert_eq!(back.value(early), net.value(early));
    }
}
