"""Fault injection for sweeps and the store: every fault must end with nothing lost, nothing
duplicated and the numbers of an undisturbed run (``make faults``; Linux, root for the mounts).

    python benchmarks/faults.py --work /tmp/boostbench-faults

Faults: SIGKILL of the sweep's process group at random moments (then resume), SIGKILL of its main
process alone (workers must stop at once), two sweeps at once on one store, a failing job inside a
sweep, a read-only results directory, a full one (a 64 KiB tmpfs), one full as a job claims its grid
point, a corrupt record, a user's data file changed in place; each store's root is checked for
leftovers (a killed sweep's progress file). Prints one line per fault and exits 1 if any fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_stores import compare

BOOSTBENCH = [sys.executable, "-m", "boostbench"]
GRID = ["dataset=balance,car", "algorithm=vfdt,online_boosting,adaboost_olm", "seed=range(0,3)", "n_learners=20"]
N_RUNS = 18


def sweep(results: Path, *extra: str, background: bool = False, **kwargs):
    command = [*BOOSTBENCH, "sweep", *GRID, f"results_dir={results}", *extra]
    if background:
        return subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, **kwargs
        )
    return subprocess.run(command, capture_output=True, text=True, **kwargs)


def n_records(results: Path) -> int:
    return len(list((results / "runs").glob("*.json")))


def intact(results: Path, reference: Path, expected: int = N_RUNS) -> str | None:
    """Why ``results`` is not the reference store (None: it is): every record there, parsing, with
    the reference's numbers, one per config, no claim, temporary or lock file left."""
    files = sorted((results / "runs").glob("*"))
    stray = [f.name for f in files if f.suffix != ".json"] + [f.name for f in (results / "claims").glob("*")]
    # the root: no progress file of a killed sweep, no hidden file (report's tables may be there)
    stray += [f.name for f in results.iterdir() if f.name.startswith(".")]
    if stray:
        return f"left behind: {stray[:3]}"
    compared, problems = compare(str(reference), str(results))
    if problems:
        return problems[0]
    return None if compared == expected else f"{compared} records, expected {expected}"


def check(name: str, problem: str | None, detail: str = "") -> bool:
    print(
        f"{'ok  ' if problem is None else 'FAIL'}  {name}{': ' + detail if detail else ''}"
        f"{'' if problem is None else ' -- ' + problem}",
        flush=True,
    )
    return problem is None


def kill_group_at_random(work: Path, reference: Path, rng: random.Random) -> bool:
    results = work / "killed-group"
    kills = []
    for _ in range(6):  # each kill lands at a random point of the progress, mid-job or mid-write
        if n_records(results) >= N_RUNS - 1:
            break
        process = sweep(results, "-j", "2", background=True)
        target = rng.randint(n_records(results), min(n_records(results) + 5, N_RUNS - 1))
        while n_records(results) < target and process.poll() is None:
            time.sleep(0.01)
        time.sleep(rng.uniform(0.0, 0.4))
        if process.poll() is not None:
            break
        os.killpg(process.pid, signal.SIGKILL)  # the sweep and its workers
        process.wait()
        kills.append(n_records(results))
    sweep(results, "-j", "2")  # the resume after the last kill
    return check(
        "SIGKILL of the process group at random moments, then resume",
        intact(results, reference),
        f"{len(kills)} kills at {kills} records",
    )


def kill_main_alone(work: Path, reference: Path) -> bool:
    results = work / "killed-main"
    process = sweep(results, "-j", "2", background=True)
    while n_records(results) < 3:
        time.sleep(0.05)
    process.kill()  # the main process only: its workers must not go on
    process.wait()
    time.sleep(0.5)
    at_kill = n_records(results)
    time.sleep(6)
    went_on = n_records(results) - at_kill
    resumed = sweep(results, "-j", "2")
    problem = intact(results, reference) or (f"{went_on} records written after the sweep died" if went_on else None)
    return check(
        "SIGKILL of the main process alone, then resume",
        problem,
        f"{at_kill} records at the kill, {went_on} after it; resume: {resumed.stdout.strip().splitlines()[-1]}",
    )


