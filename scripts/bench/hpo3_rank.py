#!/usr/bin/env python3
"""Rank diseases for HPO phenotype queries with hpo3 and time each ranking.

hpo3 (PyPI ``hpo3``, imported as ``pyhpo``) is a Rust implementation of the
pyhpo API. For every query this script builds an ``HPOSet``, scores it against
every disease with ``HPOSet.similarity_scores(disease_sets, kind, method,
combine)`` (Resnik by default) and sorts the scores. The whole per-query
ranking (set construction + scoring + sort) is timed with
``time.perf_counter_ns``.

hpo3 parallelises ``similarity_scores`` with rayon; the rayon pool size is
fixed through ``RAYON_NUM_THREADS`` before ``pyhpo`` is imported (``--threads``,
default 1).

Profiles (``--profile``):
  hpo3      (default) hpo3's own annotations: the OMIM and ORPHA diseases it
            loads from phenotype.hpoa (all aspects, NOT rows dropped; hpo3 does
            not load DECIPHER) and its built-in IC (``--kind``, default omim:
            -ln(diseases annotated to the term or a descendant / OMIM diseases),
            0 for unannotated terms).
  caretide  disease sets and IC rebuilt from phenotype.hpoa the Caretide way:
            OMIM + ORPHA + DECIPHER, aspect P only, NOT rows dropped;
            IC(t) = -ln(count(t)/D) with counts propagated to ancestors,
            D = diseases with at least one kept annotation, ln D for unannotated
            terms. Installed via ``Ontology.set_custom_information_content`` and
            used with kind="custom". Same hpo3 scoring function.

hpo3 has no asymmetric (query -> disease) set combination; available are
funSimAvg (mean of both best-match-average directions, default), funSimMax and
BMA.

Usage:
    python3 hpo3_rank.py --data DIR --queries queries.json [--output results.json]
                         [--profile hpo3|caretide] [--kind omim|orpha|gene]
                         [--method resnik] [--combine funSimAvg|funSimMax|BMA]
                         [--threads 1] [--warmup 5]

queries.json: {"queries": [{"size": 5, "terms": ["HP:0001250", ...]}, ...]}
(``size`` is optional; it defaults to the number of terms).
"""

import argparse
import json
import math
import os
import sys
import time
from collections import defaultdict

SCORING_FUNCTION = "pyhpo.HPOSet.similarity_scores"
HPOA_SOURCES = ("OMIM", "ORPHA", "DECIPHER")


def percentile(sorted_values, q):
    """Linear-interpolation percentile (numpy's default) of a sorted list."""
    if not sorted_values:
        return None
    pos = (len(sorted_values) - 1) * q / 100.0
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def summarize(durations_ns):
    values = sorted(d / 1e6 for d in durations_ns)
    return {
        "p50_ms": round(percentile(values, 50), 4),
        "p99_ms": round(percentile(values, 99), 4),
        "mean_ms": round(sum(values) / len(values), 4),
        "min_ms": round(values[0], 4),
        "max_ms": round(values[-1], 4),
        "n": len(values),
    }


def process_thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return None


def hpo_int(term_id):
    return int(term_id.split(":", 1)[1])


def hpoa_phenotype_diseases(hpoa_path):
    """{disease_id: set(term_int)} for OMIM/ORPHA/DECIPHER, aspect P, NOT dropped."""
    diseases = defaultdict(set)
    with open(hpoa_path, encoding="utf-8") as handle:
        for line in handle:
            if line.startswith("#") or line.startswith("database_id"):
                continue
            cols = line.rstrip("\n").split("\t")
            if len(cols) < 11 or cols[2] == "NOT" or cols[10] != "P":
                continue
            if cols[0].split(":", 1)[0] not in HPOA_SOURCES:
                continue
            diseases[cols[0]].add(hpo_int(cols[3]))
    return diseases


def load(args):
    """Load the ontology and the disease sets; returns (ids, sets, kind, info)."""
    from pyhpo import HPOSet, Ontology

    t0 = time.perf_counter()
    Ontology(data_folder=args.data)
    t_ontology = time.perf_counter() - t0

    entries = []  # (disease_id, HPOSet)
    if args.profile == "hpo3":
        kind = args.kind
        entries += [("OMIM:%d" % d.id, HPOSet.from_omim_disease(d)) for d in Ontology.omim_diseases]
        entries += [("ORPHA:%d" % d.id, HPOSet.from_orpha_disease(d)) for d in Ontology.orpha_diseases]
    else:
        kind = "custom"
        diseases = hpoa_phenotype_diseases(os.path.join(args.data, "phenotype.hpoa"))
        counts = defaultdict(int)
        for terms in diseases.values():
            closure = set()
            for t in terms:
                term = Ontology.hpo(t)
                closure.add(t)
                closure.update(int(p) for p in term.all_parents)
            for t in closure:
                counts[t] += 1
        total = len(diseases)
        scores = [(int(term), -math.log(counts[int(term)] / total) if counts[int(term)] else math.log(total))
                  for term in Ontology]
        Ontology.set_custom_information_content(scores)
        entries += [(disease_id, HPOSet(sorted(terms))) for disease_id, terms in diseases.items()]

    # Sort by source then numeric id: the stable descending sort in rank() then
    # breaks score ties deterministically in this order.
    order = {src: i for i, src in enumerate(HPOA_SOURCES)}
    entries.sort(key=lambda e: (order.get(e[0].split(":")[0], 99), int(e[0].split(":")[1])))
    load_seconds = time.perf_counter() - t0

    per_source = defaultdict(int)
    for disease_id, _ in entries:
        per_source[disease_id.split(":")[0]] += 1
    info = {
        "ontology_load_seconds": round(t_ontology, 4),
        "load_seconds": round(load_seconds, 4),
        "hpo_data_version": Ontology.version(),
        "hpo_term_count": len(Ontology),
        "disease_count": len(entries),
        "diseases_by_source": dict(per_source),
    }
    return [e[0] for e in entries], [e[1] for e in entries], kind, info


