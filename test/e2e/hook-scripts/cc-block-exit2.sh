# A Claude Code PreToolUse guard in the exit-code style, unmodified: it reads the hook input on stdin
# and blocks deletions by exiting 2 with the reason on stderr; anything else is allowed (exit 0).
input=$(cat)
case "$input" in
  *'"tool_name":"mcp__fake__delete_item"'*)
    echo "Blocked by policy: deleting items needs a human" >&2
    exit 2
    ;;
esac
exit 0
