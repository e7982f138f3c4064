// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stacktest.h"

static void field(const char *line, const char *key, char *out, size_t len)
{
	const char *p = strstr(line, key);
	size_t n;

	out[0] = 0;
	if (!p)
		return;
	p += strlen(key);
	n = strcspn(p, " \t\n");
	snprintf(out, len, "%.*s", (int)n, p);
}

static long long number(const char *line, const char *key)
{
	char v[32];

	field(line, key, v, sizeof(v));
	return v[0] ? atoll(v) : -1;
}

static void split(const char *pair, char *a, char *b, size_t len)
{
	size_t n = strcspn(pair, "/");

	snprintf(a, len, "%.*s", (int)n, pair);
	snprintf(b, len, "%s", pair[n] ? pair + n + 1 : "");
}

/*
 * "ds:A/B C s-----": the line's last word, six flags, the first 's' for
 * suspended I/O ('r' running).  The protocol letter C is a space when
 * there is no network configuration (StandAlone).
 */
static void suspended_flag(const char *line, struct drbd_state *st)
{
	size_t n = strlen(line);

	while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
		n--;
	while (n && line[n - 1] != ' ')
		n--;
	st->suspended = line[n] == 's';
}

int drbd_state(struct drbd_state *st)
{
	char line[512], pair[40];
	bool found = false;
	FILE *f = fopen("/proc/drbd", "r");

	memset(st, 0, sizeof(*st));
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, " 0: cs:", 7)) {
			found = true;
			field(line, " cs:", st->cs, sizeof(st->cs));
			field(line, " ro:", pair, sizeof(pair));
			split(pair, st->role, st->peer_role, sizeof(st->role));
			field(line, " ds:", pair, sizeof(pair));
			split(pair, st->disk, st->peer_disk, sizeof(st->disk));
			suspended_flag(line, st);
		} else if (found && strstr(line, " ns:")) {
			st->ns = number(line, " ns:");
			st->nr = number(line, " nr:");
			st->dw = number(line, " dw:");
			st->dr = number(line, " dr:");
			st->al = number(line, " al:");
			st->bm = number(line, " bm:");
			st->oos = number(line, " oos:");
			break;
		}
	}
	fclose(f);
	return found ? 0 : -1;
}

void drbd_describe(char *buf, size_t len)
{
	struct drbd_state st;

	if (drbd_state(&st)) {
		snprintf(buf, len, "resource %s not up (/proc/drbd has no minor 0)",
			 DRBD_RES);
		return;
	}
	snprintf(buf, len, "cs:%s ro:%s/%s ds:%s/%s oos:%lld", st.cs, st.role,
		 st.peer_role, st.disk, st.peer_disk, st.oos);
}

bool drbd_connected_synced(const struct drbd_state *st)
{
	return !strcmp(st->cs, "Connected") && !strcmp(st->disk, "UpToDate") &&
	       !strcmp(st->peer_disk, "UpToDate");
}

bool drbd_peer_secondary_synced(const struct drbd_state *st)
{
	return drbd_connected_synced(st) &&
	       !strcmp(st->peer_role, "Secondary");
}

/* The peers talk: connected, or in a handshake, sync or verify. */
bool drbd_link_up(const struct drbd_state *st)
{
	static const char *const down[] = {
		"StandAlone", "Disconnecting", "Unconnected", "Timeout",
		"BrokenPipe", "NetworkFailure", "ProtocolError", "TearDown",
		"WFConnection", "WFReportParams", NULL,
	};
	int i;

	for (i = 0; down[i]; i++)
		if (!strcmp(st->cs, down[i]))
			return false;
	return st->cs[0] != 0;
}

bool drbd_link_down(const struct drbd_state *st)
{
	return !drbd_link_up(st);
}

/* Connected and nothing else: a resync or an online verify has ended. */
bool drbd_connected(const struct drbd_state *st)
{
	return !strcmp(st->cs, "Connected");
}

