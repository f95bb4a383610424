# Keeps data flowing one way: a lower layer never includes a higher layer's header.
. "${top_srcdir:-.}/tests/lib.sh"

rank() {
	case "$1" in
	sample.h|util.h|procstat.h) echo 0 ;;
	source.h) echo 1 ;;
	symbols.h) echo 1 ;;
	window.h) echo 2 ;;
	agg.h) echo 3 ;;
	options.h) echo 3 ;;
	report.h) echo 4 ;;
	ui.h) echo 5 ;;
	*) echo 9 ;;
	esac
}
layer_of_file() {
	b=$(basename "$1")
	case "$b" in
	util*|options*|procstat*) echo 0 ;;
	source*|record*|replay*) echo 1 ;;
	symbols*) echo 1 ;;
	window*) echo 2 ;;
	agg*) echo 3 ;;
	report*) echo 4 ;;
	ui*) echo 5 ;;
	main.c) echo 9 ;;
	*.h) rank "$b" ;;
	*) echo 9 ;;
	esac
}
for f in "$top_srcdir"/src/*.c "$top_srcdir"/include/kerntop/*.h; do
	[ -f "$f" ] || continue
	mine=$(layer_of_file "$f")
	base=$(basename "$f")
	for inc in $(sed -n 's/^#include "kerntop\/\([a-z_]*\.h\)".*/\1/p' "$f"); do
		theirs=$(rank "$inc")
		# options.h (rank 3) is allowed in core util files only as their own header
		if [ "$base" = options.c ] && [ "$inc" = options.h ]; then theirs=0; fi
		# --help prints the symbolizer's built-in idle list, a macro in symbols.h (no link)
		if [ "$base" = options.c ] && [ "$inc" = symbols.h ]; then theirs=0; fi
		if [ "$theirs" -gt "$mine" ]; then
			ok 1 "$base includes $inc, a higher layer"
		fi
	done
	# source and symbols are siblings: neither may include the other
	case "$base" in
	source*) grep -q '#include "kerntop/symbols.h"' "$f" && ok 1 "$base includes symbols.h" ;;
	symbols*) grep -q '#include "kerntop/source.h"' "$f" && ok 1 "$base includes source.h" ;;
	esac
	ok 0 "$base respects the layering"
done
done_testing
