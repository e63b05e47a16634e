"""Every layer type the config language can emit has an engine layer, so a config fails at
parse time or not at all, never with "unknown layer type" when the network is built."""
import paddle.parser as parser
from paddle.parser.layers_image import ConvLayerBase, ConvTransLayerBase
from paddle.parser.layers_sequence import SequenceFirstInstanceLayer, SequenceLastInstanceLayer
from py_paddle import swig_paddle as api

# Parser classes registered under a name they never emit: the type they write instead.
ALIASES = {"conv": {"exconv", "cudnn_conv"}, "convt": {"exconvt", "cudnn_convt"}, "seqfirstins": {"seqlastins"}}


def test_aliases_are_what_the_parser_classes_do():
    assert parser.g_layer_type_map["conv"] is ConvLayerBase
    assert parser.g_layer_type_map["convt"] is ConvTransLayerBase
    assert issubclass(SequenceFirstInstanceLayer, SequenceLastInstanceLayer)


def test_every_emitted_layer_type_has_an_engine_layer():
    emitted = set(parser.g_layer_type_map) - set(ALIASES)
    for targets in ALIASES.values():
        emitted |= targets
    missing = emitted - set(api.getLayerTypes())
    assert not missing, "no engine layer: %s" % sorted(missing)
