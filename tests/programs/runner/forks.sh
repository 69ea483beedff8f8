#!/bin/sh
# A fork loop: processes made as fast as the shell can.
echo forking
while :; do
    sleep 300 &
done
