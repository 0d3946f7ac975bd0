#!/usr/bin/env bash
# shakespeare.sh — `make shakespeare`: nanoGPT's CPU recipe for tiny Shakespeare, trained by attnlab.
#
# The recipe is the one nanoGPT's README gives for a laptop without a GPU (characters, 4 layers,
# 4 heads, d_model 128, context 64, batch 12, 2000 steps, AdamW lr 1e-3 after 100 warm-up steps,
# cosine to 1e-4, betas (0.9, 0.99), weight decay 0.1, gradient clip 1.0, no dropout). nanoGPT
# reports a validation loss of about 1.88 at step 2000 for it; this script prints ours beside it.
#
#   tools/shakespeare.sh BUILD_DIR OUT_DIR     (the Makefile passes build/ and out/shakespeare)
#
# It trains only when OUT_DIR/shakespeare_char.safetensors is missing (delete it to train again),
# then prints samples and draws the heads on a line of the play, with an explorer page.
set -euo pipefail
build=${1:?usage: tools/shakespeare.sh BUILD_DIR OUT_DIR}
out=${2:?usage: tools/shakespeare.sh BUILD_DIR OUT_DIR}
tinygpt=$build/tinygpt
ckpt=$out/shakespeare_char.safetensors
corpus=data/tinyshakespeare.txt
mkdir -p "$out"

if [ ! -f "$ckpt" ]; then
  start=$(date +%s.%N)
  "$tinygpt" train --corpus "$corpus" --tokens chars --layers 4 --heads 4 --d-model 128 --context 64 \
    --batch 12 --steps 2000 --lr 1e-3 --warmup 100 --min-lr-ratio 0.1 --beta1 0.9 --beta2 0.99 \
    --weight-decay 0.1 --clip 1 --dropout 0 --eval-every 250 --seed 0 --out "$ckpt"
  end=$(date +%s.%N)
  awk -v s="$start" -v e="$end" -v t="${ATTNLAB_NUM_THREADS:-all cores}" \
    'BEGIN { printf "shakespeare: trained in %.1f s (threads: %s); nanoGPT quotes about 3 minutes on a MacBook\n", e - s, t }'
else
  echo "shakespeare: $ckpt exists (delete it to train again)"
fi

# The validation loss at the last evaluation, from the run's own loss curve (step, loss, val_loss).
csv=$out/shakespeare_char.loss.csv
awk -F, 'NR > 1 && $3 != "" && $3 != "nan" { step = $1; val = $3 }
         END { printf "shakespeare: validation loss %.4f at step %d (nanoGPT: about 1.88 at step 2000)\n", val, step }' "$csv"

echo "--- samples (temperature 0.8, top-k 40, a sliding window past the 64-character context)"
for prompt in "ROMEO:" "First Citizen:"; do
  "$tinygpt" generate --checkpoint "$ckpt" --prompt "$prompt" --tokens 250 --temperature 0.8 --top-k 40 --seed 1 --slide
  echo
done

# A line of the play (Richard III's opening), as the heads see it; explorer.html runs the model live.
"$tinygpt" show --checkpoint "$ckpt" --prompt "Now is the winter of our discontent" --out "$out/heads"
echo "shakespeare: open $out/heads/explorer.html"
