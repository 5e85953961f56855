"""Whole models from cards: architecture kinds, recipes and the estimate of a model on a device.

The slot below the rules, which will check recipes as they check formulas.
"""
