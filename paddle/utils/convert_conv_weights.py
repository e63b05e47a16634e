"""Converts the convolution filters of a model saved by an earlier version of this project
to v0.10's layout, which the engine now uses.

    python -m paddle.utils.convert_conv_weights --config=trainer_config.py \\
        --model_dir=output/pass-00009 --output_dir=converted/pass-00009 [--config_args=k=v,...]

v0.10 (like cuDNN) stores the filters of img_conv_layer, per group of `groups`, as an
[M][K] block: M = the group's filters (its input channels for a transposed conv,
trans=True), K = (image-side channels / groups) * filter_size_y * filter_size; so a conv
weight is W[num_filters][channels/groups][fh][fw]. Earlier versions of this project stored
each block transposed, [K][M]. The model directory is copied to --output_dir, and there the
weights of the exconv/cudnn_conv/exconvt/cudnn_convt layers and their optimizer state
(optimizer/NAME.*) are transposed. Conv projections and operators (inside mixed_layer)
always used v0.10's layout and are left alone. Converting twice scrambles the filters, so
the output directory must be new.
"""
import argparse
import os
import shutil
import struct
import sys

import numpy as np

from paddle.trainer.config_parser import ConfigError, parse_config

__all__ = ['conv_weight_blocks', 'to_v010_layout', 'convert_model_dir', 'main']

CONV_TYPES = ('exconv', 'cudnn_conv', 'exconvt', 'cudnn_convt')
HEADER = struct.Struct('<iIQ')  # v1 parameter file: version 0, value size 4, value count


def conv_weight_blocks(model_config):
    """{parameter name: (groups, K, M)} of every conv layer's filter parameter."""
    blocks = {}
    for layer in model_config.layers:
        if layer.type not in CONV_TYPES:
            continue
        trans = layer.type.endswith('t')
        for inp in layer.inputs:
            conv = inp.conv_conf
            K = conv.filter_channels * conv.filter_size * (conv.filter_size_y or conv.filter_size)
            M = (conv.channels if trans else layer.num_filters) // conv.groups
            shape = (conv.groups, K, M)
            name = inp.input_parameter_name
            if blocks.setdefault(name, shape) != shape:
                raise ValueError("parameter '%s' is the filter of convolutions of different shapes "
                                 "(layer '%s')" % (name, layer.name))
    return blocks


def to_v010_layout(values, groups, K, M):
    """Filters stored per group as [K][M] (earlier versions) -> v0.10's [M][K]."""
    return np.ascontiguousarray(values.reshape(groups, K, M).transpose(0, 2, 1)).reshape(-1)


def _transpose_file(path, groups, K, M):
    with open(path, 'rb') as f:
        header = f.read(HEADER.size)
        values = np.frombuffer(f.read(), dtype=np.float32)
    if len(header) != HEADER.size:
        raise ValueError('%s: not a parameter file (%d bytes)' % (path, len(header)))
    version, value_size, count = HEADER.unpack(header)
    if version != 0 or value_size != 4 or count != values.size:
        raise ValueError('%s: not a v1 float32 parameter file (version %d, value size %d, %d of %d values)'
                         % (path, version, value_size, values.size, count))
    if count != groups * K * M:
        raise ValueError('%s holds %d values; the config gives this convolution %d x %d x %d = %d'
                         % (path, count, groups, M, K, groups * K * M))
    tmp = path + '.convert-tmp'
    with open(tmp, 'wb') as f:
        f.write(header)
        f.write(to_v010_layout(values, groups, K, M).tobytes())
    os.replace(tmp, path)


def convert_model_dir(config, model_dir, output_dir, config_args=''):
    """Copies model_dir to output_dir (which must not exist) with the conv filters of `config`
    (a config path or callable) in v0.10's layout. Returns the paths transposed there."""
    blocks = conv_weight_blocks(parse_config(config, config_args or '').model_config)
    if not os.path.isdir(model_dir):
        raise ValueError('--model_dir %s is not a directory' % model_dir)
    if os.path.exists(output_dir):
        raise ValueError('--output_dir %s exists: give a new directory (converting twice scrambles the filters)'
                         % output_dir)
    shutil.copytree(model_dir, output_dir)
    optimizer = os.path.join(output_dir, 'optimizer')
    state = sorted(os.listdir(optimizer)) if os.path.isdir(optimizer) else []
    done = []
    for name, (groups, K, M) in sorted(blocks.items()):
        path = os.path.join(output_dir, name)
        if not os.path.isfile(path):
            raise ValueError("%s has no file for the conv parameter '%s'" % (model_dir, name))
        paths = [path] + [os.path.join(optimizer, f) for f in state
                          if f.startswith(name + '.') and '.' not in f[len(name) + 1:]]
        for p in paths:
            _transpose_file(p, groups, K, M)
        done.extend(paths)
    return done


def main(argv=None):
    p = argparse.ArgumentParser(prog='python -m paddle.utils.convert_conv_weights',
                                description=__doc__.split('\n\n')[0])
    p.add_argument('--config', required=True, help='the trainer config the model was trained with')
    p.add_argument('--config_args', default='', help='its config args (k=v,...)')
    p.add_argument('--model_dir', required=True, help='a saved pass (e.g. output/pass-00009)')
    p.add_argument('--output_dir', required=True, help='where the converted copy goes (a new directory)')
    args = p.parse_args(argv)
    try:
        done = convert_model_dir(args.config, args.model_dir, args.output_dir, args.config_args)
    except (ConfigError, ValueError, OSError) as e:
        sys.stderr.write('convert_conv_weights: %s\n' % e)
        return 1
    for path in done:
        sys.stdout.write('converted %s\n' % path)
    if not done:
        sys.stdout.write('the config has no conv layer: %s is a plain copy\n' % args.output_dir)
    return 0


if __name__ == '__main__':
    sys.exit(main())
