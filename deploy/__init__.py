"""Deployment helpers: a private PostgreSQL server and a local multi-replica cluster behind nginx (see README.md)."""
