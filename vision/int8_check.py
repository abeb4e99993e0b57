"""Will an int8 model read right on this CPU?

On an x86 CPU without VNNI (AVX2 only: AMD before Zen 4, Intel before Ice Lake, many laptops)
ONNX Runtime multiplies uint8 activations by int8 weights with `vpmaddubsw`, which adds two
products into 16 bits and saturates with full 8-bit weights: the card detector quantised that
way found 11 of 35 cards of 8 real photos there. The committed models use 7-bit weights
(`training.quantize.REDUCE_RANGE`), which cannot overflow; an older or hand-made int8 file may
not, and it must be refused with a way out rather than misread a table's cards all evening.
"""
from __future__ import annotations

import platform
from pathlib import Path

#: CPU flags (Linux /proc/cpuinfo) under which ONNX Runtime's u8 x s8 kernels sum in 32 bits
VNNI_FLAGS = ("avx512_vnni", "avx_vnni", "amx_int8")
#: int8 weights within this many steps of zero cannot saturate a 16-bit pair sum (255 * 64 * 2 < 2**15)
SAFE_INT8 = 64


def int8_saturates(cpuinfo: str | None = None) -> bool:
    """True on an x86 CPU whose flags show AVX2 but no VNNI (`cpuinfo`: /proc/cpuinfo's text,
    read when not given). False where it cannot tell (another OS, another architecture)."""
    if cpuinfo is None:
        if platform.machine().lower() not in ("x86_64", "amd64", "i686", "x86"):
            return False
        try:
            cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
        except OSError:
            return False
    flags = next((line.split(":", 1)[1].split() for line in cpuinfo.splitlines()
                  if line.startswith("flags")), None)
    return bool(flags) and "avx2" in flags and not any(f in flags for f in VNNI_FLAGS)


def wide_int8_weights(model: str | Path) -> bool:
    """True when the ONNX file holds int8 weights beyond +-SAFE_INT8 (8-bit, not 7-bit)."""
    import onnx
    from onnx import numpy_helper

    for t in onnx.load(str(model)).graph.initializer:
        if t.data_type == onnx.TensorProto.INT8:
            w = numpy_helper.to_array(t)
            if w.size and (int(w.min()) < -SAFE_INT8 or int(w.max()) > SAFE_INT8):
                return True
    return False


def check_int8(*models: str | Path, cpuinfo: str | None = None) -> None:
    """Raise ValueError, saying what to do, when one of `models` would saturate on this CPU."""
    if not int8_saturates(cpuinfo):
        return
    bad = [str(m) for m in models if wide_int8_weights(m)]
    if bad:
        raise ValueError(
            f"{', '.join(bad)}: int8 with 8-bit weights, which this CPU (AVX2 without VNNI) cannot run "
            f"right: it would misread most cards. Use the float models (--model "
            f"models/float/card_index_detector.onnx) or make 7-bit copies (`masta train --stages int8`).")
