#!/bin/bash
# quiet: nothing else running. The candidate built in (power11 at 685fb28 + the new network), an empty data directory.
cd /work/train/step
export POWER11_DATA_DIR=$(mktemp -d)
P=./p11new
echo "start $(date -u +%T)"
$P bench --player learned --games 1000 --seed 1 --jobs 2 --json --plot hard-policy.svg > hard-policy.json; echo "hard-policy $(date -u +%T)"
$P bench --player learned --variant classic --depth 2 --games 1000 --seed 1 --jobs 2 --json --plot classic-d2.svg > classic-d2.json; echo "classic-d2 $(date -u +%T)"
$P bench --player learned --variant classic --games 300 --seed 1 --jobs 2 --json --plot classic-policy.svg > classic-policy.json; echo "classic-policy $(date -u +%T)"
for i in 1 2 3; do /usr/bin/time -f "%e s %M KB" $P bench --player learned --depth 1 --games 1 --seed $i --jobs 1 > /dev/null; done 2> load.txt; echo "load $(date -u +%T)"
