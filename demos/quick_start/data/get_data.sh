#!/bin/bash
# v1's quick_start real data: Amazon Electronics reviews (5-core, J. McAuley,
# http://jmcauley.ucsd.edu/data/amazon/) -> data/train.txt, test.txt, dict.txt,
# train.list, test.list; then add --config_args=dataset=amazon to any config.
set -e
cd "$(dirname "$0")"
wget -c http://snap.stanford.edu/data/amazon/productGraph/categoryFiles/reviews_Electronics_5.json.gz
python preprocess.py reviews_Electronics_5.json.gz .
