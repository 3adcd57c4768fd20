#!/bin/bash
# deps.sh: install the Debian packages the harness needs, if missing.
set -euo pipefail
. "$(dirname "$0")/base.sh"
pkgs=("$base_pkg" quilt sparse coccinelle qemu-system-x86 flex bison bc
      libelf-dev libssl-dev libc6-dev busybox-static cpio ccache dwarves babeltrace2
      spin ocaml-nox python3 python3-bt2 gcc make rsync file xz-utils diffstat python3-sphinx
      gcc-aarch64-linux-gnu qemu-system-arm gcc-s390x-linux-gnu qemu-system-misc
      python3-sphinx-rtd-theme asciidoctor git man-db
      lttng-tools kmod babeltrace python3-babeltrace python3-lttnganalyses)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
