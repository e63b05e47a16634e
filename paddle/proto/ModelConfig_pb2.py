"""Messages of ModelConfig.proto (v1 names), built at import time by paddle.proto."""

from paddle.proto import get_message_class as _get

ExternalConfig = _get('ExternalConfig')
ActivationConfig = _get('ActivationConfig')
ConvConfig = _get('ConvConfig')
PoolConfig = _get('PoolConfig')
SppConfig = _get('SppConfig')
NormConfig = _get('NormConfig')
BlockExpandConfig = _get('BlockExpandConfig')
MaxOutConfig = _get('MaxOutConfig')
ProjectionConfig = _get('ProjectionConfig')
OperatorConfig = _get('OperatorConfig')
BilinearInterpConfig = _get('BilinearInterpConfig')
ImageConfig = _get('ImageConfig')
PriorBoxConfig = _get('PriorBoxConfig')
PadConfig = _get('PadConfig')
LayerInputConfig = _get('LayerInputConfig')
LayerConfig = _get('LayerConfig')
EvaluatorConfig = _get('EvaluatorConfig')
LinkConfig = _get('LinkConfig')
MemoryConfig = _get('MemoryConfig')
GeneratorConfig = _get('GeneratorConfig')
SubModelConfig = _get('SubModelConfig')
ModelConfig = _get('ModelConfig')

__all__ = ['ExternalConfig', 'ActivationConfig', 'ConvConfig', 'PoolConfig', 'SppConfig', 'NormConfig', 'BlockExpandConfig', 'MaxOutConfig', 'ProjectionConfig', 'OperatorConfig', 'BilinearInterpConfig', 'ImageConfig', 'PriorBoxConfig', 'PadConfig', 'LayerInputConfig', 'LayerConfig', 'EvaluatorConfig', 'LinkConfig', 'MemoryConfig', 'GeneratorConfig', 'SubModelConfig', 'ModelConfig', ]
