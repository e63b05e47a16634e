"""Messages of DataConfig.proto (v1 names), built at import time by paddle.proto."""

from paddle.proto import get_message_class as _get

FileGroupConf = _get('FileGroupConf')
DataConfig = _get('DataConfig')

__all__ = ['FileGroupConf', 'DataConfig', ]
