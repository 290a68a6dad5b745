"""Run HIPS autograd 1.9.1's own test suite against tracegrad.

    python benchmarks/autograd_suite/run.py            # downloads the sdist with pip
    python benchmarks/autograd_suite/run.py --sdist autograd-1.9.1.tar.gz

Builds a scratch directory holding autograd's ``tests/`` and an ``autograd``
package made of this folder's ``adapter/`` (autograd's core, numpy and scipy
APIs mapped onto tracegrad) plus autograd's own pure-Python operator and
checker modules from the sdist (``differential_operators``, ``test_util``,
``wrap_util``, ``util``), then runs pytest over every ``test_*.py`` except
``test_performance.py`` and prints the counts (the SciPy file separately).
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
VERSION = "1.9.1"
FROM_SDIST = ("differential_operators.py", "test_util.py", "wrap_util.py", "util.py")


def sdist(path, scratch):
    if path:
        return path
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", f"autograd=={VERSION}",
                    "--no-binary", ":all:", "--no-deps", "-d", scratch], check=True)
    return os.path.join(scratch, f"autograd-{VERSION}.tar.gz")


def build(tarball, scratch):
    with tarfile.open(tarball) as tar:
        tar.extractall(scratch, filter="data")
    src = os.path.join(scratch, f"autograd-{VERSION}")
    package = os.path.join(scratch, "site", "autograd")
    shutil.copytree(os.path.join(HERE, "adapter"), package,
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in FROM_SDIST:
        shutil.copy(os.path.join(src, "autograd", name), package)
    return os.path.join(src, "tests"), os.path.dirname(package)


def run(tests, site, files, workers):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([site, tests]))
    cmd = [sys.executable, "-m", "pytest", "-c", os.devnull, "-p", "no:cacheprovider", "-q",
           "-rf", "-p", "no:randomly", *([] if workers == "0" else ["-n", workers]), *files]
    out = subprocess.run(cmd, cwd=tests, env=env, capture_output=True, text=True).stdout
    counts = {k: int(v) for v, k in re.findall(r"(\d+) (passed|failed|skipped|error|errors)", out)}
    return counts, [line for line in out.splitlines() if line.startswith(("FAILED", "ERROR"))]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sdist", help="autograd-1.9.1.tar.gz (default: pip download it)")
    parser.add_argument("-n", default="2", help="pytest-xdist workers (0: none)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tests, site = build(sdist(args.sdist, scratch), scratch)
        names = sorted(f for f in os.listdir(tests)
                       if f.startswith("test_") and f.endswith(".py") and f != "test_performance.py")
        total = {}
        for label, files in (("without test_scipy.py", [f for f in names if f != "test_scipy.py"]),
                             ("test_scipy.py", ["test_scipy.py"])):
            counts, failures = run(tests, site, files, args.n)
            print(f"{label}: " + ", ".join(f"{v} {k}" for k, v in sorted(counts.items())))
            for line in failures:
                print("  " + line)
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
        print("total: " + ", ".join(f"{v} {k}" for k, v in sorted(total.items())))


if __name__ == "__main__":
    main()
