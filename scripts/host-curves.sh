#!/usr/bin/env bash
# docs/validation.md's "Measured on the development machine" block (issue 27): real benchmark
# curves measured on one machine (validation/measured/*.json), beside schedsim's simulation of the
# same commands on that machine's model, with both messaging channel models.
#
#   scripts/host-curves.sh --measure OUT.json [RUNS]   run the real benchmarks on this machine,
#                                                     RUNS times per point (default 5, median
#                                                     kept; every run is kept in the file too)
#   scripts/host-curves.sh SCHEDSIM --update           simulate every validation/measured/*.json
#                                                     and rewrite the block
#   scripts/host-curves.sh SCHEDSIM --check            fail unless the block equals a fresh
#                                                     simulation (the measured side is data)
#
# The real side: `perf bench sched messaging` at 1, 2, 4, 8 and 16 groups in its four forms
# (pipe/socket x thread/process) and `perf bench sched pipe` (processes and -T threads), the
# figure perf prints ("Total time", usecs/op). schbench is not measured: it is not packaged by
# Debian and this machine reaches no other source. --measure wants an otherwise idle machine: it
# records the load average before it starts, and refuses to start above 0.5 (FORCE=1 overrides;
# a messaging run itself leaves the 1-minute average high for a few minutes).
# The simulated side: `schedsim run --workload-gen` of the same parameters with the file's
# "simulate" options (topology, kernel, cost parameters) and seed 1; one run per point, since the
# simulation is deterministic. Errors are (simulated - real) / real: "raw" as simulated, "scaled"
# after scaling the simulated curve to the real one at its first point (the goal's calibration on
# one point), and the error of each ratio between consecutive points.
set -euo pipefail
cd "$(dirname "$0")/.."
doc=docs/validation.md
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=$(command -v python3)

measure() {
  local out=${1:?usage: host-curves.sh --measure OUT.json [RUNS]} runs=${2:-5}
  command -v perf >/dev/null || { echo "host-curves.sh: perf missing (apt-get install linux-perf)" >&2; exit 77; }
  local load
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [ "${FORCE:-0}" != 1 ] && awk -v l="$load" 'BEGIN{exit !(l > 0.5)}'; then
    echo "host-curves.sh: load average $load > 0.5: measure on an idle machine (FORCE=1 overrides)" >&2
    exit 1
  fi
  "$py" - "$out" "$runs" <<'PY'
import json, os, platform, re, statistics, subprocess, sys, time
out, runs = sys.argv[1], int(sys.argv[2])
loops = 500
forms = [("hackbench-pipe-thread", ["-p", "-t"], "--pipe --thread"),
         ("hackbench-pipe-process", ["-p"], "--pipe --process"),
         ("hackbench-socket-thread", ["-t"], "--thread"),
         ("hackbench-socket-process", [], "--process")]
groups = [1, 2, 4, 8, 16]
pipe_loops = 200000

def perf(args, pattern):
    r = subprocess.run(["perf", "bench", "sched"] + args, capture_output=True, text=True, check=True)
    m = re.search(pattern, r.stdout)
    if not m:
        sys.exit("host-curves.sh: no '%s' in the output of perf bench sched %s" % (pattern, " ".join(args)))
    return float(m.group(1))

def loadavg():
    return float(open("/proc/loadavg").read().split()[0])

load_before = loadavg()
curves = []
# Interleaved: every point of every curve once per round, so a neighbour's burst spreads over
# all points instead of bending one curve.
samples = {}
for rnd in range(runs):
    for name, flags, _ in forms:
        for g in groups:
            v = perf(["messaging"] + flags + ["-g", str(g), "-l", str(loops)], r"Total time: ([0-9.]+) \[sec\]")
            samples.setdefault((name, g), []).append(v)
    for name, flags in (("perf-pipe-process", []), ("perf-pipe-thread", ["-T"])):
        v = perf(["pipe", "-l", str(pipe_loops)] + flags, r"([0-9.]+) usecs/op")
        samples.setdefault((name, 0), []).append(v)
for name, flags, gen in forms:
    curves.append({
        "name": name,
        "command": "perf bench sched messaging %s-g {groups} -l %d" % ("".join(f + " " for f in flags), loops),
        "gen": "messaging %s --group {groups} --nr_loops %d" % (gen, loops),
        "metric": "benchmark_time", "unit": "s", "over": "groups",
        "points": [{"groups": g, "value": statistics.median(samples[(name, g)]), "runs": samples[(name, g)]}
                   for g in groups]})
for name, flags in (("perf-pipe-process", []), ("perf-pipe-thread", ["-T"])):
    curves.append({
        "name": name,
        "command": "perf bench sched pipe -l %d%s" % (pipe_loops, "".join(" " + f for f in flags)),
        "gen": "pipe -l %d%s" % (pipe_loops, "".join(" " + f for f in flags)),
        "metric": "usecs_per_op", "unit": "us/op", "over": None,
        "points": [{"value": statistics.median(samples[(name, 0)]), "runs": samples[(name, 0)]}]})
uname = platform.uname()
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
perf_version = subprocess.run(["perf", "--version"], capture_output=True, text=True).stdout.strip()
doc = {
    "schedsim_measured_curves": 1,
    "machine": {"cpus": os.cpu_count(), "cpu_model": model, "kernel": uname.release,
                "perf": perf_version, "described": "EDIT: what the machine is (virtualisation, SMT, LLCs)"},
    "measured": {"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "runs": runs,
                 "statistic": "median", "order": "interleaved rounds",
                 "load_average_before": load_before},
    "simulate": {"topology": "EDIT", "kernel": "EDIT", "cost": {}},
    "curves": curves,
}
with open(out, "w") as f:
    json.dump(doc, f, indent=1)
    f.write("\n")
print("host-curves.sh: wrote %s (edit machine.described and simulate)" % out)
PY
}

