"""boostbench's Hydra sweeper (``hydra/sweeper=boostbench``), found by Hydra's plugin discovery."""
