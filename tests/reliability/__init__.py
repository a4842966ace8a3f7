"""Reliability: crash loops, concurrent clients, hostile input, permissions, disk faults."""
