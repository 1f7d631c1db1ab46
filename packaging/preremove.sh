#!/bin/sh
# Stop the service before its binary goes; the data directory stays.
set -e
if [ -d /run/systemd/system ]; then
    systemctl stop earshot.service >/dev/null 2>&1 || true
    systemctl disable earshot.service >/dev/null 2>&1 || true
fi
