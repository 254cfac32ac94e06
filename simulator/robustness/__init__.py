"""Robustness: does a comparison's answer survive stronger play and other readings of the rules?

:mod:`~simulator.robustness.spec` is the ``robustness:`` section of a scenario and its checks;
:mod:`~simulator.robustness.run` reruns the comparison under each play level and with each
declared assumption moved, on the same deals; :mod:`simulator.report.robustness` says what held.
"""
