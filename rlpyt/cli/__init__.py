"""rlpyt's command line: ``rlpyt train | sweep | play | plot | tune`` (also ``python -m rlpyt``).

Box: command line, above the runners. :mod:`rlpyt.cli.main` holds the click group,
:mod:`rlpyt.cli.registry` what exists (algorithms, agents per env kind, default configs). One run
flows one way: a :class:`~rlpyt.cli.spec.RunSpec` is resolved against the registry
(:mod:`rlpyt.cli.resolve`), its config is built (:mod:`rlpyt.cli.config`) and its components are
instantiated (:mod:`rlpyt.cli.compose`, ``build_components``).
"""
