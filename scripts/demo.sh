#!/usr/bin/env bash
# make run: a 30-second tour of wasmbox run.
set -u
W=$1
step() { printf '\n\033[1m$ %s\033[0m\n' "$*"; "$@"; echo "(exit $?)"; }
ws=$(mktemp -d); trap 'rm -rf "$ws"' EXIT
step "$W" run -c 'print(6*7)'
step "$W" run --workspace "$ws" -c 'import csv, statistics
rows = [{"x": i, "y": i * i} for i in range(10)]
with open("data.csv", "w", newline="") as f:
    w = csv.DictWriter(f, ["x", "y"]); w.writeheader(); w.writerows(rows)
print("mean y:", statistics.mean(r["y"] for r in rows))'
echo "host side: $(head -3 "$ws/data.csv" | tr '\n' ' ')..."
step "$W" run --workspace "$ws" -c 'import csv, openpyxl, tabulate
rows = list(csv.reader(open("data.csv")))
wb = openpyxl.Workbook(); [wb.active.append(r) for r in rows]; wb.save("data.xlsx")
print(tabulate.tabulate(rows[1:4], headers=rows[0], tablefmt="github"))'
step "$W" run --lang js -c 'console.log(6*7)'
step "$W" run --lang js --workspace "$ws" -c 'const rows = readText("data.csv").trim().split("\n").slice(1);
writeJson("summary.json", { rows: rows.length, maxY: Math.max(...rows.map((r) => Number(r.split(",")[1]))) });
console.log(readJson("summary.json"))'
step "$W" run -c 'open("/etc/passwd").read()'
step "$W" run --timeout 1 -c 'while True: pass'
step "$W" run --json --memory 64 -c 'x = bytearray(500 * 2**20)'
