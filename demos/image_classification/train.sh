#!/bin/bash
# Trains ResNet-8 on the generated images; after data/get_data.sh add dataset=cifar
# (and depth=32, or use vgg_16_cifar.py as v1 did).
set -e
cd "$(dirname "$0")"
paddle train --config=resnet_cifar.py --save_dir=./cifar_resnet_model --num_passes=10 \
    --config_args=depth=8 "$@" 2>&1 | tee train.log
