#!/usr/bin/env python3
"""LSTM cost tracks tokens, not batch x max_len (no padding).

    python benchmarks/lstm_tokens.py [--threads 1]

Times one training step (forward, backward, Adam update) of the lstm_text model
(embedding 128 -> LSTM 128 -> max pool over time -> fc 2 softmax) on 64
sequences of mixed lengths (uniform 10..200, fixed seed) and on 64 sequences of
one equal length holding the same number of tokens, and prints the ratio
(the acceptance bound is 1.3).
"""
import argparse
import os
import statistics
import sys
import tempfile
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import run  # noqa: E402  (in-place build detection, config, timing)

LSTM_CONFIG = run.LSTM_TEXT_CONFIG


def step_time(lengths, vocab, repeats, trainer, api):
    rng = np.random.RandomState(1)
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int32)
    args = api.Arguments.createArguments(2)
    args.setSlotIdsFromBuffer(0, rng.randint(0, vocab, starts[-1]).astype(np.int32))
    args.setSlotSequenceStartPositionsFromBuffer(0, starts)
    args.setSlotIdsFromBuffer(1, rng.randint(0, 2, len(lengths)).astype(np.int32))
    for _ in range(2):
        trainer.trainOneDataBatch(len(lengths), args)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        trainer.trainOneDataBatch(len(lengths), args)
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--repeats", type=int, default=15)
    a = p.parse_args()
    os.environ["OPENBLAS_NUM_THREADS"] = str(a.threads)
    from paddle.proto import message_to_json
    from paddle.trainer.config_parser import parse_config
    from py_paddle import swig_paddle as api

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(LSTM_CONFIG)
    conf = parse_config(f.name, "")
    os.unlink(f.name)
    trainer = api.Trainer.create(message_to_json(conf), False, 1, 1)
    trainer.startTrainPass(0)
    mixed = np.random.RandomState(0).randint(10, 201, 64)
    tokens = int(mixed.sum())
    equal = np.full(64, tokens // 64)
    equal[: tokens - int(equal.sum())] += 1  # exactly the same token count
    t_mixed = step_time(mixed, run.TEXT_VOCAB, a.repeats, trainer, api)
    t_equal = step_time(equal, run.TEXT_VOCAB, a.repeats, trainer, api)
    print("%d tokens: mixed lengths 10..200 %.1f ms/step, equal lengths %d %.1f ms/step, ratio %.2f "
          "(padded to 200 would be %.1fx the tokens)" % (tokens, t_mixed * 1e3, equal[0], t_equal * 1e3,
                                                         t_mixed / t_equal, 64 * 200 / tokens))


if __name__ == "__main__":
    main()
