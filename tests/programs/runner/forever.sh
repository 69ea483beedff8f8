#!/bin/sh
# Never exits at the end of its input: it reads again and again.
echo ready
while :; do
    read -r line
    echo "got $line"
done
