"""Maps the three top-level folders onto one import namespace, dealerless.*.

pyproject.toml holds all metadata; this file only computes the package list, which
setuptools cannot express declaratively for renamed folders with subpackages. The folder
``dealerless/`` holds only ``__main__.py`` (``python -m dealerless``); ``dealerless`` stays a
namespace package (no ``__init__.py``).
"""

from setuptools import find_packages, setup

TOP_LEVEL = ("protocol", "node", "client")

packages: list[str] = ["dealerless"]
package_dir: dict[str, str] = {"dealerless": "dealerless"}
for top in TOP_LEVEL:
    package_dir[f"dealerless.{top}"] = top
    packages.append(f"dealerless.{top}")
    packages.extend(f"dealerless.{top}.{sub}" for sub in find_packages(top))

package_data = {p: ["py.typed"] for p in packages if p != "dealerless"}
# the rules viewer's rule books (client/tui/rules_book.py)
package_data["dealerless.client.tui"].append("rules/*.md")
setup(packages=packages, package_dir=package_dir, package_data=package_data)
