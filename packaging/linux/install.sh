#!/bin/sh
# Installs Parley for the current user, without root (NAME is parley, or parley-cuda for the CUDA build):
#   ~/.local/opt/NAME/                   the program (and a copy of uninstall.sh)
#   ~/.local/bin/NAME                    the launcher (a symbolic link)
#   ~/.local/share/applications/NAME.desktop, ~/.local/share/icons/hicolor/.../NAME.{png,svg}
# Run it from the unpacked archive: ./install.sh   (installing again replaces the program)
# The CPU and CUDA builds share no file: either or both can be installed.
set -eu
# packaging/build.py writes the variant's name here
name=parley
here=$(cd "$(dirname "$0")" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
opt="$HOME/.local/opt/$name"
bin="$HOME/.local/bin"
apps="$data_home/applications"
icons="$data_home/icons/hicolor"

[ -x "$here/$name/parley" ] || { echo "install.sh: $here/$name/parley is missing; unpack the whole archive" >&2; exit 1; }
if [ -e "$bin/$name" ] || [ -L "$bin/$name" ]; then
    case $(readlink "$bin/$name" 2>/dev/null || true) in
        "$opt/parley") ;;
        *) echo "install.sh: $bin/$name exists and is not Parley's launcher; move it away first" >&2; exit 1 ;;
    esac
fi

mkdir -p "$HOME/.local/opt" "$bin" "$apps" "$icons/256x256/apps" "$icons/scalable/apps"
rm -rf "$opt.new"
# Hard links where the unpacked archive is on the same file system: no second copy of the program
# (~3.4 GB for the CUDA build), and deleting the download keeps the installed files. A copy elsewhere.
cp -Rl "$here/$name" "$opt.new" 2>/dev/null || { rm -rf "$opt.new"; cp -R "$here/$name" "$opt.new"; }
cp "$here/uninstall.sh" "$opt.new/uninstall.sh"
rm -rf "$opt"
mv "$opt.new" "$opt"
ln -sfn "$opt/parley" "$bin/$name"
cp "$here/$name.png" "$icons/256x256/apps/$name.png"
cp "$here/$name.svg" "$icons/scalable/apps/$name.svg"
# The menu entry names the program by its full path: ~/.local/bin is not on every PATH.
sed "s|^Exec=$name\$|Exec=\"$opt/parley\"|" "$here/$name.desktop" > "$apps/$name.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true

echo "Parley is installed in $opt"
echo "Start it from your applications menu, or run: $bin/$name"
case ":$PATH:" in *":$bin:"*) ;; *) echo "(add $bin to your PATH to run it as plain '$name')" ;; esac
echo "Uninstall: $opt/uninstall.sh   (keeps your models and conversations; --purge removes them)"
