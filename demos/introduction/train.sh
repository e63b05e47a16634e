#!/bin/bash
set -e
cd "$(dirname "$0")"
paddle train --config=trainer_config.py --save_dir=./output --num_passes=30 2>&1 | tee train.log
python evaluate_model.py output/pass-00029
