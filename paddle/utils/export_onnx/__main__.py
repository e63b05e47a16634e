"""python -m paddle.utils.export_onnx ...: the same as `paddle export_onnx ...`."""
import sys

from paddle.trainer.cli import main

sys.exit(main(["export_onnx"] + sys.argv[1:]))
