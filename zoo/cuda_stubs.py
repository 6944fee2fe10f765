"""cuda_stubs.py - make PyPI's CUDA build of torch import on a CPU-only machine
without its ~2.4 GB of nvidia-* wheels (setup_venvs.sh runs it in zoo-dynamo).

PyPI has no CPU-only torch wheel for Linux x86_64: torch's libraries list
cuBLAS, cuDNN, cuFFT, cuSPARSE(Lt), cuSOLVER, NCCL, NVRTC and NVSHMEM as
DT_NEEDED and bind their symbols at load time. The few small CUDA libraries
that CPU code really calls (cudart: device count = 0; cupti: the profiler;
cufile) are installed for real. For every other needed library that is
missing this writes an empty stub into torch/lib/ (on torch's $ORIGIN
rpath) with the right soname, the version nodes torch requires of it, and a
placeholder for each symbol torch imports from it. Nothing calls them on a
CPU: torch.cuda.is_available() is False through the real cudart.

    python cuda_stubs.py SITE_PACKAGES      (idempotent; prints what it stubbed)"""
import glob
import os
import re
import subprocess
import sys
import tempfile


def run(*cmd):
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def libs_in(d):
    return sorted(f for f in glob.glob(os.path.join(d, "*.so*")) if os.path.isfile(f))


def needed(lib):
    return re.findall(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]", run("readelf", "-d", lib))


def verneeds(lib):
    """{soname: [version names]} that `lib` requires."""
    out, cur = {}, None
    for line in run("readelf", "-V", lib).splitlines():
        w = line.split()
        if "File:" in w:
            cur = w[w.index("File:") + 1]
            out.setdefault(cur, [])
        elif cur and len(w) > 2 and w[1] == "Name:":
            out[cur].append(w[2])
    return out


def undefined(lib):
    """[(symbol, version or None)] of the strong undefined dynamic symbols."""
    out = []
    for line in run("nm", "-D", "--undefined-only", "--with-symbol-versions", lib).splitlines():
        w = line.split()
        if len(w) == 2 and w[0] == "U":
            s, _, v = w[1].partition("@")
            out.append((s, v.lstrip("@") or None))
    return out


def defined(libs):
    names = set()
    for lib in libs:
        for line in run("nm", "-D", "--defined-only", lib).splitlines():
            w = line.split()
            if len(w) == 3:
                names.add(w[2].split("@")[0])
    return names


# CUDA libraries stubbed when no nvidia-* wheel provides them (a system CUDA
# install, if any, is not used: its version may not match torch's). Never the
# driver libcuda.so.1: cudart must not find a stub of it. libcaffe2_nvrtc.so
# (the only user of libcuda.so.1) is dlopen'ed for CUDA JIT only, never on a CPU.
CUDA_LIB = re.compile(r"^lib(cu(?!da\.so)|nccl|nvrtc|nvshmem|nvJitLink|nvToolsExt)")
NOT_LOADED = {"libcaffe2_nvrtc.so"}


def write_stub(path, soname, versions):
    """versions: {version name: [symbols]}; an unversioned stub uses key None."""
    with tempfile.TemporaryDirectory() as t:
        src, vmap = os.path.join(t, "s.c"), os.path.join(t, "v.map")
        with open(src, "w") as c, open(vmap, "w") as m:
            done = set()
            for v, syms in sorted(versions.items(), key=lambda kv: kv[0] is None):
                dummy = "ctvm_stub_" + re.sub(r"\W", "_", v or "unversioned")
                c.write("int %s(void) { return 0; }\n" % dummy)
                for s in sorted(set(syms) - done):
                    c.write("char %s[64];\n" % s)
                done |= set(syms)
                if v:
                    m.write("%s { global: %s; };\n" % (v, "; ".join([dummy] + sorted(set(syms)))))
        cmd = ["gcc", "-shared", "-fPIC", "-o", path, "-Wl,-soname," + soname, src]
        if os.path.getsize(vmap):
            cmd.append("-Wl,--version-script=" + vmap)
        subprocess.run(cmd, check=True)


def main():
    sp = sys.argv[1]
    tlib = os.path.join(sp, "torch", "lib")
    marker = os.path.join(tlib, "CTVM_CUDA_STUBS")
    real_dirs = [tlib] + glob.glob(os.path.join(sp, "nvidia", "*", "lib"))
    present = {os.path.basename(f) for d in real_dirs for f in libs_in(d)}
    if os.path.exists(marker):
        present -= set(open(marker).read().split())  # earlier stubs get rebuilt
    stubs = set(open(marker).read().split()) if os.path.exists(marker) else set()
    torch_libs = [f for f in libs_in(tlib) if os.path.basename(f) not in stubs | NOT_LOADED]
    missing = sorted({n for lib in torch_libs for n in needed(lib)
                      if n not in present and CUDA_LIB.match(n)})
    vers = {}   # soname -> {version: [symbols]}
    for lib in torch_libs:
        for so, vs in verneeds(lib).items():
            if so in missing:
                for v in vs:
                    vers.setdefault(so, {}).setdefault(v, [])
    owner = {v: so for so, vs in vers.items() for v in vs}
    have = defined([f for d in real_dirs for f in libs_in(d) if os.path.basename(f) in present])
    loose = set()   # unversioned symbols no real library defines
    for lib in torch_libs:
        for s, v in undefined(lib):
            if v in owner:
                vers[owner[v]][v].append(s)
            elif v is None and s not in have:
                loose.add(s)
    for so in missing:
        vers.setdefault(so, {})
    # an unversioned symbol is looked up in every loaded library: every stub
    # defines them all (which stub gets loaded first does not matter)
    for so in missing:
        vers[so][None] = sorted(loose)
    for so in missing:
        write_stub(os.path.join(tlib, so), so, vers[so])
        print("cuda_stubs: %s (%d symbols)" % (so, sum(len(x) for x in vers[so].values())))
    with open(marker, "w") as f:
        f.write("\n".join(missing) + "\n")


if __name__ == "__main__":
    main()
