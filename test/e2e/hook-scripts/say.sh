# A run hook that answers with its first argument (a dial object such as {"advise":"text"}, or any
# text) after reading its stdin. With a second argument it saves the payload it got there first, so
# a test can read what the hook received. Run as ["sh", ".../say.sh", ANSWER, FILE?].
if [ -n "$2" ]; then cat > "$2"; else cat > /dev/null; fi
printf '%s\n' "$1"
