"""Where the CUTLASS oracle tests find their toolchain: the nvidia-cutlass wheel's headers (found
without importing cutlass_library, whose import pulls in heavy dependencies), a C++ compiler and
the CUDA headers.  Each lookup returns None (with the reason) so the tests can skip clearly."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import shutil
from pathlib import Path

CUTLASS_WHEEL = "nvidia-cutlass"
CUTLASS_VERSION = "4.2.0.0"


def cutlass_include(header: Path) -> tuple[Path | None, str]:
    """(include directory holding ``header``, wheel version), or (None, why)."""
    candidates: list[Path] = []
    version = "?"
    try:
        dist = importlib.metadata.distribution(CUTLASS_WHEEL)
        version = dist.version
        candidates.append(Path(str(dist.locate_file("cutlass_library/source/include"))))
    except importlib.metadata.PackageNotFoundError:
        pass
    try:
        # find_spec of a top-level package locates it without executing its __init__.
        spec = importlib.util.find_spec("cutlass_library")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.submodule_search_locations:
        candidates += [Path(p) / "source" / "include" for p in spec.submodule_search_locations]
    for inc in candidates:
        if (inc / header).is_file():
            return inc, version
    return None, (f"CUTLASS headers not found: pip install --no-deps {CUTLASS_WHEEL}=={CUTLASS_VERSION} "
                  f"(looked for {header} in {[str(c) for c in candidates] or 'no candidate'})")


def compiler() -> list[str] | None:
    """A host C++ compiler command ($CXX, g++, c++, clang++, or nvcc in C++ mode)."""
    for name in (os.environ.get("CXX"), "g++", "c++", "clang++"):
        if name and shutil.which(name):
            return [name]
    nvcc = shutil.which("nvcc")
    return [nvcc, "-x", "c++"] if nvcc else None


def cuda_include() -> Path | None:
    """The CUDA include directory ($CUDA_HOME, $CUDA_PATH or /usr/local/cuda)."""
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and (Path(root) / "include" / "cuda_runtime.h").is_file():
            return Path(root) / "include"
    return None


def build_oracle(source: Path, header: Path, exe: Path, extra_includes: tuple[Path, ...] = ()
                 ) -> tuple[Path | None, str]:
    """Compile a host-only CUTLASS oracle ``source`` (C++17) into ``exe`` against the wheel's
    headers (where ``header`` is) and the CUDA headers: ``(exe, wheel version)``, or
    ``(None, why)`` when a tool is missing (the caller skips with it).  A compile error raises
    AssertionError with the compiler's message."""
    import subprocess
    inc, version = cutlass_include(header)
    if inc is None:
        return None, version
    cxx = compiler()
    if cxx is None:
        return None, "no C++ compiler (g++, c++, clang++ or nvcc) on PATH"
    cuda = cuda_include()
    if cuda is None:
        return None, "CUDA include directory not found (CUDA_HOME, CUDA_PATH or /usr/local/cuda)"
    cmd = [*cxx, "-std=c++17", "-O0", "-w", *(f"-I{p}" for p in extra_includes), f"-I{inc}",
           f"-I{cuda}"]
    if (cuda / "cccl").is_dir():
        cmd.append(f"-I{cuda / 'cccl'}")
    cmd += [str(source), "-o", str(exe)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, (f"compiling {source.name} failed:\n{' '.join(cmd)}\n"
                                  f"{proc.stderr[-4000:]}")
    return exe, version
