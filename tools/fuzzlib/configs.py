"""The configs campaign: valid v1 Python and YAML configs (configs/, demos/), mutated
line by line and token by token, are parsed and, when they parse, trained one batch on
random data shaped like their data layers (the shapes found by `probe` on the seed)."""
import glob
import itertools
import os
import re
import sys
import time

from fuzzlib.runner import ROOT, Outcome, check_finite

SEEDS = sorted(glob.glob(os.path.join(ROOT, "configs", "*.py")) + glob.glob(os.path.join(ROOT, "configs", "*.yaml"))
               + glob.glob(os.path.join(ROOT, "demos", "*", "*.py")) + glob.glob(os.path.join(ROOT, "demos", "*", "*.yaml"))
               + glob.glob(os.path.join(ROOT, "demos", "*", "*.conf")))
SEEDS = [s for s in SEEDS if not os.path.basename(s).startswith(("dataprovider", "mnist_provider", "api_train",
                                                                   "evaluate", "prepare_data"))]
PY_VALUES = ["0", "-1", "10**9", "2**31", "2**63", "-2**63", "float('nan')", "float('inf')", "-float('inf')",
             "'abc'", "''", "True", "False", "None", "1.5", "[]", "{}", "1e-30", "1e30", "(1, 2)"]
YAML_VALUES = ["0", "-1", "1000000000", "2147483648", "9223372036854775808", ".nan", ".inf", "-.inf", "abc",
               "''", "true", "false", "null", "1.5", "[]", "{}", "1e-30", "[1, [2, [3]]]", "!!str 5",
               "!!binary aGVsbG8=", "!!python/object/apply:os.system ['true']", "!custom 3", "*nowhere",
               "&anchor 3", "0x7fffffff", "~"]
LAYER_FUNCS = ["fc_layer", "embedding_layer", "lstmemory", "grumemory", "img_conv_layer", "img_pool_layer",
               "pooling_layer", "last_seq", "first_seq", "classification_cost", "cross_entropy", "mixed_layer",
               "concat_layer", "addto_layer", "batch_norm_layer", "crf_layer", "expand_layer", "data_layer",
               "dropout_layer", "maxid_layer", "no_such_layer"]
ACTS = ["ReluActivation", "TanhActivation", "SigmoidActivation", "SoftmaxActivation", "LinearActivation",
        "SequenceSoftmaxActivation", "ExpActivation", "BReluActivation", "NoSuchActivation"]
YAML_ACTS = ["relu", "tanh", "sigmoid", "softmax", "linear", "sequence_softmax", "exp", "brelu", "no_such", "''"]
STRINGS = ["''", "'x' * 3", "'../escape'", "'a/b'", "'..'", "'%s'" % ("n" * 300), "'\\u00e9t\\u00e9'", "'a b'",
           "'pass-00000'", "'_hidden1.w0'"]
# Small dictionaries for the big seeds (their config args), so a case takes a second, not twenty.
SMALL = {"seq2seq_attention": "source_dict_dim=60,target_dict_dim=60", "bilstm": "dict_dim=100",
         "crf_tagger": "word_dict_dim=100", "text_cnn": "dict_dim=100", "text_lstm": "dict_dim=100",
         "recommendation": "num_users=50,num_movies=50,title_dict_dim=50"}
# Not an operand of **: 2**2**63 would be the damaged config's own endless computation.
NUMBER = re.compile(r"(?<![\w.'\"*])-?\d+(\.\d+)?([eE]-?\d+)?(?![\w.'\"*])")


# --------------------------------------------------------------------------- mutation
def _line_op(lines, rng):
    if len(lines) < 2:
        return lines
    i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
    op = rng.randrange(3)
    if op == 0:
        return lines[:i] + lines[i + 1:]
    if op == 1:
        return lines[:i + 1] + [lines[i]] + lines[i + 1:]
    lines = list(lines)
    lines[i], lines[j] = lines[j], lines[i]
    return lines


def _sub_one(text, pattern, choices, rng, group=0):
    """Replaces one random match of `pattern` (its `group`) with a random choice."""
    matches = list(re.finditer(pattern, text))
    if not matches:
        return None
    m = rng.choice(matches)
    new = choices(m) if callable(choices) else rng.choice(choices)
    return text[:m.start(group)] + new + text[m.end(group):]


