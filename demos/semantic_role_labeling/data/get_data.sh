#!/bin/bash
# CoNLL-2005 shared task test data (the public part, words + props of the WSJ
# test section, from the task's site at UPC) -> data/feature + dictionaries,
# which `paddle train --config=db_lstm.py --config_args=dataset=conll05` reads.
# v1 also downloaded its dictionaries and pretrained word vectors ('emb') from
# http://paddlepaddle.bj.bcebos.com/demo/srl_dict_and_embedding/; the
# dictionaries are rebuilt from the data here, and `emb` is optional (see README).
set -e
cd "$(dirname "$0")"
wget -c http://www.cs.upc.edu/~srlconll/conll05st-tests.tar.gz
tar -xzf conll05st-tests.tar.gz
gunzip -c conll05st-release/test.wsj/words/test.wsj.words.gz > test.wsj.words
gunzip -c conll05st-release/test.wsj/props/test.wsj.props.gz > test.wsj.props
python preprocess.py test.wsj.words test.wsj.props .
