#!/bin/sh
# Add LLM speed advisor to your applications menu, for you only (no root needed).
# Run it once from the unpacked folder, after moving the folder where you want to keep it:
#
#     ./install-desktop-entry.sh              # menu entry + icons under ~/.local/share
#     ./install-desktop-entry.sh --uninstall  # remove them again
#
# The menu entry starts this folder's llm-speed-advisor; if you move the folder, run this again.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
exe="$here/llm-speed-advisor"
res="$here/_internal/advisor/_resources"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
entry="$data/applications/llm-speed-advisor.desktop"
sizes="16 32 48 64 128 256 512"

if [ "${1:-}" = "--uninstall" ]; then
    rm -f "$entry"
    for n in $sizes; do rm -f "$data/icons/hicolor/${n}x${n}/apps/llm-speed-advisor.png"; done
    echo "Removed the LLM speed advisor menu entry."
    exit 0
fi
[ -x "$exe" ] || { echo "error: $exe not found; run this script from the unpacked app folder" >&2; exit 1; }

for n in $sizes; do
    mkdir -p "$data/icons/hicolor/${n}x${n}/apps"
    cp "$res/icons/llm-speed-advisor-$n.png" "$data/icons/hicolor/${n}x${n}/apps/llm-speed-advisor.png"
done

# Exec takes a quoted path (spaces allowed); inside the quotes \ " ` $ are escaped with a backslash.
quoted=$(printf '%s' "$exe" | sed -e 's/[\\"`$]/\\&/g')
mkdir -p "$data/applications"
tmp="$entry.tmp"
while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in
        Exec=*) printf 'Exec="%s"\n' "$quoted" ;;
        TryExec=*) printf 'TryExec=%s\n' "$exe" ;;
        *) printf '%s\n' "$line" ;;
    esac
done < "$res/llm-speed-advisor.desktop" > "$tmp"
mv "$tmp" "$entry"

command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database "$data/applications" >/dev/null 2>&1 || true
command -v gtk-update-icon-cache >/dev/null 2>&1 && gtk-update-icon-cache -q -t "$data/icons/hicolor" >/dev/null 2>&1 || true
echo "Added LLM speed advisor to your applications menu ($entry)."
