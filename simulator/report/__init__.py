"""Reports: a run's result turned once into one report model, and its renderers.

:func:`simulator.report.model.build` makes the :class:`~simulator.report.model.Report` (the folded
summary, the verdict, a tournament's analysis); the terminal (:mod:`~simulator.report.terminal`),
the folder of files (:mod:`~simulator.report.files`: CSV, JSON, Parquet, the figures of
:mod:`~simulator.report.figures` and the page of :mod:`~simulator.report.html`) and ``--markdown``
(:mod:`~simulator.report.markdown`) render it. Sweeps (:mod:`~simulator.report.sweep`) and
tournaments (:mod:`~simulator.report.tournament`) are sections with renderers of their own.
Nothing heavy is imported here: import the module you need.
"""
