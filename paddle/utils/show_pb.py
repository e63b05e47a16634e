"""v1's show_pb: prints a ProtoData file (paddle.trainer.v1_data_sources) as protobuf text,
its DataHeader first, then each DataSample.

    python -m paddle.utils.show_pb FILE [--max_samples=N]
"""
import argparse
import sys

from paddle.proto import message_to_text
from paddle.trainer.v1_data_sources import read_proto_file


def show(path, out=sys.stdout, max_samples=None):
    header, samples = read_proto_file(path)
    out.write("header {\n%s}\n" % _indent(message_to_text(header)))
    n = 0
    for n, sample in enumerate(samples, 1):
        if max_samples is not None and n > max_samples:
            samples.close()
            break
        out.write("sample {\n%s}\n" % _indent(message_to_text(sample)))
    return n


def _indent(text):
    return "".join("  " + line + "\n" for line in text.splitlines())


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m paddle.utils.show_pb", description=__doc__.splitlines()[0])
    p.add_argument("file", help="a ProtoData file (.gz: gzip)")
    p.add_argument("--max_samples", type=int, default=None, help="print at most N samples")
    args = p.parse_args(argv)
    try:
        show(args.file, max_samples=args.max_samples)
    except (OSError, ValueError) as e:
        sys.stderr.write("show_pb: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
