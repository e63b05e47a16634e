"""Trains the digits MLP (mlp.py) through the engine API, as v1's demo/mnist/api_train.py
did: the script owns the loop (GradientMachine + ParameterUpdater + Evaluator), reads
the data itself and saves a pass directory that `paddle train --job=test` can read.

    cd demos/mnist && python api_train.py --num_passes 30 --save_dir output_api
"""
import argparse
import os

import numpy as np

from paddle.trainer.PyDataProvider2 import dense_vector, integer_value
from paddle.trainer.config_parser import parse_config
from py_paddle import DataProviderConverter, swig_paddle as api

import mnist_provider


def batches(images, labels, batch_size, rng=None):
    order = np.arange(len(labels)) if rng is None else rng.permutation(len(labels))
    for start in range(0, len(order), batch_size):
        rows = order[start:start + batch_size]
        yield [(images[i], int(labels[i])) for i in rows]


def test(gm, converter, images, labels, batch_size):
    """Average cost and the evaluators' text over the test split."""
    evaluator = gm.makeEvaluator()
    evaluator.start()
    out, cost = api.Arguments.createArguments(0), 0.0
    for batch in batches(images, labels, batch_size):
        gm.forward(converter(batch), out, api.PASS_TEST)
        cost += out.sum()
        gm.eval(evaluator)
    evaluator.finish()
    return cost / len(labels), evaluator


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--num_passes", type=int, default=30)
    ap.add_argument("--save_dir", default="output_api")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    api.initPaddle("--use_gpu=0", "--trainer_count=1")
    conf = parse_config("mlp.py", "")
    batch_size = conf.opt_config.batch_size
    updater = api.ParameterUpdater.createLocalUpdater(api.OptimizationConfig.createFromProto(conf.opt_config))
    gm = api.GradientMachine.createFromConfigProto(conf.model_config, seed=args.seed)
    updater.init(gm)
    converter = DataProviderConverter([dense_vector(mnist_provider.DIGITS_DIM),
                                       integer_value(mnist_provider.NUM_CLASSES)])
    train_x, train_y = mnist_provider.load_digits_split("train")
    test_x, test_y = mnist_provider.load_digits_split("test")
    rng = np.random.RandomState(args.seed)

    gm.start()
    for pass_id in range(args.num_passes):
        updater.startPass()
        evaluator = gm.makeEvaluator()
        out, cost = api.Arguments.createArguments(0), 0.0
        for batch in batches(train_x, train_y, batch_size, rng):
            pass_type = updater.startBatch(len(batch))
            gm.forwardBackward(converter(batch), out, pass_type)
            for param in gm.getParameters():
                updater.update(param)
            gm.eval(evaluator)
            cost += out.sum()
            updater.finishBatch(out.sum() / len(batch))
        evaluator.finish()
        updater.apply()  # the averaged weights under ModelAverage, for testing and saving
        test_cost, test_eval = test(gm, converter, test_x, test_y, batch_size)
        print("Pass=%d AvgCost=%.6g Eval: %s Test cost=%.6g Eval: %s"
              % (pass_id, cost / len(train_y), evaluator, test_cost, test_eval))
        updater.catchUpWith()
        path = os.path.join(args.save_dir, "pass-%05d" % pass_id)
        os.makedirs(path, exist_ok=True)
        for param in gm.getParameters():
            param.save(os.path.join(path, param.getName()))
        updater.restore()
        updater.finishPass()
    gm.finish()


if __name__ == "__main__":
    main()
