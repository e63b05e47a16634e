#!/bin/bash
# Downloads the IMDB review corpus (Maas et al. 2011) and preprocesses it into
# data/pre-imdb (see ../preprocess.py); then train with --config_args=dataset=imdb.
set -e
cd "$(dirname "$0")"
if [ ! -f aclImdb_v1.tar.gz ]; then
    wget http://ai.stanford.edu/~amaas/data/sentiment/aclImdb_v1.tar.gz
fi
cd ..
python preprocess.py -i data/aclImdb_v1.tar.gz -o data/pre-imdb
