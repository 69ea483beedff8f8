#!/bin/bash
# Paired training runs: base (main before the packed sums) and packed, then 300 classic games at depth 2.
cd /work/tc
train() { # name binary args...
  n=$1; b=$2; shift 2; mkdir -p $n
  echo "$(date -u +%H:%M:%S) start $n: $b train $*" >> log.txt
  POWER11_DATA_DIR=/work/tc/$n /usr/bin/time -v ./$b train "$@" --threads 2 --out /work/tc/$n/W.p11w > $n/out.txt 2> $n/time.txt
  echo "$(date -u +%H:%M:%S) end $n: $(grep '^trained' $n/out.txt) peak $(grep Maximum $n/time.txt | awk '{print $6}') KiB" >> log.txt
}
bench() {
  n=$1
  ./p11-base bench --player learned --variant classic --depth 2 --games 300 --jobs 2 --seed 21 --weights $n/W.p11w --json > $n/d2.json 2> $n/bench.err
  python3 -c "
import json; d=json.load(open('$n/d2.json')); r=d['reached_counts']
print('$n', 'mean', round(d['mean_score']), '8192', r.get('8192',0), '16384', r.get('16384',0), '32768', r.get('32768',0))" >> log.txt
}
train base100k p11-base --games 100000 --seed 5
train packed100k p11-packed --games 100000 --seed 5
bench base100k; bench packed100k
train base5s4 p11-base --minutes 5 --seed 4
train packed5s4 p11-packed --minutes 5 --seed 4
bench base5s4; bench packed5s4
echo done >> log.txt
