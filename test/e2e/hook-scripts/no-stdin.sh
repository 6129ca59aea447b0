# A run hook that never reads its stdin, waits a moment (long enough for a writer that blocks on a
# full pipe to be stuck), then answers with advice. Run as ["sh", ".../no-stdin.sh", MARKER].
sleep 0.3
printf '%s\n' '{"advise":"answered without reading stdin"}'
