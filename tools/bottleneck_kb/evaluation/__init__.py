"""An entry on devices: its formulas, the roofs, one device's result, every device's, the
crossovers, the checks and the definedness proof."""
