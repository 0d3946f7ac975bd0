#!/usr/bin/env bash
# check_tree.sh — fails when the source tree keeps a diary or cites the course by number.
# Comments and printed text say what is true now and why, and name concepts, because a reader
# has neither the git history in their head nor the course documents. Two kinds of marker:
#   diary:  "session 12", "round 3", "issue 11", "issue §2", a commit hash ("before 582fa81"),
#           an old timing ("was 7.0 ms", "2.38 -> 1.64 ms") or a speed-up quoted without
#           its command ("1.04x", "3x faster");
#   course: "seed 003", "seed003", "Seed 004" and the section sign.
# Looks at every tracked *.cpp *.hpp *.sh *.py *.js *.html *.css, the Makefile and .ci/run,
# except test fixtures (bytes, not prose) and this file (it spells the markers out).
# Prints each offending line as path:line:text and exits 1 if there is any, else exits 0.
#   tools/check_tree.sh            # from anywhere inside the repository
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

diary='\b([Ss]ession|[Rr]ound) [0-9]+\b'
diary+='|\b[Ii]ssues? #?[0-9]+|\b[Ii]ssue §'
diary+='|\b(?i:before|after|since|at|in|commit|from) (?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b'
diary+='|\b(was|were) ~?[0-9][0-9.]* ?(ms|us|µs|s|x)\b'
diary+='|\b[0-9][0-9.]* ?(ms|us|µs|s) ?(->|→) ?[0-9][0-9.]* ?(ms|us|µs|s)\b'
diary+='|(?<!["\x27])\b[0-9]+\.[0-9]+x\b'
diary+='|\b[0-9][0-9.]*x (faster|slower|as fast|quicker)\b'
course='\b[Ss]eeds? ?_?00[0-4]|\b[Ss]eed00[0-4]|§'

mapfile -d '' files < <(git ls-files -z -- '*.cpp' '*.hpp' '*.sh' '*.py' '*.js' '*.html' '*.css' \
                                          Makefile .ci/run ':!tests/fixtures/**' ':!tools/check_tree.sh')
[ "${#files[@]}" -gt 0 ] || { echo "check_tree: no tracked source found (run inside the repository)"; exit 2; }

if grep -nHP -- "$diary|$course" "${files[@]}"; then
    echo "check_tree: the lines above keep a diary or cite the course by number;" \
         "say what is true now and why, and name the concept" >&2
    exit 1
fi
echo "check_tree: ${#files[@]} files, no diary markers, no course citations"
