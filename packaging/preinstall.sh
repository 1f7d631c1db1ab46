#!/bin/sh
# The earshot system user owns the data directory and runs the service.
set -e
if ! getent group earshot >/dev/null; then
    addgroup --system earshot >/dev/null
fi
install -d -m 0700 /var/lib/earshot
if ! getent passwd earshot >/dev/null; then
    adduser --system --ingroup earshot --home /var/lib/earshot --no-create-home \
        --gecos "Earshot conversation analytics" --shell /usr/sbin/nologin earshot >/dev/null
fi
