#!/bin/bash
# Downloads CIFAR-10 (python version) and writes data/cifar-out/batches (see
# process_cifar.py); then train with --config_args=dataset=cifar.
set -e
cd "$(dirname "$0")"
if [ ! -f cifar-10-python.tar.gz ]; then
    wget https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz
fi
python process_cifar.py cifar-10-python.tar.gz cifar-out
