# `make` builds ./power11 (release); `make test` runs every test; `make clean` removes builds.
# The build goes where cargo puts it: target/, or $CARGO_TARGET_DIR when that is set.
# `make fuzz` runs each fuzz target for FUZZ_SECONDS (nightly Rust; installs cargo-fuzz if needed).
.PHONY: all power11 test clean fuzz

FUZZ_SECONDS ?= 180
FUZZ_TARGETS = parse round_trip session

all: power11

power11:
	cargo build --release
	cp "$${CARGO_TARGET_DIR:-target}/release/power11" ./power11

test:
	cargo test

fuzz:
	command -v cargo-fuzz >/dev/null || cargo install cargo-fuzz --locked
	cd fuzz && for target in $(FUZZ_TARGETS); do \
		cargo +nightly fuzz run $$target -- -max_total_time=$(FUZZ_SECONDS) || exit 1; \
	done

clean:
	cargo clean
	rm -rf ./power11 fuzz/target
