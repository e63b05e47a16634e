"""Utilities: dump_config, make_model_diagram, plotcurve (learning curves from a
log), upgrade_config, image_util (image transforms for data providers and
predictors) and preprocess_img / preprocess_util (v1 image classification
batches from a folder of images by class)."""
