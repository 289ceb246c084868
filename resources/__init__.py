"""Files shipped with Tandem: the model catalog, the bench prompt suites and the icons.

Not imported by the app in a source tree. A built wheel installs this folder as
the ``tandem_resources`` package (see ``setup.py``), and this file makes it a
regular package there, so that ``importlib.resources.files()`` gives its folder
on disk (``app.engine.paths.resources_dir`` reads it).
"""
