# v1's MovieLens feature-fusion net: every user feature (id, gender, age,
# occupation) and movie feature (id, title words, genres) becomes a vector,
# each side is fused by an fc layer, and the cosine similarity of the two,
# scaled to -5..5, regresses the rating (scaled to -3..5, v1's target).
#   --config_args=dataset=ml-1m   the real data (data/get_data.sh first)
#   --config_args=is_predict=1    outputs the similarity (predict.py)
from paddle.trainer_config_helpers import *

import movielens

is_predict = get_config_arg('is_predict', bool, False)
dataset = get_config_arg('dataset', str, 'synthetic')
hidden = get_config_arg('hidden', int, 256)  # v1: 256

if dataset == 'ml-1m':
    meta_file = 'data/ml-1m-prepared/meta.json'
    meta = movielens.load_meta(meta_file)
    lists, args = ('data/ml-1m-prepared/train.list', 'data/ml-1m-prepared/test.list'), {'meta_file': meta_file}
else:
    meta = movielens.synthetic_meta_and_split()[0]
    lists, args = ('synthetic_train.list', 'synthetic_test.list'), {}

settings(batch_size=get_config_arg('batch_size', int, 1600), learning_rate=1e-3,
         learning_method=RMSPropOptimizer())


def id_feature(name, size):
    return fc_layer(input=embedding_layer(input=data_layer(name, size=size), size=hidden), size=hidden)


def movie_feature():
    movie = meta['movie']
    movie_id = id_feature('movie_id', movie['max_id'] + 1)
    title = embedding_layer(input=data_layer('title', size=len(movie['title_dict'])), size=hidden)
    title_conv = text_conv_pool(input=title, context_len=5, hidden_size=hidden)
    genres = fc_layer(input=fc_layer(input=data_layer('genres', size=len(movielens.GENRES)), size=hidden),
                      size=hidden)
    return fc_layer(name='movie_fusion', input=[movie_id, title_conv, genres], size=hidden)


def user_feature():
    parts = [id_feature('user_id', meta['user']['max_id'] + 1), id_feature('gender', 2),
             id_feature('age', len(movielens.AGES)), id_feature('occupation', movielens.NUM_OCCUPATIONS)]
    return fc_layer(name='user_fusion', input=parts, size=hidden)


similarity = cos_sim(a=movie_feature(), b=user_feature(), scale=5)
if is_predict:
    outputs(similarity)
else:
    define_py_data_sources2(lists[0], lists[1], module='dataprovider', obj='process', args=args)
    outputs(regression_cost(input=similarity, label=data_layer('rating', size=1)))
