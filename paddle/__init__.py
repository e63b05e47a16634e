"""PaddlePaddle v1 re-implementation: Python front end."""
