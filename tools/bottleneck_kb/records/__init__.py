"""Typed records built from documents the schema has accepted: entries, devices and their
parts, and the quantities devices are written in. ("Model" is kept for ML models.)"""
