#!/bin/sh
# Removes what install.sh put in place. Your models, conversations, settings and logs stay unless
# you pass --purge. Models downloaded from Hugging Face live in its shared cache
# (~/.cache/huggingface/hub) and are never removed here. The CPU (parley) and CUDA (parley-cuda)
# builds share that user data: --purge removes it for both.
set -eu
# packaging/build.py writes the variant's name here
name=parley
purge=0
case "${1:-}" in
    --purge) purge=1 ;;
    "") ;;
    *) echo "usage: uninstall.sh [--purge]" >&2; exit 2 ;;
esac
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
opt="$HOME/.local/opt/$name"
bin="$HOME/.local/bin"

if [ "$(readlink "$bin/$name" 2>/dev/null || true)" = "$opt/parley" ]; then rm -f "$bin/$name"; fi
rm -f "$data_home/applications/$name.desktop" \
      "$data_home/icons/hicolor/256x256/apps/$name.png" \
      "$data_home/icons/hicolor/scalable/apps/$name.svg"
rm -rf "$opt"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$data_home/applications" || true
echo "Parley ($name) is uninstalled."

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
