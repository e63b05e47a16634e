"""`paddle train` for the tests, where every rank (not only rank 0) saves its passes,
into SAVE_DIR/rank-R, so the tests can compare what the ranks hold after each pass."""
import os
import sys

from paddle.trainer import cli

_init = cli.TrainingJob.__init__


def init_saving_on_every_rank(job, args):
    _init(job, args)
    job.saves = True
    rank = job.cluster.rank if job.cluster else 0
    job.checkpoints.save_dir = os.path.join(os.environ["SAVE_DIR"], "rank-%d" % rank)


cli.TrainingJob.__init__ = init_saving_on_every_rank
sys.exit(cli.main())
