"""Utilities: dump_config, make_model_diagram, plotcurve (learning curves from a
log), upgrade_config, image_util (image transforms for data providers and
predictors) and preprocess_img / preprocess_util (v1 image classification
batches from a folder of images by class), convert_conv_weights (conv filters of
models saved by earlier versions of this project to v0.10's layout)."""
