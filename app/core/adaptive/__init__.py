"""Choosing the draft length every step: the cost model, the online estimators, the controller."""
