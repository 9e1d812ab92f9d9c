#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# What would monotone constraints cost? Leave-one-GPU-out on train's exported features, with
# XGBoost (Debian's python3-xgboost) at the transfer_compare sample's settings (depth 7, 150
# rounds at 0.3), one model per family over every source, four targets and constraint sets:
#   ratio      log(measured / baseline): the learned model's target (no constraints possible)
#   logtime    log(measured), every feature
#   mono       log(measured), +1 constraints on the work features (sizes, flops, bytes, times)
#   mono_drop  mono without the features that move either way with work (efficiencies,
#              occupancy, residues), so that more work can never predict less time
# research/notes/accuracy-details.md, "Fallback". Usage:
#   build/cnnperf train --data datasets/layers_neusight.csv.gz datasets/layers_mlpredict.csv.gz \
#     --max-rows 40000 --seed 42 --cv leave-gpu-out --export-features /tmp/feat_logo.csv
#   /usr/bin/python3 research/monotone_target_study.py /tmp/feat_logo.csv
import csv, math, sys
import numpy as np
import xgboost as xgb
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[0]; rows = rows[1:]
col = {n: i for i, n in enumerate(hdr)}
feat_names = hdr[4:hdr.index('baseline_ms')]
WORK = ['log2_batch','log2_c_in','log2_c_out','log2_h_in','log2_w_in','log2_h_out','kernel_h','kernel_w',
        'log2_flops','log2_bytes','log2_roofline_ms','log2_analytical_ms','log2_compute_ms','log2_memory_ms',
        'log2_waves','log2_gemm_m','log2_gemm_n','log2_gemm_k']
NONMONO = ['tile_efficiency','wave_efficiency','occupancy','winograd','c_in_mod32','c_out_mod32','log2_intensity']
params = dict(max_depth=7, eta=0.3, tree_method='hist', nthread=2, verbosity=0)
def run(family, variant):
    R = [r for r in rows if r[0] == family]
    names = [n for n in feat_names if not (variant == 'mono_drop' and n in NONMONO)]
    X = np.array([[float(r[col[n]]) for n in names] for r in R])
    y_ratio = np.array([float(r[col['log_ratio']]) for r in R])
    base = np.array([float(r[col['baseline_ms']]) for r in R])
    lat = np.array([float(r[col['latency_ms']]) for r in R])
    fold = np.array([int(r[col['fold']]) for r in R])
    pred = np.zeros(len(R))
    p = dict(params)
    if variant.startswith('mono'):
        p['monotone_constraints'] = '(' + ','.join('1' if n in WORK else '0' for n in names) + ')'
    for f in sorted(set(fold)):
        tr = fold != f; te = fold == f
        y = y_ratio if variant == 'ratio' else np.log(lat)
        d = xgb.DMatrix(X[tr], label=y[tr])
        b = xgb.train(p, d, num_boost_round=150)
        out = b.predict(xgb.DMatrix(X[te]))
        pred[te] = base[te] * np.exp(out) if variant == 'ratio' else np.exp(out)
    return 100 * np.mean(np.abs(pred - lat) / lat), len(R)
for fam in ['conv', 'gemm', 'pointwise']:
    res = {v: run(fam, v) for v in ['ratio', 'logtime', 'mono', 'mono_drop']}
    print(fam, res['ratio'][1], ' '.join('%s=%.1f' % (v, r[0]) for v, r in res.items()), flush=True)
