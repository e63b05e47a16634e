"""The fault families of tools/fuzz.py (damaged configs, batches and files) and of
tools/fault_suite.py (SWIG call sequences, merged models, tool inputs, MPI ranks).

Cases run in a persistent worker process (`runner.Worker`): a case's outcome is
classified in the worker from the exception it raised; a worker that dies (signal,
abort) or stops answering is a crash or a hang, and is restarted for the next case.
"""
