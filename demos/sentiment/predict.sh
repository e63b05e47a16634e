#!/bin/bash
# Classifies reviews (arguments, default two examples) with the last pass of train.sh.
set -e
cd "$(dirname "$0")"
if [ $# -eq 0 ]; then set -- "the plot was not good and the acting was boring" "a wonderful film , never dull"; fi
python predict.py --model output/pass-00009 "$@"