def two_sweeps_at_once(work: Path, reference: Path) -> bool:
    results = work / "two-sweeps"
    first, second = sweep(results, "-j", "1", background=True), sweep(results, "-j", "1", background=True)
    first.wait()
    second.wait()
    again = sweep(results, "-j", "1")  # anything one of them found busy
    return check(
        "two sweeps at once on one store",
        intact(results, reference),
        f"exits {first.returncode}, {second.returncode}; then {again.stdout.strip().splitlines()[-1]}",
    )


def failing_job(work: Path) -> bool:
    results = work / "failing-job"
    # heart has 5 classes: with dataset.max_classes=3 its jobs fail, balance's (3 classes) run
    run = subprocess.run(
        [
            *BOOSTBENCH,
            "sweep",
            "dataset=balance,heart",
            "algorithm=vfdt",
            "seed=0,1",
            "+dataset.max_classes=3",
            f"results_dir={results}",
            "-j",
            "2",
        ],
        capture_output=True,
        text=True,
    )
    failed = sorted((results / "failed").glob("*.json"))
    reason = json.loads(failed[0].read_text())["reason"] if failed else ""
    problem = None
    if run.returncode != 2 or n_records(results) != 2 or len(failed) != 2 or "max_classes" not in reason:
        problem = f"exit {run.returncode}, {n_records(results)} records, {len(failed)} failure notes"
    return check("a failing job inside a sweep", problem, f"exit {run.returncode}; failed/: {reason[:110]}...")


def mounted(path: Path, options: str):
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(path)], check=True)


def read_only_dir(work: Path) -> bool:
    results = work / "read-only"
    mounted(results, "ro,size=1m")
    try:
        began = time.perf_counter()
        run = sweep(results, "-j", "2")
        seconds = time.perf_counter() - began
    finally:
        subprocess.run(["umount", str(results)], check=True)
    message = run.stderr.strip()
    problem = (
        None
        if run.returncode == 2 and "Read-only file system" in message and len(message.splitlines()) == 1
        else f"exit {run.returncode}: {message[:200]}"
    )
    return check("a read-only results directory", problem, f"{seconds:.1f} s, exit {run.returncode}: {message}")


def full_dir(work: Path, reference: Path) -> bool:
    results = work / "full"
    mounted(results, "size=64k")
    try:
        run = sweep(results, "-j", "2")
        partial = [p.name for p in (results / "runs").glob("*") if p.suffix != ".json"]
        written = n_records(results)
        _, problems = compare(str(reference), str(results))
        saved = {p.name: p.read_bytes() for p in (results / "runs").glob("*.json")}
    finally:
        subprocess.run(["umount", str(results)], check=True)
    # the disk is "cleaned": the same store on a larger disk, then resume
    (results / "runs").mkdir(parents=True)
    for name, data in saved.items():
        (results / "runs" / name).write_bytes(data)
    resumed = sweep(results, "-j", "2")
    messages = [line for line in run.stdout.splitlines() if "No space left" in line]
    problem = (
        f"partial files {partial}"
        if partial
        else problems[0]
        if problems
        else "no 'No space left on device' message"
        if not messages
        else intact(results, reference)
    )
    return check(
        "a full results directory (64 KiB), then resume on a larger one",
        problem,
        f"{written} records fitted, exit {run.returncode}; "
        f"{messages[0].strip()[:140] if messages else ''}; resume: "
        f"{resumed.stdout.strip().splitlines()[-1]}",
    )


