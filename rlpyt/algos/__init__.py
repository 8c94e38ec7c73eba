"""Algorithms (RlAlgorithm and its families) and the return maths they share (``utils``)."""
