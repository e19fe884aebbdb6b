"""Errors of the dev cluster."""

from __future__ import annotations


class DevClusterError(Exception):
    """The local dev cluster could not be fetched, started, reached or changed."""