def full_while_claiming(work: Path, reference: Path) -> bool:
    """The disk fills up between a claim's create and its write (an empty file takes an inode, its
    owner's JSON a block): each job fails in one line and leaves no claim, and once space is freed
    the same sweep runs them all at once (no waiting for a claim to go stale)."""
    results = work / "full-claiming"
    mounted(results, "size=1m")  # room for the 18 records once the filler goes
    try:
        for folder in ("runs", "claims"):
            (results / folder).mkdir()
        filler = os.open(results / "filler", os.O_WRONLY | os.O_CREAT)  # every block taken
        try:
            while True:
                os.write(filler, b"\0" * 4096)
        except OSError:
            pass
        finally:
            os.close(filler)
        run = sweep(results, "-j", "2")
        left = [p.name for p in (results / "claims").iterdir()]
        (results / "filler").unlink()
        began = time.perf_counter()
        resumed = sweep(results, "-j", "2")
        seconds = time.perf_counter() - began
        problem = (
            f"claims left behind: {left[:3]}"
            if left
            else f"first sweep: exit {run.returncode}"
            if run.returncode != 2
            else f"resume: exit {resumed.returncode}: {resumed.stdout.strip().splitlines()[-1:]}"
            if resumed.returncode != 0
            else intact(results, reference)
        )
        messages = [line for line in run.stdout.splitlines() if "cannot claim" in line]
    finally:
        subprocess.run(["umount", str(results)], check=True)
    return check(
        "out of space while claiming, then resume",
        problem,
        f"exit {run.returncode}; {' '.join(messages[0].split())[:120] if messages else ''}; resume "
        f"{seconds:.0f} s: {resumed.stdout.strip().splitlines()[-1]}",
    )


def corrupt_record(work: Path, reference: Path) -> bool:
    results = work / "corrupt"
    shutil.copytree(reference, results)
    victim = sorted((results / "runs").glob("*.json"))[5]
    victim.write_text(victim.read_text()[:200])  # truncated by something outside our writes
    report = subprocess.run(
        [*BOOSTBENCH, "report", "jung2017_table1", "--results-dir", str(results), "--n-learners", "20"],
        capture_output=True,
        text=True,
    )
    named = victim.name in report.stderr and report.returncode == 0
    resumed = sweep(results, "-j", "2")
    problem = intact(results, reference) or (None if named else f"report: exit {report.returncode}")
    return check(
        "a corrupt record: report names it and goes on, resume redoes it",
        problem,
        f"{' '.join(report.stderr.split())[:120]}; resume: {resumed.stdout.strip().splitlines()[-1]}",
    )


def changed_user_file(work: Path) -> bool:
    results, undisturbed = work / "user-file", work / "user-file-reference"
    data = work / "mine.csv"
    rows = [f"{i % 7},{(i * 3) % 5},{'x' if i % 3 else 'y'}" for i in range(120)]
    args = [
        "dataset=csv",
        f"dataset.file={data}",
        "dataset.class_column=label",
        "algorithm=vfdt,online_boosting",
        "n_learners=5",
        "-j",
        "1",
    ]
    data.write_text("a,b,label\n" + "\n".join(rows) + "\n")
    subprocess.run([*BOOSTBENCH, "sweep", *args, f"results_dir={results}"], capture_output=True, check=True)
    data.write_text("a,b,label\n" + "\n".join(rows[:80]) + "\n")  # the same name, other contents
    second = subprocess.run([*BOOSTBENCH, "sweep", *args, f"results_dir={results}"], capture_output=True, text=True)
    subprocess.run([*BOOSTBENCH, "sweep", *args, f"results_dir={undisturbed}"], capture_output=True, check=True)
    compared, problems = compare(str(results), str(undisturbed))
    sizes = sorted(json.loads(p.read_text())["metrics"]["n_examples"] for p in (results / "runs").glob("*.json"))
    problem = (
        problems[0]
        if problems
        else None
        if compared == 2 and sizes == [80, 80, 120, 120]
        else f"{compared} compared, sizes {sizes}"
    )
    return check(
        "a user's file changed in place runs again",
        problem,
        f"second sweep: {second.stdout.strip().splitlines()[-1]}; runs of {sizes} rows",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", default="/tmp/boostbench-faults")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    work = Path(args.work)
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    reference = work / "undisturbed"
    run = sweep(reference, "-j", "2")
    assert run.returncode == 0 and n_records(reference) == N_RUNS, run.stdout + run.stderr
    print(f"undisturbed: {N_RUNS} records ({' '.join(GRID)})", flush=True)
    results = [
        kill_group_at_random(work, reference, random.Random(args.seed)),
        kill_main_alone(work, reference),
        two_sweeps_at_once(work, reference),
        failing_job(work),
        read_only_dir(work),
        full_dir(work, reference),
        full_while_claiming(work, reference),
        corrupt_record(work, reference),
        changed_user_file(work),
    ]
    print(f"{sum(results)} of {len(results)} faults handled")
    sys.exit(0 if all(results) else 1)


if __name__ == "__main__":
    main()
