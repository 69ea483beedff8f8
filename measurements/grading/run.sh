#!/usr/bin/env bash
# The figures of measurements/grading.md: `power11 grade` fed at once against key by key, on
# the Python test program and on power11 itself, and a class of ten with plays.
# Run from the repository's root on an idle machine: bash measurements/grading/run.sh
set -euo pipefail
repo=$(pwd)
bin="$repo/target/release/power11"
cargo build --release --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py="$repo/tests/programs/power11.py"

# Two Python students (one correct, one whose merges count twice), and power11 itself.
mkdir -p "$work/py/alice" "$work/py/carol" "$work/p11/power11"
cp "$py" "$work/py/alice/"
cp "$py" "$work/py/carol/"
printf "import runpy, sys\nsys.argv = ['power11.py', '--fault', 'merge-twice']\nrunpy.run_path('power11.py', run_name='__main__')\n" > "$work/py/carol/main.py"
cp "$bin" "$work/p11/power11/power11"
printf '[build]\ncommand = "true"\nrun = "./power11"\n' > "$work/p11.toml"

timed() { # name, then the command: its wall time in seconds and its table
    local name=$1; shift
    local start end
    start=$(date +%s%N)
    "$@" > "$work/$name.txt" 2>/dev/null
    end=$(date +%s%N)
    echo "$name: $(( (end - start) / 1000000 )) ms"
    cat "$work/$name.txt"
}

checked() { # a gradebook's scripts fed at once, and the items not checked, a student a line
    python3 - "$1/class.json" <<'PY'
import json, sys
for s in json.load(open(sys.argv[1]))["students"]:
    unchecked = [i["name"] for i in s["items"] if i["outcome"] == "not-checked"]
    print("  %s: %.1f s, %s of %s scripts passed at once; not checked: %s"
          % (s["student"], s["seconds"], s["at_once"], s["scripts"], " ".join(unchecked) or "-"))
PY
}

for mode in at-once key-by-key; do
    flag=(); [ "$mode" = key-by-key ] && flag=(--key-by-key)
    timed "python-$mode" "$bin" grade "$work/py" --out "$work/out-py-$mode" --scripts 100 --seed 7 --fresh "${flag[@]}"
    checked "$work/out-py-$mode"
    timed "power11-$mode" "$bin" grade "$work/p11" --out "$work/out-p11-$mode" --rubric "$work/p11.toml" --scripts 100 --seed 7 --fresh "${flag[@]}"
    checked "$work/out-p11-$mode"
done

# A class of ten: power11, the C port, the Python program correct and with seven planted
# faults; the built-in rubric (100 scripts) with the three plays on 4x4.
mkdir -p "$work/ten/power11" "$work/ten/c"
cp "$bin" "$work/ten/power11/p11.bin"
printf 'power11: p11.bin\n\tcp p11.bin power11\n' > "$work/ten/power11/Makefile"
cp "$repo/tests/programs/c/Makefile" "$repo/tests/programs/c/power11.c" "$work/ten/c/"
mkdir "$work/ten/python"; cp "$py" "$work/ten/python/"
for fault in one-tile-start no-new-tile merge-twice score-twice undo-unchanged save-newest-first resume-wrong; do
    mkdir "$work/ten/$fault"; cp "$py" "$work/ten/$fault/"
    sed "s/merge-twice/$fault/" "$work/py/carol/main.py" > "$work/ten/$fault/main.py"
done
"$bin" grade --print-rubric | sed -e 's/^# play-win-4 = 2/play-win-4 = 2/' \
    -e 's/^# play-lose-4 = 1/play-lose-4 = 1/' -e 's/^# play-explore-4 = 1/play-explore-4 = 1/' > "$work/ten.toml"
timed ten "$bin" grade "$work/ten" --out "$work/out-ten" --rubric "$work/ten.toml"
checked "$work/out-ten"
timed ten-again "$bin" grade "$work/ten" --out "$work/out-ten" --rubric "$work/ten.toml"
