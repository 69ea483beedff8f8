#!/bin/bash
# The shipped network's floors and memory with later stages expanded when first needed and
# tables in ordinary pages (power11 0.5.1), an empty data directory, nothing else running.
# Run from the repository with ./power11 the release build.
export POWER11_DATA_DIR=$(mktemp -d)
P=./target/release/power11
D=measurements/lazy
echo "start $(date -u +%T) $(git rev-parse --short HEAD)"
for i in 1 2 3; do /usr/bin/time -f "load+1 Hard game, depth 1, seed $i: %e s %M KB" $P bench --player learned --depth 1 --games 1 --seed $i --jobs 1 > /dev/null; done
/usr/bin/time -f "Hard 1000: %e s %M KB" $P bench --player learned --games 1000 --seed 1 --jobs 2 --json > $D/hard-policy.json
/usr/bin/time -f "classic d2 1000: %e s %M KB" $P bench --player learned --variant classic --depth 2 --games 1000 --seed 1 --jobs 2 --json > $D/classic-d2.json
/usr/bin/time -f "classic policy 300: %e s %M KB" $P bench --player learned --variant classic --games 300 --seed 1 --jobs 2 --json > $D/classic-policy.json
echo "end $(date -u +%T)"
