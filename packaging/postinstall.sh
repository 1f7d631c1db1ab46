#!/bin/sh
# The data directory, private to the earshot user; the unit known to
# systemd (not started: set /etc/default/earshot first, then
# systemctl enable --now earshot).
set -e
install -d -o earshot -g earshot -m 0700 /var/lib/earshot
if [ -d /run/systemd/system ]; then
    systemctl daemon-reload >/dev/null || true
fi
