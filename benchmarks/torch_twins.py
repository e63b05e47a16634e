"""PyTorch twins of benchmarks/run.py's models, on the same synthetic batches.

Two setups (`--torch`):
  stock: idiomatic PyTorch with its defaults (for-loop optimizers, NCHW, Conv1d, glibc malloc
         defaults);
  tuned: PyTorch at its best on this CPU for the same math: fused optimizers (Adam, SGD and the
         dense Adagrad; the sparse-gradient Adagrad has no fused form and stays stock), glibc
         malloc told to keep freed memory (no page faults on every step's activations), LeNet
         in channels_last, cnn_text's convolution as a 1x3 conv2d on channels_last, and
         lstm_text both ways (variant "padded": oneDNN's fused LSTM over the padded batch;
         "packed": packed sequences); run.py runs both and takes the faster.
Only imported in a torch child process: the harness itself never needs torch.
"""
import ctypes

import numpy as np


def keep_freed_memory():
    """glibc: serve big blocks from the heap, never trim it, grow it 256 MB at a time, so
    memory freed at the end of a step is reused by the next one without page faults."""
    libc = ctypes.CDLL("libc.so.6")
    m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3
    ok = (libc.mallopt(m_mmap_threshold, 1 << 30) and libc.mallopt(m_trim_threshold, 1 << 34)
          and libc.mallopt(m_top_pad, 256 << 20))
    if not ok:
        raise RuntimeError("mallopt failed: the tuned allocator settings are not applied")


def train_step(model_loss, opt):
    """One training step on a batch; `loss` and `optimizer` stay reachable for checks."""
    def step(batch):
        opt.zero_grad(set_to_none=True)
        model_loss(batch).backward()
        opt.step()
    step.loss, step.optimizer = model_loss, opt
    return step


def autocast_step(step, device_type):
    """step with the forward and the loss under torch.autocast(bfloat16): the bf16 reference
    (weights, gradients and optimizer state stay fp32; the backward follows the autocast graph)."""
    import torch
    model_loss = step.loss

    def bf16_loss(batch):
        with torch.autocast(device_type, dtype=torch.bfloat16):
            return model_loss(batch)
    return train_step(bf16_loss, step.optimizer)


def build(name, batches, threads, gpu, setup, variant="", vocab=30000, precision="fp32"):
    """(step, batches, sync) of benchmark `name`'s twin under `setup` ("tuned" or "stock"), over
    run.py's synthetic `batches`; `vocab`: the text benchmarks' vocabulary; precision "bf16":
    under autocast (autocast_step)."""
    step, data, sync = _build(name, batches, threads, gpu, setup, variant, vocab)
    if precision == "bf16":
        step = autocast_step(step, "cuda" if gpu else "cpu")
    return step, data, sync


def _build(name, batches, threads, gpu, setup, variant, vocab):
    import torch

    tuned = setup == "tuned"
    if tuned and not gpu:
        keep_freed_memory()
    torch.set_num_threads(threads)
    device = torch.device("cuda" if gpu else "cpu")
    sync = torch.cuda.synchronize if gpu else (lambda: None)
    if name == "sparse_ctr":
        if gpu:
            raise RuntimeError("sparse_ctr: sparse updates run on the CPU only (ours too)")
        return ctr(batches) + (sync,)
    if name == "gru_seq2seq_attention":
        return seq2seq(batches, device, tuned) + (sync,)
    if name in ("lstm_text", "cnn_text"):
        return text(name, batches, device, tuned, variant, vocab) + (sync,)
    return image(name, batches, device, tuned) + (sync,)


def image(name, batches, device, tuned):
    import torch
    import torch.nn as nn

    if name == "mlp":
        model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(),
                              nn.Linear(512, 10)).to(device)
        opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=tuned)
        shape = (-1, 784)
    else:  # lenet
        model = nn.Sequential(nn.Conv2d(1, 20, 5), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(20, 50, 5), nn.ReLU(),
                              nn.MaxPool2d(2), nn.Flatten(), nn.Linear(800, 500), nn.ReLU(),
                              nn.Linear(500, 10)).to(device)
        if tuned:  # NHWC: oneDNN's fast layout for convolution and pooling
            model = model.to(memory_format=torch.channels_last)
        opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, fused=tuned)
        shape = (-1, 1, 28, 28)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = []
    for x, y in batches:
        x = torch.from_numpy(x).reshape(shape).to(device)
        if tuned and name == "lenet":
            x = x.contiguous(memory_format=torch.channels_last)
        data.append((x, torch.from_numpy(y).long().to(device)))
    return train_step(lambda b: loss_fn(model(b[0]), b[1]), opt), data


def ctr(batches):
    """A sum-mode EmbeddingBag with sparse gradients (only the touched rows of the 1M-row table
    are updated), fc 64 relu, fc 1, logistic loss, Adagrad (stock in both setups: the fused
    Adagrad takes no sparse gradients)."""
    import torch
    import torch.nn as nn

    bag = nn.EmbeddingBag(1000000, 64, mode="sum", sparse=True)
    head = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.Adagrad(list(bag.parameters()) + list(head.parameters()), lr=0.05)
    loss_fn = nn.BCEWithLogitsLoss(reduction="sum")
    data = [(torch.from_numpy(cols).long(), torch.from_numpy(rows[:-1]).long(), torch.from_numpy(y))
            for rows, cols, y in batches]
    return train_step(lambda b: loss_fn(head(bag(b[0], b[1])), b[2]), opt), data


