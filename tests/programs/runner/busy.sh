#!/bin/sh
# Busy, with children of its own that outlive it unless ended.
sleep 300 &
sh -c 'sleep 300; :' &
echo busy
while :; do :; done
