# Linear regression (v1 demo/introduction): learn w and b of y = w*x + b from
# points of y = 2x + 0.3. The weight and bias get the names 'w' and 'b', so a
# saved pass holds them as output/pass-NNNNN/w and .../b.
from paddle.trainer_config_helpers import *

num_samples = get_config_arg('num_samples', int, 2000)
is_predict = get_config_arg('is_predict', bool, False)  # predict.py: y_predict is the output

# 1. data: dataprovider.py generates the points
if not is_predict:
    define_py_data_sources2(train_list='train.list', test_list='test.list', module='dataprovider',
                            obj='process', args={'num_samples': num_samples})

# 2. learning algorithm (v1 sums gradients over the batch)
settings(batch_size=12, learning_rate=1e-3, learning_method=MomentumOptimizer())

# 3. network: one linear unit
x = data_layer(name='x', size=1)
y_predict = fc_layer(input=x, param_attr=ParamAttr(name='w'), size=1, act=LinearActivation(),
                     bias_attr=ParamAttr(name='b'))
if is_predict:
    outputs(y_predict)
else:
    y = data_layer(name='y', size=1)
    cost = regression_cost(input=y_predict, label=y)
    outputs(cost)
