#!/bin/sh
# Removes what install.sh put in place. Your models, conversations, settings and logs stay unless
# you pass --purge. Models downloaded from Hugging Face live in its shared cache
# (~/.cache/huggingface/hub) and are never removed here.
set -eu
purge=0
case "${1:-}" in
    --purge) purge=1 ;;
    "") ;;
    *) echo "usage: uninstall.sh [--purge]" >&2; exit 2 ;;
esac
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
opt="$HOME/.local/opt/parley"
bin="$HOME/.local/bin"

if [ "$(readlink "$bin/parley" 2>/dev/null || true)" = "$opt/parley" ]; then rm -f "$bin/parley"; fi
rm -f "$data_home/applications/parley.desktop" \
      "$data_home/icons/hicolor/256x256/apps/parley.png" \
      "$data_home/icons/hicolor/scalable/apps/parley.svg"
rm -rf "$opt"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data_home/applications" || true
echo "Parley is uninstalled."

# Where Parley keeps user data on Linux (platformdirs / QSettings folders).
documents=$(xdg-user-dir DOCUMENTS 2>/dev/null || true)
[ -n "$documents" ] && [ "$documents" != "$HOME" ] || documents="$HOME/Documents"
user_data="${XDG_CACHE_HOME:-$HOME/.cache}/parley
${XDG_CONFIG_HOME:-$HOME/.config}/Parley
${XDG_STATE_HOME:-$HOME/.local/state}/Parley
$documents/Parley"
if [ "$purge" = 1 ]; then
    echo "$user_data" | while IFS= read -r dir; do
        if [ -e "$dir" ]; then rm -rf "$dir"; echo "removed $dir"; fi
    done
else
    echo "Kept your data (remove it with: uninstall.sh --purge):"
    echo "$user_data" | while IFS= read -r dir; do if [ -e "$dir" ]; then echo "  $dir"; fi; done
fi
