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
