#!/bin/sh
# Installs Parley for the current user, without root:
#   ~/.local/opt/parley/                 the program (and a copy of uninstall.sh)
#   ~/.local/bin/parley                  the launcher (a symbolic link)
#   ~/.local/share/applications/parley.desktop, ~/.local/share/icons/hicolor/.../parley.{png,svg}
# Run it from the unpacked archive: ./install.sh   (installing again replaces the program)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
opt="$HOME/.local/opt/parley"
bin="$HOME/.local/bin"
apps="$data_home/applications"
icons="$data_home/icons/hicolor"

[ -x "$here/parley/parley" ] || { echo "install.sh: $here/parley/parley is missing; unpack the whole archive" >&2; exit 1; }
if [ -e "$bin/parley" ] || [ -L "$bin/parley" ]; then
    case $(readlink "$bin/parley" 2>/dev/null || true) in
        "$opt/parley") ;;
        *) echo "install.sh: $bin/parley exists and is not Parley's launcher; move it away first" >&2; exit 1 ;;
    esac
fi

mkdir -p "$HOME/.local/opt" "$bin" "$apps" "$icons/256x256/apps" "$icons/scalable/apps"
rm -rf "$opt.new"
cp -R "$here/parley" "$opt.new"
cp "$here/uninstall.sh" "$opt.new/uninstall.sh"
rm -rf "$opt"
mv "$opt.new" "$opt"
ln -sfn "$opt/parley" "$bin/parley"
cp "$here/parley.png" "$icons/256x256/apps/parley.png"
cp "$here/parley.svg" "$icons/scalable/apps/parley.svg"
# The menu entry names the program by its full path: ~/.local/bin is not on every PATH.
sed "s|^Exec=parley|Exec=\"$opt/parley\"|" "$here/parley.desktop" > "$apps/parley.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true

echo "Parley is installed in $opt"
echo "Start it from your applications menu, or run: $bin/parley"
case ":$PATH:" in *":$bin:"*) ;; *) echo "(add $bin to your PATH to run it as plain 'parley')" ;; esac
echo "Uninstall: $opt/uninstall.sh   (keeps your models and conversations; --purge removes them)"
