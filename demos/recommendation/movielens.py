"""MovieLens-1M records -> what the recommendation demo trains on (v1's meta + rating lines).

ml-1m ships three '::'-separated latin-1 files:

    users.dat    UserID::Gender::Age::Occupation::Zip-code
    movies.dat   MovieID::Title (Year)::Genre|Genre|...
    ratings.dat  UserID::MovieID::Rating::Timestamp

`build_meta` turns the first two into the meta (v1's meta.bin, here JSON): the
dictionaries and, per user / movie, its feature ids. Rating lines stay in the
ratings.dat format; `split_ratings` holds out a share of every user's ratings
for testing, as v1's split.py did. `synthetic_dataset` writes the same three
files' lines for an offline run, with ratings drawn from latent factors tied to
the features, so a model that reads the features can beat the mean.
"""
import json
import random
import re

AGES = [1, 18, 25, 35, 45, 50, 56]  # ml-1m's age buckets
NUM_OCCUPATIONS = 21
GENRES = ["Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary", "Drama",
          "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller", "War",
          "Western"]
_YEAR = re.compile(r"\s*\(\d{4}\)\s*$")


def fields(line, count, source):
    parts = line.rstrip("\r\n").split("::")
    if len(parts) != count:
        raise ValueError("%s: expected %d '::'-separated fields, got %d in %r" % (source, count, len(parts), line))
    return parts


def title_words(title):
    """Lower-cased words of a title without its '(year)'."""
    return re.findall(r"[\w']+", _YEAR.sub("", title).lower())


def build_meta(user_lines, movie_lines):
    """The meta dict from users.dat and movies.dat lines (ids stay the files' 1-based ids)."""
    users = {}
    for line in user_lines:
        if line.strip():
            uid, gender, age, occupation, _ = fields(line, 5, "users.dat")
            users[uid] = [int(gender == "F"), AGES.index(int(age)), int(occupation)]
    words, movies = {}, {}
    for line in movie_lines:
        if line.strip():
            mid, title, genres = fields(line, 3, "movies.dat")
            title_ids = [words.setdefault(w, len(words)) for w in title_words(title)]
            movies[mid] = [title_ids, [GENRES.index(g) for g in genres.split("|")]]
    return {"user": {"max_id": max(map(int, users)), "features": users},
            "movie": {"max_id": max(map(int, movies)), "features": movies, "title_dict": sorted(words, key=words.get)}}


def parse_rating(line):
    """(user id, movie id, rating 1..5) of a ratings.dat line."""
    uid, mid, rating, _ = fields(line, 4, "ratings.dat")
    return int(uid), int(mid), int(rating)


def split_ratings(rating_lines, test_ratio=0.1, seed=1):
    """(train lines, test lines): about test_ratio of every user's ratings go to test."""
    rng = random.Random(seed)
    train, test = [], []
    for line in rating_lines:
        if line.strip():
            (test if rng.random() < test_ratio else train).append(line.rstrip("\r\n"))
    return train, test


def save_meta(meta, path):
    with open(path, "w") as f:
        json.dump(meta, f)


def load_meta(path):
    with open(path) as f:
        return json.load(f)


def synthetic_dataset(num_users=300, num_movies=200, num_ratings=20000, seed=7, rank=3):
    """(users, movies, ratings) lines in ml-1m's format with learnable structure.

    Every feature value (gender, age, occupation, genre, title word) and every
    id has a latent vector; a user's or movie's taste is the sum of its
    features', and a rating is 3 + 1.5 * <taste_user, taste_movie> + noise,
    rounded into 1..5."""
    rng = random.Random(seed)

    def vec(scale=1.0):
        return [rng.gauss(0, scale) for _ in range(rank)]

    def add(*vs):
        return [sum(x) for x in zip(*vs)]

    gender_v, age_v = [vec(0.5) for _ in range(2)], [vec(0.5) for _ in AGES]
    occ_v, genre_v = [vec(0.5) for _ in range(NUM_OCCUPATIONS)], [vec(0.7) for _ in GENRES]
    vocab = ["w%d" % i for i in range(60)]
    word_v = {w: vec(0.3) for w in vocab}
    users, user_taste = [], {}
    for uid in range(1, num_users + 1):
        g, a, o = rng.randrange(2), rng.randrange(len(AGES)), rng.randrange(NUM_OCCUPATIONS)
        users.append("%d::%s::%d::%d::%05d" % (uid, "FM"[g], AGES[a], o, rng.randrange(100000)))
        user_taste[uid] = add(gender_v[g], age_v[a], occ_v[o], vec(0.4))
    movies, movie_taste = [], {}
    for mid in range(1, num_movies + 1):
        genres = sorted(rng.sample(range(len(GENRES)), rng.randint(1, 3)))
        words = rng.sample(vocab, rng.randint(1, 4))
        movies.append("%d::%s (%d)::%s" % (mid, " ".join(words).title(), rng.randint(1930, 2000),
                                           "|".join(GENRES[g] for g in genres)))
        movie_taste[mid] = add(*[genre_v[g] for g in genres], *[word_v[w] for w in words], vec(0.4))
    ratings = []
    for _ in range(num_ratings):
        uid, mid = rng.randint(1, num_users), rng.randint(1, num_movies)
        score = 3 + 1.5 * sum(u * m for u, m in zip(user_taste[uid], movie_taste[mid])) / rank + rng.gauss(0, 0.5)
        ratings.append("%d::%d::%d::%d" % (uid, mid, min(5, max(1, int(round(score)))), 978300000 + rng.randrange(10 ** 6)))
    return users, movies, ratings


def scaled_score(rating):
    """v1's target: a 1..5 rating mapped to -3..5 (score * 2 - 5)."""
    return rating * 2.0 - 5.0


def synthetic_meta_and_split(**sizes):
    """(meta, {'train': lines, 'test': lines}) of the synthetic data set."""
    users, movies, ratings = synthetic_dataset(**sizes)
    train, test = split_ratings(ratings)
    return build_meta(users, movies), {"train": train, "test": test}
