"""Launching box: affinity codes, experiment variants, and the local sweep launcher.

Launch scripts use :mod:`~rlpyt.utils.launching.affinity` (``encode_affinity``),
:mod:`~rlpyt.utils.launching.variant` (``VariantLevel``, ``make_variants``) and
:mod:`~rlpyt.utils.launching.exp_launcher` (``run_experiments``); train scripts use
``affinity_from_code``, ``load_variant`` and ``update_config``. See docs/launching.md.
"""
