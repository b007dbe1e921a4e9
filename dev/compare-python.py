#!/usr/bin/env python3
"""The Python peer of the engine's benchmarks: same shapes, same data, same run.

Reads the engine's report and exported training problem from ENGINE_DIR
(written by Benchmarks' `engine-peer`, see dev/compare-python.sh) and times:

  (a) `LogisticRegression.predict_proba` for one sample (as many timed calls
      as the engine made at that shape), with as many classes
      as the engine has targets and as many features as its scoring matrix
      has columns;
  (b) numpy `W @ x` (float64) over the full one-hot width plus top-4
      selection (`argpartition`, then sorting the four): the old, unequal peer;
  (b') the fair peer, in the engine's own layout: the dense part
      (targets x dense columns, float64, like the engine) times x, plus the
      one transition row of the previous target (a contiguous row of the
      transposed targets x targets block), then the softmax the engine
      computes (one exp per target; the normaliser) and the top 4 by
      `argpartition`, sorted: the same outputs (four targets with
      probabilities) from the same data layout, with preallocated `out=`
      buffers and only the four returned probabilities divided;
  (b'') the same without the softmax in float32 (`W32 @ x`, top 4 by
      `argpartition`): the cheapest thing a competent user would write,
      returning scores, not probabilities;
  (c) `LogisticRegression(solver="lbfgs")` training on the engine's own
      100,000 x 200 problem (its design matrix without the bias column, the
      intercept fitted unpenalised like the engine's bias).

Regularisation: the engine minimises  sum_i CE_i + (l2/2) ||W without bias||^2;
scikit-learn minimises  C * sum_i CE_i + (1/2) ||coef||^2  (intercept not
penalised with lbfgs), so C = 1 / l2 gives the same minimiser. The stopping
rule is the engine's too: tol = its gradient tolerance (both test the largest
gradient component of the mean-scaled objective), max_iter = its iteration cap.

Both log-losses (mean training cross-entropy) and regularised objectives are
computed here by the same code from each side's weights.

Prints one table of ratios engine/peer and writes ENGINE_DIR/python.json.
"""

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
import sklearn
from sklearn.linear_model import LogisticRegression
from threadpoolctl import threadpool_info

from timing import percentiles  # dev/timing.py, beside this script


def time_calls(body, iterations, warmup=10):
    for _ in range(warmup):
        body()
    samples = []
    clock = time.perf_counter_ns
    for _ in range(iterations):
        start = clock()
        body()
        samples.append(clock() - start)
    return percentiles(samples)


