"""The target of a SASS listing, from its header lines: ``code for sm_100a`` (cuobjdump),
``.target``, ``arch =`` (a fatbin's member), and ``.headerflags`` (a bare ``sm_100`` without
``EF_CUDA_ACCELERATORS`` is a family-portable ``sm_100f`` build).  :func:`follow_header`
notes each header line as the reader meets it; :func:`listing_target` says the target and why
(each instruction carries both: ``arch``, ``arch_reason``)."""

from __future__ import annotations

import re


#: A header line that names the target (the name in group 1): ``code for sm_100a``,
#: ``.target sm_100a``, ``arch = sm_100a``.
ARCH = re.compile(r"(?:code for|\.target|arch\s*=)\s*(sm_\d+[af]?)")


def follow_header(line: str, lineno: int, state: dict[str, object]) -> None:
    """Follow the header lines that name the target: ``code for sm_100a`` (cuobjdump),
    ``.target sm_100a``, ``arch = sm_100a`` (a fatbin's member), and ``.headerflags`` (whose
    ``EF_CUDA_ACCELERATORS`` flag marks an arch-specific ``a`` build; ``EF_CUDA_SM100`` names
    the number where no other line does, as in nvdisasm's listing)."""
    m = ARCH.search(line)
    if m:
        name = m.group(1)
        if name == state.get("name") and "code for" in str(state.get("text", "")):
            return  # the ``.target`` line under ``code for`` repeats it
        state["name"], state["line"], state["text"] = name, lineno, " ".join(line.split())
        state["flags"] = None
        return
    if ".headerflags" in line:
        state["flags"] = line
        if state.get("name") is None:
            sm = re.search(r"EF_CUDA_SM(\d+)", line)
            if sm:
                state["name"], state["line"] = f"sm_{sm.group(1)}", lineno
                state["text"] = " ".join(line.split())


def listing_target(state: dict[str, object]) -> tuple[str | None, str | None]:
    """The target and why: a name with ``a`` or ``f`` is taken as written; a bare ``sm_100``
    is an arch-specific build when ``.headerflags`` carries ``EF_CUDA_ACCELERATORS``, else a
    family-portable one (``sm_100f``: tcgen05 code cannot be built for plain ``sm_100``); a
    bare ``sm_90`` is sm_90a (no family target; wgmma needs sm_90a)."""
    name = state.get("name")
    if name is None:
        return None, None
    where = f"'{state['text']}' (line {state['line']})"
    name = str(name)
    if name[-1] in "af":
        return name, f"target {name} from {where}"
    flags = state.get("flags")
    if flags is not None and "EF_CUDA_ACCELERATORS" in str(flags):
        return name + "a", (f"target {name}a from {where} with EF_CUDA_ACCELERATORS in "
                            f".headerflags (an arch-specific build)")
    if name == "sm_90":
        # an old-format ELF (cuobjdump prints EF_CUDA_VIRTUAL_SM(EF_CUDA_SM90), no flag for
        # the 'a'); Hopper has no family target, and its wgmma code exists for sm_90a only
        return "sm_90a", (f"target sm_90a from {where}: sm_90 has no family-portable 'f' "
                          "target (those begin with sm_100) and wgmma code is built for sm_90a "
                          "only; older ELFs carry no EF_CUDA_ACCELERATORS flag")
    return name + "f", (f"target {name}f from {where}: no arch-specific 'a' (no "
                        f"EF_CUDA_ACCELERATORS flag), so a family-portable build; tcgen05 "
                        f"code is built for sm_NNNa or sm_NNNf only")
