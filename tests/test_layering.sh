# Keeps data flowing one way: a lower layer never includes a higher layer's public header, and
# a layer's private header (src/LAYER_*.h) is included by that layer only. Every #include of a
# project header counts, in quotes or brackets, by any path ("kerntop/ui.h", <kerntop/ui.h>,
# "ui_impl.h", "../src/ui_impl.h"). One TAP line per file: ok only when the file has no
# violation. The check first proves it can fail: wrong includes of each form, planted in a copy.
. "${top_srcdir:-.}/tests/lib.sh"

# rank of a public header (include/kerntop/NAME): its layer's place in the data flow
rank() {
	case "$1" in
	sample.h|util.h|paths.h|procstat.h) echo 0 ;;
	source.h|symbols.h) echo 1 ;;
	window.h) echo 2 ;;
	agg.h) echo 3 ;;
	# the command line and the settings file are read by main and the viewer only; their
	# values use the report's vocabulary (formats, pprof labels)
	report.h|options.h|settings.h) echo 4 ;;
	ui.h) echo 5 ;;
	push.h) echo 6 ;;
	batch.h) echo 7 ;; # the batch front end: reports and the push counters
	*) echo 9 ;;
	esac
}
# family of a source or private header: the layer its name starts with
family() {
	b=${1##*/}
	b=${b%%.*}
	case "$b" in
	record*|replay*) echo source ;;
	*) echo "${b%%_*}" ;;
	esac
}
rank_of_family() {
	case "$1" in
	util|procstat) echo 0 ;;
	source|symbols) echo 1 ;;
	window) echo 2 ;;
	agg) echo 3 ;;
	report|options|settings) echo 4 ;;
	ui) echo 5 ;;
	push) echo 6 ;;
	batch) echo 7 ;;
	*) echo 9 ;;
	esac
}

# violations ROOT FILE: one line per wrong include of FILE (a path under ROOT)
violations() {
	root=$1 f=$2
	base=${f##*/}
	fam=$(family "$f")
	case "$f" in
	*/include/kerntop/*) mine=$(rank "$base") ;;
	*) mine=$(rank_of_family "$fam") ;;
	esac
	sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]\([^">]*\)[">].*/\1/p' "$root/$f" |
		while read -r inc; do
			ib=${inc##*/}
			if [ -f "$root/include/kerntop/$ib" ] && { [ "$inc" = "kerntop/$ib" ] || [ "${inc%/include/kerntop/$ib}" != "$inc" ]; }; then
				theirs=$(rank "$ib")
				[ "$theirs" -gt "$mine" ] && echo "$base includes $inc, a higher layer"
				# source and symbols are siblings: neither may include the other
				[ "$fam" = source ] && [ "$ib" = symbols.h ] && echo "$base includes $inc, its sibling"
				[ "$fam" = symbols ] && [ "$ib" = source.h ] && echo "$base includes $inc, its sibling"
			elif [ -f "$root/src/$ib" ]; then
				owner=$(family "$ib")
				# util_*.h are the shared utilities: any layer may use them
				[ "$owner" != util ] && [ "$owner" != "$fam" ] && echo "$base includes $inc, private to the $owner layer"
			fi
		done
	return 0
}

files() { # files ROOT: every file the check covers, relative to ROOT
	for f in "$1"/src/*.c "$1"/src/*.h "$1"/include/kerntop/*.h; do
		[ -f "$f" ] && echo "${f#"$1"/}"
	done
}

# The check can fail: each form of a wrong include, planted in a copy of the tree, is caught.
copy="$TMP/tree"
mkdir -p "$copy"
cp -R "$top_srcdir/src" "$top_srcdir/include" "$copy/"
for plant in '#include "ui_impl.h"' '#include <ui_impl.h>' '#include "../src/ui_impl.h"' \
	'#include "kerntop/ui.h"' '#include <kerntop/ui.h>' '#  include "report_impl.h"' \
	'#include "kerntop/symbols.h"'; do
	target=src/window.c
	[ "$plant" = '#include "kerntop/symbols.h"' ] && target=src/source_perf_ring.c
	cp "$top_srcdir/$target" "$copy/$target"
	printf '%s\n' "$plant" >>"$copy/$target"
	v=$(violations "$copy" "$target")
	like "$v" "includes" "a planted '$plant' in $target is caught"
	cp "$top_srcdir/$target" "$copy/$target"
done
# and a private header of the shared utilities is not a violation
printf '#include "util_idx.h"\n' >>"$copy/src/report.c"
is "$(violations "$copy" src/report.c)" "" "util_idx.h (a shared utility) is allowed anywhere"

for f in $(files "$top_srcdir"); do
	v=$(violations "$top_srcdir" "$f")
	if [ -z "$v" ]; then
		ok 0 "${f##*/} respects the layering"
	else
		ok 1 "${f##*/} respects the layering"
		printf '%s\n' "$v" | sed 's/^/#   /'
	fi
done
done_testing
