"""v1's sequence generation API over a beam_search config (GradientMachine.asSequenceGenerator).

The classes are part of py_paddle.swig_paddle (swig/python_generation.i); this module
keeps their import path.
"""
from py_paddle.swig_paddle import ISequenceResults, SequenceGenerator  # noqa: F401

__all__ = ["ISequenceResults", "SequenceGenerator"]
