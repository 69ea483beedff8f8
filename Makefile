# `make` builds ./power11 (release); `make test` runs every test; `make clean` removes builds.
.PHONY: all power11 test clean

all: power11

power11:
	cargo build --release
	cp target/release/power11 ./power11

test:
	cargo test

clean:
	cargo clean
	rm -f ./power11
