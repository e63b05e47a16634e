#!/bin/bash
# Classifies image files (the arguments) with the last pass of train.sh's ResNet.
set -e
cd "$(dirname "$0")"
python predict.py --config resnet_cifar.py --config_args=depth=8 --model cifar_resnet_model/pass-00009 "$@"
