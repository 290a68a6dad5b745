"""Repository layout: one import name, ``tracegrad``, and nothing else.

The checks run in fresh subprocesses whose working directory is NOT the
repository, so nothing can lean on the repository root being on
``sys.path``; one check builds the wheel and imports from it alone.
"""
import json
import os
import pathlib
import shutil
import subprocess
import sys
import textwrap
import zipfile

import pytest

REPO = pathlib.Path(__file__).resolve().parents[1]
PUBLIC_MODULES = [
    "tracegrad", "tracegrad.numpy", "tracegrad.numpy.linalg", "tracegrad.transforms",
    "tracegrad.primitives", "tracegrad.interpreters", "tracegrad.tree_util",
    "tracegrad.test_util", "tracegrad.nn",
]
FOLDERS = ["transforms", "primitives", "interpreters"]


def run_python(code, cwd, extra_env=None):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env.update(extra_env or {})
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, f"subprocess failed:\n{proc.stdout}\n{proc.stderr}"
    return json.loads(proc.stdout.strip().splitlines()[-1])


PROBE = """
import importlib, json, os, sys
repo = os.path.realpath(sys.argv[1] if len(sys.argv) > 1 else {repo!r})
res = {{"path_before": list(sys.path)}}
res["public"] = {{}}
for name in {public!r}:
    try:
        mod = importlib.import_module(name)
        res["public"][name] = os.path.realpath(mod.__file__)
    except Exception as e:
        res["public"][name] = "ERROR " + type(e).__name__ + ": " + str(e)
res["path_after"] = list(sys.path)
res["top_level"] = {{}}
for name in {folders!r} + ["tests", "benchmarks", "examples", "nn"]:
    try:
        importlib.import_module(name)
        res["top_level"][name] = "imported"
    except ImportError as e:
        res["top_level"][name] = type(e).__name__ + ": " + str(e)
import numpy
res["numpy_file"] = os.path.realpath(numpy.__file__)
res["numpy_is_real"] = hasattr(numpy, "ndarray") and hasattr(numpy, "__version__")
import tracegrad, tracegrad.numpy as tnp
res["tnp_is_not_numpy"] = tnp is not numpy
res["grad"] = float(tracegrad.grad(lambda x: tnp.sum(tnp.sin(x) * x))(1.0))
res["others"] = {{}}
for name in ("torch", "jax", "autograd"):
    try:
        mod = importlib.import_module(name)
        res["others"][name] = os.path.realpath(mod.__file__)
    except ImportError:
        res["others"][name] = None
print(json.dumps(res))
"""


def probe(cwd, extra_env=None):
    code = PROBE.format(repo=str(REPO), public=PUBLIC_MODULES, folders=FOLDERS)
    return run_python(code, cwd, extra_env)


def inside(path, root):
    try:
        pathlib.Path(path).resolve().relative_to(pathlib.Path(root).resolve())
        return True
    except ValueError:
        return False


def from_repository(path):
    """True for a module loaded from the repository's own files (not from an
    environment that happens to live inside the checkout, such as .venv)."""
    return inside(path, REPO) and "site-packages" not in pathlib.Path(path).parts


@pytest.fixture(scope="module")
def outside(tmp_path_factory):
    return probe(tmp_path_factory.mktemp("elsewhere"))


def test_public_modules_import_from_anywhere(outside):
    errors = {k: v for k, v in outside["public"].items() if v.startswith("ERROR")}
    assert not errors, errors
    assert outside["grad"] == pytest.approx(0.8414709848078965 + 0.5403023058681398)


def test_the_repository_root_is_not_on_sys_path(outside):
    for key in ("path_before", "path_after"):
        roots = [p for p in outside[key] if p and os.path.realpath(p) == str(REPO)]
        assert not roots, f"the repository root is on sys.path ({key})"
    assert outside["path_before"] == outside["path_after"], "importing tracegrad changed sys.path"


def test_no_other_top_level_names(outside):
    imported = [k for k, v in outside["top_level"].items() if v == "imported"]
    assert not imported, f"importable as top-level names: {imported}"
    for name in FOLDERS:
        assert outside["top_level"][name].startswith(("ModuleNotFoundError", "ImportError"))


def test_numpy_and_oracles_are_the_real_ones(outside):
    assert outside["numpy_is_real"] and outside["tnp_is_not_numpy"]
    assert not from_repository(outside["numpy_file"]), outside["numpy_file"]
    for name, path in outside["others"].items():
        assert path is None or not from_repository(path), (
            f"{name} imported from the repository: {path}")


