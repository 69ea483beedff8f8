#!/bin/sh
# A correct program that leaves a helper behind: in a new session (setsid), orphaned at once
# (started from a subshell that ends), holding the program's standard output and error open
# for minutes. The program goes on once the helper is in its session (a helper still in the
# program's group would get the terminal's SIGHUP when the program exits).
(setsid sh -c 'touch helper-started; exec sleep 300' &)
while [ ! -e helper-started ]; do sleep 0.01; done
echo "started a helper"
read -r key
echo "got $key"
exit 0
