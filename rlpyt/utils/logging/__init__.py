"""Logging: the logger (text, progress.csv, snapshots, TensorBoard) and run-folder contexts."""