def test_folders_are_tracegrad_subpackages(outside):
    for name in FOLDERS:
        assert outside["public"][f"tracegrad.{name}"] == str(REPO / name / "__init__.py") or inside(
            outside["public"][f"tracegrad.{name}"], REPO)


@pytest.mark.parametrize("folder", FOLDERS)
def test_importing_a_folder_from_the_repository_root_raises(folder):
    code = f"""
    import json
    try:
        import {folder}
        print(json.dumps("imported"))
    except ImportError as e:
        print(json.dumps(type(e).__name__ + ": " + str(e)))
    """
    res = run_python(code, REPO)
    assert res.startswith("ImportError"), res
    assert "tracegrad" in res  # the message says what to import instead


def test_repository_root_has_no_shadowing_modules():
    names = ("numpy", "torch", "jax", "autograd", "numba", "scipy")
    shadowing = [p.name for p in REPO.iterdir()
                 if (p.is_dir() and p.name in names) or p.name in [f"{n}.py" for n in names]]
    assert not shadowing, shadowing


def test_distribution_has_one_top_level_name(tmp_path):
    code = """
    import importlib.metadata as md, json
    dist = md.distribution("tracegrad")
    top = dist.read_text("top_level.txt")
    print(json.dumps({"top": top.split() if top else None,
                      "requires": dist.requires or []}))
    """
    res = run_python(code, tmp_path)
    if res["top"] is not None:
        assert res["top"] == ["tracegrad"], res["top"]
    names = sorted({r.split(";")[0].split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip()
                    for r in res["requires"] if "extra ==" not in r})
    assert names == ["numba", "numpy"], f"runtime dependencies: {names}"


@pytest.fixture(scope="module")
def wheel_dir(tmp_path_factory):
    """The wheel built from a copy of the working tree, unpacked."""
    src = tmp_path_factory.mktemp("src")
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO,
                           capture_output=True, text=True, check=True).stdout.split()
    for f in files:
        if (REPO / f).is_file():
            (src / f).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / f, src / f)
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                           "-q", "-w", str(out), str(src)], capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        pytest.fail(f"building the wheel failed:\n{proc.stdout}\n{proc.stderr}")
    (whl,) = out.glob("tracegrad-*.whl")
    unpacked = tmp_path_factory.mktemp("unpacked")
    with zipfile.ZipFile(whl) as z:
        z.extractall(unpacked)
        names = z.namelist()
    return unpacked, names, src


def test_wheel_holds_only_tracegrad_and_every_module(wheel_dir):
    unpacked, names, src = wheel_dir
    tops = sorted({n.split("/")[0] for n in names})
    assert [t for t in tops if not t.endswith(".dist-info")] == ["tracegrad"], tops
    # every source module of the four package folders is in the wheel
    mapping = {"tracegrad": "tracegrad", "transforms": "tracegrad/transforms",
               "primitives": "tracegrad/primitives", "interpreters": "tracegrad/interpreters"}
    missing = []
    for folder, dest in mapping.items():
        for f in (src / folder).rglob("*.py"):
            rel = f.relative_to(src / folder).as_posix()
            if f"{dest}/{rel}" not in names:
                missing.append(f"{folder}/{rel}")
    assert not missing, f"source modules missing from the wheel: {missing}"


def test_wheel_imports_on_its_own(wheel_dir, tmp_path):
    unpacked, _, _ = wheel_dir
    res = probe(tmp_path, {"PYTHONPATH": str(unpacked)})
    errors = {k: v for k, v in res["public"].items() if v.startswith("ERROR")}
    assert not errors, errors
    not_from_wheel = {k: v for k, v in res["public"].items() if not inside(v, unpacked)}
    assert not not_from_wheel, f"modules not loaded from the wheel: {not_from_wheel}"
    assert res["grad"] == pytest.approx(0.8414709848078965 + 0.5403023058681398)


def test_importing_an_uninstalled_checkout_says_to_install(tmp_path):
    # A copy of the repository that was never installed: only its tracegrad/
    # folder is on sys.path, and the installed copy's finders are removed.
    shutil.copytree(REPO / "tracegrad", tmp_path / "tracegrad",
                    ignore=shutil.ignore_patterns("__pycache__"))
    code = """
    import json, sys
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, ".")
    try:
        import tracegrad
        print(json.dumps("imported " + tracegrad.__file__))
    except ImportError as e:
        print(json.dumps(type(e).__name__ + ": " + str(e)))
    """
    res = run_python(code, tmp_path)
    assert res.startswith("ImportError"), res
    assert "pip install -e ." in res and "circular" not in res, res
