#!/bin/sh
# A recorded model for `mini ask --model-cmd`: it reads the prompt on its
# standard input and answers with the recorded answer of this call
# (answers/<MINI_CALL>.txt). The three answers replay what long answers do:
# the first has a broken line and is cut at the output limit, the second
# repairs that line, the third writes the missing records.
#   mini ask -p quiz --forks examples/forks --task-file examples/model/task.txt \
#       --model-cmd "sh examples/model/replay.sh"
dir=$(dirname "$0")
cat > /dev/null
answer="$dir/answers/${MINI_CALL:-1}.txt"
if [ ! -f "$answer" ]; then
    echo "replay.sh: no recorded answer for call ${MINI_CALL:-1}" >&2
    exit 1
fi
cat "$answer"
