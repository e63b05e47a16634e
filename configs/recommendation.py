# Two-tower recommendation model (v1 MovieLens demo style): a user tower
# (id, gender, age, job embeddings -> fc) and an item tower (id embedding,
# title words -> text conv pooling, genres -> fc), scored by cosine
# similarity scaled to the 1..5 rating range, trained with mse_cost.
from paddle.trainer_config_helpers import *

num_users = get_config_arg('num_users', int, 6040)
num_movies = get_config_arg('num_movies', int, 3952)
title_dict_dim = get_config_arg('title_dict_dim', int, 5000)
num_genres = 18

# Synthetic data (random samples shaped like the data layers), so the config runs as it is;
# plug in real data with a reader of docs/readers.md (csv, image_folder, text) or a provider.
define_py_data_sources2(
    train_list='synthetic_train.list',
    test_list='synthetic_test.list',
    module='paddle.trainer.readers',
    obj='synthetic',
    args={'input_types': {
        'user_id': ['integer_value', num_users],
        'gender': ['integer_value', 2],
        'age': ['integer_value', 7],
        'job': ['integer_value', 21],
        'movie_id': ['integer_value', num_movies],
        'title': ['integer_value_sequence', title_dict_dim],
        'genres': ['sparse_binary_vector', num_genres],
        'rating': ['dense_vector', 1]}})

settings(
    batch_size=1600,
    learning_rate=1e-3,
    learning_method=RMSPropOptimizer())

# user tower
user_id = data_layer(name='user_id', size=num_users)
gender = data_layer(name='gender', size=2)
age = data_layer(name='age', size=7)
job = data_layer(name='job', size=21)
user_feats = [
    embedding_layer(input=user_id, size=256, name='user_id_emb'),
    embedding_layer(input=gender, size=16, name='gender_emb'),
    embedding_layer(input=age, size=16, name='age_emb'),
    embedding_layer(input=job, size=16, name='job_emb'),
]
user_hidden = fc_layer(input=user_feats, size=256, act=TanhActivation(),
                       name='user_hidden')

# item tower
movie_id = data_layer(name='movie_id', size=num_movies)
title = data_layer(name='title', size=title_dict_dim)
genres = data_layer(name='genres', size=num_genres)
movie_emb = embedding_layer(input=movie_id, size=256, name='movie_id_emb')
title_emb = embedding_layer(input=title, size=128, name='title_emb')
title_conv = sequence_conv_pool(input=title_emb, context_len=3,
                                hidden_size=128, name='title_conv')
genres_fc = fc_layer(input=genres, size=64, act=LinearActivation(),
                     name='genres_fc', bias_attr=False)
movie_hidden = fc_layer(input=[movie_emb, title_conv, genres_fc], size=256,
                        act=TanhActivation(), name='movie_hidden')

similarity = cos_sim(a=user_hidden, b=movie_hidden, scale=5,
                     name='similarity')
rating = data_layer(name='rating', size=1)
outputs(mse_cost(input=similarity, label=rating, name='cost'))
