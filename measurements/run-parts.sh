#!/bin/sh
# Plays the games of a long `bench` run one per file, skipping the ones already there, so the
# run can be stopped at any time and continued later (or on another core with another START).
#
#   measurements/run-parts.sh DIR START STEP END -- BENCH FLAGS...
#
# plays games START, START+STEP, ... below END into DIR/game-NNN.json with ./power11 (`make`
# first), each written to a temporary file and renamed when whole. Add the parts up with
#   ./power11 bench merge DIR/game-*.json
set -eu
dir=$1 start=$2 step=$3 end=$4
shift 4
[ "$1" = "--" ] && shift
mkdir -p "$dir"
k=$start
while [ "$k" -lt "$end" ]; do
    file=$(printf '%s/game-%03d.json' "$dir" "$k")
    if [ ! -e "$file" ]; then
        ./power11 bench "$@" --first-game "$k" --games 1 --jobs 1 --json > "$file.part"
        mv "$file.part" "$file"
    fi
    k=$((k + step))
done
