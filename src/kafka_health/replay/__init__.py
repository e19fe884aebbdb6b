"""Replay and backtest: archived logs through the live job\x27s detectors and rules."""
