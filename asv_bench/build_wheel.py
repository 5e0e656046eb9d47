"""asv's build step (asv.conf.json `build_command`): the wheel of the checked-out commit, built
incrementally in one tree that persists from commit to commit.

asv checks every commit out afresh, so a plain `pip wheel` re-runs Cython and the C compiler on
all ~20 modules for each commit (minutes each on a small machine). Here the commit's files are
mirrored into `<env>/incremental/`, rewriting only the files whose content differs (their
modification time moves, the others keep theirs); Cython then regenerates only the modules whose
.pyx or its dependencies changed, and setuptools recompiles only the extensions whose sources or
headers (setup.py lists every header of include/ as a dependency) are newer than the built
module. When setup.py or pyproject.toml change, compiler flags may have changed too, which
timestamps cannot show: the tree's build output is then thrown away and everything rebuilt.

    python asv_bench/build_wheel.py BUILD_DIR WHEEL_DIR
"""

import hashlib
import shutil
import subprocess
import sys
from pathlib import Path

# Generated in the tree by the build (never in a commit): kept between commits.
GENERATED_SUFFIXES = (".c", ".so", ".pyd")
SKIPPED_TOP = {".git", "build", "dist"}
BUILD_RECIPE = ("setup.py", "pyproject.toml")


def _is_generated(rel):
    parts = rel.parts
    if parts[0] in SKIPPED_TOP or parts[0].endswith(".egg-info"):
        return True
    return parts[0] == "tsfile" and rel.name.endswith(GENERATED_SUFFIXES)


def _files(root):
    return {
        p.relative_to(root)
        for p in root.rglob("*")
        if (p.is_file() or p.is_symlink()) and not _is_generated(p.relative_to(root))
    }


def mirror(src, dst):
    """Make dst's source files those of src, touching only files whose bytes differ."""
    dst.mkdir(parents=True, exist_ok=True)
    wanted = _files(src)
    for rel in _files(dst) - wanted:
        (dst / rel).unlink()
    for rel in wanted:
        target = dst / rel
        data = (src / rel).read_bytes()
        if target.is_file() and target.read_bytes() == data:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        shutil.copymode(src / rel, target)


def _recipe_digest(tree):
    h = hashlib.sha256()
    for name in BUILD_RECIPE:
        path = tree / name
        h.update(path.read_bytes() if path.is_file() else b"-")
    return h.hexdigest()


def forget_outputs(tree):
    """Everything the build generated in the tree."""
    shutil.rmtree(tree / "build", ignore_errors=True)
    for path in (tree / "tsfile").rglob("*"):
        if path.is_file() and path.name.endswith(GENERATED_SUFFIXES):
            path.unlink()


def forget_unfinished(tree, stamp):
    """Outputs written after the last finished build: an interrupted build (asv stopped mid-way)
    may have left them half-written with a fresh time, which would pass for up to date."""
    if not stamp.is_file():
        return
    finished = stamp.stat().st_mtime
    outputs = list((tree / "tsfile").rglob("*")) + list(tree.glob("build/lib*/**/*"))
    for path in outputs:
        if path.is_file() and path.name.endswith(GENERATED_SUFFIXES):
            if path.stat().st_mtime > finished:
                path.unlink()


def drop_stale_modules(tree):
    """Files of build/lib* whose source the commit no longer has (a removed module would
    otherwise ship in the wheel)."""
    for lib in tree.glob("build/lib*"):
        for path in list(lib.rglob("*")):
            if not path.is_file():
                continue
            rel = path.relative_to(lib)
            if rel.suffix in (".so", ".pyd"):
                # tsfile/codecs/ts2diff.cpython-311-x86_64-linux-gnu.so <- ts2diff.pyx
                source = tree / rel.parent / (rel.name.split(".")[0] + ".pyx")
            else:
                source = tree / rel
            if not source.exists():
                path.unlink()


def build(src, wheel_dir, tree):
    stamp = tree / "build" / "recipe.sha256"
    forget_unfinished(tree, stamp)
    mirror(src, tree)
    digest = _recipe_digest(tree)
    if not stamp.is_file() or stamp.read_text() != digest:
        forget_outputs(tree)
    drop_stale_modules(tree)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index"]
        + ["-w", str(wheel_dir), str(tree)],
        check=True,
    )
    stamp.parent.mkdir(exist_ok=True)
    stamp.write_text(digest)


def main(argv):
    src, wheel_dir = Path(argv[0]).resolve(), Path(argv[1]).resolve()
    # next to asv's checkout (<env>/project): one incremental tree per environment
    build(src, wheel_dir, src.parent / "incremental")


if __name__ == "__main__":
    main(sys.argv[1:])
