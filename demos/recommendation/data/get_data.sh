#!/bin/bash
# Downloads MovieLens-1M (GroupLens) and preprocesses it into data/ml-1m-prepared,
# which `paddle train --config=trainer_config.py --config_args=dataset=ml-1m` reads.
set -e
cd "$(dirname "$0")"
wget -c https://files.grouplens.org/datasets/movielens/ml-1m.zip
unzip -o ml-1m.zip
python preprocess.py ml-1m ml-1m-prepared