def _mutate_py(text, rng):
    op = rng.randrange(8)
    if op == 0:
        return "\n".join(_line_op(text.split("\n"), rng))
    if op == 1:
        return _sub_one(text, NUMBER, PY_VALUES, rng)
    if op == 2:  # rename a layer (maybe onto another layer's name)
        names = re.findall(r"name\s*=\s*'([^']*)'", text) or ["x"]
        return _sub_one(text, r"name\s*=\s*('[^']*')", lambda m: rng.choice(["'%s'" % rng.choice(names)] + STRINGS),
                        rng, 1)
    if op == 3:  # break a reference: input=<another name or an unknown one>
        idents = re.findall(r"^(\w+)\s*=", text, re.M) or ["x"]
        return _sub_one(text, r"(input|label|weight)\s*=\s*(\w+)",
                        lambda m: rng.choice(idents + ["undefined_layer", "None", "[]", "1"]), rng, 2)
    if op == 4:
        return _sub_one(text, r"\w+Activation", ACTS, rng)
    if op == 5:
        return _sub_one(text, r"\b(%s)\b" % "|".join(LAYER_FUNCS[:-1]), LAYER_FUNCS, rng)
    if op == 6:
        return _sub_one(text, r"'[^'\n]*'", STRINGS + ["%s" % v for v in PY_VALUES[:6]], rng)
    return _sub_one(text, r"=\s*([^,)\n]+)", PY_VALUES, rng, 1)


def _mutate_yaml(text, rng):
    op = rng.randrange(8)
    if op == 0:
        return "\n".join(_line_op(text.split("\n"), rng))
    if op == 1:
        return _sub_one(text, NUMBER, YAML_VALUES, rng)
    if op == 2:
        names = re.findall(r"name:\s*(\w+)", text) or ["x"]
        return _sub_one(text, r"name:\s*([^,}\n]+)", lambda m: rng.choice(names + ["''", "../up", "a/b", "null"]), rng, 1)
    if op == 3:
        names = re.findall(r"name:\s*(\w+)", text) or ["x"]
        return _sub_one(text, r"(input|label):\s*([^,}\n]+)",
                        lambda m: rng.choice(names + ["undefined_layer", "[]", "null", "{a: 1}"]), rng, 2)
    if op == 4:
        return _sub_one(text, r"type:\s*(\w+)", LAYER_FUNCS + ["MomentumOptimizer", "L2Regularization"], rng, 1)
    if op == 5:
        return _sub_one(text, r"act:\s*(\w+)", YAML_ACTS, rng, 1)
    if op == 6:  # aliases, tags and the alias bomb
        lines = text.split("\n")
        i = rng.randrange(len(lines))
        extra = rng.choice([
            "bomb0: &b0 [x, x, x, x, x, x, x, x, x]\nbomb1: &b1 [*b0, *b0, *b0, *b0, *b0, *b0, *b0, *b0, *b0]\n"
            "bomb2: &b2 [*b1, *b1, *b1, *b1, *b1, *b1, *b1, *b1, *b1]\nbomb3: &b3 [*b2, *b2, *b2, *b2, *b2, *b2, *b2]",
            "loop: &l [*l]", "anchor: &a {size: 3}\nuse: *a", "!!python/name:os.system", "? [complex, key]\n: 1",
            "x: !!python/object/new:type [a, [], {}]", "%TAG ! tag:evil,2000:\n---"])
        return "\n".join(lines[:i] + [extra] + lines[i:])
    return _sub_one(text, r":\s*([^\s{\[][^,}\n]*)", YAML_VALUES, rng, 1)


def mutate(seed_path, rng):
    """A damaged copy of the config at seed_path: 1 to 3 mutations."""
    with open(seed_path) as f:
        text = f.read()
    mutator = _mutate_yaml if seed_path.endswith(".yaml") else _mutate_py
    for _ in range(rng.choice([1, 1, 2, 3])):
        text = mutator(text, rng) or text
    return text


# --------------------------------------------------------------------------- running
KINDS = ["dense", "ids", "ids_seq", "dense_seq", "ids_subseq", "dense_subseq", "sparse"]
MAX_ELEMENTS = 1 << 22
SAVE_LIMIT = 4 << 20  # parameters (floats) up to which a case saves them and checks where they went


def _parse(path, case):
    from paddle.trainer.config_parser import parse_config
    seed_dir = os.path.dirname(case["seed"])
    for name, module in list(sys.modules.items()):  # the demos' providers share names ("dataprovider")
        if os.path.dirname(os.path.abspath(getattr(module, "__file__", None) or "/")).startswith(
                os.path.join(ROOT, "demos")):
            del sys.modules[name]
    sys.path.insert(0, seed_dir)  # the modules the config imports (a demo's provider)
    cwd = os.getcwd()
    os.chdir(os.path.dirname(path))  # what a damaged config writes (a ./train.list) stays in its case
    try:
        return parse_config(path, SMALL.get(os.path.basename(case["seed"]).split(".")[0], ""))
    finally:
        os.chdir(cwd)
        sys.path.remove(seed_dir)


