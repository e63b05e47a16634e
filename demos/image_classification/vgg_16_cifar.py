# v1's vgg_16_cifar.py: small_vgg (VGG blocks of 64, 128, 256 and 512 filters with
# batch norm and dropout) on CIFAR-10, or on the generated images by default.
#   paddle train --config=vgg_16_cifar.py --save_dir=./cifar_vgg_model --num_passes=300
# --config_args: dataset=synthetic|cifar, num_samples (synthetic training images), is_predict.
from paddle.trainer_config_helpers import *

from cifar_data import cifar_data

is_predict = get_config_arg('is_predict', bool, False)
cifar_data(get_config_arg('dataset', str, 'synthetic'), get_config_arg('num_samples', int, 0), is_predict)

# lr 0.1 and decay 5e-4 on the mean loss: v1 sums gradients over the batch
settings(batch_size=128, learning_rate=0.1 / 128.0, learning_method=MomentumOptimizer(0.9),
         regularization=L2Regularization(0.0005 * 128))

img = data_layer(name='image', size=3 * 32 * 32)
predict = small_vgg(input_image=img, num_channels=3, num_classes=10)
if is_predict:
    outputs(predict)
else:
    outputs(classification_cost(input=predict, label=data_layer(name='label', size=10)))
