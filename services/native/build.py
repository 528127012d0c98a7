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
from collections.abc import Callable, Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
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


LOG = ROOT / ".citeflow" / "native-build.log"


@contextmanager
def output_to(log: Path) -> Iterator[None]:
    """The process's stdout and stderr (file descriptors, so the C compiler's too) into
    `log` for the block: mypyc's warnings and setuptools' notices are not the user's news."""
    log.parent.mkdir(parents=True, exist_ok=True)
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with log.open("a", buffering=1) as sink, redirect_stdout(sink), redirect_stderr(sink):
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def build(say: Callable[[str], None] = print) -> Path:
    """Compile every compiled source, telling `say` each step; returns the manifest path."""
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
        say(f"[1/2] mypyc: type-checking {len(sources)} modules and writing their C")
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
        say(f"[2/2] C compiler: {len(sources)} modules into one extension group, "
            f"{command.parallel} jobs")
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


def main(argv: list[str]) -> int:
    if "--if-stale" in argv and is_current():
        print(f"native build is current: {MANIFEST}")
        return 0
    started = time.perf_counter()
    count = len(compiled_sources())
    print(f"native build: compiling {count} modules of stage logic with mypyc into "
          f"{NATIVE_DIR.name}/ (minutes on a small machine; CITEFLOW_NATIVE=0 skips it and "
          f"runs plain Python, same outputs); details in {LOG}", flush=True)

    def say(line: str) -> None:  # to the terminal, while the build writes to the log
        os.write(saved, f"  {line} ({time.perf_counter() - started:.0f} s)\n".encode())

    saved = os.dup(1)
    try:
        with output_to(LOG):
            path = build(say)
    except Exception as exc:  # noqa: BLE001 - the log says why; plain Python still runs
        print(f"native build failed ({exc}); see {LOG}. `CITEFLOW_NATIVE=0 make run` runs "
              "plain Python.")
        return 1
    finally:
        os.close(saved)
    print(f"native build of {count} modules in {time.perf_counter() - started:.0f} s: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
