#!/bin/sh
# Lays out dist/Parley.app from the macOS onedir build dist/parley/ (made by packaging/build.py on a Mac).
# UNTESTED: written on Linux. Needs the macOS tools sips, iconutil, codesign, plutil (all part of macOS).
#   Parley.app/Contents/Info.plist        bundle id, version, NSMicrophoneUsageDescription
#   Parley.app/Contents/MacOS/            the onedir bundle; parley-gui is the executable
#   Parley.app/Contents/Resources/        parley.icns
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
bundle="$root/dist/parley"
app="$root/dist/Parley.app"
version=$(sed -n 's/^version *= *"\(.*\)"/\1/p' "$root/pyproject.toml" | head -n 1)
[ -x "$bundle/parley-gui" ] || { echo "make_app.sh: $bundle/parley-gui missing: run packaging/build.py on macOS first" >&2; exit 1; }

rm -rf "$app"
mkdir -p "$app/Contents/MacOS" "$app/Contents/Resources"
cp -R "$bundle/." "$app/Contents/MacOS/"

iconset=$(mktemp -d)/parley.iconset
mkdir -p "$iconset"
for size in 16 32 128 256; do
    sips -z $size $size "$root/packaging/parley.png" --out "$iconset/icon_${size}x${size}.png" >/dev/null
    double=$((size * 2))
    sips -z $double $double "$root/packaging/parley.png" --out "$iconset/icon_${size}x${size}@2x.png" >/dev/null
done
iconutil -c icns "$iconset" -o "$app/Contents/Resources/parley.icns"
rm -rf "$(dirname "$iconset")"

cat > "$app/Contents/Info.plist" <<PLIST
<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
    <key>CFBundleName</key><string>Parley</string>
    <key>CFBundleDisplayName</key><string>Parley</string>
    <key>CFBundleIdentifier</key><string>org.parley.Parley</string>
    <key>CFBundleVersion</key><string>$version</string>
    <key>CFBundleShortVersionString</key><string>$version</string>
    <key>CFBundlePackageType</key><string>APPL</string>
    <key>CFBundleExecutable</key><string>parley-gui</string>
    <key>CFBundleIconFile</key><string>parley.icns</string>
    <key>LSMinimumSystemVersion</key><string>11.0</string>
    <key>NSHighResolutionCapable</key><true/>
    <key>NSMicrophoneUsageDescription</key>
    <string>Parley listens to your voice while you hold the talk key, to answer you. Audio stays on this Mac.</string>
</dict>
</plist>
PLIST
plutil -lint "$app/Contents/Info.plist" >/dev/null

# Ad-hoc signature: enough to run locally (Apple Silicon refuses unsigned code) and for the
# microphone prompt to name Parley. Distribution needs a Developer ID signature and notarisation.
codesign --force --deep --sign - "$app"
echo "made $app (drag it to /Applications; first start: right-click > Open)"
