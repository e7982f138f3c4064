# Shared by the harness's shell tests: TAP-style results and their count.
n=0 pass=0 fail=0

# ok STATUS DESCRIPTION [LOG]: one result; on failure, the log's tail.
ok() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		pass=$((pass + 1))
		echo "ok $n - $2"
	else
		fail=$((fail + 1))
		echo "not ok $n - $2"
		[ -n "${3:-}" ] && sed 's/^/#   /' "$3" | tail -n 15
	fi
}

# bad NAME PATTERN ARGS...: ./runner ARGS exits 2 with PATTERN in its
# output and boots nothing (its log: $out/NAME.log).
bad() {
	local name=$1 pat=$2 log=$out/$1.log rc
	shift 2
	./runner "$@" >"$log" 2>&1
	rc=$?
	[ "$rc" = 2 ] && grep -qE -- "$pat" "$log" && ! grep -q booting "$log"
	ok $? "$name (exit $rc, wants 2 and /$pat/)" "$log"
}
