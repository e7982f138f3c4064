#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Check .gitlab-ci.yml against GitLab's own schema, then run its jobs
here as GitLab would run them: stage by stage, each job (each value of
its parallel:matrix) in a fresh clone of the repository as it is now
(uncommitted and untracked changes laid over HEAD), with the artifacts
of the jobs it needs copied in and its script lines run by bash -e with
the pipeline's variables.  A job is skipped when a job it needs (or,
without needs, any job of an earlier stage) failed, unless it is
when: always.  Not emulated: caches, images (the jobs run on this
machine), timeouts, retries.

usage: pipeline.py [--lint-only] [--shards N] [--var NAME=VALUE]... WORK

--shards N runs N shards (SHARD 1/N..N/N) in place of the file's matrix;
--var overrides a pipeline variable.  Each job's clone is WORK/JOB
(WORK/shard-K for shard K/N); its log is WORK/JOB.log.  Exits 0 when
the file is valid and, unless --lint-only, every job passed.
"""
import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import time

import jsonschema
import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
SCHEMA = os.path.join(ROOT, "host/vendor/gitlab-ci/ci.json")
KEYWORDS = {"stages", "variables", "default", "workflow", "include",
            "image", "services", "cache", "before_script", "after_script"}


def lint(path):
    """The file, loaded; dies listing every schema error."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    with open(SCHEMA) as f:
        schema = json.load(f)
    v = jsonschema.Draft7Validator(schema)
    errs = sorted(v.iter_errors(doc), key=lambda e: list(e.absolute_path))
    for e in errs:
        where = "/".join(str(p) for p in e.absolute_path) or "(top)"
        print(f"{path}: {where}: {e.message[:300]}", file=sys.stderr)
    if errs:
        sys.exit(f"{path}: {len(errs)} errors against GitLab's schema")
    jobs = {k: v for k, v in doc.items() if k not in KEYWORDS}
    for name, job in jobs.items():
        stage = job.get("stage", "test")
        if stage not in doc.get("stages", ["build", "test", "deploy"]):
            sys.exit(f"{path}: job {name}: stage {stage} is not in stages")
        for need in job.get("needs", []):
            need = need if isinstance(need, str) else need["job"]
            if need not in jobs:
                sys.exit(f"{path}: job {name} needs {need}, which is no job")
    for j in jobs.values():
        for m in j.get("parallel", {}).get("matrix", []):
            values = m.get("SHARD", [])
            n = len(values)
            if values != [f"{k}/{n}" for k in range(1, n + 1)]:
                sys.exit(f"{path}: SHARD is {values}: want 1/N .. N/N")
    return doc, jobs


def needs_of(job):
    return [n if isinstance(n, str) else n["job"]
            for n in job.get("needs", [])]


def copy_tree(clone):
    """ROOT as it is now into clone: HEAD, then what differs from it."""
    subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
    ls = subprocess.run(["git", "-C", ROOT, "ls-files", "-z", "-m", "-o",
                         "--exclude-standard"], check=True,
                        capture_output=True).stdout
    for f in filter(None, ls.decode().split("\0")):
        src, dst = os.path.join(ROOT, f), os.path.join(clone, f)
        if os.path.lexists(src):
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
        elif os.path.lexists(dst):
            os.remove(dst)


def expand(value, env):
    """$NAME and ${NAME} from env, as the runner expands job variables."""
    return re.sub(r"\$\{?(\w+)\}?", lambda m: env.get(m.group(1), ""),
                  str(value))


def instances(name, job, shards):
    """(label, matrix variables) for each job this entry makes."""
    matrix = job.get("parallel", {}).get("matrix")
    if not matrix:
        return [(name, {})]
    if shards:
        matrix = [{"SHARD": [f"{k}/{shards}" for k in range(1, shards + 1)]}]
    out = []
    for m in matrix:
        (key, values), = m.items()
        out += [(f"{name}-{v.split('/')[0]}", {key: v}) for v in values]
    return out


def run_job(label, job, mvars, doc, over, work, done):
    """Run one job in its own clone; its artifacts' paths, or None."""
    clone = os.path.join(work, label)
    log = open(os.path.join(work, label + ".log"), "w")
    copy_tree(clone)
    for need in needs_of(job):
        for lbl, (src, files) in done.items():
            if lbl == need or lbl.startswith(need + "-"):
                for f in files:
                    dst = os.path.join(clone, f)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    shutil.copy2(os.path.join(src, f), dst)
    env = dict(os.environ, CI_PROJECT_DIR=clone, CI_JOB_NAME=label)
    for vs in (doc.get("variables", {}), job.get("variables", {}), mvars,
               over):
        for k, v in vs.items():
            env[k] = expand(v, env)
    ok = True
    for line in job["script"]:
        print(f"$ {line}", file=log, flush=True)
        if subprocess.run(["bash", "-e", "-c", line], cwd=clone, env=env,
                          stdout=log, stderr=log).returncode:
            ok = False
            break
    log.close()
    arts = job.get("artifacts", {})
    if not ok and arts.get("when") != "always":
        return ok, []
    files = []
    for pat in arts.get("paths", []):
        for p in glob.glob(os.path.join(clone, pat)):
            if os.path.isdir(p):
                files += [os.path.relpath(os.path.join(d, f), clone)
                          for d, _, fs in os.walk(p) for f in fs]
            else:
                files.append(os.path.relpath(p, clone))
    return ok, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lint-only", action="store_true")
    ap.add_argument("--shards", type=int)
    ap.add_argument("--var", action="append", default=[])
    ap.add_argument("--file", default=os.path.join(ROOT, ".gitlab-ci.yml"))
    ap.add_argument("work", nargs="?")
    a = ap.parse_args()
    doc, jobs = lint(a.file)
    print(f"pipeline: {a.file}: valid against GitLab's schema, "
          f"{len(jobs)} jobs")
    if a.lint_only:
        return 0
    over = dict(v.split("=", 1) for v in a.var)
    work = os.path.abspath(a.work)
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    done, failed = {}, []
    for stage in doc["stages"]:
        for name, job in jobs.items():
            if job.get("stage", "test") != stage:
                continue
            needs = needs_of(job) if "needs" in job else list(done)
            blocked = [f for f in failed
                       if any(f == n or f.startswith(n + "-") for n in needs)]
            for label, mvars in instances(name, job, a.shards):
                if blocked and job.get("when") != "always":
                    print(f"pipeline: {label}: skipped ({blocked[0]} failed)")
                    continue
                t0 = time.time()
                ok, files = run_job(label, job, mvars, doc, over, work, done)
                done[label] = (os.path.join(work, label), files)
                print(f"pipeline: {label}: {'passed' if ok else 'FAILED'} "
                      f"in {time.time() - t0:.0f}s, "
                      f"{len(files)} artifact files")
                if not ok:
                    failed.append(label)
    print(f"pipeline: {len(done) - len(failed)} of {len(done)} jobs passed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
