"""Evaluator(): evaluator configs."""

from .errors import config_assert
from .registry import config_func
from .state import state
from .submodels import MakeLayerNameInSubmodel


# evaluators


@config_func
def Evaluator(name,
              type,
              inputs,
              chunk_scheme=None,
              num_chunk_types=None,
              classification_threshold=None,
              positive_label=None,
              dict_file=None,
              result_file=None,
              num_results=None,
              top_k=None,
              delimited=None,
              excluded_chunk_types=None):
    evaluator = state.config.model_config.evaluators.add()
    evaluator.type = type
    evaluator.name = MakeLayerNameInSubmodel(name)
    if isinstance(inputs, str):
        inputs = [inputs]
    for input_name in inputs:
        input_name = MakeLayerNameInSubmodel(input_name)
        config_assert(
            input_name in state.layer_map,
            "evaluator '%s': unknown input layer '%s'" % (name, input_name))
        evaluator.input_layers.append(input_name)
    if chunk_scheme is not None:
        evaluator.chunk_scheme = chunk_scheme
        evaluator.num_chunk_types = num_chunk_types
    state.current_submodel.evaluator_names.append(evaluator.name)
    if classification_threshold is not None:
        evaluator.classification_threshold = classification_threshold
    if positive_label is not None:
        evaluator.positive_label = positive_label
    if dict_file is not None:
        evaluator.dict_file = dict_file
    if result_file is not None:
        evaluator.result_file = result_file
    if num_results is not None:
        evaluator.num_results = num_results
    if top_k is not None:
        evaluator.top_k = top_k
    if delimited is not None:
        evaluator.delimited = delimited
    if excluded_chunk_types:
        evaluator.excluded_chunk_types.extend(excluded_chunk_types)


# ---------------------------------------------------------------------------