# The block for every measured file, from the simulations.
render() {
  "$py" - "$schedsim" "$tmp" validation/measured/*.json <<'PY'
import json, subprocess, sys
schedsim, tmp, files = sys.argv[1], sys.argv[2], sys.argv[3:]
models = ["token", "pipe"]

def simulate(sim, gen, loops_for_op=None):
    args = [schedsim, "run", "--workload-gen", gen, "-t", sim["topology"], "--kernel", sim["kernel"],
            "--seed", "1", "--format", "json", "--progress", "never"]
    for k, v in sorted(sim.get("cost", {}).items()):
        args += ["--cost", "%s=%s" % (k, v)]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.stderr.write(r.stderr)
        sys.exit("host-curves.sh: %s failed (exit %d)" % (" ".join(args), r.returncode))
    s = json.loads(r.stdout)["summary"]
    if not s.get("complete"):
        sys.exit("host-curves.sh: the simulation of '%s' did not complete" % gen)
    t = s["benchmark_time_ns"] / 1e9
    return t * 1e6 / loops_for_op if loops_for_op else t

def pct(x):
    return "%+.0f%%" % (100 * x)

out = []


def render_file(path, d):
    if d.get("schedsim_measured_curves") != 1:
        sys.exit("host-curves.sh: %s: not a measured-curves file (\"schedsim_measured_curves\": 1)" % path)
    m, meas, sim = d["machine"], d["measured"], d["simulate"]
    cost = ", ".join("%s=%s" % kv for kv in sorted(sim.get("cost", {}).items())) or "none"
    out.append("#### %s" % path)
    out.append("")
    out.append("%s (%d CPUs, %s; kernel %s, %s), measured %s, %s of %d %s (1-minute load average %.2f "
               "before). Simulated: `run -t %s --kernel %s --seed 1` with the costs %s; one run a point "
               "(deterministic)." % (m["described"], m["cpus"], m["cpu_model"], m["kernel"], m["perf"],
               meas["date"], meas["statistic"], meas["runs"], meas["order"], meas["load_average_before"],
               sim["topology"], sim["kernel"], cost))
    out.append("")
    summary, ops = [], []
    met, ncurves = {m: 0 for m in models}, 0
    for c in d["curves"]:
        pts = c["points"]
        if c["metric"] == "usecs_per_op":
            loops = int(c["gen"].split("-l ")[1].split()[0])
            real = pts[0]["value"]
            s = simulate(sim, c["gen"], loops)
            ops.append("| %s | `%s` | %.2f | %.2f-%.2f | %.2f | %s |" % (
                c["name"], c["command"], real, min(pts[0]["runs"]), max(pts[0]["runs"]), s, pct(s / real - 1)))
            continue
        real = [p["value"] for p in pts]
        rows = []
        sims = {}
        for model in models:
            sims[model] = [simulate(sim, c["gen"].replace("{groups}", str(p["groups"])) +
                                    " --channel-model " + model) for p in pts]
        out.append("%s: `%s` (s)" % (c["name"], c["command"]))
        out.append("")
        out.append("| groups | real | runs' range | token | raw | scaled | pipe | raw | scaled |")
        out.append("|---|---|---|---|---|---|---|---|---|")
        worst = {}
        for model in models:
            sv = sims[model]
            k = real[0] / sv[0]
            point = max(abs(k * s / r - 1) for s, r in zip(sv, real))
            ratio = max(abs((sv[i + 1] / sv[i]) / (real[i + 1] / real[i]) - 1) for i in range(len(real) - 1))
            worst[model] = (point, ratio, sv[0] / real[0] - 1)
            met[model] += point <= 0.15 and ratio <= 0.10
        ncurves += 1
        for i, p in enumerate(pts):
            cells = [str(p["groups"]), "%.3f" % real[i], "%.3f-%.3f" % (min(p["runs"]), max(p["runs"]))]
            for model in models:
                s = sims[model][i]
                k = real[0] / sims[model][0]
                cells += ["%.3f" % s, pct(s / real[i] - 1), pct(k * s / real[i] - 1)]
            out.append("| " + " | ".join(cells) + " |")
        out.append("")
        summary.append("| %s | `%s` | %s / %s | %.1f%% / %.1f%% | %.1f%% / %.1f%% | %s |" % (
            c["name"], c["command"], pct(worst["token"][2]), pct(worst["pipe"][2]),
            100 * worst["token"][0], 100 * worst["pipe"][0], 100 * worst["token"][1], 100 * worst["pipe"][1],
            "token" if max(worst["token"][:2]) < max(worst["pipe"][:2]) else "pipe"))
    out.append("Per curve: the raw error at the first point, the largest point error once scaled there "
               "(goal 15%) and the largest error of a ratio between consecutive points (goal 10%), "
               "token / pipe channel model; \"closer\" names the model with the smaller of its two largest "
               "errors.")
    out.append("")
    out.append("| curve | command | raw at first point | max point error | max ratio error | closer |")
    out.append("|---|---|---|---|---|---|")
    out.extend(summary)
    out.append("")
    out.append("Curves within both goals: token %d of %d, pipe %d of %d." % (met["token"], ncurves, met["pipe"], ncurves))
    out.append("")
    if ops:
        out.append("| benchmark | command | real us/op | runs' range | simulated us/op | raw error |")
        out.append("|---|---|---|---|---|---|")
        out.extend(ops)
        out.append("")


for path in files:
    try:
        d = json.load(open(path))
    except (OSError, ValueError) as e:
        sys.exit("host-curves.sh: %s: %s" % (path, e))
    try:
        render_file(path, d)
    except (KeyError, IndexError, TypeError, ValueError, ZeroDivisionError) as e:
        sys.exit("host-curves.sh: %s: not a complete measured-curves file (%s: %s; the layout: validation/README.md)" % (path, type(e).__name__, e))
print("\n".join(out).rstrip("\n"))
PY
}

# shellcheck source=scripts/lib/doc-blocks.sh
. scripts/lib/doc-blocks.sh

if [ "${1:-}" = --measure ]; then
  shift
  measure "$@"
  exit 0
fi
schedsim=${1:?usage: host-curves.sh SCHEDSIM --update|--check, or host-curves.sh --measure OUT.json [RUNS]}
mode=${2:?usage: host-curves.sh SCHEDSIM --update|--check}
compgen -G 'validation/measured/*.json' >/dev/null || { echo "host-curves.sh: no validation/measured/*.json" >&2; exit 1; }
grep -qx '<!-- begin host-curves -->' "$doc" || { echo "host-curves.sh: $doc has no host-curves block" >&2; exit 1; }
render > "$tmp/block"
case "$mode" in
  --update) replace_block host-curves "$tmp/block"; echo "host-curves.sh: $doc updated" ;;
  --check)
    if ! diff -u <(block host-curves) "$tmp/block" >&2; then
      echo "host-curves.sh: the host-curves block of $doc is stale (run --update)" >&2
      exit 1
    fi
    echo "host-curves.sh: the host-curves block of $doc matches the simulation" ;;
  *) echo "host-curves.sh: unknown mode '$mode' (expected --update, --check or --measure)" >&2; exit 2 ;;
esac
