"""``python -m rlpyt``: the same as the ``rlpyt`` command (see :mod:`rlpyt.cli.main`)."""

from rlpyt.cli.main import main

if __name__ == "__main__":
    main()
