#!/usr/bin/env bash
# Issue 43's scaling figures in one run, on a machine of many cores that has
# neither Go nor the speech engine: `make scaling-pack` builds bin/scaling/
# here (the lab binary and the shared libraries it needs); carry it there
# and run this. Each table goes to $OUT (default ./scaling-out), with the
# time each step took; a step that fails does not keep the others from
# running. docs/development.md says what each prints.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pack=$root/bin/scaling
out=${OUT:-$root/scaling-out}
mkdir -p "$out"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
lab=$work/earshot-lab
gzip -dc "$pack/earshot-lab.gz" >"$lab"
chmod +x "$lab"
tar -xzf "$pack/lib.tar.gz" -C "$work"
export LD_LIBRARY_PATH=$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd "$work"
{ nproc; grep -m1 'model name' /proc/cpuinfo; free -g; "$lab" version; } >"$out/machine.txt" 2>&1 || true

failed=()
step() {
	local name=$1 start=$SECONDS
	shift
	echo "== $name: earshot-lab $*"
	if ! "$lab" "$@" 2>&1 | tee "$out/$name.txt"; then
		failed+=("$name")
	fi
	echo "== $name: $((SECONDS - start)) s" | tee -a "$out/$name.txt"
}
step ingest-30k bench ingest --archives 100 --chats 300 --workers 1,2,all --runs 5
step ingest-10k bench ingest --archives 100 --chats 100 --workers 1,2,all --runs 5
# the same on warm servers: a fresh server's first job also grows its heap
step ingest-10k-warm bench ingest --archives 100 --chats 100 --workers 1,2,all --runs 3 --warm-up
step gen --data "$work/lake" bench gen --conversations 1000000 --orgs 1
for run in 1 2 3; do # three runs: a page's gap moves from run to run by about a millisecond
	step "query-$run" --data "$work/lake" bench query --runs 30
done
# last, where the time may run out: large archives, committed in parts side by side
step ingest-100k-large bench ingest --archives 100 --chats 1000 --workers 1,2,all --runs 3
if ((${#failed[@]})); then
	echo "failed: ${failed[*]}" >&2
	exit 1
fi
