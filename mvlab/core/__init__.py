"""Foundations shared by every part of mvlab: views, neighbour searches, parameters, progress, threads."""
