"""get_output and print (layers/UtilityLayers.cpp), and a parsed v1 config using the layers of
this family and of the structured costs."""
import numpy as np
import pytest

from netbuilder import Net, forward_values, gradient_check, make_args, rand, sum_cost_net_output
from py_paddle import swig_paddle as api

B = 5


def test_get_output_default_passes_values_and_gradients():
    rng = np.random.RandomState(2)
    net = Net()
    x = net.data("x", 3)
    h = net.fc("h", [(x, 3)], 4, act="tanh")
    net.layers.append({"name": "g", "type": "get_output", "size": 4, "active_type": "",
                       "inputs": [{"input_layer_name": h, "input_layer_argument": "default"}]})
    sum_cost_net_output(net, "g", 4)
    gm = net.build()
    slots = [rand(rng, B, 3), rand(rng, B, 4)]
    gradient_check(gm, slots, input_slots=[0])
    np.testing.assert_array_equal(forward_values(gm, slots, "g"), forward_values(gm, slots, "h"))


def test_get_output_unknown_name_lists_the_outputs():
    net = Net()
    x = net.data("x", 3)
    h = net.fc("h", [(x, 3)], 4)
    net.layers.append({"name": "g", "type": "get_output", "size": 4, "active_type": "",
                       "inputs": [{"input_layer_name": h, "input_layer_argument": "state"}]})
    with pytest.raises(ValueError, match=r"has no output 'state' \(it has: default\)"):
        net.build()


def test_print_layer_logs_its_inputs(capfd):
    net = Net()
    x = net.data("x", 2)
    ids = net.data("ids", 5)
    net.layer("p", "print", 0, [x, ids])
    net.output(net.fc("y", [(x, 2)], 1))
    gm = net.build()
    gm.forward(make_args([np.array([[1.5, -2], [3, 4]], np.float32), np.array([4, 1], np.int32)]),
               api.Arguments.createArguments(0), api.PASS_TEST)
    err = capfd.readouterr().err
    assert "layer=x value (2x2):\n1.5 -2\n3 4\n" in err
    assert "layer=ids ids: 4 1\n" in err


def test_parsed_v1_config_with_these_layers_runs(capfd):
    """hsigmoid, nce, selective_fc, lambda_cost, print as the config helpers write them."""
    from paddle.trainer.config_parser import parse_config
    from paddle.proto import message_to_json

    def conf():
        from paddle.trainer_config_helpers import (data_layer, fc_layer, hsigmoid, nce_layer, selective_fc_layer,
                                                   lambda_cost, print_layer, outputs, settings, TanhActivation,
                                                   SoftmaxActivation, classification_cost)
        settings(batch_size=4)
        x = data_layer(name="x", size=6)
        lab = data_layer(name="label", size=5)
        sel = data_layer(name="sel", size=5)
        w = data_layer(name="w", size=1)
        h = fc_layer(input=x, size=4, act=TanhActivation())
        print_layer(input=[h, lab])
        s = selective_fc_layer(input=h, size=5, select=sel, act=SoftmaxActivation())
        score = fc_layer(input=h, size=1)
        rel = data_layer(name="rel", size=1)
        outputs(hsigmoid(input=[h, x], label=lab, num_classes=5),
                nce_layer(input=h, label=lab, num_classes=5, weight=w, num_neg_samples=2,
                          neg_distribution=[0.2] * 5),
                classification_cost(input=s, label=lab),
                lambda_cost(input=score, score=rel, NDCG_num=2))

    mc = parse_config(conf, "").model_config
    gm = api.GradientMachine.createByConfigJson(message_to_json(mc), False, 1)
    rng = np.random.RandomState(13)
    names = list(gm.getInputLayerNames())
    data = {"x": rand(rng, 4, 6), "label": np.array([0, 3, 4, 1], np.int32), "sel": np.ones((4, 5), np.float32),
            "w": np.ones((4, 1), np.float32), "rel": np.array([[2], [0], [1], [3]], np.float32)}
    args = make_args([data[n] for n in names])
    for n in ("x", "rel"):  # one query list of 4 items for lambda_cost
        args.setSlotSequenceStartPositionsFromBuffer(names.index(n), np.array([0, 4], np.int32))
    out = api.Arguments.createArguments(0)
    gm.forwardBackward(args, out, api.PASS_TRAIN)
    assert np.isfinite(out.sum())
    assert "layer=label ids: 0 3 4 1" in capfd.readouterr().err
