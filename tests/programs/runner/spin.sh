#!/bin/sh
# Spins for ever, until its CPU time limit ends it.
echo spinning
while :; do :; done
