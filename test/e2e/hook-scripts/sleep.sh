# A run hook that never reads its stdin and never answers: it sleeps far past any hook timeout, with
# a background child of its own, so ending only the hook's process (not its group) would leave the
# child behind. Run as ["sh", ".../sleep.sh", MARKER] so the marker is in its command line.
sleep 30 &
sleep 30
