#!/bin/bash
# overlay.sh export|check: the overlay dirs hold the files the series
# creates, as they stand after its last patch.  "export" copies them out of
# the patched tree; "check" fails when they differ or when the overlay has
# a file the series does not create.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
mode=${1:-check}

bad=0
files=$(series_files)
for f in $files; do
	case $mode in
	export)
		mkdir -p "$top/$(dirname "$f")"
		cp "$tree/$f" "$top/$f" ;;
	check)
		if ! cmp -s "$tree/$f" "$top/$f"; then
			echo "overlay: $f differs from the series (run make export)"
			bad=1
		fi ;;
	esac
done
# Overlay files that the series does not create.
for d in kernel include Documentation tools scripts samples; do
	[ -d "$top/$d" ] || continue
	while read -r f; do
		f=${f#"$top"/}
		grep -qxF "$f" <<<"$files" || { echo "overlay: $f is not created by the series"; bad=1; }
	done < <(find "$top/$d" -type f)
done
# The patches are in git format-patch form (quilt refresh writes plain
# unified diffs), and the cover letter follows the series.
case $mode in
export) (cd "$top/patches" && "$here/gitify.py" $(series_patches))
	"$here/cover.sh" >"$top/patches/0000-cover-letter.patch" ;;
check) (cd "$top/patches" && "$here/gitify.py" --check $(series_patches)) || bad=1
	"$here/cover.sh" | cmp -s - "$top/patches/0000-cover-letter.patch" ||
	{ echo "overlay: patches/0000-cover-letter.patch is stale (run make export)"; bad=1; } ;;
esac
[ "$mode" = export ] && echo "overlay: exported $(wc -w <<<"$files") files"
exit $bad
