/* SPDX-License-Identifier: GPL-2.0 */
#ifndef HOST_REPORT_H
#define HOST_REPORT_H

#include <libxml/xmlwriter.h>
#include "result.h"

#include <json.h>

/* JSON (json-c) and JUnit XML (libxml2); both written atomically. */
int report_json(const struct run_report *r, const char *path);
int report_junit(const struct run_report *r, const char *path);
/* o pretty-printed to path, atomically, then released; 0 or -1. */
int json_write_put(json_object *o, const char *path);
/*
 * A JUnit document written to a temporary file, its <testsuites> open;
 * junit_close() ends it and renames it to path (0), or removes it.
 */
xmlTextWriterPtr junit_open(const char *path, char **tmp);
int junit_close(xmlTextWriterPtr w, char *tmp, const char *path);
/* The kernel under test as report.json's "kernel" object, and back. */
struct ksource;
json_object *ksource_json(const struct ksource *k);
struct ksource *ksource_from_json(json_object *o);
/* One topology's result to a file and back (--jobs workers use it). */
int topo_result_save(const struct topo_result *r, const char *path);
int topo_result_load(const char *path, struct topo_result *r);
/*
 * A whole report.json back (--merge): its kernel, profile, series with
 * their coverage and topologies.  -1 with the reason in err.
 */
int run_report_load(const char *path, struct run_report *r, char *err,
		    size_t len);

#endif
