#!/usr/bin/env bash
# Without --format, the -o name chooses the results format (run: .json, .jsonl, .csv; compare:
# .md, .json, .csv; each also .gz), as import's .cbor does; an explicit --format wins and any
# other name gets the table. `run -o r.json` wrote the text table into r.json before.
#   usage: output_format_by_name.sh SCHEDSIM SOURCE_DIR WORK_DIR
set -euo pipefail
. "$2/tests/lib/check.sh" "$@"
gen=(--workload-gen 'messaging -g 1 -l 5' -t smp2 --progress never)

"$S" run "${gen[@]}" -o r.json
check "run -o r.json writes JSON" grep -q '"schema": "schedsim-results"' r.json
"$S" run "${gen[@]}" -o r.json.gz
check "run -o r.json.gz writes gzipped JSON" sh -c 'zcat r.json.gz | grep -q "\"schema\": \"schedsim-results\""'
"$S" run "${gen[@]}" --repeat 3 -o r.jsonl
check "run -o r.jsonl writes one record per repetition" test "$(grep -c '"schema":"schedsim-record"' r.jsonl)" = 3
"$S" run "${gen[@]}" -o r.csv
check "run -o r.csv writes CSV" sh -c 'head -1 r.csv | grep -qx "run,section,key,stat,value"'
"$S" run "${gen[@]}" -o r.txt
check "run -o r.txt writes the table" sh -c 'head -1 r.txt | grep -q "^schedsim results: "'
"$S" run "${gen[@]}" -f table -o t.json
check "an explicit --format wins over the name" sh -c 'head -1 t.json | grep -q "^schedsim results: "'
"$S" run "${gen[@]}" --repeat 3 --seed 2 -o n.jsonl

# compare: a gate-free one-point comparison of the two record files.
"$S" compare r.jsonl n.jsonl -o c.md
check "compare -o c.md writes markdown" grep -q '^| ' c.md
"$S" compare r.jsonl n.jsonl -o c.json
check "compare -o c.json writes JSON" python3 -c 'import json,sys; json.load(open("c.json"))'
"$S" compare r.jsonl n.jsonl -o c.txt
check "compare -o c.txt writes the table" sh -c '! grep -q "^| " c.txt && ! head -c1 c.txt | grep -q "{"'
exit $fail
