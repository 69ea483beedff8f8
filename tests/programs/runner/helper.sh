#!/bin/sh
# A correct program that leaves a helper behind: a new session (setsid), holding its
# standard output and error open for minutes. It goes on once the helper is in its session
# (a helper still in the program's group would get the terminal's SIGHUP when it exits).
setsid sh -c 'touch helper-started; exec sleep 300' &
while [ ! -e helper-started ]; do sleep 0.01; done
echo "started a helper"
read -r key
echo "got $key"
exit 0
