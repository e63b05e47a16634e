"""Small ready-made inputs for the py_paddle docstring examples (tests/docs/test_doc_examples.py).

Each function writes what it needs into the current directory (a fresh temporary one
per example) and returns paths or objects, so an example stays a few lines long.
"""
