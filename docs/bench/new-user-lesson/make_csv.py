"""How the new user of issue #70 made patients.csv for their lesson (as they wrote it, from the guide alone)."""

import numpy as np

rng = np.random.default_rng(7)
n = 150
label = np.array(["healthy"] * 75 + ["ill"] * 75)
y = (label == "ill").astype(float)
# Two kinds of patients: for "type A" (first half of each class) the blood test shows the illness,
# for "type B" the scan shows it. The "diary" view is pure noise.
kind_a = np.tile(np.r_[np.ones(38), np.zeros(37)], 2).astype(bool)
blood = rng.normal(0, 1, (n, 3))
scan = rng.normal(0, 1, (n, 3))
diary = rng.normal(0, 1, (n, 3))
blood[kind_a] += 2.0 * y[kind_a, None]
scan[~kind_a] += 2.0 * y[~kind_a, None]
# the blood view's 'marker' says which kind a patient is (so neighbours in the blood view find their kind)
marker = np.where(kind_a, 1.0, -1.0) + rng.normal(0, 0.3, n)
cols = ["label"] + [f"blood.{c}" for c in ("sugar", "iron", "crp")] + ["blood.marker"] \
     + [f"scan.{c}" for c in ("width", "density", "contrast")] + [f"diary.{c}" for c in ("sleep", "steps", "mood")]
order = rng.permutation(n)
with open("patients.csv", "w") as f:
    f.write(",".join(cols) + "\n")
    for i in order:
        row = [label[i]] + [f"{v:.3f}" for v in np.r_[blood[i], marker[i], scan[i], diary[i]]]
        f.write(",".join(row) + "\n")
