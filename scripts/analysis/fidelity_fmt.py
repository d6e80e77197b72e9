"""Cell formatting shared by scripts/fidelity.sh and scripts/fidelity-channels.sh tables."""


def fmt_ns(v):
    if v is None:
        return "-"
    v = float(v)
    if v >= 1e6:
        return f"{v / 1e6:.2f} ms"
    if v >= 1e3:
        return f"{v / 1e3:.1f} us"
    return f"{v:.0f} ns"


def fmt_n(v):
    return "-" if v is None else f"{v:.0f}"


def err(sim, obs):
    """Relative error of the simulated value against the observed one, as a signed percentage."""
    if sim is None or obs is None or obs == 0:
        return "-"
    return f"{(sim - obs) / obs * 100:+.0f}%"
