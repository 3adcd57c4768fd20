#!/bin/bash
# markers-asm.sh VARIANT: disassemble the one-marker function of the LRB
# sample module, lrb_sample_site(), in the x86_64 VARIANT build.
#   local: the site, disabled, is a NOP (the static branch) and ret on the
#          fall-through path: no load, no call;
#   off:   CONFIG_LRB_MARKERS=n, the function is a bare ret.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(dirname "$here")
variant=$1
fn=lrb_sample_site
ko=$top/build/out/x86_64-$variant/samples/lrb/lrb_sample.ko
[ -f "$ko" ] || { echo "no $ko"; exit 1; }
# The instructions of the function, one per line, without addresses.
# With the function tracer, a function starts with its call to
# __fentry__, which ftrace turns into a NOP as the module loads (an
# unlinked call in the file): shown as "__fentry__".
mapfile -t insns < <(objdump -dr --no-show-raw-insn "$ko" --disassemble="$fn" |
	sed -n "/<$fn>:/,/^\$/p" | awk -F'\t' '
		/R_X86_64_[A-Z0-9]+\t__fentry__/ { prev = "__fentry__"; next }
		/R_X86_64_/ { next }
		NF >= 2 { if (prev != "") print prev; prev = $2 }
		END { if (prev != "") print prev }' | sed 's/ *$//')
# ftrace's site, at the entry, a NOP once loaded; not the marker's.
if [ "${insns[0]:-}" = __fentry__ ]; then
	echo "    (the call to __fentry__ is ftrace's site, a NOP once the module is loaded)"
	insns=("${insns[@]:1}")
fi
printf '    %s\n' "${insns[@]}"
[ ${#insns[@]} -gt 0 ] || { echo "no code found for $fn"; exit 1; }
isnop() { [[ $1 =~ ^(nop|xchg +%ax,%ax|int3) ]]; }
grep -q 'CONFIG_LRB_MARKERS=y' "$top/build/out/x86_64-$variant/.config" && markers=y || markers=n
case $variant in
local)
	[ $markers = y ] || { echo "CONFIG_LRB_MARKERS is not set in this build"; exit 1; }
	nops=0
	for i in "${insns[@]}"; do
		[[ $i == ret* ]] && break
		if isnop "$i"; then
			nops=$((nops + 1))
		else
			echo "on the disabled path: '$i'"
			exit 1
		fi
	done
	[ $nops -ge 1 ] || { echo "no NOP before ret"; exit 1; }
	echo "disabled site: $nops NOP, then ret; nothing else on the path"
	;;
off)
	[ $markers = n ] || { echo "CONFIG_LRB_MARKERS is set in this build"; exit 1; }
	for i in "${insns[@]}"; do
		[[ $i == ret* ]] || isnop "$i" || { echo "code left at the site: '$i'"; exit 1; }
	done
	[[ ${insns[0]} == ret* ]] || { echo "does not start with ret"; exit 1; }
	echo "compiled out: the function is a bare ret"
	;;
esac
