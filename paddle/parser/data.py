"""Data sources: SimpleData/PyData/ProtoData/MultiData, TrainData and TestData."""

from paddle.proto.DataConfig_pb2 import DataConfig

from .errors import config_assert
from .registry import config_func, default
from .state import state


# data sources


def create_data_config_proto(async_load_data=False,
                             constant_slots=None,
                             data_ratio=1,
                             is_main_data=True,
                             usage_ratio=None):
    data_config = DataConfig()
    data_config.async_load_data = async_load_data
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    data_config.data_ratio = data_ratio
    data_config.is_main_data = is_main_data
    usage_ratio = default(usage_ratio, state.settings_deprecated['usage_ratio'])
    config_assert(0 <= usage_ratio <= 1, 'usage_ratio must be in [0, 1]')
    data_config.usage_ratio = usage_ratio
    return data_config


@config_func
def SimpleData(files=None,
               feat_dim=None,
               context_len=None,
               buffer_capacity=None,
               **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'simple'
    data_config.files = files
    data_config.feat_dim = feat_dim
    if context_len is not None:
        data_config.context_len = context_len
    if buffer_capacity:
        data_config.buffer_capacity = buffer_capacity
    return data_config


@config_func
def PyData(files=None,
           type=None,
           file_group_queue_capacity=None,
           load_data_module=None,
           load_data_object=None,
           load_data_args='',
           load_file_count=None,
           constant_slots=None,
           load_thread_num=None,
           **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'py'
    config_assert(load_data_module is not None and
                  load_data_object is not None,
                  'PyData needs load_data_module and load_data_object')
    state.py_module_name_list.append(load_data_module)
    data_config.load_data_module = load_data_module
    data_config.load_data_object = load_data_object
    data_config.load_data_args = load_data_args
    data_config.files = files or ''
    if file_group_queue_capacity is not None:
        data_config.file_group_conf.queue_capacity = file_group_queue_capacity
    if load_file_count is not None:
        data_config.file_group_conf.load_file_count = load_file_count
    if load_thread_num is not None:
        data_config.file_group_conf.load_thread_num = load_thread_num
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    return data_config


@config_func
def ProtoData(files=None,
              type=None,
              file_group_queue_capacity=None,
              load_file_count=None,
              constant_slots=None,
              load_thread_num=None,
              **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = 'proto' if type is None else type
    data_config.files = files
    if file_group_queue_capacity is not None:
        data_config.file_group_conf.queue_capacity = file_group_queue_capacity
    if load_file_count is not None:
        data_config.file_group_conf.load_file_count = load_file_count
    if load_thread_num is not None:
        data_config.file_group_conf.load_thread_num = load_thread_num
    if constant_slots:
        data_config.constant_slots.extend(constant_slots)
    return data_config


@config_func
def MultiData(sub_data=()):
    data_config = DataConfig()
    data_config.type = 'multi'
    data_config.sub_data_configs.extend(sub_data)
    return data_config


@config_func
def Data(type,
         files=None,
         feat_dim=None,
         slot_dims=None,
         context_len=None,
         buffer_capacity=None,
         **xargs):
    data_config = create_data_config_proto(**xargs)
    data_config.type = type
    if files is not None:
        data_config.files = files
    if feat_dim is not None:
        data_config.feat_dim = feat_dim
    if slot_dims:
        data_config.slot_dims.extend(slot_dims)
    if context_len is not None:
        data_config.context_len = context_len
    if buffer_capacity is not None:
        data_config.buffer_capacity = buffer_capacity
    return data_config


@config_func
def TrainData(data_config, async_load_data=None):
    config_assert(not state.config.HasField('data_config'),
                  'only one TrainData definition is allowed')
    state.config.data_config.CopyFrom(data_config)
    state.config.data_config.for_test = False
    if async_load_data is not None:
        state.config.data_config.async_load_data = async_load_data


@config_func
def TestData(data_config, async_load_data=None):
    config_assert(not state.config.HasField('test_data_config'),
                  'only one TestData definition is allowed')
    state.config.test_data_config.CopyFrom(data_config)
    state.config.test_data_config.for_test = True
    if async_load_data is not None:
        state.config.test_data_config.async_load_data = async_load_data


# ---------------------------------------------------------------------------
