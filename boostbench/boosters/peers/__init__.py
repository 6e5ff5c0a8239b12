"""Other libraries' online ensembles as the runner's algorithms (river's, MOA's through capymoa,
Vowpal Wabbit's), with their own weak learners and defaults.
"""
