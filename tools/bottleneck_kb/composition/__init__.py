"""Whole models from cards: the architecture kinds (package data in `kinds/`), the deployment,
the cards a recipe binds, and the estimate of a model at a deployment on each device. The rules
(`rules/models.py`) check model files and recipes with these; `kb estimate`, the site and the
export read the estimate."""
