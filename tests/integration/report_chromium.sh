#!/usr/bin/env bash
# Renders `schedsim report` output in Debian's headless Chromium: the page must load without a
# script error, its inline script must have run (data-report-ready), every plot must be in the
# DOM, and a screenshot must be produced. Args: $1 schedsim binary, $2 source dir, $3 scratch dir.
# Exit 77 (skip, reason printed) only when Chromium is missing or cannot start at all.
set -u
SCHEDSIM=$1
SRC=$2
WORK=$3
rm -rf "$WORK" && mkdir -p "$WORK"

CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHROMIUM" ]; then
  echo "SKIP: chromium is not installed (apt-get install -y chromium)"
  exit 77
fi

fail() { echo "FAIL: $*"; exit 1; }

"$SCHEDSIM" report "$SRC/tests/data/results/sis-util.json" "$SRC/tests/data/results/prev.json" \
  -o "$WORK/report.html" --title "schedsim report test" || fail "schedsim report exited with $?"
[ -s "$WORK/report.html" ] || fail "no report.html written"
# Self-contained: no URL other than the SVG namespace, no external resources.
if grep -o 'https\?://[^"]*' "$WORK/report.html" | grep -v '^http://www.w3.org/2000/svg$' | grep -q .; then
  fail "report.html references the network"
fi

# Chromium's profile and crash dirs go to the scratch dir; network and background services off.
FLAGS=(--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update
       --disable-sync --no-first-run --disable-default-apps --user-data-dir="$(mktemp -d "$WORK/profile.XXXX")")
# Startup probe: if Chromium cannot render a trivial page, the machine cannot run it: skip.
echo '<!DOCTYPE html><html><body>ok</body></html>' > "$WORK/probe.html"
if ! timeout 60 "$CHROMIUM" "${FLAGS[@]}" --dump-dom "file://$WORK/probe.html" > "$WORK/probe.dom" 2> "$WORK/probe.err" \
   || ! grep -q ok "$WORK/probe.dom"; then
  echo "SKIP: chromium cannot start here:"; tail -5 "$WORK/probe.err"
  exit 77
fi

timeout 120 "$CHROMIUM" "${FLAGS[@]}" --dump-dom "file://$WORK/report.html" > "$WORK/dom.html" 2> "$WORK/dom.err" \
  || fail "chromium --dump-dom failed: $(tail -3 "$WORK/dom.err")"
grep -q 'data-report-ready="1"' "$WORK/dom.html" || fail "the page's script did not run (no data-report-ready)"
grep -q 'data-js-error="' "$WORK/dom.html" && fail "script error: $(grep -o 'data-js-error="[^"]*"' "$WORK/dom.html")"
grep -q 'data-plots="6"' "$WORK/dom.html" || fail "expected 6 plots, got $(grep -o 'data-plots="[0-9]*"' "$WORK/dom.html")"
for id in pct-wakeup cdf-wakeup cdf-rqwait placement-bars heatmap-0 heatmap-1 summary latency migrations cpus \
  provenance outcome-definitions metric-definitions; do
  grep -q "id=\"$id\"" "$WORK/dom.html" || fail "element #$id missing from the rendered DOM"
done
n_curves=$(grep -o '<polyline class="curve"' "$WORK/dom.html" | wc -l)
[ "$n_curves" -eq 6 ] || fail "expected 6 curves (percentiles + 2 CDFs, x 2 runs), got $n_curves"
grep -q 'class="seg" data-outcome="fallback"' "$WORK/dom.html" || fail "placement bar segments missing"

timeout 120 "$CHROMIUM" "${FLAGS[@]}" --screenshot="$WORK/report.png" --window-size=1400,2000 \
  "file://$WORK/report.html" > "$WORK/shot.out" 2>&1 || fail "chromium --screenshot failed: $(tail -3 "$WORK/shot.out")"
[ -s "$WORK/report.png" ] || fail "no screenshot written"
# A PNG of the requested size: signature, then IHDR width and height (big endian).
python3 - "$WORK/report.png" <<'PY' || fail "screenshot is not a 1400x2000 PNG"
import struct, sys
d = open(sys.argv[1], 'rb').read(32)
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
w, h = struct.unpack('>II', d[16:24])
assert (w, h) == (1400, 2000), (w, h)
PY
echo "PASS: report rendered in $(basename "$CHROMIUM"); screenshot $WORK/report.png"
