#!/usr/bin/env bash
# Install the Tandem bundle (dist/Tandem) as a desktop application for the
# current user, or remove it again. Nothing here needs root.
#
#   packaging/install-desktop.sh [--bundle DIR] [--prefix DIR] [--no-bin]
#   packaging/install-desktop.sh --uninstall [--prefix DIR]
#
# It puts the bundle in PREFIX (default ~/.local/opt/tandem), the icons in
# $XDG_DATA_HOME/icons/hicolor/<N>x<N>/apps/tandem.png (plus the scalable SVG),
# the menu entry in $XDG_DATA_HOME/applications/tandem.desktop and a `tandem`
# command in ~/.local/bin. The build copies this script into dist/Tandem, so a
# copied or unpacked bundle can install itself: ./Tandem/install-desktop.sh.
#
# Models, chats and settings are not part of the bundle: they live in the
# platform data folder (~/.local/share/Tandem, or $TANDEM_DATA_DIR) and are
# left alone by both install and uninstall, so a reinstall keeps them.
set -euo pipefail

usage() { sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; }
die() { echo "install-desktop: $*" >&2; exit 1; }

here=$(cd "$(dirname "$0")" && pwd)
data_home=${XDG_DATA_HOME:-$HOME/.local/share}
prefix=$HOME/.local/opt/tandem
bin_dir=$HOME/.local/bin
bundle=""
mode=install
link_bin=1
sizes="16 32 48 64 128 256 512"

while [ $# -gt 0 ]; do
  case $1 in
    --bundle) bundle=${2:?--bundle needs a folder}; shift 2 ;;
    --prefix) prefix=${2:?--prefix needs a folder}; shift 2 ;;
    --uninstall) mode=uninstall; shift ;;
    --no-bin) link_bin=0; shift ;;
    -h|--help) usage; exit 0 ;;
    *) usage >&2; die "unknown option: $1" ;;
  esac
done

case $prefix in /*) ;; *) prefix=$(pwd)/$prefix ;; esac
prefix=${prefix%/}
applications=$data_home/applications
desktop_file=$applications/tandem.desktop
icons=$data_home/icons/hicolor

# The prefix is replaced wholesale on install and deleted on uninstall, so
# refuse anything that is not empty and not a previous Tandem install.
looks_like_ours() {
  [ ! -e "$1" ] || [ -z "$(ls -A "$1" 2>/dev/null)" ] || { [ -x "$1/Tandem" ] && [ -d "$1/_internal" ]; }
}

refresh_caches() {
  # Menus pick up new entries without these on most desktops; they only
  # speed things up, so a missing tool is not an error.
  if command -v gtk-update-icon-cache >/dev/null && [ -f "$icons/index.theme" ]; then
    gtk-update-icon-cache -q -t -f "$icons" || true
  fi
  if command -v update-desktop-database >/dev/null; then
    update-desktop-database -q "$applications" 2>/dev/null || true
  fi
}

uninstall() {
  looks_like_ours "$prefix" || die "$prefix does not look like a Tandem install; not removing it"
  rm -rf "$prefix"
  rm -f "$desktop_file" "$icons/scalable/apps/tandem.svg"
  for size in $sizes; do rm -f "$icons/${size}x${size}/apps/tandem.png"; done
  if [ -L "$bin_dir/tandem" ] && [ "$(readlink "$bin_dir/tandem")" = "$prefix/Tandem" ]; then
    rm -f "$bin_dir/tandem"
  fi
  refresh_caches
  echo "Tandem removed from $prefix."
  echo "Your models, chats and settings were kept in the data folder (by default ~/.local/share/Tandem);"
  echo "delete that folder yourself to remove them too."
}

install() {
  if [ -z "$bundle" ]; then
    if [ -x "$here/Tandem" ] && [ -d "$here/_internal" ]; then
      bundle=$here  # running from inside a built bundle
    else
      bundle=$here/../dist/Tandem  # running from the source tree
    fi
  fi
  [ -x "$bundle/Tandem" ] && [ -d "$bundle/_internal" ] \
    || die "no bundle at $bundle: build it first with packaging/build.sh (or pass --bundle DIR)"
  bundle=$(cd "$bundle" && pwd)
  case $prefix in *[\"\`\$\\]*) die "the install folder may not contain \", \`, \$ or \\: $prefix" ;; esac
  [ "$bundle" != "$prefix" ] || die "the bundle is already at $prefix"
  looks_like_ours "$prefix" || die "$prefix exists and is not a Tandem install; choose another --prefix"

  local template=$bundle/_internal/share/applications/tandem.desktop
  local icon_src=$bundle/_internal/resources/icons
  [ -f "$template" ] || die "the bundle has no desktop entry template ($template)"

  # Copy beside the old install, then swap, so a failed copy leaves the
  # previous version working.
  mkdir -p "$(dirname "$prefix")"
  rm -rf "$prefix.new"
  cp -a "$bundle" "$prefix.new"
  rm -rf "$prefix"
  mv "$prefix.new" "$prefix"

  local version
  version=$("$prefix/Tandem" --version 2>/dev/null | awk '{print $2}') || true
  [ -n "$version" ] || version=unknown

  for size in $sizes; do
    if [ -f "$icon_src/tandem-$size.png" ]; then
      mkdir -p "$icons/${size}x${size}/apps"
      cp "$icon_src/tandem-$size.png" "$icons/${size}x${size}/apps/tandem.png"
    fi
  done
  if [ -f "$icon_src/tandem.svg" ]; then
    mkdir -p "$icons/scalable/apps"
    cp "$icon_src/tandem.svg" "$icons/scalable/apps/tandem.svg"
  fi

  mkdir -p "$applications"
  local exec_escaped=${prefix//&/\\&}/Tandem
  exec_escaped=${exec_escaped//|/\\|}
  sed -e "s|@EXEC@|$exec_escaped|g" -e "s|@VERSION@|$version|g" -e '/^# /d' "$template" > "$desktop_file.tmp"
  chmod 644 "$desktop_file.tmp"
  mv "$desktop_file.tmp" "$desktop_file"

  if [ "$link_bin" = 1 ]; then
    mkdir -p "$bin_dir"
    if [ ! -e "$bin_dir/tandem" ] || [ -L "$bin_dir/tandem" ]; then
      ln -sfn "$prefix/Tandem" "$bin_dir/tandem"
    else
      echo "install-desktop: $bin_dir/tandem exists and is not a link; left as it is" >&2
    fi
  fi
  refresh_caches

  echo "Tandem $version installed in $prefix"
  echo "  menu entry: $desktop_file"
  echo "  icons:      $icons/<N>x<N>/apps/tandem.png"
  [ "$link_bin" = 1 ] && echo "  command:    $bin_dir/tandem (try: tandem --selftest)"
  echo "Models, chats and settings live in the data folder (~/.local/share/Tandem) and survive reinstalling."
}

"$mode"
