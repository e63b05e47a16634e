"""A small generated French-English parallel corpus with learnable structure, for running
the translation path offline. Sentences follow "subject verb [adverb] object [and clause]":
words translate one for one from small dictionaries, except that French adjectives follow
their noun (and agree with its gender: "la souris noire" -> "the black mouse"), a French
adverb follows the verb where the English one precedes it ("mange souvent" -> "often
eats"), and some words translate to two ("cherche" -> "looks for"). The attention decoder
must learn the dictionaries, the reorderings and where the clauses start."""
import numpy as np

# French noun, its gender, English noun
NOUNS = [('chat', 'm', 'cat'), ('chien', 'm', 'dog'), ('oiseau', 'm', 'bird'), ('livre', 'm', 'book'),
         ('garçon', 'm', 'boy'), ('arbre', 'm', 'tree'), ('gâteau', 'm', 'cake'), ('cheval', 'm', 'horse'),
         ('souris', 'f', 'mouse'), ('maison', 'f', 'house'), ('voiture', 'f', 'car'), ('pomme', 'f', 'apple'),
         ('fille', 'f', 'girl'), ('table', 'f', 'table'), ('fleur', 'f', 'flower'), ('lettre', 'f', 'letter')]
# masculine, feminine, English
ADJECTIVES = [('noir', 'noire', 'black'), ('blanc', 'blanche', 'white'), ('petit', 'petite', 'small'),
              ('grand', 'grande', 'big'), ('rouge', 'rouge', 'red'), ('vert', 'verte', 'green'),
              ('vieux', 'vieille', 'old'), ('joli', 'jolie', 'pretty')]
VERBS = [('mange', 'eats'), ('voit', 'sees'), ('aime', 'likes'), ('prend', 'takes'),
         ('cherche', 'looks for'), ('regarde', 'watches'), ('trouve', 'finds'), ('attend', 'waits for')]
ADVERBS = [('souvent', 'often'), ('toujours', 'always'), ('jamais', 'never'), ('parfois', 'sometimes')]
# (masculine, feminine) French article, English article
ARTICLES = [(('le', 'la'), 'the'), (('un', 'une'), 'a')]


def noun_phrase(rng):
    fr_noun, gender, en_noun = NOUNS[rng.randint(len(NOUNS))]
    (fr_m, fr_f), en_article = ARTICLES[rng.randint(len(ARTICLES))]
    fr = [fr_m if gender == 'm' else fr_f, fr_noun]
    en = [en_article, en_noun]
    if rng.rand() < 0.5:
        masc, fem, en_adj = ADJECTIVES[rng.randint(len(ADJECTIVES))]
        fr.append(masc if gender == 'm' else fem)
        en.insert(1, en_adj)
    return fr, en


def clause(rng):
    subject_fr, subject_en = noun_phrase(rng)
    object_fr, object_en = noun_phrase(rng)
    verb_fr, verb_en = VERBS[rng.randint(len(VERBS))]
    fr, en = subject_fr + [verb_fr], list(subject_en)
    if rng.rand() < 0.3:
        adverb_fr, adverb_en = ADVERBS[rng.randint(len(ADVERBS))]
        fr.append(adverb_fr)
        en.append(adverb_en)
    return fr + object_fr, en + verb_en.split() + object_en


def sentence_pair(rng):
    fr, en = clause(rng)
    if rng.rand() < 0.3:
        more_fr, more_en = clause(rng)
        fr, en = fr + ['et'] + more_fr, en + ['and'] + more_en
    return ' '.join(fr + ['.']), ' '.join(en + ['.'])


def sentence_pairs(count, seed):
    rng = np.random.RandomState(seed)
    return [sentence_pair(rng) for _ in range(count)]
