"""PyDataProvider2 provider of the recommendation demo (v1's slot order).

Slots: movie_id, title (word ids, a sequence), genres (dense 0/1 of 18),
user_id, gender, age, occupation, then the rating scaled to -3..5. A file list
entry is a ratings.dat-format file (the real data, see data/preprocess.py) or
'synthetic/train' / 'synthetic/test': the offline data set, made in memory.
"""
from paddle.trainer.PyDataProvider2 import *

import movielens


def hook(settings, meta_file=None, synthetic=None, **kwargs):
    if meta_file:
        settings.meta, settings.synthetic = movielens.load_meta(meta_file), None
    else:
        settings.meta, settings.synthetic = movielens.synthetic_meta_and_split(**(synthetic or {}))
    movie, user = settings.meta["movie"], settings.meta["user"]
    settings.input_types = [
        integer_value(movie["max_id"] + 1), integer_value_sequence(len(movie["title_dict"])),
        dense_vector(len(movielens.GENRES)),
        integer_value(user["max_id"] + 1), integer_value(2), integer_value(len(movielens.AGES)),
        integer_value(movielens.NUM_OCCUPATIONS), dense_vector(1)]


def sample(meta, line):
    user_id, movie_id, rating = movielens.parse_rating(line)
    title, genres = meta["movie"]["features"][str(movie_id)]
    gender, age, occupation = meta["user"]["features"][str(user_id)]
    genre_vec = [0.0] * len(movielens.GENRES)
    for g in genres:
        genre_vec[g] = 1.0
    return [movie_id, title, genre_vec, user_id, gender, age, occupation, [movielens.scaled_score(rating)]]


def rating_lines(settings, filename):
    if settings.synthetic is not None:
        return settings.synthetic[filename.strip().split("/")[-1]]
    with open(filename, encoding="latin-1") as f:
        return f.read().splitlines()


@provider(init_hook=hook, cache=CacheType.CACHE_PASS_IN_MEM)
def process(settings, filename):
    for line in rating_lines(settings, filename):
        if line.strip():
            yield sample(settings.meta, line)
