#!/usr/bin/env bash
# System packages the test suite needs: PortAudio + a PulseAudio server (real audio device
# through a null sink), espeak-ng (a synthetic voice for the echo test) and the libraries Qt
# needs offscreen; Xvfb and xdotool (an X server and typed keys for the desktop-wide talk key) and
# dbus-daemon (a private session bus for its Wayland portal test), gnome-keyring (a real Secret
# Service for the language model key test).
# Installs only what is missing, only as root; otherwise prints the exact command.
set -euo pipefail
packages=(libportaudio2 pulseaudio pulseaudio-utils libasound2-plugins espeak-ng
          libglib2.0-0 libgl1 libegl1 libxkbcommon0 libfreetype6 libfontconfig1 libdbus-1-3 fonts-dejavu-core
          xvfb xdotool dbus-daemon gnome-keyring)
command -v dpkg-query >/dev/null 2>&1 || { echo "setup_system: not a Debian-like system; install ${packages[*]} yourself"; exit 0; }
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ]; then
    echo "setup_system: installing ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
    echo "setup_system: missing system packages; run:"
    echo "  sudo apt-get install -y --no-install-recommends ${missing[*]}"
fi
