"""`paddle train` for the tests, where every rank (not only rank 0) saves its passes,
into SAVE_DIR/rank-R, so the tests can compare what the ranks hold after each pass."""
import os
import sys

from paddle.trainer import cli

_save = cli.TrainingJob.save


def save_on_every_rank(job, pass_id):
    cluster, job.cluster = job.cluster, None
    job.save_dir = os.path.join(os.environ["SAVE_DIR"], "rank-%d" % (cluster.rank if cluster else 0))
    try:
        _save(job, pass_id)
    finally:
        job.cluster = cluster


cli.TrainingJob.save = save_on_every_rank
sys.exit(cli.main())
