#!/bin/bash
# Predicts y at the given x values (default 0 0.5 1) with the last pass of train.sh.
set -e
cd "$(dirname "$0")"
if [ $# -eq 0 ]; then set -- 0 0.5 1; fi
python predict.py --model output/pass-00029 "$@"
