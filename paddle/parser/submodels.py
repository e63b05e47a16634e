"""Inputs/Outputs and sub-models (the root network and recurrent layer groups), with
v1's layer naming inside sub-models."""

from .errors import config_assert
from .registry import config_func
from .state import _config_line, state


@config_func
def Inputs(*args):
    for name in args:
        name = MakeLayerNameInSubmodel(name)
        config_assert(not state.current_submodel.is_recurrent_layer_group,
                      'Inputs() cannot be used inside a recurrent group')
        # v1 lets Inputs() name layers defined later: checked when the parse ends
        state.name_sites.setdefault(name, _config_line())
        state.current_submodel.input_layer_names.append(name)
        if state.current_submodel is state.root_submodel:
            state.config.model_config.input_layer_names.append(name)


@config_func
def HasInputsSet():
    return len(state.current_submodel.input_layer_names) != 0


@config_func
def Outputs(*args):
    for name in args:
        name = MakeLayerNameInSubmodel(name)
        config_assert(not state.current_submodel.is_recurrent_layer_group,
                      'Outputs() cannot be used inside a recurrent group')
        state.name_sites.setdefault(name, _config_line())
        state.current_submodel.output_layer_names.append(name)
        if state.current_submodel is state.root_submodel:
            state.config.model_config.output_layer_names.append(name)


@config_func
def SubModelBegin(name):
    state.submodel_stack.append(state.current_submodel)
    name = MakeLayerNameInParentSubmodel(name)
    config_assert(name not in state.submodel_map,
                  'Duplicated submodel name: %s' % name)
    sub_model = state.config.model_config.sub_models.add()
    sub_model.name = name
    state.submodel_map[name] = sub_model
    state.current_submodel = sub_model


@config_func
def SubModelEnd(name=None):
    config_assert(state.current_submodel is not state.root_submodel,
                  'SubModelEnd without SubModelBegin')
    if name is not None:
        config_assert(
            state.current_submodel.name == MakeLayerNameInParentSubmodel(name),
            'SubModelEnd: name %s does not match %s' %
            (name, state.current_submodel.name))
    state.current_submodel = state.submodel_stack.pop()


def MakeLayerNameInParentSubmodel(name):
    suffix = ''
    if len(state.submodel_stack) > 1:
        suffix = '@' + state.submodel_stack[-1].name
    return name + suffix


def GetLayerBaseName(name):
    return name.split('@')[0]


def MakeLayerNameInSubmodel(name, submodel_name=None):
    if (submodel_name is None and not state.add_submodel_suffix and
            not state.current_submodel.is_recurrent_layer_group):
        return name
    if submodel_name is None:
        submodel_name = state.current_submodel.name
    return name + '@' + submodel_name


@config_func
def model_type(name):
    state.config.model_config.type = name


@config_func
def EnableSubmodelSuffix(flag=True):
    state.add_submodel_suffix = flag


@config_func
def cluster_config(**args):
    pass
