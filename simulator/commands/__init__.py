"""Bodies of the ``sim`` commands, usable without the CLI.

Each command is a function of its options and two rich consoles (``out`` for results, ``err``
for problems, notes and progress) that prints what the command prints and returns its exit code:
0 ok · 1 runtime failure · 2 invalid input · 3 regression found · 128 + signal when interrupted.
``simulator/cli.py`` only parses options into these functions; tests and notebooks call them
directly. One module per command family: ``run`` (run, exact), ``compare``, ``tune``, ``gate``
(baseline, check), ``validate``, ``reference`` (list, schema), ``warm``; ``common`` holds what
they share.
"""