def _slot(kind, size, rng):
    """One input slot of 2 samples (sequences of 3 and 2 tokens, sub-sequences 2+1 and 2)."""
    import numpy as np
    seq = kind.endswith("_seq") or kind.endswith("_subseq")
    rows = 5 if seq else 2
    if size <= 0 or rows * size > MAX_ELEMENTS:
        raise Outcome("clean", "data layer size %d: too big to feed (the config asks for it)" % size)
    slot = {"starts": np.array([0, 3, 5], np.int32) if seq else None,
            "sub": np.array([0, 2, 3, 5], np.int32) if kind.endswith("_subseq") else None}
    if kind.startswith("ids"):
        slot["ids"] = rng.randint(0, size, rows).astype(np.int32)
    elif kind == "sparse":
        slot["sparse"] = (np.array([0, 1, 3], np.int32), rng.randint(0, size, 3).astype(np.int32), size)
    else:
        slot["value"] = rng.rand(rows, size).astype(np.float32)
    return slot


def make_arguments(model, kinds, rng):
    """Random Arguments for the data layers of `model` (a ModelConfig) with the given kinds."""
    import numpy as np
    from py_paddle import swig_paddle as api
    sizes = {l.name: l.size for l in model.layers if l.type == "data"}
    names = list(model.input_layer_names)
    args = api.Arguments.createArguments(len(names))
    for i, name in enumerate(names):
        s = _slot(kinds.get(name, "dense"), int(sizes.get(name, 1)), rng)
        if "sparse" in s:
            rows, cols, width = s["sparse"]
            args.setSlotSparseFromBuffers(i, rows, cols, np.zeros(0, np.float32), width)
        elif "ids" in s:
            args.setSlotIdsFromBuffer(i, s["ids"])
        else:
            args.setSlotValueFromBuffer(i, s["value"])
        if s["starts"] is not None:
            args.setSlotSequenceStartPositionsFromBuffer(i, s["starts"])
        if s["sub"] is not None:
            args.setSlotSubSequenceStartPositionsFromBuffer(i, s["sub"])
    return args


def probe(case, work):
    """The kind of each data layer of a seed: the first combination that trains a batch."""
    import numpy as np
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api
    conf = _parse(case["seed"], case)
    model = conf.model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(model), False, 1)
    names = list(model.input_layer_names)
    last = None
    start = time.time()
    for combo in itertools.islice(itertools.product(KINDS, repeat=len(names)), 400):
        kinds = dict(zip(names, combo))
        try:
            out = api.Arguments.createArguments(0)
            t = time.time()
            gm.forwardBackward(make_arguments(model, kinds, np.random.RandomState(0)), out, api.PASS_TRAIN)
            # a case also builds a Trainer and trains: its time limit scales with this
            return {"outcome": "ok", "kinds": kinds, "seconds": time.time() - t + (t - start) / (1 + len(names))}
        except (ValueError, RuntimeError, IndexError) as e:
            last = e
    return {"outcome": "ok", "kinds": None, "detail": "no feed found: %s" % last}


def run_case(case, work):
    """Parses the damaged config; when it parses and the seed had a feed, trains one batch
    with a Trainer, then checks the cost, the parameters and where saving writes."""
    import numpy as np
    from paddle.proto import message_to_json
    from py_paddle import swig_paddle as api
    path = os.path.join(work, os.path.basename(case["seed"]))
    with open(path, "w") as f:
        f.write(case["text"])
    case["user_files"] = [path]
    conf = _parse(path, case)
    if case.get("kinds") is None:
        return {"outcome": "ok", "detail": "parsed (no feed)"}
    model = conf.model_config
    conf.opt_config.batch_size = 2
    trainer = api.Trainer.create(message_to_json(conf), False, 1, 1)
    args = make_arguments(model, case["kinds"], np.random.RandomState(case["index"]))
    trainer.startTrainPass(0)
    trainer.trainOneDataBatch(2, args)
    trainer.finishTrainPass()
    check_finite(trainer)
    gm = trainer.getGradientMachine()
    if sum(p.getSize() for p in gm.getParameters()) > SAVE_LIMIT:
        return {"outcome": "ok", "detail": "trained (too big to save each case)"}
    save = os.path.join(work, "out", "save")
    os.makedirs(save)

    def files():  # (the config itself may have written a ./train.list: that is not the save's)
        return {os.path.join(d, f) for d, _, fs in os.walk(work) for f in fs}
    before = files()
    trainer.saveParameters(save)
    stray = sorted(f for f in files() - before if not f.startswith(save + os.sep))
    if stray:
        raise Outcome("silent", "saving wrote outside save_dir: %s" % stray[:3])
    return {"outcome": "ok", "detail": "trained"}
