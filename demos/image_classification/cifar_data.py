"""The data section the CIFAR configs share."""
from paddle.trainer.config_parser import ConfigError
from paddle.trainer_config_helpers import *

BATCHES_DIR = 'data/cifar-out/batches/'


def cifar_data(dataset='synthetic', num_samples=0, is_predict=False):
    """Defines the data sources (none when predicting): the generated images, or the
    CIFAR-10 batches data/process_cifar.py wrote."""
    if dataset not in ('synthetic', 'cifar'):
        raise ConfigError("dataset must be 'synthetic' or 'cifar', got %r" % dataset)
    if is_predict:
        return
    lists = ('train.list', 'test.list') if dataset == 'synthetic' else \
        (BATCHES_DIR + 'train.list', BATCHES_DIR + 'test.list')
    define_py_data_sources2(lists[0], lists[1], module='image_provider', obj='processData',
                            args={'dataset': dataset, 'meta': BATCHES_DIR + 'batches.meta',
                                  'num_samples': num_samples})
