"""Writing files for contributors: kb fmt's canonical form and kb new's skeletons."""
