"""Build and run the repository's container image with podman, where no Docker engine runs.

Podman (Debian's ``podman``, with ``runc``) builds the same ``Dockerfile`` as ``docker build``. The machines this
project is tested on reach Debian's archive and PyPI but no image registry, so ``python:3.11-slim`` cannot be pulled.
:func:`stand_in_base` makes a local stand-in for it: Debian bookworm (the distribution that image is built on) with
Debian's Python 3.11 and pip, ``python`` and ``pip`` on the PATH, pip allowed to install system-wide, and this machine's
certificate bundle (so pip trusts the same TLS the host does). The Dockerfile takes it through its ``PYTHON_IMAGE``
build argument; everything after ``FROM`` is the real Dockerfile.

    python3 deploy/image.py build     # (make image) stand-in base once, then the image localhost/dp-explorer:latest
    python3 deploy/image.py run --port 8501 --volume dpx-data   # (make image-run) serve it on the host's port 8501

``tests/e2e/test_container_image.py`` builds and runs it in the test command (health check, non-root user, ledgers
kept in the volume across a restart, and in PostgreSQL through ``DATABASE_URL``).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # also run as a script: python3 deploy/image.py

from deploy.cluster import healthy  # noqa: E402

BASE = "localhost/dpx-python-stand-in:3.11"
IMAGE = "localhost/dp-explorer:latest"
MIRROR = os.environ.get("DPX_DEBIAN_MIRROR", "http://deb.debian.org/debian")
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
TOOLS = ("podman", "runc", "debootstrap")


def missing_tools() -> list[str]:
    """The programs :func:`build` needs that are not installed (Debian: ``make podman``)."""
    return [t for t in TOOLS if shutil.which(t) is None and not Path("/usr/sbin", t).exists()]


def limits() -> list[str]:
    """``--ulimit`` options the host allows: podman's defaults ask for more open files and processes than a
    container host without CAP_SYS_RESOURCE may grant, and the runtime then refuses to start."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    nofile = 65536 if hard == resource.RLIM_INFINITY else min(hard, 65536)
    return ["--ulimit", f"nofile={nofile}:{nofile}", "--ulimit", "nproc=4096:4096"]


def _run(cmd: list[str], timeout: float, check: bool = True) -> subprocess.CompletedProcess:
    """Run ``cmd``; a failure raises with the end of what the command printed."""
    done = subprocess.run(cmd, check=False, capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[:4])} … failed ({done.returncode}):\n{(done.stdout + done.stderr)[-3000:]}")
    return done


def podman(*args: str, timeout: float = 600, check: bool = True) -> subprocess.CompletedProcess:
    """Run podman with the ``runc`` runtime (``crun`` refuses hosts with cgroup v1 or hybrid cgroups)."""
    return _run(["podman", "--runtime", "runc", *args], timeout, check)


def exists(image: str) -> bool:
    return podman("image", "exists", image, check=False).returncode == 0


@contextlib.contextmanager
def _only_one_at_a_time(name: str):
    """An exclusive lock across processes (two test workers must not both make the base)."""
    with open(Path(tempfile.gettempdir()) / f"{name}.lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield


def stand_in_base(tag: str = BASE, rebuild: bool = False) -> str:
    """The local stand-in for ``python:3.11-slim`` (made once: debootstrap, then ``podman import``)."""
    with _only_one_at_a_time("dpx-stand-in-base"):
        if exists(tag) and not rebuild:
            return tag
        _make_base(tag)
    return tag


def _make_base(tag: str) -> None:
    with tempfile.TemporaryDirectory(prefix="dpx-base-") as work:
        root = Path(work) / "rootfs"
        _run(
            [
                "debootstrap",
                "--variant=minbase",
                "--include=python3,python3-pip,ca-certificates",
                "bookworm",
                str(root),
                MIRROR,
            ],
            timeout=1200,
        )
        for name, target in (("python", "/usr/bin/python3"), ("pip", "/usr/bin/pip3")):
            (root / "usr/local/bin" / name).symlink_to(target)
        (root / "usr/lib/python3.11/EXTERNALLY-MANAGED").unlink(missing_ok=True)
        if CA_BUNDLE.exists():
            shutil.copyfile(CA_BUNDLE, root / str(CA_BUNDLE).lstrip("/"))
        for cache in ("var/lib/apt/lists", "var/cache/apt/archives"):
            shutil.rmtree(root / cache, ignore_errors=True)
        tarball = Path(work) / "rootfs.tar"
        _run(["tar", "-C", str(root), "-cf", str(tarball), "."], timeout=600)
        podman("import", "--change", 'CMD ["python3"]', str(tarball), tag, timeout=600)


def build(tag: str = IMAGE, context: Path = ROOT) -> str:
    """``podman build`` of the Dockerfile on the stand-in base, in Docker's format (which keeps the HEALTHCHECK)."""
    base = stand_in_base()
    args = [
        "build",
        "--format",
        "docker",
        "--network",
        "host",
        *limits(),
        "--build-arg",
        f"PYTHON_IMAGE={base}",
        "-t",
        tag,
        str(context),
    ]
    with _only_one_at_a_time("dpx-image-build"):  # a second build at once waits, then takes the first one's layers
        try:
            podman(*args, timeout=1800)
        except RuntimeError as exc:
            # podman's build cache can name a layer that removing an earlier image took away ("layer not known");
            # the same build without the cache then succeeds. Any other failure is the build's own.
            if "layer not known" not in str(exc):
                raise
            podman(*args[:1], "--no-cache", *args[1:], timeout=1800)
    return tag


def inspect(image: str = IMAGE) -> dict:
    """The image's description: ``Config`` (user, ports, environment, volumes, command) and ``Healthcheck``."""
    return json.loads(podman("image", "inspect", image).stdout)[0]


def run(name: str, port: int, image: str = IMAGE, volume: str | None = None, env: dict[str, str] | None = None) -> str:
    """Start a container on the host's network, serving on ``port``; return its name."""
    podman("rm", "-f", name, check=False)
    args = ["run", "-d", "--name", name, "--network", "host", *limits(), "-e", f"PORT={port}"]
    if volume:
        args += ["-v", f"{volume}:/data"]
    for key, value in (env or {}).items():
        args += ["-e", f"{key}={value}"]
    podman(*args, image)
    return name


def wait_healthy(port: int, timeout: float = 120) -> None:
    """Wait until ``/_stcore/health`` answers (``deploy.cluster.healthy``)."""
    end = time.monotonic() + timeout
    while not healthy(port, timeout=3):
        if time.monotonic() > end:
            raise TimeoutError(f"no health answer on port {port} within {timeout:.0f} s")
        time.sleep(0.5)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("build", help="build the stand-in base (once) and the image")
    serve = sub.add_parser("run", help="run the image on the host's network")
    serve.add_argument("--port", type=int, default=8501)
    serve.add_argument("--volume", default="dpx-data", help="named volume for /data (the SQLite ledgers)")
    serve.add_argument("--database-url", default="", help="PostgreSQL ledger store instead of the volume")
    args = parser.parse_args(argv)
    if missing_tools():
        raise SystemExit(f"missing: {', '.join(missing_tools())} (Debian: make podman)")
    if args.command == "build":
        print(build())
        return
    env = {"DATABASE_URL": args.database_url} if args.database_url else None
    run("dp-explorer", args.port, volume=args.volume, env=env)
    wait_healthy(args.port)
    print(f"DP Explorer is serving on http://127.0.0.1:{args.port}/ (podman stop dp-explorer)")


if __name__ == "__main__":
    main()
