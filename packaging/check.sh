#!/usr/bin/env bash
# Checks the Debian package as far as a machine without systemd running
# allows (make package-check, CI): it installs with dpkg, its unit passes
# systemd-analyze verify, and the installed binary serves /readyz as the
# unit would start it (its user, its environment file, its data
# directory); then it is removed, its data left.
set -euo pipefail
deb=$1
want=$2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
if ! command -v systemd-analyze >/dev/null; then
  $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends systemd >/dev/null
fi
$SUDO dpkg -i "$deb"
systemd-analyze verify /lib/systemd/system/earshot.service
got=$(/usr/bin/earshot version)
[ "$got" = "earshot $want" ] || { echo "earshot version says '$got', want 'earshot $want'"; exit 1; }
[ "$(stat -c %U /var/lib/earshot)" = earshot ] || { echo "/var/lib/earshot is not the earshot user's"; exit 1; }

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
log=$(mktemp)
# The unit's environment, with a free port.
$SUDO env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin $(grep -v '^#' /etc/default/earshot | xargs) EARSHOT_ADDR=127.0.0.1:$port \
  runuser -u earshot -- /usr/bin/earshot serve >"$log" 2>&1 &
pid=$!
ready=""
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; then ready=yes; break; fi
  sleep 0.2
done
kill -TERM "$pid" 2>/dev/null || true
wait "$pid" 2>/dev/null || true
if [ -z "$ready" ]; then echo "the installed earshot did not become ready:"; cat "$log"; exit 1; fi
[ -f /var/lib/earshot/catalog.db ] || { echo "no catalog in /var/lib/earshot"; exit 1; }
$SUDO dpkg -r earshot >/dev/null
echo "package ok: $deb installs, its unit verifies, earshot $want serves /readyz as the unit starts it"
