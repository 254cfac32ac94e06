"""`sim serve`: a designer's workbench in the browser, on the library the CLI uses.

:mod:`simulator.serve.app` is the web app (Starlette), :mod:`~simulator.serve.jobs` runs a scenario
and streams its estimates, :mod:`~simulator.serve.form` turns the parameter model into the form and
the form's changes into scenario text, :mod:`~simulator.serve.paths` keeps reads and writes inside
the served folders, and :mod:`~simulator.serve.model` is the one door to the report modules.
"""
