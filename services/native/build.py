"""`python -m services.native.build [--if-stale]`: compile the stage logic with mypyc into
`.native/` (with `--if-stale`, only when the current build does not match the source).

Builds in a temporary directory, then replaces `.native/` whole, manifest last, so an
interrupted build leaves either the previous build or none (never a mix).
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

from services.native import (
    MANIFEST,
    NATIVE_DIR,
    ROOT,
    compiled_sources,
    module_name,
    source_hash,
    stale_sources,
)

GROUP = "citeflow_native"


def build() -> Path:
    """Compile every compiled source; returns the manifest path."""
    from mypyc.build import mypycify
    from setuptools import Distribution

    sources = compiled_sources()
    # Hashed before compiling: a source edited during the build must make it stale.
    hashes = {module_name(p): source_hash(p) for p in sources}
    work = Path(tempfile.mkdtemp(prefix="citeflow-native-"))
    cwd = os.getcwd()
    try:
        # mypyc names modules by their paths relative to the working directory.
        os.chdir(ROOT)
        extensions = mypycify(
            ["--ignore-missing-imports", *(str(p.relative_to(ROOT)) for p in sources)],
            opt_level="3",
            group_name=GROUP,
            target_dir=str(work / "c"),
        )
        dist = Distribution({"ext_modules": extensions})
        command = dist.get_command_obj("build_ext")
        command.build_lib = str(work / "lib")
        command.build_temp = str(work / "tmp")
        command.parallel = os.cpu_count() or 1
        dist.run_command("build_ext")
    finally:
        os.chdir(cwd)
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    built = work / "lib"
    files = {module_name(p): str(p.relative_to(ROOT).with_suffix(suffix)) for p in sources}
    files[f"{GROUP}__mypyc"] = f"{GROUP}__mypyc{suffix}"
    missing = [f for f in files.values() if not (built / f).exists()]
    if missing:
        raise RuntimeError(f"mypyc did not build {missing}")
    staged = NATIVE_DIR.with_name(".native.new")
    shutil.rmtree(staged, ignore_errors=True)
    staged.mkdir()
    for file in files.values():
        (staged / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built / file, staged / file)
    manifest = {
        "built_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "python": sys.version,
        "ext_suffix": suffix,
        "files": files,
        "sources": hashes,
    }
    (staged / MANIFEST.name).write_text(json.dumps(manifest, indent=1))
    shutil.rmtree(NATIVE_DIR, ignore_errors=True)
    staged.rename(NATIVE_DIR)
    shutil.rmtree(work, ignore_errors=True)
    return MANIFEST


def is_current() -> bool:
    """Whether `.native/` holds a build of exactly the current source."""
    try:
        return not stale_sources(json.loads(MANIFEST.read_text()))
    except (OSError, ValueError):
        return False


if __name__ == "__main__":
    if "--if-stale" in sys.argv[1:] and is_current():
        print(f"native build is current: {MANIFEST}")
        sys.exit(0)
    started = time.perf_counter()
    path = build()
    print(f"native build of {len(compiled_sources())} modules in "
          f"{time.perf_counter() - started:.0f} s: {path}")
