"""The exporter's error: one line for the user, naming the layer."""


class ExportError(ValueError):
    """A network (or a layer of it) that has no ONNX form, or inconsistent parameters."""
