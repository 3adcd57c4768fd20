# base.sh: the kernel the series applies to, named once (sourced by
# deps.sh, tree.sh and check.sh).
base_pkg=linux-source-6.12

# base_tarball: the path of the base's source tarball.
base_tarball() {
	dpkg -L "$base_pkg" | grep -m1 "/$base_pkg\.tar\.xz\$"
}

# base_extract DIR: extract the base as DIR (which must not exist),
# through a temporary directory beside it, so that an interrupted
# extraction leaves no half tree at DIR.
base_extract() {
	local dir=$1 tmp
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/extract.XXXXXX") &&
	tar -C "$tmp" -xf "$(base_tarball)" &&
	mv "$tmp/$base_pkg" "$dir" &&
	rmdir "$tmp"
}
