"""The bundled GPU database (models/gpus.json) by name, for the study scripts in research/.

Not a study: scripts import it to look up a dataset row's `gpu` (a database name, display
name or alias, any case).
"""
import json
import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def gpus_by_name():
    """Each GPU's database entry under its lower-cased name, display name and aliases."""
    with open(os.path.join(ROOT, "models/gpus.json")) as f:
        gpus = json.load(f)["gpus"]
    out = {}
    for g in gpus:
        for name in [g["name"], g.get("display_name", "")] + g.get("aliases", []):
            if name:
                out[name.lower()] = g
    return out
