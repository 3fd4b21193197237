package main

import (
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"
)

// The bash and zsh scripts are urfave/cli v2's autocomplete/bash_autocomplete
// and zsh_autocomplete (MIT) with the program named: they ask reqa itself
// for the candidates (`reqa … --generate-bash-completion`, which the app's
// EnableBashCompletion answers from the command definitions), so they
// follow the commands and flags of the binary that runs them.
const bashCompletion = `# bash completion for reqa (reqa completion bash)
_reqa_init_completion() {
  COMPREPLY=()
  _get_comp_words_by_ref "$@" cur prev words cword
}

_reqa_bash_autocomplete() {
  if [[ "${COMP_WORDS[0]}" != "source" ]]; then
    local cur opts base words cword requestComp
    COMPREPLY=()
    cur="${COMP_WORDS[COMP_CWORD]}"
    if declare -F _init_completion >/dev/null 2>&1; then
      _init_completion -n "=:" || return
    else
      _reqa_init_completion -n "=:" || return
    fi
    words=("${words[@]:0:$cword}")
    if [[ "$cur" == "-"* ]]; then
      requestComp="${words[*]} ${cur} --generate-bash-completion"
    else
      requestComp="${words[*]} --generate-bash-completion"
    fi
    opts=$(eval "${requestComp}" 2>/dev/null)
    COMPREPLY=($(compgen -W "${opts}" -- ${cur}))
    return 0
  fi
}

complete -o bashdefault -o default -o nospace -F _reqa_bash_autocomplete reqa
`

// As a file _reqa in $fpath it defines and runs the completion function; sourced, it
// registers it.
const zshCompletion = `#compdef reqa
# zsh completion for reqa (reqa completion zsh)

_reqa() {
  local -a opts
  local cur
  cur=${words[-1]}
  if [[ "$cur" == "-"* ]]; then
    opts=("${(@f)$(${words[@]:0:#words[@]-1} ${cur} --generate-bash-completion)}")
  else
    opts=("${(@f)$(${words[@]:0:#words[@]-1} --generate-bash-completion)}")
  fi

  if [[ "${opts[1]}" != "" ]]; then
    _describe 'values' opts
  else
    _files
  fi
}

if [[ "${funcstack[1]}" == "_reqa" ]]; then
  _reqa "$@"
else
  compdef _reqa reqa
fi
`

// completionShells are the shells `reqa completion` writes scripts for.
var completionShells = []string{"bash", "zsh", "fish"}

// completionScript returns the completion script for shell, generated from
// app's definitions (fish) or asking the binary at completion time (bash,
// zsh).
func completionScript(app *cli.App, shell string) (string, error) {
	switch shell {
	case "bash":
		return bashCompletion, nil
	case "zsh":
		return zshCompletion, nil
	case "fish":
		s, err := app.ToFishCompletion()
		if err != nil {
			return "", fmt.Errorf("completion: fish: %w", err)
		}
		return s, nil
	}
	return "", usagef("completion: unknown shell %q (want %s)", shell, strings.Join(completionShells, ", "))
}

func completionCommand() *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "print a shell completion script (bash, zsh or fish)",
		ArgsUsage: "SHELL",
		Description: "bash: source <(reqa completion bash), or save it as /usr/share/bash-completion/completions/reqa\n" +
			"zsh:  save it as _reqa in a directory of $fpath\n" +
			"fish: reqa completion fish > ~/.config/fish/completions/reqa.fish",
		Flags:        []cli.Flag{jsonFlag(`print {"shell", "script"} as JSON`), quietFlag()},
		OnUsageError: onUsage,
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion: want one SHELL (%s)", strings.Join(completionShells, ", "))
			}
			s, err := completionScript(c.App, c.Args().First())
			if err != nil {
				return err
			}
			if c.Bool("json") {
				return writeJSON(c.App.Writer, map[string]string{"shell": c.Args().First(), "script": s})
			}
			_, err = fmt.Fprint(c.App.Writer, s)
			return err
		},
	}
}
