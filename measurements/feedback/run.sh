#!/usr/bin/env bash
# The feedback page's size and load time for a play of about 1,000 keys: power11 itself played
# to 2048 by the referee (--play win), its page written with --html, then opened five times in
# headless Chromium with a few lines added at its end that read, once the page's own script
# has drawn the replay, how long the page took (performance.now(): from the start of the
# navigation to the end of the page's own script) and how many replays it shows. Also the
# page of five failing generated scripts of the test suite's Python program with a planted
# fault.
# Run from the repository, idle, after `cargo build --release`:
#   bash measurements/feedback/run.sh > measurements/feedback/log.txt
set -euo pipefail
root=$(pwd)
power11="$root/target/release/power11"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
flags=(--headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --dump-dom)
timed() {
    local page=$1
    sed 's|</body>|<script>document.body.appendChild(Object.assign(document.createElement("pre"),{id:"t",textContent:JSON.stringify({ready:performance.now(),sections:document.querySelectorAll("section.replay:not([hidden])").length})}));</script></body>|' "$page" > timed.html
    for i in 1 2 3 4 5; do
        HOME="$work" chromium "${flags[@]}" --user-data-dir="$work/profile" "file://$work/timed.html" 2>/dev/null |
            grep -o '<pre id="t">[^<]*' | sed 's|<pre id="t">||; s|&quot;|"|g'
    done
}
echo "# $(date -u +%F) $(uname -m), $(nproc) cores, $(chromium --version 2>/dev/null)"
echo "## play win, 4x4, seed 1, power11 itself"
"$power11" referee --run "$power11" --play win --seed 1 --html play.html | tail -1 || true
keys=$(python3 -c 'import json,re,sys;t=open("play.html").read();print(sum(len(json.loads(m)["keys"]) for m in re.findall(r"<script type=\"application/json\" class=\"replay-data\">(.*?)</script>",t)))')
echo "keys in the page's replays: $keys; page: $(stat -c %s play.html) bytes"
timed play.html
echo "## 5 generated scripts (seed 5), python3 power11.py --fault merge-twice"
"$power11" referee --run "python3 $root/tests/programs/power11.py --fault merge-twice" \
    --scripts 5 --seed 5 --keep kept --html scripts.html | tail -1 || true
echo "page: $(stat -c %s scripts.html) bytes"
timed scripts.html
