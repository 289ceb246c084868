"""Which packages the wheel holds; everything else about the build is in pyproject.toml.

pyproject.toml alone cannot both discover ``app``'s subpackages and install the
top-level ``resources/`` folder under another name (``find`` cannot rename,
and an explicit list would have to name every subpackage of ``app``), so the
package list is made here: every ``app`` package, plus ``resources/`` as the
``tandem_resources`` package (its ``icons`` folder listed too, as setuptools
wants every folder of package data to be) that ``app.engine.paths.resources_dir`` reads.
"""

from setuptools import find_packages, setup

setup(
    packages=[
        *find_packages(include=["app", "app.*"]),
        "tandem_resources",
        "tandem_resources.icons",
        "tandem_resources.bench_documents",
    ],
    package_dir={"tandem_resources": "resources"},
)