def seq2seq(batches, device, tuned, vocab=10000, dim=256):
    """seq2seq_net's twin (word_dim = hidden = 256): a bidirectional GRU encoder over packed
    sources, a GRUCell decoder with additive attention over the padded, masked annotations
    (teacher forcing), the vocabulary projection once over the real target positions after the
    loop, as ours does; Adam."""
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class Seq2Seq(nn.Module):
        def __init__(self):
            super().__init__()
            self.src_emb, self.trg_emb = nn.Embedding(vocab, dim), nn.Embedding(vocab, dim)
            self.encoder = nn.GRU(dim, dim, batch_first=True, bidirectional=True)
            self.boot = nn.Linear(dim, dim)
            self.key, self.query = nn.Linear(2 * dim, dim, bias=False), nn.Linear(dim, dim)
            self.score = nn.Linear(dim, 1, bias=False)
            self.cell = nn.GRUCell(3 * dim, dim)
            self.out = nn.Linear(dim, vocab)

        def forward(self, src, src_len, src_mask, trg_in, trg_mask):
            packed = pack_padded_sequence(self.src_emb(src), src_len, batch_first=True, enforce_sorted=False)
            enc, last = self.encoder(packed)
            enc = pad_packed_sequence(enc, batch_first=True)[0]
            keys = self.key(enc)
            state = torch.tanh(self.boot(last[1]))  # the backward GRU's state at the first token
            words = self.trg_emb(trg_in)
            states = []
            for t in range(trg_in.shape[1]):
                energy = self.score(torch.tanh(keys + self.query(state).unsqueeze(1))).squeeze(2)
                weights = torch.softmax(energy.masked_fill(~src_mask, float("-inf")), dim=1)
                context = torch.bmm(weights.unsqueeze(1), enc).squeeze(1)
                state = self.cell(torch.cat([context, words[:, t]], dim=1), state)
                states.append(state)
            return self.out(torch.stack(states, dim=1)[trg_mask])

    def padded(ids, starts):
        lengths = np.diff(starts)
        out = np.zeros((len(lengths), lengths.max()), np.int64)
        mask = np.arange(lengths.max())[None, :] < lengths[:, None]
        out[mask] = ids
        return torch.from_numpy(out), torch.from_numpy(lengths), torch.from_numpy(mask)

    model = Seq2Seq().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=tuned)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = []
    for b in batches:
        src, src_len, src_mask = padded(*b["source_words"])
        trg_in, _, trg_mask = padded(*b["target_words"])
        labels = torch.from_numpy(b["target_next_words"][0]).long()
        data.append((src.to(device), src_len, src_mask.to(device), trg_in.to(device), trg_mask.to(device),
                     labels.to(device)))
    return train_step(lambda b: loss_fn(model(*b[:5]), b[5]), opt), data


def text(name, batches, device, tuned, variant, vocab):
    """lstm_text / cnn_text on padded batches with a masked max-pool over time; lstm_text's
    "packed" variant runs the LSTM on packed sequences (no work on padding)."""
    import torch
    import torch.nn as nn
    from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

    class TextNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, 128)
            if name == "lstm_text":
                self.seq = nn.LSTM(128, 128, batch_first=True)
            else:
                self.seq = nn.Conv1d(128, 128, 3, padding=1)
            self.out = nn.Linear(128, 2)

        def forward(self, ids, mask, lengths):
            x = self.emb(ids)
            if name == "cnn_text" and tuned:  # the same conv as a 1x3 conv2d over NHWC (B, E, 1, T)
                x = x.transpose(1, 2).unsqueeze(2).contiguous(memory_format=torch.channels_last)
                w = self.seq.weight.unsqueeze(2)
                h = torch.relu(nn.functional.conv2d(x, w, self.seq.bias, padding=(0, 1))).squeeze(2).transpose(1, 2)
            elif name == "cnn_text":
                h = torch.relu(self.seq(x.transpose(1, 2))).transpose(1, 2)
            elif variant == "packed":
                packed = pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
                h = pad_packed_sequence(self.seq(packed)[0], batch_first=True)[0]
            else:
                h, _ = self.seq(x)
            h = h.masked_fill(~mask.unsqueeze(-1), float("-inf")).max(1).values
            return self.out(h)

    model = TextNet().to(device)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3 if name == "lstm_text" else 1e-3, fused=tuned)
    loss_fn = nn.CrossEntropyLoss(reduction="sum")
    data = []
    for ids, lengths, y in batches:
        padded = np.zeros((len(lengths), lengths.max()), np.int64)
        mask = np.arange(lengths.max())[None, :] < lengths[:, None]
        padded[mask] = ids
        data.append((torch.from_numpy(padded).to(device), torch.from_numpy(mask).to(device),
                     torch.from_numpy(lengths), torch.from_numpy(y).long().to(device)))
    return train_step(lambda b: loss_fn(model(b[0], b[1], b[2]), b[3]), opt), data
