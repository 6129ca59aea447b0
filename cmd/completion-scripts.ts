// The shell completion scripts of `mcpx completion`, rendered from one plain model (built by
// cmd/completion.ts from the command table and the settings registry), so a command, a flag or a
// setting's accepted values added there completes in every shell with no edit here.

export interface CompletionFlag {
  /** without the leading dashes */
  name: string;
  /** a switch takes no value */
  takesValue: boolean;
  /** the accepted values (an enum setting, a bool), when known */
  values?: readonly string[];
  description: string;
}

export interface CompletionCommand {
  name: string;
  description: string;
  flags: CompletionFlag[];
  /** the words a first positional may be (config add, settings get, …) */
  actions: readonly string[];
  /** what a positional after the actions completes to */
  operand: "files" | "settings" | "none";
}

export interface CompletionModel {
  commands: CompletionCommand[];
  /** every setting path, for mcpx settings get PATH */
  settingPaths: readonly string[];
}

/** one short line of a description: what fits beside a completion */
function short(text: string): string {
  const first = text.split(/[.;:,]\s|\s\(/)[0] ?? text;
  return first.length > 70 ? `${first.slice(0, 67)}...` : first;
}

const words = (list: readonly string[]) => list.join(" ");

export function bashScript(m: CompletionModel): string {
  const cases = m.commands.map((c) => {
    const flags = words(c.flags.map((f) => `--${f.name}`));
    const valued = c.flags.filter((f) => f.takesValue).map((f) => `--${f.name}`);
    return `    ${c.name}) flags="${flags}"; valued=" ${words(valued)} "; actions="${words(c.actions)}"; operand=${c.operand} ;;`;
  });
  const enumFlags = new Map<string, readonly string[]>();
  for (const c of m.commands) for (const f of c.flags) if (f.values) enumFlags.set(f.name, f.values);
  const valueCases = [...enumFlags].map(([name, values]) => `    --${name}) COMPREPLY=($(compgen -W "${words(values)}" -- "$cur")); return ;;`);
  return `# mcpx completion for bash: source <(mcpx completion bash), or write it to
# ~/.local/share/bash-completion/completions/mcpx. Generated from mcpx's command table and settings.
_mcpx() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" cmd="" i
  local flags="" valued="" actions="" operand=none
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      --config) ((i++)) ;;
      -*) ;;
      *) cmd="\${COMP_WORDS[i]}"; break ;;
    esac
  done
  if [[ -z "$cmd" ]]; then
    if [[ "$prev" == --config ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
    COMPREPLY=($(compgen -W "${words(m.commands.map((c) => c.name))} --config --help --version" -- "$cur"))
    return
  fi
  case "$cmd" in
${cases.join("\n")}
    *) return ;;
  esac
  case "$prev" in
${valueCases.join("\n")}
  esac
  if [[ "$valued" == *" $prev "* ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$flags --help" -- "$cur")); return; fi
  local positional=0
  for ((i = i + 1; i < COMP_CWORD; i++)); do
    [[ "\${COMP_WORDS[i]}" == -* ]] && { [[ "$valued" == *" \${COMP_WORDS[i]} "* ]] && ((i++)); continue; }
    ((positional++))
  done
  if [[ -n "$actions" && $positional -eq 0 ]]; then COMPREPLY=($(compgen -W "$actions" -- "$cur")); return; fi
  case "$operand" in
    files) COMPREPLY=($(compgen -f -- "$cur")) ;;
    settings) COMPREPLY=($(compgen -W "${words(m.settingPaths)}" -- "$cur")) ;;
  esac
}
complete -o default -F _mcpx mcpx
`;
}

/** a zsh _arguments spec, quoted: no ', [ or ] of its own in the text */
const zq = (s: string) => s.replace(/['[\]:\\]/g, " ");

export function zshScript(m: CompletionModel): string {
  const commands = m.commands.map((c) => `    '${c.name}:${zq(short(c.description))}'`);
  const cases = m.commands.map((c) => {
    const specs = c.flags.map((f) => {
      const desc = zq(short(f.description));
      if (!f.takesValue) return `'--${f.name}[${desc}]'`;
      const action = f.values ? `(${words(f.values)})` : "_files";
      return `'*--${f.name}=[${desc}]:value:${action}'`;
    });
    const operand =
      c.actions.length > 0
        ? `'1:action:(${words(c.actions)})' '*:operand:${c.operand === "settings" ? `(${words(m.settingPaths)})` : "_files"}'`
        : c.operand === "none"
          ? ""
          : `'*:file:${c.operand === "settings" ? `(${words(m.settingPaths)})` : "_files"}'`;
    return `    ${c.name}) _arguments ${[...specs, operand].filter(Boolean).join(" ")} ;;`;
  });
  return `#compdef mcpx
# mcpx completion for zsh: source <(mcpx completion zsh) after compinit, or write it as _mcpx in a
# directory of $fpath. Generated from mcpx's command table and settings.
_mcpx() {
  local -a commands
  commands=(
${commands.join("\n")}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  shift words
  (( CURRENT-- ))
  case $cmd in
${cases.join("\n")}
  esac
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _mcpx "$@"; else compdef _mcpx mcpx; fi
`;
}

/** a fish single-quoted string */
const fq = (s: string) => `'${s.replace(/\\/g, "\\\\").replace(/'/g, "\\'")}'`;

export function fishScript(m: CompletionModel): string {
  const lines = ["# mcpx completion for fish: mcpx completion fish > ~/.config/fish/completions/mcpx.fish", "complete -c mcpx -f"];
  for (const c of m.commands) lines.push(`complete -c mcpx -n __fish_use_subcommand -a ${c.name} -d ${fq(short(c.description))}`);
  for (const c of m.commands) {
    const when = `-n '__fish_seen_subcommand_from ${c.name}'`;
    for (const f of c.flags) {
      const value = f.values ? ` -x -a ${fq(words(f.values))}` : f.takesValue ? " -r -F" : "";
      lines.push(`complete -c mcpx ${when} -l ${f.name}${value} -d ${fq(short(f.description))}`);
    }
    if (c.actions.length) lines.push(`complete -c mcpx ${when} -a ${fq(words(c.actions))}`);
    if (c.operand === "files") lines.push(`complete -c mcpx ${when} -F`);
    if (c.operand === "settings") lines.push(`complete -c mcpx ${when} -a ${fq(words(m.settingPaths))}`);
  }
  return lines.join("\n") + "\n";
}
