"""Synthetic data generators and dataset recipes for the card detector."""
