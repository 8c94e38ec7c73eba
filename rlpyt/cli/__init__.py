"""rlpyt's command line: ``rlpyt train | sweep | play | plot | tune`` (also ``python -m rlpyt``).

Box: command line, above the runners. :mod:`rlpyt.cli.main` holds the click group,
:mod:`rlpyt.cli.registry` what exists (algorithms, agents per env kind, default configs) and
the composition of one run from a :class:`~rlpyt.cli.registry.RunSpec`.
"""
