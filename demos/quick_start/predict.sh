#!/bin/bash
# Classify the sentences of pred.txt (generated corpus: word ids) or, with
# dataset=amazon, of data/pred.txt (tokenized text) with a trained model; each
# line of result.txt is "label;p(0) p(1);" (v1's predict.sh).
#   ./predict.sh [config] [model dir] [extra config args, e.g. dataset=amazon]
set -e
cfg=${1:-trainer_config.lstm.py}
model=${2:-output_lstm/pass-00002}
args=is_predict=1${3:+,$3}
paddle train --config=$cfg --use_gpu=false --job=test --init_model_path=$model \
    --config_args=$args --predict_output_dir=.
mv rank-00000 result.txt
cat result.txt
