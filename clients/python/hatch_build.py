"""Build hooks of pcx-client (hatchling).

The models and operations are not checked in: they are generated at build time by
openapi-python-client from the broker's client document, so the package always matches the
document it is built from.

- The document is ../openapi.json (clients/openapi.json, in the repository), else ./openapi.json
  (the copy an sdist carries: the sdist hook force-includes it, so an sdist builds outside the
  repository too).
- The metadata hook makes the package's version the document's info.version.
- The wheel hook runs the generator into src/pcx_client/generated (ignored by git; regenerated
  only when the document changed, by its SHA-256 kept beside it) and force-includes that folder,
  which hatch would otherwise leave out as git-ignored.
- templates/ overrides one template of the generator: datetimes are sent in UTC ending in Z, as
  the broker's schemas require (datetime.isoformat() writes "+00:00", which they refuse).

`python hatch_build.py` regenerates by hand (for development, mypy and the tests).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
GENERATED = HERE / "src" / "pcx_client" / "generated"
STAMP = ".document-sha256"


def document_path(root: Path = HERE) -> Path:
    for candidate in (root.parent / "openapi.json", root / "openapi.json"):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no client document: neither {root.parent / 'openapi.json'} nor {root / 'openapi.json'}")


def document_version(root: Path = HERE) -> str:
    return str(json.loads(document_path(root).read_text("utf-8"))["info"]["version"])


def _tool_path() -> str:
    """PATH with the directories that hold ruff (the generator's formatter) first."""
    dirs = [sysconfig.get_path("scripts"), str(Path(sys.executable).parent)]
    try:  # the ruff wheel knows where its binary is, wherever pip put it
        from ruff.__main__ import find_ruff_bin  # type: ignore[import-not-found,unused-ignore]

        dirs.insert(0, str(Path(find_ruff_bin()).parent))
    except Exception:
        pass
    return os.pathsep.join([*dirs, os.environ.get("PATH", "")])


def generate(root: Path = HERE, force: bool = False) -> Path:
    """Generates the package into src/pcx_client/generated unless it is there for this document."""
    document = document_path(root)
    # The stamp covers the document and the template override: either changed, the package is made anew.
    template = root / "templates" / "property_templates" / "datetime_property.py.jinja"
    digest = hashlib.sha256(document.read_bytes() + template.read_bytes()).hexdigest()
    target = root / "src" / "pcx_client" / "generated"
    stamp = target / STAMP
    if not force and stamp.is_file() and stamp.read_text().strip() == digest:
        return target
    with tempfile.TemporaryDirectory(prefix="pcx-client-gen-") as tmp:
        out = Path(tmp) / "generated"
        command = [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(document),
                   "--output-path", str(out), "--meta", "none",
                   "--custom-template-path", str(root / "templates")]
        result = subprocess.run(command, env={**os.environ, "PATH": _tool_path()}, capture_output=True, text=True)
        if result.returncode != 0 or not (out / "client.py").is_file():
            raise RuntimeError(f"openapi-python-client failed ({result.returncode}):\n{result.stdout}\n{result.stderr}")
        (out / STAMP).write_text(digest + "\n")
        if target.exists():
            shutil.rmtree(target)
        shutil.copytree(out, target)
    return target


try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
    from hatchling.metadata.plugin.interface import MetadataHookInterface
except ImportError:  # run as a script without hatchling: only generate() is used
    pass
else:

    class PcxMetadataHook(MetadataHookInterface):
        def update(self, metadata: dict[str, Any]) -> None:
            metadata["version"] = document_version(Path(self.root))

    class PcxBuildHook(BuildHookInterface):  # type: ignore[type-arg,unused-ignore]
        def initialize(self, version: str, build_data: dict[str, Any]) -> None:
            root = Path(self.root)
            if self.target_name == "sdist":
                # The sdist carries the document, so that it builds where ../openapi.json is not.
                build_data["force_include"][str(document_path(root))] = "openapi.json"
                return
            generated = generate(root)
            build_data["force_include"][str(generated)] = "pcx_client/generated"


if __name__ == "__main__":
    print(f"generated {generate(force='--force' in sys.argv)} from {document_path()}")
