"""Messages of TrainerConfig.proto (v1 names), built at import time by paddle.proto."""

from paddle.proto import get_message_class as _get

OptimizationConfig = _get('OptimizationConfig')
TrainerConfig = _get('TrainerConfig')

__all__ = ['OptimizationConfig', 'TrainerConfig', ]