def fitted_classifier(targets, columns, rng):
    """A LogisticRegression fitted on random data with `targets` classes and
    `columns` features. Above 2,000 classes a full fit of that shape takes
    minutes, so the estimator is fitted on 2,000 classes and its coefficients
    are then replaced by random ones of the full shape (predict_proba's cost
    depends only on the shapes)."""
    fit_classes = min(targets, 2000)
    x = rng.standard_normal((2 * fit_classes, columns))
    y = np.repeat(np.arange(fit_classes), 2)
    classifier = LogisticRegression(max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        classifier.fit(x, y)
    if fit_classes < targets:
        classifier.coef_ = rng.standard_normal((targets, columns)) * 0.01
        classifier.intercept_ = rng.standard_normal(targets) * 0.01
        classifier.classes_ = np.arange(targets)
    return classifier, fit_classes == targets


def scoring_peers(shape, rng):
    targets, columns, iterations = shape["targets"], shape["columns"], shape["iterations"]
    weights = rng.standard_normal((targets, columns))
    x = rng.random(columns)

    def numpy_top4():
        scores = weights @ x
        top = np.argpartition(scores, -4)[-4:]
        return top[np.argsort(-scores[top])]

    numpy_p50, numpy_p99 = time_calls(numpy_top4, iterations)

    # The engine's layout: a dense part plus one row of the transposed transition block.
    dense_columns = shape.get("dense_columns", columns - targets)
    dense = rng.standard_normal((targets, dense_columns))
    transitions_t = rng.standard_normal((targets, targets))   # row p: log-profile of "after p" for every target
    x_dense = rng.random(dense_columns)
    previous = int(rng.integers(targets))

    # Written as a competent numpy user would for a hot loop: buffers allocated
    # once (out=), the exponentials in place, and only the four returned
    # probabilities divided by the normaliser.
    scores = np.empty(targets)
    shifted = np.empty(targets)

    def fair_top4():
        np.dot(dense, x_dense, out=scores)
        np.add(scores, transitions_t[previous], out=scores)
        np.subtract(scores, scores.max(), out=shifted)
        np.exp(shifted, out=shifted)
        top = np.argpartition(scores, -4)[-4:]
        top = top[np.argsort(-scores[top])]
        return top, shifted[top] / shifted.sum()
    fair_p50, fair_p99 = time_calls(fair_top4, iterations)

    dense32 = dense.astype(np.float32)
    x32 = x_dense.astype(np.float32)
    scores32 = np.empty(targets, dtype=np.float32)

    def float32_top4():
        np.dot(dense32, x32, out=scores32)
        top = np.argpartition(scores32, -4)[-4:]
        return top[np.argsort(-scores32[top])]
    float32_p50, float32_p99 = time_calls(float32_top4, iterations)
    classifier, genuine = fitted_classifier(targets, columns, rng)
    sample = rng.random((1, columns))
    proba_p50, proba_p99 = time_calls(lambda: classifier.predict_proba(sample), iterations)
    return {
        "targets": targets, "columns": columns,
        "numpy_p50_us": numpy_p50, "numpy_p99_us": numpy_p99, "dense_columns": dense_columns,
        "fair_p50_us": fair_p50, "fair_p99_us": fair_p99,
        "float32_dense_p50_us": float32_p50, "float32_dense_p99_us": float32_p99,
        "predict_proba_p50_us": proba_p50, "predict_proba_p99_us": proba_p99,
        "predict_proba_fully_fitted": genuine,
    }


def log_softmax(logits):
    shifted = logits - logits.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def losses(x, y, coef, intercept, l2):
    """(mean log-loss, regularised objective) of a softmax model on (x, y)."""
    logits = x @ coef.T + intercept
    log_probabilities = log_softmax(logits)
    cross_entropy = -log_probabilities[np.arange(len(y)), y]
    total = float(cross_entropy.sum())
    return total / len(y), total + 0.5 * l2 * float((coef * coef).sum())


def training_peer(directory, training):
    rows, columns, targets = training["rows"], training["columns"], training["targets"]
    x = np.fromfile(os.path.join(directory, "X.f32"), dtype="<f4").reshape(rows, columns - 1).astype(np.float64)
    y = np.fromfile(os.path.join(directory, "y.i32"), dtype="<i4").astype(np.int64)
    engine_weights = np.fromfile(os.path.join(directory, "W.f64"), dtype="<f8").reshape(targets, columns)
    l2 = training["l2"]
    classifier = LogisticRegression(C=1.0 / l2, solver="lbfgs", tol=training["gradient_tolerance"],
                                    max_iter=training["max_iterations"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        classifier.fit(x, y)
        seconds = time.perf_counter() - start
    converged = not any("converge" in str(w.message).lower() for w in caught)
    engine_loss, engine_objective = losses(x, y, engine_weights[:, 1:], engine_weights[:, 0], l2)
    # classes_ are 0..targets-1 in order (every target occurs), so rows line up with the engine's.
    assert list(classifier.classes_) == list(range(targets)), "peer classes differ from engine targets"
    peer_loss, peer_objective = losses(x, y, classifier.coef_, classifier.intercept_, l2)
    return {
        "rows": rows, "features": columns - 1, "targets": targets, "C": 1.0 / l2,
        "tol": training["gradient_tolerance"], "max_iter": training["max_iterations"],
        "sklearn_seconds": seconds, "sklearn_iterations": int(np.max(classifier.n_iter_)),
        "sklearn_converged": converged,
        "engine_seconds": training["seconds"], "engine_iterations": training["iterations"],
        "engine_log_loss": engine_loss, "sklearn_log_loss": peer_loss,
        "engine_objective": engine_objective, "sklearn_objective": peer_objective,
    }


def ratio_table(engine, scoring, training):
    rows = []
    for shape, peer in zip(engine["shapes"], scoring):
        n = shape["targets"]
        rows.append((f"suggest p50 vs predict_proba p50, {n} targets", shape["suggest_p50_us"], peer["predict_proba_p50_us"], "us",
                     0.1 if n == 1000 else None))
        rows.append((f"suggest p50 vs fair numpy peer p50 (same layout, softmax, top 4), {n} targets", shape["suggest_p50_us"],
                     peer["fair_p50_us"], "us", 1 / 3 if n == 1000 else 0.5 if n == 10000 else None))
        rows.append((f"suggest p50 vs numpy float32 dense W@x+top4 p50 (no softmax), {n} targets", shape["suggest_p50_us"],
                     peer["float32_dense_p50_us"], "us", None))
        rows.append((f"suggest p50 vs numpy full-width W@x+top4 p50 (old peer), {n} targets", shape["suggest_p50_us"],
                     peer["numpy_p50_us"], "us", None))
        if "sgemv_dense_p50_us" in shape:
            rows.append((f"suggest p50 vs raw sgemv of the dense part p50, {n} targets", shape["suggest_p50_us"],
                         shape["sgemv_dense_p50_us"], "us", 2.0 if n == 1000 else None))
        if "dgemv_dense_p50_us" in shape:
            rows.append((f"suggest p50 vs raw dgemv of the dense part p50 (double precision; the engine stores the part in float32 and sums in double), {n} targets",
                         shape["suggest_p50_us"], shape["dgemv_dense_p50_us"], "us", None))
        rows.append((f"sgemv p50 (float32) vs numpy W@x+top4 p50, {n} targets", shape["sgemv_p50_us"], peer["numpy_p50_us"], "us", None))
    if training is None:
        return rows
    rows.append(("logistic training 100,000 x 200: wall time", training["engine_seconds"], training["sklearn_seconds"], "s", 0.5))
    # "Equal or better": within 0.1% of the peer's value, or lower.
    rows.append(("logistic training: mean log-loss", training["engine_log_loss"], training["sklearn_log_loss"], "", 1.001))
    rows.append(("logistic training: regularised objective", training["engine_objective"], training["sklearn_objective"], "", 1.001))
    return rows


def print_medians(directories):
    """Prints, per target count, the median over runs (each directory one run's engine.json
    and python.json) of the engine's suggest p50 and of the fair peer's p50, and the ratio
    of the medians (peer / engine: how many times faster the engine is)."""
    runs = []
    for directory in directories:
        with open(os.path.join(directory, "engine.json")) as handle:
            engine = json.load(handle)
        with open(os.path.join(directory, "python.json")) as handle:
            peer = json.load(handle)
        runs.append((engine["shapes"], peer["scoring"]))
    print(f"medians over {len(runs)} interleaved runs (p50 of each run)")
    print(f"{'targets':>8} {'engine suggest':>15} {'fair numpy peer':>16} {'peer/engine':>12}  per run (engine / peer us)")
    for index, shape in enumerate(runs[0][0]):
        engine_p50 = [shapes[index]["suggest_p50_us"] for shapes, _ in runs]
        peer_p50 = [scoring[index]["fair_p50_us"] for _, scoring in runs]
        engine_median, peer_median = float(np.median(engine_p50)), float(np.median(peer_p50))
        each = ", ".join(f"{e:.1f} / {p:.1f}" for e, p in zip(engine_p50, peer_p50))
        print(f"{shape['targets']:>8} {engine_median:>12.2f} us {peer_median:>13.2f} us {peer_median / engine_median:>11.2f}x  {each}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine_dir", nargs="+", help="directory with engine.json, X.f32, y.i32, W.f64 (several with --medians)")
    parser.add_argument("--scoring-only", action="store_true", help="time the scoring peers only (no training comparison)")
    parser.add_argument("--medians", action="store_true",
                        help="only print the medians of finished runs (each directory holds engine.json and python.json)")
    args = parser.parse_args()
    if args.medians:
        print_medians(args.engine_dir)
        return
    if len(args.engine_dir) != 1:
        parser.error("one engine directory (several only with --medians)")
    args.engine_dir = args.engine_dir[0]

    with open(os.path.join(args.engine_dir, "engine.json")) as handle:
        engine = json.load(handle)
    rng = np.random.default_rng(7)
    blas = [f"{info.get('internal_api')} {info.get('version')} {info.get('architecture')} threads={info.get('num_threads')}"
            for info in threadpool_info()]
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, scikit-learn {sklearn.__version__}; BLAS: {'; '.join(blas)}")
    print(f"engine: {engine['blas']}")

    scoring = [scoring_peers(shape, rng) for shape in engine["shapes"]]
    training = None if args.scoring_only else training_peer(args.engine_dir, engine["training"])

    rows = ratio_table(engine, scoring, training)
    print()
    print(f"{'comparison':<58} {'engine':>14} {'peer':>14} {'engine/peer':>12}  target")
    for name, ours, theirs, unit, target in rows:
        ratio = ours / theirs if theirs else float("nan")
        verdict = "" if target is None else (f"<= {target:.4g}: " + ("met" if ratio <= target else "MISSED"))
        print(f"{name:<58} {ours:>12.6g}{unit:>2} {theirs:>12.6g}{unit:>2} {ratio:>12.4f}  {verdict}")
    print()
    if training is not None:
        print(f"sklearn: {training['sklearn_iterations']} lbfgs iterations (converged: {training['sklearn_converged']}); "
              f"engine: {training['engine_iterations']} L-BFGS iterations; C = 1/l2 = {training['C']:g}, tol = {training['tol']:g}")

    result = {"python": sys.version.split()[0], "numpy": np.__version__, "sklearn": sklearn.__version__, "blas": blas,
              "scoring": scoring, "training": training,
              "ratios": [{"name": name, "engine": ours, "peer": theirs, "unit": unit,
                          "ratio": ours / theirs if theirs else None, "target": target}
                         for name, ours, theirs, unit, target in rows]}
    with open(os.path.join(args.engine_dir, "python.json"), "w") as handle:
        json.dump(result, handle, indent=2)


if __name__ == "__main__":
    main()
