#!/usr/bin/env python3
"""Hindsight grid for issue 14's fourth pass (docs/RESULTS.md): which fixed blend weights rank a log best.

usage: hindsight-grid.py PROACTIVE_BINARY TRAIN TEST TARGET [evaluate options...]

Needs a proactive binary built with issue14-fourth-pass.patch applied (the PROACTIVE_X_ORACLE switch:
the blend's weights fixed, never refitted or guarded). Every mix a*profile + b*markov + c*mru + d*mfu
of the simple models the guard compares (WeightGuard.simpleModels), a, b, c, d in {0, 0.5, 1, 2},
is evaluated online on the test log; TARGET is "hit@1/hit@4/mrr" (the best baseline), and the script
prints how many mixes reach it, the best mixes by mrr, and the best hit@1 and hit@4 reached.
The test log chooses the weights here: an upper bound on what choosing among these mixes could give, not a model.
"""
import itertools
import json
import math
import os
import subprocess
import sys
import tempfile

FEATURES = 33  # BlendFeature.count at the patch's commit


def only(pairs):
    weights = [0.0] * FEATURES
    for index, value in pairs:
        weights[index] = value
    return weights


PROFILE = only([(0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (29, 3)])  # BlendFeature.defaultWeights
MARKOV = only([(8, 1), (9, 1), (10, 1), (31, 0.25)])
MRU = only([(11 + k, -math.log(k + 1)) for k in range(8)] + [(19, -math.log(9)), (21, -0.1)])
MFU = only([(31, 1)])


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__.strip())
    binary, train, test, target = sys.argv[1:5]
    extra = sys.argv[5:]
    goal = [float(x) for x in target.split("/")]
    results = []
    values = [0, 0.5, 1, 2]
    with tempfile.TemporaryDirectory() as directory:
        report = os.path.join(directory, "report.json")
        for mix in itertools.product(values, repeat=4):
            if not any(mix):
                continue
            weights = [sum(m * w[i] for m, w in zip(mix, (PROFILE, MARKOV, MRU, MFU))) for i in range(FEATURES)]
            environment = dict(os.environ, PROACTIVE_X_ORACLE=",".join("%.6f" % x for x in weights), OPENBLAS_NUM_THREADS="1")
            subprocess.run([binary, "evaluate", "--train", train, "--test", test, "--model", "blend", "--quiet", "--online",
                            "--report", report] + extra, env=environment, stdout=subprocess.DEVNULL, check=True)
            with open(report) as file:
                scores = json.load(file)
            results.append((mix, scores["hit@1"], scores["hit@4"], scores["mrr"]))
    meets = [r for r in results if all(r[i + 1] >= goal[i] - 1e-9 for i in range(3))]
    both_hits = [r for r in results if r[1] >= goal[0] - 1e-9 and r[2] >= goal[1] - 1e-9]
    print(f"mixes {len(results)}; reaching the target on all three metrics: {len(meets)}; on hit@1 and hit@4: {len(both_hits)}")
    for mix, hit1, hit4, mrr in sorted(results, key=lambda r: -r[3])[:8]:
        print(f"  profile {mix[0]} markov {mix[1]} mru {mix[2]} mfu {mix[3]}: {hit1:.3f} / {hit4:.3f} / {mrr:.3f}")
    print(f"best hit@1 {max(r[1] for r in results):.3f}, best hit@4 {max(r[2] for r in results):.3f}, "
          f"best mrr {max(r[3] for r in results):.3f}")


if __name__ == "__main__":
    main()
