"""benchmarks/torch_twins.py: the tuned setup's faster forms compute what the stock forms do
(same initial weights, same batch, same loss), and the tuned optimizers are the fused ones."""
import os
import sys

import pytest

torch = pytest.importorskip("torch")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
import run  # noqa: E402
import torch_twins  # noqa: E402


@pytest.fixture(autouse=True)
def keep_this_processes_allocator(monkeypatch):
    monkeypatch.setattr(torch_twins, "keep_freed_memory", lambda: None)


def first_loss(name, setup, variant=""):
    """(step, first batch, loss on it) of a twin built from seed 0."""
    torch.manual_seed(0)
    batches = run.BATCHES[name](run.BENCHES[name]["batch"], n=1)
    step, data, _ = torch_twins.build(name, batches, 1, False, setup, variant, run.TEXT_VOCAB)
    return step, data[0], step.loss(data[0]).item()


@pytest.mark.parametrize("name, tuned, stock", [("lenet", ("tuned", ""), ("stock", "")),
                                                ("cnn_text", ("tuned", ""), ("stock", "")),
                                                ("lstm_text", ("tuned", "packed"), ("stock", "padded"))])
def test_tuned_forms_compute_the_stock_loss(name, tuned, stock):
    fast = first_loss(name, *tuned)[2]
    plain = first_loss(name, *stock)[2]
    assert fast == pytest.approx(plain, rel=1e-4)


def test_tuned_optimizers_are_fused_except_sparse_adagrad():
    for name in ("mlp", "lenet", "cnn_text"):
        assert first_loss(name, "tuned")[0].optimizer.defaults["fused"], name
        assert not first_loss(name, "stock")[0].optimizer.defaults["fused"], name
    step = first_loss("sparse_ctr", "tuned")[0]
    assert not step.optimizer.defaults.get("fused")


def test_a_step_of_every_lstm_variant_lowers_the_loss_on_its_batch():
    for setup, table in run.TORCH_VARIANTS.items():
        for variant in table["lstm_text"]:
            step, batch, before = first_loss("lstm_text", setup, variant)
            step(batch)
            assert step.loss(batch).item() < before, (setup, variant)
