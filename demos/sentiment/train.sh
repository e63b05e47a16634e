#!/bin/bash
# Trains the stacked LSTM on the generated reviews; add --config_args=dataset=imdb after
# data/get_data.sh for IMDB (and net=conv for the convolution net).
set -e
cd "$(dirname "$0")"
paddle train --config=trainer_config.py --save_dir=./output --num_passes=10 "$@" 2>&1 | tee train.log
