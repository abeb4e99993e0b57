#!/bin/bash
# The index classifier trained on a leased GPU machine in one call (datasets/recipes/card_models.md,
# "On a leased GPU"). Run from the repository root there, with `.gpu/` carried:
#   .gpu/faces/                  the training face styles (masta data faces --out .gpu/faces --styles ...)
#   .gpu/crops-real-packed.npz   the real photos' crops (python -m training.train_mix pack ...)
# It draws synthetic pots and 1280x720 table videos in those styles on the machine's cores, then
# trains two classifiers at once until the deadline: one from the committed model (its ONNX
# export), one from scratch. Checkpoints land in $OUT every minute, so a cut-short run still
# returns weights. Knobs: SYNTH, VIDEOS, WORKERS, DEADLINE (seconds after start, default 520).
set -u
OUT=${OUT:-/tmp/gpu-out}
mkdir -p "$OUT"
T0=$(date +%s)
DEADLINE=${DEADLINE:-520}
export MASTA_FACE_CACHE=$PWD/.gpu/faces MASTA_SHARED_DATA=/nonexistent PYTHONUNBUFFERED=1
PY=${PY:-python3}
W=${WORK:-/tmp/mix}
STYLES=$(ls .gpu/faces | sed 's/\.npz$//' | paste -sd, -)
{ nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>&1; echo "cores $(nproc)";
  $PY -c "import torch, cv2, numpy; print('torch', torch.__version__, 'cuda', torch.cuda.is_available(), 'cv2', cv2.__version__)"; } \
  2>&1 | tee "$OUT/prepare.log"
$PY -c "import training.train_mix, datasets.game_video" || { echo "cannot import the trainer" | tee -a "$OUT/prepare.log"; exit 3; }
$PY -m training.train_mix prepare --work "$W" --styles "$STYLES" --synth-count "${SYNTH:-4000}" \
    --video-count "${VIDEOS:-28}" --workers "${WORKERS:-16}" --real-packed .gpu/crops-real-packed.npz \
    2>&1 | tee -a "$OUT/prepare.log"
LEFT=$(( DEADLINE - ($(date +%s) - T0) - 25 ))
MIN=$($PY -c "print(max(0.5, $LEFT / 60))")
echo "training two classifiers for $MIN minutes" | tee -a "$OUT/prepare.log"
TW=$(( (${WORKERS:-16} - 2) / 2 ))
$PY -m training.train_mix train --work "$W" --out "$OUT/cls-ft.pt" --init models/float/card_index_classifier.onnx \
    --lr 1e-3 --minutes "$MIN" --workers "$TW" --seed 1 > "$OUT/train-ft.log" 2>&1 &
$PY -m training.train_mix train --work "$W" --out "$OUT/cls-scratch.pt" --lr 3e-3 --minutes "$MIN" \
    --workers "$TW" --seed 2 > "$OUT/train-scratch.log" 2>&1 &
wait
tail -n 4 "$OUT/train-ft.log" "$OUT/train-scratch.log"
echo "done in $(( $(date +%s) - T0 )) s"