/*
 * drbd_wait(), counting in *drops (unless NULL) each time the link went
 * down after it had been up: a stall DRBD ended by dropping its peer
 * (ko-count), which the resync after the reconnect would hide.
 */
static int drbd_wait_drops(drbd_cond cond, const char *what, int seconds,
			   int *drops, char *msg, size_t len)
{
	double end = mono_s() + scaled(seconds);
	struct drbd_state st;
	bool was_up = false, up;
	char step[96];

	if (drops)
		*drops = 0;
	snprintf(step, sizeof(step), "waiting for %s", what);
	progress_wait(step, seconds);
	for (;;) {
		if (!drbd_state(&st)) {
			up = drbd_link_up(&st);
			if (drops && was_up && !up)
				(*drops)++;
			was_up = up;
			if (cond(&st)) {
				progress_end();
				return 0;
			}
		}
		if (mono_s() > end)
			break;
		usleep(50000);
	}
	progress_end();
	snprintf(msg, len, "timeout after %.0f s waiting for %s: ", scaled(seconds),
		 what);
	drbd_describe(msg + strlen(msg), len - strlen(msg));
	return -1;
}

int drbd_wait(drbd_cond cond, const char *what, int seconds, char *msg,
	      size_t len)
{
	return drbd_wait_drops(cond, what, seconds, NULL, msg, len);
}

int drbdadm(const char *cmd, const char *opt)
{
	const char *argv[] = { "drbdadm", cmd, DRBD_RES, NULL, NULL };

	if (opt) {
		argv[2] = opt;
		argv[3] = DRBD_RES;
	}
	return run(argv);
}

int drbd_lower(char *out, size_t len)
{
	char line[256], dev[256];
	FILE *f = fopen("/etc/drbd.conf", "re");
	int found = 0;

	while (f && !found && fgets(line, sizeof(line), f))
		found = sscanf(line, " disk %255[^;];", dev) == 1 &&
			dev[0] == '/' && strlen(dev) < len;
	if (found)
		snprintf(out, len, "%s", dev);
	if (f)
		fclose(f);
	if (!found)
		ktap_diag("no lower disk in /etc/drbd.conf");
	return found ? 0 : -1;
}

int drbd_node(void)
{
	return atoi(env_or("STACK_NODE", "0"));
}

int drbd_take_over(int seconds, int *drops, char *msg, size_t len)
{
	if (drbd_wait_drops(drbd_peer_secondary_synced,
			    "node0 to demote with both disks UpToDate", seconds,
			    drops, msg, len))
		return -1;
	if (drbdadm("primary", NULL)) {
		snprintf(msg, len, "drbdadm primary failed");
		return -1;
	}
	snprintf(msg, len, "node0 demoted; this node is primary");
	return 0;
}

void drbd_peer_part(struct ktap_out *k, int seconds, int (*read_back)(void),
		    const char *what)
{
	char msg[256];
	long long oos;
	int ok;

	ok = !drbd_take_over(seconds, NULL, msg, sizeof(msg));
	ktap_diag("%s", msg);
	ktap_result(k, ok, "took over as primary after node0's part");
	ktap_result(k, ok && !read_back(), "%s", what);
	ok = !drbd_online_verify(&oos, msg, sizeof(msg));
	ktap_diag("%s", msg);
	ktap_result(k, ok && oos == 0, "online verify: the two copies agree");
	ktap_result(k, !drbdadm("secondary", NULL), "demoted");
}

int drbd_online_verify(long long *oos, char *msg, size_t len)
{
	struct drbd_state st;
	double t0 = mono_s();

	*oos = -1;
	if (drbdadm("verify", NULL)) {
		snprintf(msg, len, "drbdadm verify failed");
		return -1;
	}
	/* The verify state is set before drbdadm returns; wait for its end. */
	if (drbd_wait(drbd_connected, "the online verify to end", 300, msg,
		      len) || drbd_state(&st))
		return -1;
	*oos = st.oos;
	snprintf(msg, len, "online verify (crc32c) took %.1fs: %lld KiB out of sync",
		 mono_s() - t0, st.oos);
	return 0;
}
