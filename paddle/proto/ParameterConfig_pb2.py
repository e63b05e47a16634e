"""Messages of ParameterConfig.proto (v1 names), built at import time by paddle.proto."""

from paddle.proto import get_message_class as _get

ParameterUpdaterHookConfig = _get('ParameterUpdaterHookConfig')
ParameterConfig = _get('ParameterConfig')

__all__ = ['ParameterUpdaterHookConfig', 'ParameterConfig', ]

PARAMETER_INIT_NORMAL = 0
PARAMETER_INIT_UNIFORM = 1