def rank(terms, disease_sets, kind, method, combine):
    """One timed ranking: returns (elapsed_ns, order, scores)."""
    from pyhpo import HPOSet

    start = time.perf_counter_ns()
    query = HPOSet.from_queries(terms)
    scores = query.similarity_scores(disease_sets, kind=kind, method=method, combine=combine)
    order = sorted(range(len(scores)), key=scores.__getitem__, reverse=True)  # stable
    elapsed = time.perf_counter_ns() - start
    return elapsed, order, scores


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, help="folder with hp.obo, phenotype.hpoa, genes_to_phenotype.txt")
    parser.add_argument("--queries", required=True, help="queries JSON file")
    parser.add_argument("--output", help="write results JSON here")
    parser.add_argument("--profile", choices=("hpo3", "caretide"), default="hpo3")
    parser.add_argument("--kind", choices=("omim", "orpha", "gene"), default="omim",
                        help="IC source for --profile hpo3 (default omim)")
    parser.add_argument("--method", default="resnik", help="term similarity (default resnik)")
    parser.add_argument("--combine", choices=("funSimAvg", "funSimMax", "BMA"), default="funSimAvg")
    parser.add_argument("--threads", type=int, default=1, help="rayon threads (default 1)")
    parser.add_argument("--warmup", type=int, default=5, help="untimed warm-up rankings (default 5)")
    args = parser.parse_args(argv)

    # Must happen before pyhpo is imported: rayon reads it when its global pool starts.
    os.environ["RAYON_NUM_THREADS"] = str(args.threads)
    import pyhpo
    from pyhpo import Ontology

    with open(args.queries, encoding="utf-8") as handle:
        queries = json.load(handle)["queries"]

    ids, disease_sets, kind, info = load(args)

    for i, q in enumerate(queries):
        missing = [t for t in q["terms"] if not _term_exists(Ontology, t)]
        if missing:
            sys.exit("query %d: terms not in the ontology: %s" % (i, ", ".join(missing)))

    for q in queries[: args.warmup]:
        rank(q["terms"], disease_sets, kind, args.method, args.combine)

    by_size = defaultdict(list)
    top1, top1_score = [], []
    for q in queries:
        elapsed, order, scores = rank(q["terms"], disease_sets, kind, args.method, args.combine)
        by_size[str(q.get("size", len(q["terms"])))].append(elapsed)
        top1.append(ids[order[0]])
        top1_score.append(round(scores[order[0]], 6))

    result = {
        "hpo3_version": pyhpo.__version__,
        "hpo3_backend": pyhpo.__backend__,
        "load_seconds": info["load_seconds"],
        "disease_count": info["disease_count"],
        "by_size": {size: summarize(v) for size, v in sorted(by_size.items(), key=lambda kv: int(kv[0]))},
        "top1": top1,
        "top1_score": top1_score,
        "settings": {
            "profile": args.profile,
            "scoring_function": SCORING_FUNCTION,
            "kind": kind,
            "method": args.method,
            "combine": args.combine,
            "rayon_num_threads": os.environ["RAYON_NUM_THREADS"],
            "process_threads_after_run": process_thread_count(),
            "warmup": min(args.warmup, len(queries)),
            "timed": "HPOSet.from_queries + similarity_scores + sort, per query",
        },
        "data": info,
    }
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            json.dump(result, handle, indent=1)
            handle.write("\n")

    print("hpo3 %s, HPO %s, profile %s: %d diseases %s, loaded in %.2f s"
          % (result["hpo3_version"], info["hpo_data_version"], args.profile, info["disease_count"],
             info["diseases_by_source"], info["load_seconds"]))
    print("%s(kind=%s, method=%s, combine=%s), RAYON_NUM_THREADS=%s, process threads %s"
          % (SCORING_FUNCTION, kind, args.method, args.combine, os.environ["RAYON_NUM_THREADS"],
             result["settings"]["process_threads_after_run"]))
    for size, s in result["by_size"].items():
        print("  size %3s: n=%4d  p50 %8.2f ms  p99 %8.2f ms  mean %8.2f ms"
              % (size, s["n"], s["p50_ms"], s["p99_ms"], s["mean_ms"]))
    return 0


def _term_exists(ontology, term_id):
    try:
        ontology.get_hpo_object(term_id)
        return True
    except Exception:  # hpo3 raises different exception types for bad/unknown IDs
        return False


if __name__ == "__main__":
    sys.exit(main())
